"""Play, a two-way stream, cannot travel over HTTP/1.1: the HTTP port answers it with
UNIMPLEMENTED saying where to call it, in every protocol it speaks."""

from __future__ import annotations

import json

import pytest

from tests.http.web import Web, frame, frames, grpc_web_failure, trailer_map

PLAY = "/bezique.v1.TableService/Play"


def _says_where(message: str) -> None:
    assert "two-way stream" in message and "gRPC port" in message
    assert "SubmitMove and WatchTable" in message


async def test_connect_unary_and_streaming_calls_of_play_are_unimplemented(web: Web) -> None:
    answer = await web.http.post(PLAY, content=b"{}",
                                 headers={"content-type": "application/json"})
    assert answer.status_code == 501 and answer.json()["code"] == "unimplemented"
    _says_where(answer.json()["message"])
    answer = await web.http.post(PLAY, content=frame(0, b"{}"),
                                 headers={"content-type": "application/connect+json"})
    (flags, payload), = frames(answer.content)
    end = json.loads(payload)
    assert flags == 0x02 and end["error"]["code"] == "unimplemented"
    _says_where(end["error"]["message"])


@pytest.mark.parametrize("kind", ["application/grpc-web", "application/grpc-web+proto"])
async def test_grpc_web_calls_of_play_are_unimplemented(web: Web, kind: str) -> None:
    answer = await web.http.post(PLAY, content=frame(0, b""), headers={"content-type": kind})
    (flags, payload), = frames(answer.content)
    failure = grpc_web_failure(trailer_map(payload))
    assert flags == 0x80 and failure is not None and failure.code == "12"
    _says_where(failure.message)
