"""Fixtures of the replica tests: two servers on one private PostgreSQL database, with or
without a platform key (the helpers the tests import by name are in tests/replicas/helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bezique.service.server import RunningServer, start_server
from tests.helpers import highcard_registry, server_config
from tests.replicas.helpers import KEY


@pytest.fixture
async def replicas(postgres_url: str) -> AsyncIterator[list[RunningServer]]:
    servers = [await start_server(server_config(store=postgres_url), highcard_registry())
               for _ in range(2)]
    yield servers
    for server in servers:
        await server.stop()


@pytest.fixture
async def keyed_replicas(postgres_url: str) -> AsyncIterator[list[RunningServer]]:
    servers = [await start_server(server_config(store=postgres_url, api_key=KEY),
                                  highcard_registry()) for _ in range(2)]
    yield servers
    for server in servers:
        await server.stop()
