"""A small browser-protocol client for the tests: Connect (proto, JSON, streaming) and gRPC-Web
(binary, text) over httpx, with its own framing code (not the server's)."""

from __future__ import annotations

import base64
import json as json_module
import struct
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from google.protobuf import any_pb2, json_format
from google.protobuf.message import Message
from google.rpc import status_pb2

from bezique.v1 import table_service_pb2 as pb

SERVICE = "/bezique.v1.TableService/"
M = TypeVar("M", bound=Message)


@dataclass
class Failure(Exception):
    """A failed call as the browser sees it."""

    http_status: int
    code: str
    message: str
    details: list[any_pb2.Any] = field(default_factory=list)


def frame(flags: int, payload: bytes) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def frames(data: bytes) -> list[tuple[int, bytes]]:
    found, offset = [], 0
    while offset < len(data):
        flags, size = struct.unpack_from(">BI", data, offset)
        found.append((flags, data[offset + 5:offset + 5 + size]))
        offset += 5 + size
    assert offset == len(data), "a torn frame"
    return found


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def connect_failure(http_status: int, error: dict[str, Any]) -> Failure:
    details = []
    for item in error.get("details", []):
        details.append(any_pb2.Any(type_url="type.googleapis.com/" + item["type"],
                                   value=_unb64(item["value"])))
    return Failure(http_status, error["code"], error.get("message", ""), details)


def trailer_map(payload: bytes) -> dict[str, str]:
    lines = payload.decode().split("\r\n")
    return {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines if ln)}


def grpc_web_failure(trailers: dict[str, str]) -> Failure | None:
    code = int(trailers["grpc-status"])
    if code == 0:
        return None
    details: list[any_pb2.Any] = []
    if "grpc-status-details-bin" in trailers:
        status = status_pb2.Status.FromString(_unb64(trailers["grpc-status-details-bin"]))
        assert status.code == code
        details = list(status.details)
    return Failure(200, str(code), urllib.parse.unquote(trailers.get("grpc-message", "")),
                   details)


def _path(method: str) -> str:
    """A method of TableService by name, or any service's method by its full path."""
    return method if method.startswith("/") else SERVICE + method


def _headers(token: str | None, extra: dict[str, str] | None) -> dict[str, str]:
    headers = dict(extra or {})
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return headers


class Web:
    """Calls onto one server's HTTP port."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def connect(self, method: str, request: Message, reply: type[M], *,
                      json: bool = False, token: str | None = None,
                      headers: dict[str, str] | None = None) -> M:
        """A Connect unary call (binary, or JSON with ``json=True``)."""
        sent = _headers(token, headers)
        sent["content-type"] = "application/json" if json else "application/proto"
        sent["connect-protocol-version"] = "1"
        body = (json_format.MessageToJson(request).encode() if json
                else request.SerializeToString())
        answer = await self.http.post(_path(method), content=body, headers=sent)
        if answer.status_code != 200:
            assert answer.headers["content-type"] == "application/json"
            raise connect_failure(answer.status_code, answer.json())
        if json:
            assert answer.headers["content-type"] == "application/json"
            return json_format.Parse(answer.content, reply())
        assert answer.headers["content-type"] == "application/proto"
        return reply.FromString(answer.content)

    async def grpc_web(self, method: str, request: Message, reply: type[M], *,
                       token: str | None = None, text: bool = False) -> M:
        """A gRPC-Web unary call (binary, or the base64 text mode)."""
        messages = [m async for m in self.grpc_web_stream(method, request, reply, token=token,
                                                           text=text)]
        assert len(messages) == 1
        return messages[0]

    async def grpc_web_stream(self, method: str, request: Message, reply: type[M], *,
                              token: str | None = None, text: bool = False,
                              headers: dict[str, str] | None = None) -> AsyncIterator[M]:
        kind = "application/grpc-web-text+proto" if text else "application/grpc-web+proto"
        sent = _headers(token, {**(headers or {}), "content-type": kind, "x-grpc-web": "1"})
        body = frame(0, request.SerializeToString())
        async with self.http.stream("POST", _path(method),
                                    content=base64.b64encode(body) if text else body,
                                    headers=sent) as answer:
            assert answer.status_code == 200
            assert answer.headers["content-type"] == kind
            assert answer.http_version == "HTTP/1.1"
            data, pending = b"", b""
            async for chunk in answer.aiter_bytes():
                if text:  # each chunk is padded base64 of its own: decode 4 characters at once
                    pending += chunk
                    usable = len(pending) - len(pending) % 4
                    data += b"".join(base64.b64decode(pending[i:i + 4])
                                     for i in range(0, usable, 4))
                    pending = pending[usable:]
                else:
                    data += chunk
                while len(data) >= 5:
                    flags, size = struct.unpack_from(">BI", data)
                    if len(data) < 5 + size:
                        break
                    payload, data = data[5:5 + size], data[5 + size:]
                    if flags & 0x80:
                        failure = grpc_web_failure(trailer_map(payload))
                        if failure is not None:
                            raise failure
                        assert not data
                        return
                    yield reply.FromString(payload)
        raise AssertionError("the stream ended without a trailer frame")

    async def connect_stream(self, method: str, request: Message, reply: type[M], *,
                             token: str | None = None, json: bool = False,
                             headers: dict[str, str] | None = None) -> AsyncIterator[M]:
        """A Connect server-streaming call."""
        kind = "application/connect+json" if json else "application/connect+proto"
        sent = _headers(token, {**(headers or {}), "content-type": kind,
                                "connect-protocol-version": "1"})
        payload = (json_format.MessageToJson(request).encode() if json
                   else request.SerializeToString())
        async with self.http.stream("POST", _path(method), content=frame(0, payload),
                                    headers=sent) as answer:
            assert answer.status_code == 200
            assert answer.headers["content-type"] == kind
            data = b""
            async for chunk in answer.aiter_bytes():
                data += chunk
                while len(data) >= 5:
                    flags, size = struct.unpack_from(">BI", data)
                    if len(data) < 5 + size:
                        break
                    body, data = data[5:5 + size], data[5 + size:]
                    if flags & 0x02:
                        end = json_module.loads(body)
                        if "error" in end:
                            raise connect_failure(200, end["error"])
                        return
                    yield json_format.Parse(body, reply()) if json else reply.FromString(body)
        raise AssertionError("the stream ended without an end-of-stream message")

    async def watch_until_failure(self, table_id: str, seen: list[int]) -> Failure:
        """Watch a table over gRPC-Web, noting each update's version in ``seen``, until the
        stream ends with an error status: that status (a stream that ends without one fails
        the test)."""
        try:
            async for update in self.grpc_web_stream(
                    "WatchTable", pb.WatchTableRequest(table_id=table_id),
                    pb.WatchTableResponse):
                seen.append(update.version)
        except Failure as failure:
            return failure
        raise AssertionError("the stream ended without an error status")
