"""Shared fixtures: real servers on real ports (in-process and as subprocesses); the helpers
the tests import by name are in tests/helpers.py and the subject folders' helper modules."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import RunningServer, start_server
from bezique.variants.registry import load_registry
from tests.helpers import ROOT, ServerProcess, highcard_registry, server_config

# On a loaded two-core machine a draw can take longer than hypothesis likes: time is never a
# reason to fail. A failing draw is printed with the blob that reproduces it.
settings.register_profile("bezique", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("bezique")

# pytest-xdist's workers inherit COLUMNS=80 and LINES=24 from execnet: a CLI test's terminal
# size must come from the pty it opens (or a COLUMNS the test sets itself).
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    running = await start_server(server_config(), highcard_registry())
    yield running
    await running.stop()


@pytest.fixture
async def builtin_server() -> AsyncIterator[RunningServer]:
    """A server of the installed variants (the built-in games), not only highcard."""
    server = await start_server(server_config(), load_registry())
    yield server
    await server.stop()


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[AsyncTableClient]:
    async with AsyncTableClient(server.address, retries=0) as sdk:
        yield sdk


@pytest.fixture
def server_process_factory() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for proc in started:
        if proc.process.poll() is None:
            proc.kill()


# ---------------------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[object]:
    """One private PostgreSQL server for the session (never skipped: CI installs it)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from pgcluster import Cluster, scratch_folder

    cluster = Cluster(scratch_folder())
    cluster.start()
    yield cluster
    cluster.remove()


def run_in_thread(coroutine: Any) -> Any:
    """Run a coroutine to completion on a private loop (usable inside a running loop)."""
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _admin(url: str, statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture
def postgres_url(postgres_cluster: object) -> Iterator[str]:
    """A fresh, empty database on the session's PostgreSQL server."""
    import uuid

    base: str = postgres_cluster.url  # type: ignore[attr-defined]
    name = f"t_{uuid.uuid4().hex[:12]}"
    run_in_thread(_admin(base, f"CREATE DATABASE {name}"))
    yield base.rsplit("/", 1)[0] + "/" + name
    run_in_thread(_admin(base, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port something already listens on (a server told to take it must refuse)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]
