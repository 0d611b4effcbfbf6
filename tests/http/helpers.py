"""Helpers of the HTTP port's tests: the settings that open it, and where an in-process server
has it (the browser-protocol client itself is in tests/http/web.py)."""

from __future__ import annotations

from bezique.service.server import RunningServer


def http_config(**overrides: object) -> dict[str, object]:
    """``server_config`` settings that open the HTTP port on a free loopback port."""
    return {"http_address": "127.0.0.1:0", **overrides}


def base_url(server: RunningServer) -> str:
    """``http://127.0.0.1:PORT`` of the server's HTTP port."""
    assert server.http is not None
    return f"http://127.0.0.1:{server.http.port}"
