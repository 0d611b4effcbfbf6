"""Malformed framing on the HTTP port: each mistake is one clean status, never a hang or a 500."""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from bezique.v1 import table_service_pb2 as pb
from tests.http.web import Web, frame, frames, grpc_web_failure, trailer_map

LIST = "/bezique.v1.TableService/ListVariants"
WATCH = "/bezique.v1.TableService/WatchTable"


async def test_a_gzip_connect_body_is_accepted_and_other_encodings_are_not(web: Web) -> None:
    body = gzip.compress(b"{}")
    answer = await web.http.post(LIST, content=body, headers={
        "content-type": "application/json", "content-encoding": "gzip"})
    assert answer.status_code == 200 and answer.json()["variants"]
    answer = await web.http.post(LIST, content=b"{}", headers={
        "content-type": "application/json", "content-encoding": "br"})
    assert answer.status_code == 501 and answer.json()["code"] == "unimplemented"
    answer = await web.http.post(LIST, content=b"not gzip", headers={
        "content-type": "application/json", "content-encoding": "gzip"})
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_argument"
    # the refusal quotes an encoding as any input is quoted: the first 40 characters
    answer = await web.http.post(LIST, content=b"{}", headers={
        "content-type": "application/json", "content-encoding": "x" * 20_000})
    assert answer.status_code == 501 and "(20000 characters)" in answer.json()["message"]
    assert len(answer.json()["message"]) < 200


@pytest.mark.parametrize(("body", "why"), [
    (gzip.compress(b'{"a": 1}')[:-8], "cut short"),  # no CRC and size: zlib returned "{}"
    (gzip.compress(b"")[:12], "cut short"),  # the header alone: zlib returned nothing
    (gzip.compress(b"{}") + b"junk", "bytes after"),
    (gzip.compress(b"{}")[:-8] + b"\0" * 8, "corrupt"),  # a wrong CRC
], ids=["cut", "header-only", "trailing-bytes", "wrong-crc"])
async def test_a_cut_or_corrupt_gzip_body_is_invalid_argument(web: Web, body: bytes,
                                                              why: str) -> None:
    """A truncated gzip body inflated to what zlib could make of it: an empty or partial
    message, served as if the client had sent it."""
    answer = await web.http.post(LIST, content=body, headers={
        "content-type": "application/json", "content-encoding": "gzip"})
    assert answer.status_code == 400, answer.text
    error = answer.json()
    assert error["code"] == "invalid_argument"
    assert "not valid gzip" in error["message"] and why in error["message"], error


@pytest.mark.parametrize(("header", "value"), [("connect-timeout-ms", "soon"),
                                               ("grpc-timeout", "5x"), ("grpc-timeout", "S")])
async def test_a_malformed_deadline_is_invalid_argument(web: Web, header: str,
                                                        value: str) -> None:
    answer = await web.http.post(LIST, content=b"{}", headers={
        "content-type": "application/json", header: value})
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_argument"


def _end(body: bytes) -> dict[str, object]:
    (flags, payload), = frames(body)
    assert flags == 0x02
    end: dict[str, object] = json.loads(payload)
    return end


@pytest.mark.parametrize("body", [
    b"\x00\x00\x00",  # a torn header
    b"\x00\x00\x00\x00\x09{}",  # a torn message
    frame(0, b"{}") + frame(0, b"{}"),  # two requests to a server stream
])
async def test_bad_envelopes_end_the_stream_with_invalid_argument(web: Web, body: bytes) -> None:
    answer = await web.http.post(WATCH, content=body,
                                 headers={"content-type": "application/connect+json"})
    assert answer.status_code == 200
    end = _end(answer.content)
    assert isinstance(end["error"], dict) and end["error"]["code"] == "invalid_argument"


async def test_a_compressed_envelope_is_unimplemented(web: Web) -> None:
    answer = await web.http.post(WATCH, content=frame(1, gzip.compress(b"{}")),
                                 headers={"content-type": "application/connect+json"})
    end = _end(answer.content)
    assert isinstance(end["error"], dict) and end["error"]["code"] == "unimplemented"


async def test_grpc_web_text_must_be_base64(web: Web) -> None:
    answer = await web.http.post(LIST, content=b"%%%not base64%%%",
                                 headers={"content-type": "application/grpc-web-text"})
    assert answer.status_code == 200
    (flags, payload), = frames(base64.b64decode(answer.content))
    assert flags == 0x80
    failure = grpc_web_failure(trailer_map(payload))
    assert failure is not None and failure.code == "3"


async def test_grpc_web_unary_answers_one_message_then_the_trailer(web: Web) -> None:
    answer = await web.http.post(LIST, content=frame(0, b""),
                                 headers={"content-type": "application/grpc-web"})
    (flags, message), (trailer_flags, trailer) = frames(answer.content)
    assert (flags, trailer_flags) == (0, 0x80)
    assert pb.ListVariantsResponse.FromString(message).variants
    assert trailer_map(trailer) == {"grpc-status": "0"}
