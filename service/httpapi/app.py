"""The ASGI application of the HTTP port: Connect and gRPC-Web calls onto the servicer, CORS,
and the web table's files.

Every RPC of the service descriptor is served by name: the adapter calls the servicer's
method of that name with an :class:`HttpContext`, exactly as grpc.aio would, so the servicer's
auth, limits, errors and metrics apply unchanged, and a new RPC needs no change here.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Sequence
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.rpc import code_pb2, status_pb2

from bezique.service.errors import quoted
from bezique.service.httpapi import calls, wire
from bezique.service.httpapi.calls import Receive, Rpc, Scope, Send
from bezique.service.httpapi.context import HttpContext
from bezique.service.httpapi.cors import Headers, Origins
from bezique.service.httpapi.hosts import Hosts
from bezique.service.httpapi.static import MISSING, NOT_FRAMED, StaticFiles

_TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


class _ClientGone(Exception):
    """The client closed the connection before its request was read."""


class BrowserApp:
    """Connect (unary and server-streaming, proto and JSON), gRPC-Web (binary and text) and
    static files, for the services of the given servicers."""

    def __init__(self, services: Sequence[tuple[object, ServiceDescriptor]], *,
                 max_message_bytes: int, origins: Origins, hosts: Hosts,
                 static: StaticFiles) -> None:
        self.rpcs: dict[str, Rpc] = {}
        self.two_way: set[str] = set()
        """Paths of two-way streams: browsers cannot stream requests over HTTP/1.1."""
        for servicer, service in services:
            for method in service.methods:
                if method.client_streaming:
                    self.two_way.add(f"/{service.full_name}/{method.name}")
                    continue
                self.rpcs[f"/{service.full_name}/{method.name}"] = Rpc(
                    method.name, message_factory.GetMessageClass(method.input_type),
                    method.server_streaming, getattr(servicer, method.name))
        self.max_message_bytes = max_message_bytes
        self.origins = origins
        self.hosts = hosts
        self.static = static

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method, path = scope["method"], scope["path"]
        if not self.hosts.permits(headers.get("host")):
            await calls.plain(send, 421, b"this server does not answer to that host name "
                                    b"(--http-allowed-hosts)\n")
            return
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        cors: Headers = []
        if origin is not None:
            if not self.origins.permits(origin, own):
                await calls.plain(send, 403, b"this origin may not call this server "
                                        b"(--http-allowed-origins)\n")
                return
            if origin.lower() != own.lower():
                cors = self.origins.response_headers(origin)
        if method == "OPTIONS":
            extra = (self.origins.preflight_headers(origin) if origin is not None and cors
                     else [(b"allow", b"GET, HEAD, POST, OPTIONS")])
            await calls.plain(send, 204, b"", extra)
            return
        rpc = self.rpcs.get(path)
        if rpc is not None or (method == "POST" and path.count("/") == 2):
            if method != "POST":
                await calls.plain(send, 405, b"RPCs are called with POST\n", [(b"allow", b"POST")])
                return
            await self._rpc(scope, receive, send, headers, rpc, path, cors)
            return
        if method not in ("GET", "HEAD"):
            await calls.plain(send, 405, b"not an RPC of this server\n", [(b"allow", b"GET, HEAD")])
            return
        await self._static(send, path, method == "HEAD", cors)

    # ------------------------------------------------------------------------ static files

    async def _static(self, send: Send, path: str, head: bool, cors: Headers) -> None:
        if not self.static.present:
            await calls.plain(send, 404, MISSING, cors)
            return
        found = await self.static.read(path)
        if found is None:
            await calls.plain(send, 404, b"not found\n", cors)
            return
        data, kind = found
        headers = [(b"content-type", kind.encode()), (b"x-content-type-options", b"nosniff"),
                   (b"cache-control", b"no-cache"), *NOT_FRAMED, *cors]
        await calls.plain(send, 200, data, headers, head=head)

    # ------------------------------------------------------------------------ RPCs

    async def _rpc(self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str],
                   rpc: Rpc | None, path: str, cors: Headers) -> None:
        protocol = wire.protocol_of(headers.get("content-type", ""))
        if protocol is None or (rpc is not None and protocol.kind != "grpc-web"
                                and protocol.streaming != rpc.streaming):
            await calls.plain(send, 415, b"unsupported content type for this RPC\n",
                         [(b"accept-post", wire.ACCEPTED_TYPES.encode()), *cors])
            return
        try:
            body = await self._body(receive, headers, protocol)
        except _ClientGone:
            return
        except wire.WireError as error:
            await calls.fail(send, protocol, error.status, cors)
            return
        if rpc is None:
            await calls.fail(send, protocol, status_pb2.Status(
                code=code_pb2.UNIMPLEMENTED, message=_unserved(path, self.two_way)), cors)
            return
        try:
            raw = wire.single_message(body) if protocol.streaming else _decompress(
                body, headers.get("content-encoding", "identity"), self.max_message_bytes)
            request = wire.decode(protocol.codec, raw, rpc.request_type)
            timeout = _timeout(headers)
        except wire.WireError as error:
            await calls.fail(send, protocol, error.status, cors)
            return
        context = HttpContext(_metadata(scope["headers"]), _peer(scope.get("client")))
        if rpc.streaming:
            await calls.stream(send, receive, protocol, rpc, request, context, timeout, cors)
            return
        answer = await calls.call_unary(rpc, request, context, timeout)
        if isinstance(answer, calls.Failure):
            await calls.fail(send, protocol, answer.status, cors, context.trailers)
            return
        payload = wire.encode(protocol.codec, answer)
        extra = [(k.encode(), v.encode()) for k, v in context.headers]
        if protocol.kind == "connect":
            extra += [(b"trailer-" + k.encode(), v.encode())
                      for k, v in context.trailers]
            await calls.plain(send, 200, payload,
                         [(b"content-type", protocol.content_type().encode()), *extra, *cors])
            return
        frames = (wire.envelope(0, payload)
                  + wire.grpc_web_trailer(None, context.trailers))
        await calls.plain(send, 200, calls.text(frames) if protocol.text else frames,
                     [(b"content-type", protocol.content_type().encode()), *extra, *cors])

    async def _body(self, receive: Receive, headers: dict[str, str],
                    protocol: wire.Protocol) -> bytes:
        """The whole request body, refused past the message size limit (RESOURCE_EXHAUSTED,
        as gRPC refuses a larger message)."""
        limit = self.max_message_bytes + 5
        if protocol.text:
            limit = limit * 4 // 3 + 4
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _too_large(self.max_message_bytes)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _ClientGone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _too_large(self.max_message_bytes)
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if protocol.text:
            try:
                body = base64.b64decode(body + b"=" * (-len(body) % 4), validate=True)
            except ValueError:
                raise wire.WireError(code_pb2.INVALID_ARGUMENT,
                                     "the grpc-web-text body is not base64") from None
        return body


def _unserved(path: str, two_way: set[str]) -> str:
    """Why an RPC path is not served here."""
    if path in two_way:
        return (f"{path} is a two-way stream, which HTTP/1.1 cannot carry: call it on the "
                "gRPC port, or use SubmitMove and WatchTable here")
    return f"no such RPC: {path}"


def _too_large(limit: int) -> wire.WireError:
    return wire.WireError(code_pb2.RESOURCE_EXHAUSTED,
                          f"the request is larger than {limit} bytes (--max-message-bytes)")


def _decompress(body: bytes, encoding: str, limit: int) -> bytes:
    """A Connect unary body as sent: identity or gzip (no more than ``limit`` bytes)."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise wire.WireError(code_pb2.UNIMPLEMENTED,
                             f"content-encoding {quoted(encoding)} is not supported (gzip, "
                             "identity)")
    inflater = zlib.decompressobj(wbits=31)
    try:
        data = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise _not_gzip(f"corrupt ({exc})") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise _too_large(limit)
    if not inflater.eof:  # zlib returns what it could inflate of a cut stream, silently
        raise _not_gzip("cut short: it ends before its gzip stream does")
    if inflater.unused_data:
        raise _not_gzip("followed by bytes after its gzip stream")
    return data


def _not_gzip(why: str) -> wire.WireError:
    return wire.WireError(code_pb2.INVALID_ARGUMENT,
                          f"the request body is not valid gzip (content-encoding: gzip): {why}")


def _timeout(headers: dict[str, str]) -> float | None:
    """The call's deadline in seconds from connect-timeout-ms or grpc-timeout, if given."""
    text = headers.get("connect-timeout-ms")
    if text is not None:
        if not (text.isascii() and text.isdigit()) or len(text) > 10:
            raise wire.WireError(code_pb2.INVALID_ARGUMENT, "connect-timeout-ms is not a "
                                                            "whole number of milliseconds")
        return int(text) / 1000
    text = headers.get("grpc-timeout")
    if text is not None:
        digits = text[:-1]  # gRPC's TimeoutValue: at most 8 ASCII digits
        if (not 1 <= len(digits) <= 8 or not (digits.isascii() and digits.isdigit())
                or text[-1] not in _TIMEOUT_UNITS):
            raise wire.WireError(code_pb2.INVALID_ARGUMENT, "grpc-timeout is malformed")
        return int(digits) * _TIMEOUT_UNITS[text[-1]]
    return None


def _metadata(raw: list[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    """The request's headers as call metadata (what gRPC clients send as metadata, browsers
    send as headers: authorization, x-api-key, ...)."""
    return tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in raw)


def _peer(client: tuple[str, int] | list[Any] | None) -> str:
    """The peer in grpc's spelling (``ipv4:HOST:PORT``, ``ipv6:[HOST]:PORT``), so the limits
    per caller key HTTP callers the same way as gRPC ones."""
    if not client:
        return "unknown"
    host, port = client[0], client[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


