"""Fixtures of the CLI tests: one real ``bezique-server`` subprocess on a real port, and a
helper that runs ``bezique.clients.cli.main`` in-process with its output captured."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from bezique.clients import cli
from bezique.clients.sdk import AsyncTableClient, SeatHandle

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any BEZIQUE_* setting of the person running the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEZIQUE_")}
    env.update(extra)
    return env


@dataclass
class Result:
    code: int
    out: str
    err: str


class Run(Protocol):
    def __call__(self, *argv: str, address: str | None = ...) -> Result: ...


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """``bezique-server`` as a subprocess; yields its address (from its "listening on" line)."""
    process = subprocess.Popen(
        [str(BIN / "bezique-server"), "--address", "127.0.0.1:0", "--store", "memory:",
         "--test-mode", "--bot-delay", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=clean_env(BEZIQUE_LOG_FORMAT="json"))
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on ([\d.]+:\d+)", line)
    if match is None:
        process.kill()
        raise RuntimeError(f"bezique-server did not start: {line!r}")
    try:
        yield match.group(1)
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture
def run(server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> Run:
    """``run("view", table)``: the CLI against the test server, output captured."""
    for name in ("BEZIQUE_SERVER", "BEZIQUE_TOKEN", "BEZIQUE_API_KEY", "BEZIQUE_PROOF"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")

    def call(*argv: str, address: str | None = server) -> Result:
        capsys.readouterr()
        prefix = ["--server", address] if address else []
        code = cli.main([*prefix, *argv])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return call


def variant_ids(address: str) -> set[str]:
    async def ask() -> set[str]:
        async with AsyncTableClient(address) as client:
            return {info.id for info in await client.list_variants()}

    return asyncio.run(ask())


def require_variant(address: str, variant_id: str, package: str) -> None:
    """Skip, saying why, while the variant's plugin has not landed."""
    if variant_id not in variant_ids(address):
        pytest.skip(f"variant {variant_id} is not registered yet (waiting for {package})")


async def finish(address: str, table_id: str, token: str, seconds: float = 20.0) -> None:
    """Play seat ``token``'s first legal move whenever it is due, until the game ends."""
    async with AsyncTableClient(address) as client:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            view = await client.view(table_id, token)
            if view.HasField("outcome"):
                return
            if view.legal_moves:
                handle = SeatHandle(table_id, view.viewer_seat, token)
                await client.submit(handle, view.legal_moves[0], view.version)
            else:
                await asyncio.sleep(0.01)
    raise TimeoutError(f"table {table_id} did not finish in {seconds} s")


async def wait_finished(address: str, table_id: str, seconds: float = 20.0) -> None:
    """Wait for a table played by bots alone to end."""
    async with AsyncTableClient(address) as client:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            if (await client.history(table_id)).finished:
                return
            await asyncio.sleep(0.05)
    raise TimeoutError(f"table {table_id} did not finish in {seconds} s")
