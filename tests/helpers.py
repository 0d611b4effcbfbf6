"""Helpers the tests share: server configs and processes, error details, bounded waiting.

Fixtures stay in conftest.py; everything a test imports by name lives here, or in the helper
module of its subject's folder (tests/README.md lists them).
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from bezique.clients.sdk import AsyncTableClient
from bezique.service.config import Config
from bezique.v1 import table_service_pb2_grpc
from bezique.variants.registry import Registry, load_registry

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")
SERVER = str(Path(sys.executable).with_name("bezique-server"))


def highcard_registry() -> Registry:
    """Only the example plugin: service tests do not depend on the built-in games."""
    from bezique_highcard import plugin

    return load_registry(entry_points=False, plugins=[plugin])


def server_config(**overrides: object) -> Config:
    values: dict[str, object] = {"address": "127.0.0.1:0", "store": "memory:",
                                 "test_mode": True, "bot_delay": 0.0, "clock_interval": 0.05,
                                 "grace_seconds": 1.0}
    values.update(overrides)
    return Config(**values)  # type: ignore[arg-type]


def details(error: grpc.aio.AioRpcError) -> dict[str, object]:
    """The rich error details of a failed call: reason, metadata, field violations, legal moves."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    return summary([] if status is None else list(status.details))


def summary(details: Sequence[any_pb2.Any]) -> dict[str, object]:
    """Rich error details (from a gRPC status, or a gRPC-Web or HTTP answer) in one shape:
    reason, metadata, field violations, legal moves."""
    found: dict[str, object] = {"fields": [], "legal": []}
    for detail in details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            found["reason"] = info.reason
            found["metadata"] = dict(info.metadata)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            found["fields"] = [v.field for v in bad.field_violations]
        elif detail.Is(error_details_pb2.PreconditionFailure.DESCRIPTOR):
            failure = error_details_pb2.PreconditionFailure()
            detail.Unpack(failure)
            found["legal"] = [v.subject for v in failure.violations]
    return found


@dataclass
class ServerProcess:
    """A ``bezique-server`` subprocess on a real port."""

    process: subprocess.Popen[str]
    port: int

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def terminate(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=20)


def spawn_server(*args: str, env: dict[str, str] | None = None) -> ServerProcess:
    """Start ``bezique-server --address 127.0.0.1:0 ARGS`` and wait for its port."""
    environment = {**os.environ, "BEZIQUE_LOG_FORMAT": "json", **(env or {})}
    process = subprocess.Popen([SERVER, "--address", "127.0.0.1:0", *args], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=environment)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"listening on [\d.]+:(\d+)", line)
    if not match:
        process.kill()
        raise RuntimeError(f"bezique-server did not start: {line!r}")
    return ServerProcess(process, int(match.group(1)))


def read_lines(process: subprocess.Popen[bytes], count: int, timeout: float) -> list[str]:
    """The first ``count`` lines the process prints, read unbuffered (a buffered reader would
    take the second line into its buffer where a selector no longer sees it)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    data = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while data.count(b"\n") < count and time.monotonic() < deadline:
            if selector.select(timeout=max(0.0, deadline - time.monotonic())):
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                data += chunk
    return data.decode(errors="replace").splitlines()[:count]


@dataclass(frozen=True)
class Listening:
    """Where a served ``bezique-server`` listens: its gRPC address, and its HTTP port's base
    URL when it was asked to open one (else ``""``)."""

    grpc_address: str
    http_url: str


@contextmanager
def serving(log: Path, *args: str, http: bool = False, timeout: float = 60.0,
            preexec_fn: Callable[[], None] | None = None) -> Iterator[Listening]:
    """A real ``bezique-server`` subprocess on free ports, memory store, bots without delay
    (``args``: more flags; ``http``: open the browsers' port too; ``preexec_fn``: run in the
    child before it starts, e.g. to lower a resource limit), its stderr in ``log``; stopped
    at the end. Fails the test with the log when it does not start."""
    import pytest

    ports = ["--http-address", "127.0.0.1:0"] if http else []
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [SERVER, "--address", "127.0.0.1:0", *ports, "--store", "memory:",
             "--bot-delay", "0", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, bufsize=0,
            env={**os.environ, "BEZIQUE_LOG_FORMAT": "json"}, preexec_fn=preexec_fn)
    try:
        lines = [*read_lines(process, 2 if http else 1, timeout), "", ""]
        grpc_match = re.search(r"listening on ([\d.]+:\d+)", lines[0])
        http_match = re.search(r"on (http://[\d.]+:\d+)/", lines[1]) if http else None
        if grpc_match is None or (http and http_match is None):
            pytest.fail(f"bezique-server did not start: {lines[:2]!r}\n{log.read_text()}",
                        pytrace=False)
        yield Listening(grpc_match.group(1), http_match.group(1) if http_match else "")
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def finished(client: AsyncTableClient, table_id: str) -> None:
    """Watch a table until its game is over (the watch must not end before)."""
    async for update in client.watch(table_id):
        if update.HasField("view") and update.view.HasField("outcome"):
            return
    raise AssertionError("the watch ended before the game")


async def eventually(condition: Any, timeout: float = 30.0, what: str = "condition") -> None:
    """Wait until ``condition()`` is true (polling), instead of sleeping a guessed time."""
    import asyncio
    import time as _time

    deadline = _time.monotonic() + timeout
    while not condition():
        if _time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def until(call: Callable[[], Awaitable[T]], done: Callable[[T], bool], what: str,
                timeout: float = 30.0) -> T:
    """Ask ``call()`` again until its answer is ``done``, and return that answer: bounded by
    time, never by a count of calls, which a loaded machine makes too few."""
    import asyncio
    import time as _time

    deadline = _time.monotonic() + timeout
    while True:
        answer = await call()
        if done(answer):
            return answer
        if _time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


@asynccontextmanager
async def fake_table_service(servicer: table_service_pb2_grpc.TableServiceServicer
                             ) -> AsyncIterator[str]:
    """A test's own TableService (e.g. one that lies) on a real local port: its address."""
    server = grpc.aio.server()
    table_service_pb2_grpc.add_TableServiceServicer_to_server(  # type: ignore[no-untyped-call]
        servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(None)
