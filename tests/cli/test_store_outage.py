"""The CLI's words for a server whose table store is down (a database failover): the server
answered, so "cannot reach a bezique server ... start one" would send the user the wrong way."""

from __future__ import annotations

from pathlib import Path

import grpc

from bezique.clients.cli import describe_rpc_error
from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from bezique.service.store import open_store
from bezique.variants.registry import load_registry
from tests.faults import FaultyStore
from tests.helpers import server_config
from tests.service.helpers import expect_error


async def test_a_store_outage_is_told_apart_from_no_server(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'tables.sqlite'}"
    store = FaultyStore(open_store(url))
    server = await start_server(server_config(store=url), load_registry(),
                                store=store)  # type: ignore[arg-type]
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            table = await client.create_table("highcard", {"players": 2})
            store.fail_next_append(table.table_id)
            refused = await expect_error(grpc.StatusCode.UNAVAILABLE,
                                         client.join(table.table_id, name="ann"))
        said = describe_rpc_error(refused, server.address)
        assert said == (f"the server at {server.address} answers, but its table store is "
                        "unavailable for a moment (a database failover, or the database down): "
                        "try again shortly")
    finally:
        await server.stop()
    # no server at all: still "cannot reach", with the way to start one
    async with AsyncTableClient(server.address, retries=0) as client:
        gone = await expect_error(grpc.StatusCode.UNAVAILABLE, client.list_tables())
    assert describe_rpc_error(gone, server.address).startswith(
        f"cannot reach a bezique server at {server.address}")
