"""A bug on the server side (an exception the service did not expect) answers INTERNAL with no
detail, is logged, is counted, and leaves the server serving, on unary and streaming calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer
from bezique.v1 import table_service_pb2 as pb


async def test_an_unexpected_error_is_internal_without_detail_and_the_server_goes_on(
        server: RunningServer, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken_view(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret detail of a bug")

    async def broken_watch(*args: Any, **kwargs: Any) -> AsyncIterator[None]:
        raise RuntimeError("secret detail of a bug")
        yield None

    monkeypatch.setattr(server.manager, "get_view", broken_view)
    monkeypatch.setattr(server.manager, "watch", broken_watch)
    async with AsyncTableClient(server.address, retries=0) as client:
        with pytest.raises(grpc.aio.AioRpcError) as unary:
            await client.stub.GetView(pb.GetViewRequest(table_id="t"))
        with pytest.raises(grpc.aio.AioRpcError) as streaming:
            async for _ in client.stub.WatchTable(pb.WatchTableRequest(table_id="t")):
                pass
        for failed in (unary.value, streaming.value):
            assert failed.code() == grpc.StatusCode.INTERNAL
            assert failed.details() == "internal error (logged on the server)"
            assert "secret" not in str(failed.trailing_metadata())
        assert [v.id for v in await client.list_variants()]  # still serving
    counts = dict(server.metrics.rpcs.snapshot())
    assert counts[("GetView", "INTERNAL")] == 1 and counts[("WatchTable", "INTERNAL")] == 1
