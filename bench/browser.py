"""Browser protocols: SubmitMove over Connect (and gRPC-Web) against the same server's gRPC
port, in the same run, with the same tables and the same client loop.

One ``bezique-server`` child serves both ports. The client plays mirrored tables (see
:mod:`bench.players`) with ``concurrency`` moves in flight, alternating gRPC and HTTP runs.
The HTTP client is a minimal keep-alive HTTP/1.1 client on asyncio streams (one connection per
move in flight, as a browser keeps a few), so that the figure is the server's, not a heavy
client library's; the server's CPU time per move is reported beside it, a figure no client
can bend.
"""

from __future__ import annotations

import asyncio
import re
import struct
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from bench.common import (
    Section,
    fmt_ms,
    fmt_rate,
    fmt_ratio,
    fmt_us,
    median,
    options_for,
    percentile,
    run_in_scratch,
    server_argv,
    spawn,
)
from bench.players import channel, create_tables, moves_per_game
from bench.service import Run, drive, measured
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

RATIO_TARGET = 0.5
PATH = "/bezique.v1.TableService/SubmitMove"


@dataclass(frozen=True)
class BrowserConfig:
    variant: str = "highcard"
    concurrency: int = 32
    moves: int = 6_000
    reps: int = 3
    warmup_moves: int = 1_000
    store: str = "memory:"


class HttpFailure(Exception):
    """An HTTP call that did not answer 200."""


class Http1Pool:
    """Keep-alive HTTP/1.1 connections, one per call in flight."""

    def __init__(self, host: str, port: int, size: int) -> None:
        self.host, self.port, self.size = host, port, size
        self.free: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
            asyncio.Queue())

    async def open(self) -> None:
        """Fresh connections (the server closes idle ones after a few seconds)."""
        await self.close()
        for _ in range(self.size):
            self.free.put_nowait(await asyncio.open_connection(self.host, self.port))

    async def close(self) -> None:
        while not self.free.empty():
            _, writer = self.free.get_nowait()
            writer.close()

    async def post(self, path: str, headers: list[tuple[str, str]], body: bytes
                   ) -> tuple[int, bytes]:
        reader, writer = await self.free.get()
        try:
            head = f"POST {path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\n"
            head += "".join(f"{k}: {v}\r\n" for k, v in headers)
            head += f"content-length: {len(body)}\r\n\r\n"
            writer.write(head.encode() + body)
            response = await reader.readuntil(b"\r\n\r\n")
            status = int(response[9:12])
            found = re.search(rb"\r\ncontent-length: *(\d+)", response, re.IGNORECASE)
            if found is None:
                raise HttpFailure("no content-length in the answer")
            payload = await reader.readexactly(int(found.group(1)))
        except BaseException:
            writer.close()
            self.free.put_nowait(await asyncio.open_connection(self.host, self.port))
            raise
        self.free.put_nowait((reader, writer))
        return status, payload


Call = Callable[..., Awaitable[pb.SubmitMoveResponse]]


def connect_call(pool: Http1Pool, protocol: str) -> Call:
    """SubmitMove over ``connect`` (binary), ``connect-json`` or ``grpc-web``, called as the
    gRPC stub is (request, metadata=, timeout=)."""
    kind = {"connect": "application/proto", "connect-json": "application/json",
            "grpc-web": "application/grpc-web+proto"}[protocol]

    async def call(request: pb.SubmitMoveRequest, metadata: tuple[tuple[str, str], ...],
                   timeout: float) -> pb.SubmitMoveResponse:
        headers = [("content-type", kind), *metadata]
        if protocol == "connect-json":
            body = json_format.MessageToJson(request, indent=None).encode()
        elif protocol == "grpc-web":
            data = request.SerializeToString()
            body = struct.pack(">BI", 0, len(data)) + data
        else:
            body = request.SerializeToString()
        status, payload = await pool.post(PATH, headers, body)
        if status != 200:
            raise HttpFailure(f"{protocol}: HTTP {status}: {payload[:300]!r}")
        if protocol == "connect-json":
            return json_format.Parse(payload, pb.SubmitMoveResponse())
        if protocol == "grpc-web":
            flags, size = struct.unpack_from(">BI", payload)
            trailer = payload[5 + size:]
            if flags != 0 or b"grpc-status: 0\r\n" not in trailer:
                raise HttpFailure(f"grpc-web: {trailer[5:300]!r}")
            return pb.SubmitMoveResponse.FromString(payload[5:5 + size])
        return pb.SubmitMoveResponse.FromString(payload)

    return call


async def _bench(config: BrowserConfig, workdir: Path) -> Section:
    from bezique.variants.registry import load_registry

    variant = load_registry().variant(config.variant)
    options = options_for(variant.id)
    server = spawn(server_argv("--store", config.store, "--test-mode", "--max-tables",
                               "10000000", "--http-address", "127.0.0.1:0"),
                   workdir, "server", ready=r"serving browsers .* on http://([\d.]+:\d+)/")
    grpc_address = re.search(r"listening on (\S+:\d+)", server.stdout_path.read_text())
    assert grpc_address is not None
    host, _, port = server.address.rpartition(":")
    pool = Http1Pool(host, int(port), config.concurrency)
    try:
        async with channel(grpc_address.group(1), 1) as grpc_channel:
            stub = pb_grpc.TableServiceStub(grpc_channel)  # type: ignore[no-untyped-call]
            calls: dict[str, Call] = {"grpc": stub.SubmitMove,
                                      "connect": connect_call(pool, "connect"),
                                      "connect-json": connect_call(pool, "connect-json"),
                                      "grpc-web": connect_call(pool, "grpc-web")}
            per_game = moves_per_game(variant, options)

            async def run(path: str, moves: int, tag: str) -> Run:
                size = int(moves / max(1.0, per_game * 0.6)) + 2 * config.concurrency
                tables = deque(await create_tables(stub, variant, options, size, tag))
                await pool.open()
                return await measured(server, drive(calls[path], tables, moves,
                                                    config.concurrency, verify=True))

            for path in calls:
                await run(path, config.warmup_moves, f"warm-{path}")
            runs: dict[str, list[Run]] = {path: [] for path in calls}
            for rep in range(config.reps):
                for path in calls:
                    runs[path].append(await run(path, config.moves, f"{path}-{rep}"))
        return _report(config, runs)
    finally:
        await pool.close()
        server.stop()


def _report(config: BrowserConfig, runs: dict[str, list[Run]]) -> Section:
    section = Section(
        f"Browser protocols: SubmitMove over HTTP/1.1 vs gRPC on the same server, "
        f"{config.concurrency} in flight ({config.variant}, {config.store} store)",
        ["path", "moves/s", "ratio to gRPC", "p50", "p99", "server CPU per move"])
    grpc_runs = runs["grpc"]
    ratios: dict[str, float] = {}
    for path, path_runs in runs.items():
        ratio = median([r.rate / g.rate for r, g in zip(path_runs, grpc_runs, strict=True)])
        ratios[path] = ratio
        section.rows.append([
            path, fmt_rate(median([r.rate for r in path_runs])), fmt_ratio(ratio),
            fmt_ms(median([percentile(r.latencies, 50) for r in path_runs])),
            fmt_ms(median([percentile(r.latencies, 99) for r in path_runs])),
            fmt_us(median([r.server_cpu / r.moves for r in path_runs]))])
    cpu = {path: median([r.server_cpu / r.moves for r in path_runs])
           for path, path_runs in runs.items()}
    section.targets = {
        f"Connect unary throughput >= {RATIO_TARGET:.0%} of gRPC": ratios["connect"]
        >= RATIO_TARGET}
    figures: dict[str, Any] = {"ratio": ratios, "server_cpu_per_move": cpu,
                               "rate": {p: median([r.rate for r in rs]) for p, rs in runs.items()}}
    section.figures = figures
    section.notes += [
        f"{config.reps} repetitions of {config.moves} moves per path, paths alternating; "
        "medians; a ratio is the median of per-repetition ratios to the gRPC run beside it.",
        "gRPC: grpc.aio stub (C core) on one HTTP/2 connection; HTTP paths: a minimal "
        "keep-alive HTTP/1.1 client, one connection per move in flight.",
        f"options: {options_for(config.variant) or 'defaults'}",
    ]
    return section


def run(config: BrowserConfig | None = None) -> Section:
    chosen = config or BrowserConfig()
    return run_in_scratch(lambda folder: _bench(chosen, folder))
