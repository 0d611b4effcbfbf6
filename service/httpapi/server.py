"""Running the HTTP port: uvicorn (HTTP/1.1, httptools) in the gRPC server's own event loop.

The socket is bound before anything starts, so a port in use is one StartupError line; the
TLS files of the gRPC port serve this port too (and a client CA makes it mutual TLS).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
import ssl
from dataclasses import dataclass

import uvicorn
from grpc_health.v1 import health_pb2

from bezique.service.config import Config
from bezique.service.connections import ConnectionCounter
from bezique.service.httpapi.app import BrowserApp
from bezique.service.httpapi.cors import Origins
from bezique.service.httpapi.hosts import Hosts, listening_host
from bezique.service.httpapi.protocol import bounded_protocol
from bezique.service.httpapi.static import StaticFiles
from bezique.service.proxies import trusted
from bezique.service.startup import StartupError, check_port_free
from bezique.v1 import table_service_pb2 as pb


@dataclass
class HttpServer:
    """A started HTTP port; ``stop()`` closes it and lets open calls finish for ``grace``."""

    server: uvicorn.Server
    port: int
    ticker: asyncio.Task[None]
    tls: bool

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    async def stop(self, grace: float) -> None:
        self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self.ticker
        self.server.config.timeout_graceful_shutdown = max(1, math.ceil(grace))
        await self.server.shutdown()


def bind_http(address: str) -> socket.socket:
    """The listening socket of ``HOST:PORT`` (port 0: any free port)."""
    check_port_free(address)
    host, _, port = address.rpartition(":")
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            host.strip("[]"), int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise StartupError(f"cannot listen on {address} (HTTP): {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(2048)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise StartupError(f"cannot listen on {address} (HTTP): {exc.strerror or exc}") from None
    return sock


async def serve_http(sock: socket.socket, config: Config, servicer: object,
                     health: object, max_connections: int) -> HttpServer:
    """Serve Connect, gRPC-Web and the web table on ``sock`` with the servicers' logic: the
    table service, and grpc.health.v1 (an HTTP health check for load balancers); at most
    ``max_connections`` open at once.

    uvicorn's own reading of X-Forwarded-For is off (it believes loopback peers): the
    servicer reads the header, from the proxies ``--trusted-proxies`` names only."""
    services = [(servicer, pb.DESCRIPTOR.services_by_name["TableService"]),
                (health, health_pb2.DESCRIPTOR.services_by_name["Health"])]
    app = BrowserApp(services,
                     max_message_bytes=config.max_message_bytes,
                     origins=Origins(config.http_allowed_origins),
                     hosts=Hosts(config.http_allowed_hosts, listening_host(config.http_address),
                                 str(sock.getsockname()[0])),
                     static=StaticFiles(config.http_static_dir))
    settings = uvicorn.Config(
        app, lifespan="off", ws="none", log_config=None, access_log=False,
        http=bounded_protocol(ConnectionCounter(max_connections, config.max_connections_per_peer),
                              trusted(), config.request_head_seconds),
        proxy_headers=False, timeout_keep_alive=max(1, math.ceil(config.idle_connection_seconds)),
        server_header=False, timeout_graceful_shutdown=max(1, math.ceil(config.grace_seconds)),
        ssl_certfile=config.tls_cert or None, ssl_keyfile=config.tls_key or None,
        ssl_ca_certs=config.tls_client_ca or None,
        ssl_cert_reqs=ssl.CERT_REQUIRED if config.tls_client_ca else ssl.CERT_NONE)
    settings.load()
    server = uvicorn.Server(settings)
    server.lifespan = settings.lifespan_class(settings)
    try:
        await server.startup(sockets=[sock])
    except BaseException:
        sock.close()
        raise
    ticker = asyncio.get_running_loop().create_task(server.main_loop())
    return HttpServer(server, sock.getsockname()[1], ticker, bool(config.tls_cert))
