"""A refused move's error quotes what the caller sent as any error quotes input, over a real
port: the move's kind and label are the caller's text (up to 64 characters each), so terminal
escapes, bidi overrides and line breaks in them come back escaped, never as they were sent
(docs/architecture.md: error messages quote input)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config

HOSTILE = ["\x1b]0;owned\x07\x1b[2J", "\u202eevil\u202c", "line\r\nforged: yes"]


@pytest.fixture
async def client() -> AsyncIterator[AsyncTableClient]:
    server: RunningServer = await start_server(server_config(), highcard_registry())
    async with AsyncTableClient(server.address, retries=0) as connected:
        yield connected
    await server.stop()


@pytest.mark.parametrize("where", ["kind", "label"])
@pytest.mark.parametrize("hostile", HOSTILE)
async def test_a_refused_move_does_not_echo_control_characters(
        client: AsyncTableClient, where: str, hostile: str) -> None:
    table = await client.create_table("highcard", {"players": 2, "hand_size": 2})
    seats = [await client.join(table.table_id, seat=i, entropy=b"") for i in (0, 1)]
    view = await client.view(table.table_id, seats[0].token)
    mover = seats[view.to_move[0]]
    move = pb.Move(kind=hostile if where == "kind" else "play", label=hostile * (where == "label"))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await client.stub.SubmitMove(
            pb.SubmitMoveRequest(table_id=table.table_id, move=move,
                                 expected_version=view.version, request_id=uuid.uuid4().hex),
            metadata=[("authorization", f"Bearer {mover.token}")])
    message = caught.value.details() or ""
    assert "refused" in message, message
    raw = [c for c in hostile if not c.isprintable()]
    assert raw and not any(c in message for c in raw), repr(message)
