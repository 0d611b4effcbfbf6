"""Fixtures of the packaging tests: the engine's wheel and sdist, built once per session, and
the installed servers a test starts (killed at its end). The helpers the tests import by name,
and how a clean environment is made, are in tests/packaged/helpers.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.packaged.helpers import EngineDist, InstalledServer, build_engine, web_bundle


@pytest.fixture(scope="session")
def engine_dist(tmp_path_factory: pytest.TempPathFactory) -> EngineDist:
    """The engine's wheel and sdist (with the web table), built once for every test that
    needs them."""
    return build_engine(tmp_path_factory.mktemp("engine-build"), web_bundle())


@pytest.fixture
def start_installed() -> Iterator[list[InstalledServer]]:
    """Call ``spawn_installed(env)``; every server started is killed at the end."""
    started: list[InstalledServer] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
        server.process.wait(timeout=10)
