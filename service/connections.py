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
"""Descriptors kept for everything but the two ports' connections: the store (a sqlite file
and its journal, or a PostgreSQL pool), log and metrics sockets, grpc's pollers and wakeups."""


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


@dataclass
class ConnectionCounter:
    """The open connections of one port, capped in total and per peer."""

    total: int
    per_peer: int
    open: int = 0
    _by_peer: dict[str, int] = field(default_factory=dict)

    def admit(self, key: str | None) -> str:
        """Count a new connection from ``key`` (None: uncapped per peer), or say why not:
        ``""`` when admitted, else the flag whose cap it reached."""
        if self.open >= self.total:
            return "--max-connections"
        if key is not None:
            count = self._by_peer.get(key, 0)
            if count >= self.per_peer:
                return "--max-connections-per-peer"
            self._by_peer[key] = count + 1
        self.open += 1
        return ""

    def release(self, key: str | None) -> None:
        self.open -= 1
        if key is not None:
            count = self._by_peer.pop(key, 0) - 1
            if count > 0:
                self._by_peer[key] = count


def grpc_connection_options(cap: int, handshake_seconds: float, idle_seconds: float
                            ) -> list[tuple[str, int]]:
    """grpc core's bounds on the gRPC port's connections. Past ``cap`` a new connection is
    closed as soon as it is accepted; one that has not finished its handshake (TCP, TLS, the
    HTTP/2 preface and settings) in time is closed (grpc's default: 120 s); one with no call
    open for ``idle_seconds`` is sent GOAWAY (a client reconnects on its next call). grpc core
    has no cap per peer address: the total cap and these deadlines bound what one client can
    hold there."""
    return [("grpc.max_allowed_incoming_connections", cap),
            ("grpc.server_handshake_timeout_ms", max(1, round(handshake_seconds * 1000))),
            ("grpc.max_connection_idle_ms", max(1, round(idle_seconds * 1000)))]
