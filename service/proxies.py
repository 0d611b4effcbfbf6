"""Who a call comes from: its peer's address, or the client a trusted proxy names.

A forwarded address is a claim anyone can write into a header, so it is believed only from
the proxies the operator names (``--trusted-proxies``, none by default): when the immediate
peer is one of them, ``X-Forwarded-For`` is walked from the right (the hop each proxy
appended) past the trusted proxies, and the first address that is not one is the client. The
same rule serves both ports: an HTTP request's headers and a gRPC call's metadata are read
alike. ``Forwarded`` (RFC 7239) is not read: a proxy that appends to one header usually
passes the other through as the client wrote it.
"""

from __future__ import annotations

import contextvars
import ipaddress
from collections.abc import Iterable
from typing import TypeVar

from grpc.aio import ServicerContext

Req = TypeVar("Req")
Resp = TypeVar("Resp")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
FORWARDED_FOR = "x-forwarded-for"


def parse_network(text: str) -> Network:
    """An IP address or CIDR block (``10.0.0.5``, ``10.0.0.0/8``, ``::1``, ``fd00::/8``);
    ValueError says why not."""
    try:
        return ipaddress.ip_network(text.strip())
    except ValueError as exc:
        raise ValueError(f"{text.strip()!r} is not an IP address or CIDR block ({exc})") from None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address of one hop as proxies write it (``1.2.3.4``, ``1.2.3.4:80``,
    ``[::1]:80``, ``::1``), or None when it is not one."""
    text = text.strip().strip('"')
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _spelled(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """An address in grpc's peer spelling without the port (``ipv4:1.2.3.4``,
    ``ipv6:[::1]``), the spelling the limits per caller key on."""
    return f"ipv6:[{address}]" if address.version == 6 else f"ipv4:{address}"


def peer_host(peer: str) -> str:
    """A grpc peer (``ipv4:HOST:PORT``, ``ipv6:[HOST]:PORT``) without its port."""
    return peer.rsplit(":", 1)[0] if peer.startswith(("ipv4:", "ipv6:")) else peer


def _host_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address of a peer host in grpc's spelling, or None (``unix:``, ``unknown``)."""
    if host.startswith(("ipv4:", "ipv6:")):
        return _address(host[5:])
    return None


class TrustedProxies:
    """The proxies whose forwarded client addresses are believed."""

    def __init__(self, networks: Iterable[str] = ()) -> None:
        self.networks: tuple[Network, ...] = tuple(parse_network(n) for n in networks)

    def trusts(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        return address is not None and any(address in network for network in self.networks)

    def trusts_ip(self, text: str) -> bool:
        """Whether an address as a socket gives it (``127.0.0.1``, ``::1``) is trusted."""
        return bool(self.networks) and self.trusts(_address(f"[{text}]" if ":" in text
                                                             else text))

    def trusts_host(self, host: str) -> bool:
        """Whether a peer host (grpc spelling, no port) is a trusted proxy."""
        return bool(self.networks) and self.trusts(_host_address(host))

    def client_host(self, peer: str, forwarded_for: Iterable[str]) -> str:
        """The caller's host (grpc spelling, no port): ``peer`` itself unless it is a trusted
        proxy; then the rightmost address of the ``X-Forwarded-For`` values that is not a
        trusted proxy (all of them trusted: the leftmost). A hop that is not an address ends
        the walk at the last trusted one, which is then the caller."""
        if not self.trusts_host(peer):
            return peer
        hops = [hop for value in forwarded_for for hop in value.split(",")]
        caller = peer
        for hop in reversed(hops):
            address = _address(hop)
            if address is None:
                return caller
            caller = _spelled(address)
            if not self.trusts(address):
                return caller
        return caller


NOBODY = TrustedProxies()
"""No proxy is trusted: the default."""

_TRUSTED: contextvars.ContextVar[TrustedProxies] = contextvars.ContextVar(
    "bezique_trusted_proxies", default=NOBODY)
"""The running server's trusted proxies. Set before its ports start, so every task they
spawn for a call sees it (each server of a test process sees its own)."""


def trust(proxies: TrustedProxies) -> None:
    """Make ``proxies`` the trusted ones for the ports started after this, in this task."""
    _TRUSTED.set(proxies)


def trusted() -> TrustedProxies:
    return _TRUSTED.get()


def caller_host(context: ServicerContext[Req, Resp]) -> str:
    """The host a call comes from (a grpc.aio or HTTP servicer context): the peer, or the
    client its trusted proxy names in ``x-forwarded-for``."""
    host = peer_host(str(context.peer() or "unknown"))
    proxies = _TRUSTED.get()
    if not proxies.networks:
        return host
    values = [value for key, value in (context.invocation_metadata() or ())
              if key.lower() == FORWARDED_FOR and isinstance(value, str)]
    return proxies.client_host(host, values)
