"""Helpers of the security tests (the certificates they make are in tests/security/certs.py)."""

from __future__ import annotations

from bezique.v1 import table_service_pb2 as pb


def tampered(history: pb.GetHistoryResponse) -> pb.GetHistoryResponse:
    """A copy of ``history`` for a test to forge; the original stays as the server sent it."""
    copy = pb.GetHistoryResponse()
    copy.CopyFrom(history)
    return copy
