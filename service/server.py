"""Assembling and running the gRPC server: the table service, health, reflection, clocks."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import grpc
import structlog
from grpc_health.v1 import _async as health_aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bezique.service import play, proxies, reflection
from bezique.service.config import Config, hide_password, redact_url
from bezique.service.connections import (
    connection_cap,
    grpc_connection_options,
    raise_descriptor_limit,
)
from bezique.service.grants import GrantVerifier
from bezique.service.health import CappedHealth
from bezique.service.httpapi.server import HttpServer, bind_http, serve_http
from bezique.service.limits import RateLimiter, StreamCounter
from bezique.service.metrics import Metrics, TimedStore
from bezique.service.proxies import TrustedProxies
from bezique.service.servicer import TableServicer, caller_of, generic_handler
from bezique.service.startup import StartupError, StoreLock, check_port_free
from bezique.service.store import MissingExtra, Store, open_store
from bezique.service.store.sqlite import SqliteStore
from bezique.service.table_manager import Settings, TableManager
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.registry import ClaimConflict, Registry, load_registry

log = structlog.get_logger("bezique.server")

Req = TypeVar("Req")
Resp = TypeVar("Resp")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["TableService"].full_name

GC_THRESHOLDS = (200, 20, 25_000)
"""The collector's thresholds in the server's process. A young collection walks every object
made since the last one, and its count undercounts them (an older object's death takes one
off): at 1,000 it walked about 9,000 objects, 2-3 ms of the event loop every quarter second at
half the peer benchmark's rate, the stalls behind its open-loop p99. At 200 a young collection
takes 0.2-0.5 ms; one of the middle generation (every 20th, as before) 1.3-2.5 ms instead of
5-14 ms, for 10-20 µs more collector CPU per move (bench/results.md, "The open-loop tail"). Full
collections stay as rare per object made as before (1,000 x 20 x 5,000 = 200 x 20 x 25,000)."""


@dataclass
class RunningServer:
    """A started server and what it owns; ``stop()`` shuts it down gracefully."""

    server: grpc.aio.Server
    port: int
    manager: TableManager
    store: Store
    health: health_aio.HealthServicer
    clock: asyncio.Task[None]
    grace: float
    metrics: Metrics
    lock: StoreLock | None = None
    http: HttpServer | None = None
    """The HTTP port for browsers (Connect, gRPC-Web, the web table), if --http-address."""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def stop(self) -> None:
        """Health NOT_SERVING, streams told to reconnect, in-flight calls drained, store closed."""
        await self.health.enter_graceful_shutdown()
        await self.manager.close()
        self.clock.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.clock
        if self.http is not None:
            await asyncio.gather(self.server.stop(self.grace), self.http.stop(self.grace))
        else:
            await self.server.stop(self.grace)
        await self.store.close()
        self.metrics.shutdown()
        if self.lock is not None:
            self.lock.release()


def _credentials(config: Config) -> grpc.ServerCredentials | None:
    if not config.tls_cert:
        return None
    key = Path(config.tls_key).read_bytes()
    chain = Path(config.tls_cert).read_bytes()
    if config.tls_client_ca:
        return grpc.ssl_server_credentials([(key, chain)],
                                           Path(config.tls_client_ca).read_bytes(), True)
    return grpc.ssl_server_credentials([(key, chain)])


async def _housekeeping(manager: TableManager, interval: float, idle_seconds: float,
                        poll_seconds: float, views_kept: float) -> None:
    """Fire the turn deadlines that passed, end abandoned tables, let idle tables go from
    memory and idle tables' views go, and look for changes other replicas made that this one
    was not told of."""
    swept = abandoned = polled = time.monotonic()
    check = manager.settings.abandon_check
    while True:
        try:
            # first: no store call, so a failing store never keeps views kept
            manager.forget_stale_views(views_kept)  # a step per version kept, not per table
            await manager.fire_due_deadlines()
            if check and time.monotonic() - abandoned >= check:
                abandoned = time.monotonic()
                await manager.sweep_abandoned()
            if time.monotonic() - polled >= poll_seconds:
                polled = time.monotonic()
                await manager.poll_replicas()
            if idle_seconds > 0 and time.monotonic() - swept >= min(idle_seconds / 4, 30):
                swept = time.monotonic()
                await manager.evict_idle(idle_seconds)
        except Exception as exc:
            log.warning("housekeeping_failed", error=repr(exc))
        await asyncio.sleep(interval)


async def _open_store(config: Config, given: Store | None = None
                      ) -> tuple[Store, StoreLock | None]:
    """The opened store (``given``, or the one ``config.store`` names), and for a sqlite file
    the lock that keeps a second server off it.

    Raises StartupError (one line, password redacted) when it cannot be opened."""
    try:
        store = given if given is not None else open_store(
            config.store, sqlite_synchronous=config.sqlite_synchronous)
    except MissingExtra as exc:
        raise StartupError(hide_password(f"--store {config.store}: {exc}", config.store)
                           ) from None
    lock = None
    if isinstance(store, SqliteStore) and store.path != ":memory:":
        lock = StoreLock(store.path)
        lock.acquire()
    try:
        await store.open()
    except Exception as exc:
        if lock is not None:
            lock.release()
        with contextlib.suppress(Exception):
            await store.close()
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, OSError) and exc.strerror:
            reason = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
        raise StartupError(hide_password(f"cannot open the store {config.store}: {reason}",
                                         config.store)) from None
    return store, lock


def _listen(server: grpc.aio.Server, config: Config) -> int:
    """Bind the gRPC port; a port in use or an unusable TLS file is a StartupError."""
    check_port_free(config.address)
    try:
        credentials = _credentials(config)
    except OSError as exc:
        raise StartupError(f"cannot read the TLS files: {exc.strerror}: {exc.filename}"
                           ) from None
    try:
        if credentials is None:
            port = server.add_insecure_port(config.address)
        else:
            port = server.add_secure_port(config.address, credentials)
    except RuntimeError:
        port = 0
    if port == 0:
        raise StartupError(f"cannot listen on {config.address}")
    return port


async def start_server(config: Config, registry: Registry | None = None,
                       store: Store | None = None) -> RunningServer:
    """Open the store, build the services and start listening (``--address`` port 0: any).
    An embedding platform (or a test) may pass its own ``store``; else ``config.store``.

    Anything the operator must fix raises StartupError, with nothing left open."""
    registry = registry or _load_registry(config)
    for displaced in registry.displaced:
        log.warning("plugin_claim_dropped", kind=displaced.kind, name=displaced.name,
                    kept=str(displaced.kept), dropped=str(displaced.dropped),
                    variants=list(displaced.variants) or None,
                    error=f"--prefer-plugin: {displaced.kept.name}'s {displaced.kind} "
                          f"{displaced.name!r} is served, {displaced.dropped.name}'s is not")
    for excluded in registry.excluded:
        log.warning("plugin_excluded", distribution=excluded.origin.name,
                    distribution_version=excluded.origin.version,
                    entry_point=excluded.entry_point, error=excluded.error)
    for name in registry.not_installed:
        log.warning("plugin_not_installed", distribution=name,
                    error="named by --plugins, but no installed distribution has a bezique "
                          "entry point by that name")
    for name in registry.not_installed_preferred:
        log.warning("preferred_plugin_not_installed", distribution=name,
                    error="named by --prefer-plugin, but no installed distribution has a "
                          "bezique entry point by that name: it settles nothing")
    store, lock = await _open_store(config, store)
    metrics = Metrics()
    try:
        return await _start(config, registry, store, lock, metrics)
    except BaseException:
        metrics.shutdown()
        with contextlib.suppress(Exception):
            await store.close()
        if lock is not None:
            lock.release()
        raise


def _load_registry(config: Config) -> Registry:
    """The installed plugins the configuration selects; a name two of them claim, with no
    preference to settle it, is a StartupError: one plugin never displaces another unasked."""
    try:
        return load_registry(allow=config.plugins, deny=config.disable_plugin,
                             prefer=config.prefer_plugin)
    except ClaimConflict as exc:
        raise StartupError(f"{exc}: uninstall one, or choose one with --prefer-plugin DIST "
                           "(BEZIQUE_PREFER_PLUGIN)") from None


async def _start(config: Config, registry: Registry, store: Store, lock: StoreLock | None,
                 metrics: Metrics) -> RunningServer:
    settings = Settings(
        test_mode=config.test_mode, bot_delay=config.bot_delay,
        snapshot_every=max(1, config.snapshot_every), seat_token_ttl=config.seat_token_ttl,
        reveal_seconds=config.reveal_seconds, platform=bool(config.api_key),
        results_poll=config.replica_poll_seconds,
        abandon_after=config.abandon_after,
        abandon_unstarted_after=config.abandon_unstarted_after,
        grants=bool(config.grant_public_key),
        limits=config.limits())
    manager = TableManager(registry, TimedStore(store, metrics), settings, metrics)
    metrics.watch_tables(manager.live_tables)
    if config.metrics_port:
        try:
            metrics.serve(config.metrics_port, config.address.rsplit(":", 1)[0].strip("[]"))
        except OSError as exc:
            raise StartupError(f"cannot serve metrics on port {config.metrics_port}: "
                               f"{exc.strerror or exc}") from None
    ports = 2 if config.http_address else 1
    cap = connection_cap(config.max_connections, ports, raise_descriptor_limit())
    proxies.trust(TrustedProxies(config.trusted_proxies))
    options = [("grpc.max_receive_message_length", config.max_message_bytes),
               ("grpc.so_reuseport", 0),
               *grpc_connection_options(cap, config.request_head_seconds,
                                        config.idle_connection_seconds)]
    server = grpc.aio.server(options=options)
    streams = StreamCounter(config.max_watchers_per_caller)
    servicer = TableServicer(manager, config.api_key, metrics,
                             RateLimiter(config.rate_limit, max(1.0, config.rate_burst)),
                             streams,
                             GrantVerifier.from_file(config.grant_public_key)
                             if config.grant_public_key else None,
                             # a Play stream ended at shutdown ends within the grace period
                             min(play.SETTLE_SECONDS, config.grace_seconds / 2))
    server.add_generic_rpc_handlers((generic_handler(servicer),))
    def peer(context: grpc.aio.ServicerContext[Req, Resp]) -> str:
        """Who holds a health or reflection stream: its peer, as for the table streams."""
        return caller_of(context, manager, "")

    health_servicer = CappedHealth(streams, peer)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable(server, (SERVICE_NAME,
                               health_pb2.DESCRIPTOR.services_by_name["Health"].full_name),
                      streams, peer, servicer.rate)
    port = _listen(server, config)
    http_socket = bind_http(config.http_address) if config.http_address else None
    store.listen(manager.on_remote_entry, manager.on_reconnect, manager.results.on_result)
    await server.start()
    http = None
    if http_socket is not None:
        try:
            http = await serve_http(http_socket, config, servicer, health_servicer, cap)
        except BaseException:
            await server.stop(0)
            raise
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    clock = asyncio.get_running_loop().create_task(
        _housekeeping(manager, config.clock_interval, config.idle_seconds,
                      config.replica_poll_seconds, config.views_kept_seconds))
    for variant_id, origin in registry.origins.items():
        log.info("variant_loaded", variant=variant_id, distribution=origin.name,
                 distribution_version=origin.version)
    log.info("server_started", port=port, store=redact_url(config.store),
             variants=list(registry.variants), test_mode=config.test_mode,
             http_port=http.port if http is not None else None,
             event_loop=type(asyncio.get_running_loop()).__module__)
    return RunningServer(server, port, manager, store, health_servicer, clock,
                         config.grace_seconds, metrics, lock, http)


async def serve(config: Config) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    running = await start_server(config)
    # CardLookup, watch streams and their grpc objects are long-lived: with the default thresholds a
    # full collection walks all of them again and again (measured: 700 ms pauses with 10,000
    # streams), so full collections are made rare and the start-up heap is left alone. The
    # young generation stays small: grpc.aio leaves a few objects in a reference cycle behind
    # every call, and a young generation of 50,000 held 17,000 of them, freed in one 30 ms pause.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    print(f"bezique-server listening on {config.address.rsplit(':', 1)[0]}:{running.port}",
          flush=True)
    if running.http is not None:
        host = config.http_address.rsplit(":", 1)[0]
        print(f"bezique-server serving browsers (Connect, gRPC-Web, web table) on "
              f"{'https' if running.http.tls else 'http'}://{host}:{running.http.port}/",
              flush=True)
    await stop.wait()
    log.info("server_stopping")
    await running.stop()
    log.info("server_stopped")
