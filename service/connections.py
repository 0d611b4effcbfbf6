"""Connections as a bounded resource: descriptors, and the open connections of a port.

Every connection holds a file descriptor until it closes. Unbounded, a client that opens
connections and sends nothing uses up the process's descriptors, and then neither port can
accept anyone, health checks included. So at start the process raises its own soft limit
as far as the hard limit allows, each port's cap is lowered to fit what remains after a
reserve (the store, logs, metrics and grpc's own descriptors), and the HTTP port counts its
connections in total and per peer address.
"""

from __future__ import annotations

import ipaddress
import resource
from dataclasses import dataclass, field

import structlog

log = structlog.get_logger("bezique.server")

DESCRIPTOR_RESERVE = 128
"""Descriptors kept for everything but the two ports' capped connections: the store (a
sqlite file and its journal, or a PostgreSQL pool), log and metrics sockets, grpc's pollers
and wakeups, and the HTTP port's slots for health checks past its cap."""


def raise_descriptor_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard one; the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass  # kept as it was: the caps below fit the limit that holds
    return soft


def connection_cap(wanted: int, ports: int, soft_limit: int) -> int:
    """The cap on each of ``ports`` ports: ``wanted``, lowered so that all of them full still
    leave the reserve free (a warning says so when it is lowered)."""
    room = max(1, (soft_limit - DESCRIPTOR_RESERVE) // max(1, ports))
    if wanted > room:
        log.warning("max_connections_lowered", wanted=wanted, cap=room, ports=ports,
                    descriptor_limit=soft_limit, reserve=DESCRIPTOR_RESERVE,
                    hint="raise the hard limit of open files (ulimit -Hn, LimitNOFILE=)")
        return room
    return wanted


def peer_key(host: str) -> str:
    """What the per-peer cap counts by: the address, or an IPv6 address's /64 (one host is
    usually given a whole /64, and could take a fresh address of it per connection)."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address)
               and address.ipv4_mapped is not None else address)


HEALTH_SLOTS = 16
"""Connections an HTTP port accepts past its cap for health checks alone (part of the
descriptor reserve): a load balancer's check gets in while the port is full."""

HEALTH = "health"
""":meth:`ConnectionCounter.admit`'s answer for a connection taken into the health slots."""


@dataclass
class ConnectionCounter:
    """The open connections of one port, capped in total and per peer; past the total cap,
    :data:`HEALTH_SLOTS` more for health checks alone."""

    total: int
    per_peer: int
    health_slots: int = HEALTH_SLOTS
    open: int = 0
    health_open: int = 0
    _by_peer: dict[str, int] = field(default_factory=dict)

    def admit(self, key: str | None) -> str:
        """Count a new connection from ``key`` (None: uncapped per peer), or say why not:
        ``""`` when admitted, :data:`HEALTH` when admitted for a health check alone, else the
        flag whose cap it reached."""
        count = self._by_peer.get(key, 0) if key is not None else 0
        if key is not None and count >= self.per_peer:
            return "--max-connections-per-peer"
        if self.open < self.total:
            self.open += 1
            answer = ""
        elif self.health_open < self.health_slots:
            self.health_open += 1
            answer = HEALTH
        else:
            return "--max-connections"
        if key is not None:
            self._by_peer[key] = count + 1
        return answer

    def release(self, key: str | None, admitted: str) -> None:
        """Uncount a connection ``admit`` admitted with the answer ``admitted``."""
        if admitted == HEALTH:
            self.health_open -= 1
        else:
            self.open -= 1
        if key is not None:
            count = self._by_peer.pop(key, 0) - 1
            if count > 0:
                self._by_peer[key] = count


PENDING_CALLS = 20_000
"""New calls grpc core holds before the server takes them up. Its defaults (1,000, and 3,000
at most) cancel the rest of a burst: of a burst of WatchTable streams opened at once on one
connection (a platform's watchers; every client resuming after a restart), 1,000 of 1,000 got
their first update, 1,821 of 2,000 and 3,214 of 5,000, the others CANCELLED; with this bound,
5,000 of 5,000 (tests/service/test_many_streams.py). Once taken up, a call counts against the
per-caller stream cap like any other."""


def grpc_connection_options(cap: int, handshake_seconds: float, idle_seconds: float
                            ) -> list[tuple[str, int]]:
    """grpc core's bounds on the gRPC port's connections. Past ``cap`` a new connection is
    closed as soon as it is accepted; one that has not finished its handshake (TCP, TLS, the
    HTTP/2 preface and settings) in time is closed (grpc's default: 120 s); one with no call
    open for ``idle_seconds`` is sent GOAWAY (a client reconnects on its next call). grpc core
    has no cap per peer address: the total cap and these deadlines bound what one client can
    hold there. New calls wait to be taken up in a queue of :data:`PENDING_CALLS`."""
    return [("grpc.max_allowed_incoming_connections", cap),
            ("grpc.server_handshake_timeout_ms", max(1, round(handshake_seconds * 1000))),
            ("grpc.max_connection_idle_ms", max(1, round(idle_seconds * 1000))),
            ("grpc.server.max_pending_requests", PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", PENDING_CALLS)]
