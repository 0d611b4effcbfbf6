"""Fixtures of the replica tests: two servers on one private PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bezique.service.server import RunningServer, start_server
from tests.helpers import highcard_registry, server_config


@pytest.fixture
async def replicas(postgres_url: str) -> AsyncIterator[list[RunningServer]]:
    servers = [await start_server(server_config(store=postgres_url), highcard_registry())
               for _ in range(2)]
    yield servers
    for server in servers:
        await server.stop()
