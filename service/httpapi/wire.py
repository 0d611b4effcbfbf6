"""The wire formats of Connect (unary and streaming) and gRPC-Web, over google.rpc.Status.

Connect unary: the body is one message (``application/proto`` or ``application/json``); an
error is a JSON body ``{code, message, details}`` with an HTTP status of its own. Connect
streaming and gRPC-Web: the body is envelopes (one flags byte, a 4-byte big-endian length,
the message); the stream ends with an end-of-stream envelope (Connect: JSON, flag 0x02) or a
trailer frame (gRPC-Web: HTTP/1 header lines, flag 0x80). Every error's details are the
``Any`` messages of the same google.rpc.Status the gRPC port sends.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2, status_pb2

from bezique.service.errors import InvalidArgument, ResourceExhausted
from bezique.service.httpapi.context import status_of
from bezique.service.status import to_status

Kind = Literal["connect", "connect-stream", "grpc-web"]

COMPRESSED = 0x01
CONNECT_END = 0x02
GRPC_WEB_TRAILER = 0x80
_HEADER = struct.Struct(">BI")

CODE_NAMES: dict[int, str] = {
    number: name.lower() for name, number in code_pb2.Code.items() if name != "OK"}
CODE_NAMES[code_pb2.CANCELLED] = "canceled"  # Connect spells it the American way
HTTP_STATUS: dict[int, int] = {
    code_pb2.CANCELLED: 499, code_pb2.UNKNOWN: 500, code_pb2.INVALID_ARGUMENT: 400,
    code_pb2.DEADLINE_EXCEEDED: 504, code_pb2.NOT_FOUND: 404, code_pb2.ALREADY_EXISTS: 409,
    code_pb2.PERMISSION_DENIED: 403, code_pb2.RESOURCE_EXHAUSTED: 429,
    code_pb2.FAILED_PRECONDITION: 400, code_pb2.ABORTED: 409, code_pb2.OUT_OF_RANGE: 400,
    code_pb2.UNIMPLEMENTED: 501, code_pb2.INTERNAL: 500, code_pb2.UNAVAILABLE: 503,
    code_pb2.DATA_LOSS: 500, code_pb2.UNAUTHENTICATED: 401,
}
"""Connect's HTTP status for each code (the Connect protocol's table)."""


class WireError(Exception):
    """The request is not well-formed for its protocol: answered with this status.

    An invalid or too large request carries the same details as the gRPC port gives it
    (ErrorInfo with the code's name as reason; BadRequest naming ``request``)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        if code == code_pb2.INVALID_ARGUMENT:
            rich = to_status(InvalidArgument(message, field="request"))
        elif code == code_pb2.RESOURCE_EXHAUSTED:
            rich = to_status(ResourceExhausted(message))
        else:
            self.status = status_pb2.Status(code=code, message=message)
            return
        self.status = status_of(rich.code, rich.details, rich.trailing_metadata)


@dataclass(frozen=True)
class Protocol:
    """What a request's Content-Type says: the protocol, the codec, and gRPC-Web's text mode."""

    kind: Kind
    codec: Literal["proto", "json"]
    text: bool = False

    @property
    def streaming(self) -> bool:
        return self.kind != "connect"

    def content_type(self) -> str:
        if self.kind == "connect":
            return f"application/{self.codec}"
        if self.kind == "connect-stream":
            return f"application/connect+{self.codec}"
        return f"application/grpc-web{'-text' if self.text else ''}+{self.codec}"


def protocol_of(content_type: str) -> Protocol | None:
    """The protocol of a request by its Content-Type (parameters such as charset ignored)."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media in ("application/proto", "application/json"):
        return Protocol("connect", "proto" if media.endswith("proto") else "json")
    if media in ("application/connect+proto", "application/connect+json"):
        return Protocol("connect-stream", "proto" if media.endswith("proto") else "json")
    for prefix, text in (("application/grpc-web-text", True), ("application/grpc-web", False)):
        if media == prefix or media == prefix + "+proto":
            return Protocol("grpc-web", "proto", text)
        if media == prefix + "+json":
            return Protocol("grpc-web", "json", text)
    return None


_MESSAGE_SAFE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "%")
"""What grpc-message keeps as it is: printable ASCII but '%' (the rest is percent-encoded)."""

ACCEPTED_TYPES = ("application/proto, application/json, application/connect+proto, "
                  "application/connect+json, application/grpc-web+proto, "
                  "application/grpc-web-text+proto")


# ---------------------------------------------------------------------------- messages


def decode(codec: str, data: bytes, message_type: type[Message]) -> Message:
    """The request message; a body that does not parse is INVALID_ARGUMENT naming its type."""
    name = message_type.DESCRIPTOR.full_name
    try:
        if codec == "json":
            return json_format.Parse(data or b"{}", message_type(), ignore_unknown_fields=True)
        return message_type.FromString(data)
    except (DecodeError, json_format.ParseError, UnicodeDecodeError, ValueError) as exc:
        detail = f": {exc}" if codec == "json" else ""
        raise WireError(code_pb2.INVALID_ARGUMENT,
                        f"the request is not a valid {name} ({codec}){detail}") from None


def encode(codec: str, message: Message) -> bytes:
    if codec == "json":
        return json_format.MessageToJson(message, indent=None).encode()
    return message.SerializeToString()


def envelope(flags: int, payload: bytes) -> bytes:
    return _HEADER.pack(flags, len(payload)) + payload


def envelopes(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The (flags, payload) of each envelope of a body; a torn one is INVALID_ARGUMENT."""
    offset = 0
    while offset < len(data):
        if len(data) - offset < _HEADER.size:
            raise WireError(code_pb2.INVALID_ARGUMENT, "the request body ends inside an "
                                                       "envelope's header")
        flags, size = _HEADER.unpack_from(data, offset)
        offset += _HEADER.size
        if len(data) - offset < size:
            raise WireError(code_pb2.INVALID_ARGUMENT, "the request body ends inside an "
                                                       "envelope")
        yield flags, data[offset:offset + size]
        offset += size


def single_message(data: bytes) -> bytes:
    """The one message of an enveloped request (a server-streaming or gRPC-Web unary call)."""
    found = list(envelopes(data))
    if len(found) != 1:
        raise WireError(code_pb2.INVALID_ARGUMENT,
                        f"the request must hold exactly one message, not {len(found)}")
    flags, payload = found[0]
    if flags & COMPRESSED:
        raise WireError(code_pb2.UNIMPLEMENTED, "compressed request messages are not "
                                                "supported (send them uncompressed)")
    return payload


# ---------------------------------------------------------------------------- errors


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _debug(detail: Any) -> dict[str, Any] | None:
    """A detail message as JSON, for people reading the error (clients use type+value)."""
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(
            detail.type_url.rsplit("/", 1)[-1])
        message = message_factory.GetMessageClass(descriptor).FromString(detail.value)
        result: dict[str, Any] = json_format.MessageToDict(message)
        return result
    except (KeyError, DecodeError):
        return None


def connect_error(status: status_pb2.Status) -> dict[str, Any]:
    """The Connect error object of a status: code name, message, and each detail as
    ``{type, value (base64 of the packed message), debug}``."""
    error: dict[str, Any] = {"code": CODE_NAMES.get(status.code, "unknown"),
                             "message": status.message}
    details = []
    for detail in status.details:
        item: dict[str, Any] = {"type": detail.type_url.rsplit("/", 1)[-1],
                                "value": _b64(detail.value)}
        debug = _debug(detail)
        if debug is not None:
            item["debug"] = debug
        details.append(item)
    if details:
        error["details"] = details
    return error


def connect_error_body(status: status_pb2.Status) -> bytes:
    return json.dumps(connect_error(status), separators=(",", ":")).encode()


def connect_end(status: status_pb2.Status | None,
                trailers: Iterable[tuple[str, str]] = ()) -> bytes:
    """The end-of-stream envelope of a Connect stream."""
    body: dict[str, Any] = {}
    if status is not None and status.code != code_pb2.OK:
        body["error"] = connect_error(status)
    metadata: dict[str, list[str]] = {}
    for key, value in trailers:
        metadata.setdefault(key, []).append(value)
    if metadata:
        body["metadata"] = metadata
    return envelope(CONNECT_END, json.dumps(body, separators=(",", ":")).encode())


def grpc_web_trailer(status: status_pb2.Status | None,
                     trailers: Iterable[tuple[str, str]] = ()) -> bytes:
    """The trailer frame of a gRPC-Web response: grpc-status, grpc-message and the packed
    google.rpc.Status in grpc-status-details-bin, as the gRPC port sends them."""
    code = 0 if status is None else status.code
    lines = [f"grpc-status: {code}"]
    if status is not None and code != code_pb2.OK:
        lines.append("grpc-message: " + urllib.parse.quote(status.message, safe=_MESSAGE_SAFE))
        if status.details:
            lines.append("grpc-status-details-bin: " + _b64(status.SerializeToString()))
    lines.extend(f"{key}: {value}" for key, value in trailers)
    return envelope(GRPC_WEB_TRAILER, ("\r\n".join(lines) + "\r\n").encode())
