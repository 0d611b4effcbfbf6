"""Which host names the HTTP port answers to: the defence against DNS rebinding.

A page on ``evil.example`` can have its name re-pointed at 127.0.0.1 and then call a server on
the player's own machine as its *own* origin, past every CORS check. The browser still sends
``Host: evil.example``, so a server that answers only to the names it is known by is out of
its reach. On a loopback address the server answers only to the loopback names unless told
otherwise; on any other address it cannot guess its public names, so it answers to any until
``--http-allowed-hosts`` names them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port: ``[::1]:8080`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def is_loopback(host: str) -> bool:
    """Whether a listening host (``HOST`` of ``HOST:PORT``) is reachable from this machine only."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


class Hosts:
    """The host names requests may be addressed to (``*``: any).

    ``bound`` is the address the socket is bound to, when known: it, not the text of
    ``--http-address``, says whether the port is loopback, since that text may name a
    loopback address another way (``127.1``, ``::ffff:127.0.0.1``, a name /etc/hosts maps to
    127.0.0.1) and must not open the port to every name."""

    def __init__(self, allowed: Iterable[str], listening_host: str, bound: str = "") -> None:
        names = frozenset(name.strip().lower().strip("[]") for name in allowed if name.strip())
        if not names:
            own = {listening_host.strip("[]").lower(), bound.strip("[]").lower()} - {""}
            names = (LOOPBACK_NAMES | own if is_loopback(bound or listening_host)
                     else frozenset({"*"}))
        self.allowed = names

    def permits(self, host_header: str | None) -> bool:
        """Whether a request with this ``Host`` header is for this server."""
        if "*" in self.allowed:
            return True
        return host_header is not None and host_name(host_header) in self.allowed


def listening_host(address: str) -> str:
    """The host of a ``HOST:PORT`` listening address: ``[::1]:8080`` -> ``::1``."""
    return address.rpartition(":")[0].strip("[]")
