"""An in-process server with its HTTP port open on a real socket, and clients of both ports
(the helpers the tests import by name are in tests/http/helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from tests.helpers import highcard_registry, server_config
from tests.http.helpers import base_url, http_config
from tests.http.web import Web


@pytest.fixture
async def web_server() -> AsyncIterator[RunningServer]:
    running = await start_server(server_config(**http_config()), highcard_registry())
    yield running
    await running.stop()


@pytest.fixture
async def web(web_server: RunningServer) -> AsyncIterator[Web]:
    async with httpx.AsyncClient(base_url=base_url(web_server), timeout=30) as http:
        yield Web(http)


@pytest.fixture
async def grpc_client(web_server: RunningServer) -> AsyncIterator[AsyncTableClient]:
    async with AsyncTableClient(web_server.address, retries=0) as sdk:
        yield sdk
