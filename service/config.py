"""Server configuration: every flag has a matching environment variable (BEZIQUE_<FLAG>)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    address: str = "127.0.0.1:50051"
    store: str = "sqlite:data/bezique.sqlite"
    sqlite_synchronous: str = "normal"
    test_mode: bool = False
    api_key: str = ""
    log_format: str = "auto"
    log_level: str = "info"
    metrics_port: int = 0
    bot_delay: float = 0.5
    clock_interval: float = 0.25
    snapshot_every: int = 64
    idle_seconds: float = 300.0
    max_tables: int = 100_000
    max_watchers_per_table: int = 1000
    max_watchers_per_caller: int = 100
    max_streams_per_seat: int = 8
    max_log_entries: int = 100_000
    max_seat_changes: int = 64
    rate_limit: float = 0.0
    rate_burst: float = 200.0
    max_message_bytes: int = 1 << 20
    grace_seconds: float = 5.0
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""


_HELP = {
    "address": "host:port to listen on (127.0.0.1:0 picks a free port)",
    "store": "memory:, sqlite:PATH or postgresql://user@host/db",
    "sqlite_synchronous": "normal (survives a crash of the server) or full (survives power loss)",
    "test_mode": "allow CreateTable to fix seeds, stack shoes and fix the first dealer",
    "api_key": "platform API key required by CreateTable (metadata x-api-key); empty: none",
    "log_format": "json, console or auto (console on a terminal)",
    "log_level": "debug, info, warning or error",
    "metrics_port": "serve Prometheus metrics on this HTTP port (0: off)",
    "bot_delay": "seconds a server bot waits before it moves",
    "clock_interval": "seconds between looks for turn deadlines that ran out",
    "snapshot_every": "moves between snapshots of a table's state (faster rebuilds)",
    "idle_seconds": "drop a table unused this long from memory (rebuilt on use; 0: never)",
    "max_tables": "most unfinished tables this store may hold",
    "max_watchers_per_table": "most open WatchTable streams on one table",
    "max_watchers_per_caller": "most open WatchTable streams of one caller (0: no limit)",
    "max_streams_per_seat": "most open WatchTable streams of one seat",
    "max_log_entries": "most log entries of one table (a change past it: LOG_FULL)",
    "max_seat_changes": "most seats given up at one table before its start (then: SEAT_CHURN)",
    "rate_limit": "requests a second allowed per caller (seat token, else address; 0: off)",
    "rate_burst": "requests a caller may send at once before the rate limit applies",
    "max_message_bytes": "largest request message accepted",
    "grace_seconds": "on SIGTERM, how long in-flight calls may finish",
    "tls_cert": "PEM certificate chain for TLS (with --tls-key)",
    "tls_key": "PEM private key for TLS",
    "tls_client_ca": "PEM CA bundle: require client certificates signed by it (mutual TLS)",
}


def _env_name(field: str) -> str:
    return "BEZIQUE_" + field.upper()


def parse_config(argv: Sequence[str] | None = None,
                 environ: dict[str, str] | None = None) -> Config:
    """Flags override environment variables, which override the defaults."""
    env = os.environ if environ is None else environ
    defaults = Config()
    parser = argparse.ArgumentParser(prog="bezique-server",
                                     description="The bezique card-table gRPC server.")
    for name, default in vars(defaults).items():
        flag = "--" + name.replace("_", "-")
        raw = env.get(_env_name(name))
        help_text = f"{_HELP[name]} (env {_env_name(name)})"
        if isinstance(default, bool):
            value = raw.lower() in ("1", "true", "yes") if raw is not None else default
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=value,
                                help=help_text)
        else:
            kind = type(default)
            parser.add_argument(flag, type=kind, default=kind(raw) if raw is not None else default,
                                help=help_text)
    args = parser.parse_args(argv)
    return Config(**vars(args))
