"""Seat tokens: random, shown once, stored only as a hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh seat token: 256 bits from the OS CSPRNG as hex (never starts with '-', so
    command lines take it as a value)."""
    return secrets.token_hex(32)


def token_hash(token: str) -> str:
    """What the store keeps of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hash_matches(presented_hash: str, stored_hash: str | None) -> bool:
    """Constant-time comparison of a presented token's hash with a stored hash."""
    return bool(stored_hash) and hmac.compare_digest(presented_hash, stored_hash or "")


def bearer_token(metadata: dict[str, str]) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header, if present."""
    value = metadata.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
