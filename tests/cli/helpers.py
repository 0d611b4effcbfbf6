"""Helpers of the CLI tests: the CLI's output as a result, the environment and the programs
it runs with, the prompts of ``bezique play`` as patterns, and games played to their end over
the SDK while the CLI looks on."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle

BIN = Path(sys.executable).parent


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any BEZIQUE_* setting of the person running the tests."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEZIQUE_")}
    env.update(extra)
    return env


@dataclass
class Result:
    """What one CLI run gave: its exit code and what it printed."""

    code: int
    out: str
    err: str


class Run(Protocol):
    """The ``run`` fixture: the CLI with ``argv`` against a server (the test server unless
    ``address`` says otherwise)."""

    def __call__(self, *argv: str, address: str | None = ...) -> Result: ...


# What ``bezique play`` asks, as patterns: a move by number, an amount in a range; and the
# terminal's colour codes, to strip from what it showed.
PROMPT = r"Your move \(1-(\d+)(, p or Enter to pass)?, h for help, q to quit\): "
AMOUNT = (r"(\w+) to how much\? \((\d+)-(\d+)(?: in steps of \d+)?, Enter for (\d+), "
          r"b to go back\): ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def default_interrupt() -> None:
    """In the child before it runs: Ctrl-C does what it does at a terminal. A process started
    in the background by a shell without job control (``pytest ... &`` in a script, as a CI
    runner may do) inherits SIGINT ignored, and so would the CLI: Ctrl-C would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def field(result: Result, name: str) -> str:
    """The value of the ``name: value`` line the CLI printed."""
    match = re.search(rf"^{name}: (\S+)$", result.out, re.MULTILINE)
    assert match, f"no {name!r} line in:\n{result.out}\n{result.err}"
    return match.group(1)


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.out + result.err


def variant_ids(address: str) -> set[str]:
    """The variants the server at ``address`` offers."""
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
