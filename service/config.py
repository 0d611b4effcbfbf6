"""Server configuration: one validated, frozen settings object.

Every flag ``--some-flag`` has an environment variable ``BEZIQUE_SOME_FLAG``; a flag wins over
its variable, which wins over the default. Every value, from either source, goes through the
same parser, so a mistake is caught before anything starts and reported as ONE line naming the
flag or the variable, with exit status 2 (:data:`USAGE_ERROR`).

Why argparse and not pydantic-settings: the server already speaks argparse, the flags are
flat scalars that each need one small parser, and pydantic would add a runtime dependency (and
its multi-line validation reports) for what a table of parser functions does in one module.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import ssl
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

from bezique.service.settings import Limits, Settings

DISTRIBUTION = "bezique-engine"
USAGE_ERROR = 2
ADDRESS_VARIABLE = "BEZIQUE_SERVER"
"""The server's address under the name the clients (``bezique``) read too, so one variable
serves both; ``BEZIQUE_ADDRESS`` (deprecated) still wins when both are set."""
"""Exit status of a configuration mistake (a bad flag or environment variable)."""
STARTUP_ERROR = 1
"""Exit status when the configuration is valid but the server cannot start (port in use,
store unreachable or locked, path not writable)."""


@dataclass(frozen=True)
class Config:
    """The server's configuration; what it shares with the table service takes that side's
    defaults (service/settings.py), so each default is written once."""

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
    reveal_seconds: float = Settings.reveal_seconds
    abandon_after: float = Settings.abandon_after
    abandon_unstarted_after: float = Settings.abandon_unstarted_after
    snapshot_every: int = Settings.snapshot_every
    idle_seconds: float = 300.0
    views_kept_seconds: float = 0.5
    replica_poll_seconds: float = Settings.results_poll
    max_tables: int = Limits.max_tables
    max_watchers_per_table: int = Limits.max_watchers_per_table
    max_watchers_per_caller: int = 100
    max_streams_per_seat: int = Limits.max_streams_per_seat
    max_log_entries: int = Limits.max_log_entries
    max_seat_changes: int = Limits.max_seat_changes
    rate_limit: float = 0.0
    rate_burst: float = 200.0
    max_message_bytes: int = 1 << 20
    grace_seconds: float = 5.0
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""
    plugins: tuple[str, ...] = ()
    disable_plugin: tuple[str, ...] = ()
    prefer_plugin: tuple[str, ...] = ()
    seat_token_ttl: float = Settings.seat_token_ttl
    grant_public_key: str = ""
    http_address: str = ""
    http_allowed_origins: tuple[str, ...] = ()
    http_allowed_hosts: tuple[str, ...] = ()
    http_static_dir: str = ""
    trusted_proxies: tuple[str, ...] = ()
    max_connections: int = 4096
    max_connections_per_peer: int = 128
    request_head_seconds: float = 10.0
    idle_connection_seconds: float = 60.0

    def limits(self) -> Limits:
        """The one limits record, with the bounds an operator sets by flag taken from here and
        every other bound at its default."""
        return Limits(max_tables=self.max_tables,
                      max_watchers_per_table=self.max_watchers_per_table,
                      max_streams_per_seat=self.max_streams_per_seat,
                      max_log_entries=self.max_log_entries,
                      max_seat_changes=self.max_seat_changes)


def distribution_version() -> str:
    """The installed version of the engine's distribution (``unknown`` when not installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def redact_url(url: str) -> str:
    """``scheme://user:secret@host/db`` with the password replaced by ``***``."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def hide_password(text: str, url: str) -> str:
    """``text`` with the password of ``url`` (wherever it appears, e.g. in a driver's error)
    replaced by ``***``."""
    found = re.search(r"://[^:/@]*:([^@/]*)@", url)
    if found and found.group(1):
        text = text.replace(found.group(1), "***")
    return redact_url(text)


# ------------------------------------------------------------------------- value parsers
# Each takes the text of a flag or variable and returns the value, or raises ValueError with
# a message that completes "--flag: ..." or "BEZIQUE_FLAG=...: ...".

Parse = Callable[[str], Any]


def _port_number(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a port number (0 to 65535)") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"{port} is not a port number (0 to 65535)")
    return port


def _address(text: str) -> str:
    host, sep, port = text.rpartition(":")
    if not sep or not host.strip("[]"):
        raise ValueError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:50051, [::]:50051)")
    _port_number(port)
    return text


def _store(text: str) -> str:
    if text in ("memory", "memory:"):
        return "memory:"
    if text.startswith("sqlite:") and text.removeprefix("sqlite:").removeprefix("//"):
        return text
    if re.match(r"postgres(ql)?://\S*$", text):
        return text
    raise ValueError(f"{redact_url(text)!r} is not a store URL "
                     "(memory:, sqlite:PATH or postgresql://user:password@host/db)")


def _choice(*choices: str) -> Parse:
    def parse(text: str) -> str:
        if text.lower() not in choices:
            raise ValueError(f"{text!r} is not one of {', '.join(choices)}")
        return text.lower()
    return parse


def _whole(low: int, what: str) -> Parse:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
        if value < low:
            raise ValueError(f"{value} is too small: {what}")
        return value
    return parse


def _seconds(positive: bool) -> Parse:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            raise ValueError(f"{text} is out of range: a number of seconds "
                             f"{'above 0' if positive else 'of 0 or more'}")
        return value
    return parse


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def _boolean(text: str) -> bool:
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a yes/no value ({', '.join(_TRUE)} or "
                     f"{', '.join(f for f in _FALSE if f)})")


def _text(text: str) -> str:
    return text


def _readable_file(text: str) -> str:
    if text and not os.access(text, os.R_OK):
        raise ValueError(f"cannot read the file {text!r}")
    if text and Path(text).is_dir():
        raise ValueError(f"{text!r} is a folder, not a file")
    return text


def _grant_key(text: str) -> str:
    """A PEM public key file that join grants can be checked with (its kind picks the one
    algorithm accepted)."""
    if not text:
        return text
    _readable_file(text)
    from bezique.service.grants import load_public_key

    load_public_key(text)
    return text


_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for name in names:
        if not _NAME.match(name):
            raise ValueError(f"{name!r} is not a distribution name")
    return names


def _optional_address(text: str) -> str:
    return _address(text) if text else ""


_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^https?://\[[0-9A-Fa-f:.]+\]"
                     r"(:[0-9]{1,5})?$")


def _origins(text: str) -> tuple[str, ...]:
    origins = tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())
    for origin in origins:
        if origin != "*" and not _ORIGIN.match(origin):
            raise ValueError(f"{origin!r} is not an origin (scheme://host[:port], e.g. "
                             "https://games.example.com, or * for any page)")
    return origins


_HOST = re.compile(r"^[A-Za-z0-9.-]+$|^\[?[0-9A-Fa-f:.]+\]?$")


def _hosts(text: str) -> tuple[str, ...]:
    hosts = tuple(h.strip() for h in text.split(",") if h.strip())
    for host in hosts:
        if host != "*" and not _HOST.match(host):
            raise ValueError(f"{host!r} is not a host name (e.g. games.example.com, without "
                             "scheme or port, or * for any)")
    return hosts


def _networks(text: str) -> tuple[str, ...]:
    from bezique.service.proxies import parse_network

    return tuple(str(parse_network(n)) for n in text.split(",") if n.strip())


def _folder(text: str) -> str:
    if text and not Path(text).is_dir():
        raise ValueError(f"{text!r} is not a folder")
    return text


@dataclass(frozen=True)
class _Option:
    parse: Parse
    help: str


_OPTIONS: dict[str, _Option] = {
    "address": _Option(_address, "HOST:PORT to listen on (port 0 picks a free port; env "
                                 "BEZIQUE_SERVER too, the name the clients read)"),
    "store": _Option(_store, "memory:, sqlite:PATH or postgresql://user:password@host/db "
                             "(several hosts and ?target_session_attrs=read-write: the one "
                             "that is primary, docs/operations.md)"),
    "sqlite_synchronous": _Option(_choice("normal", "full"),
                                  "normal (survives a crash of the server) or full (survives "
                                  "power loss)"),
    "test_mode": _Option(_boolean, "allow CreateTable to fix seeds, stack shoes and fix the "
                                   "first dealer"),
    "api_key": _Option(_text, "platform API key (metadata x-api-key) required by CreateTable, "
                              "ReissueSeatToken, AbortTable, WatchResults (the results feed) "
                              "and joins that bind a player or a buy-in; buy-in tables (and "
                              "with --grant-public-key every table not opened) seat only with "
                              "it or a join grant. Empty: none (ReissueSeatToken and "
                              "AbortTable are then refused)"),
    "log_format": _Option(_choice("json", "console", "auto"),
                          "json, console or auto (console on a terminal)"),
    "log_level": _Option(_choice("debug", "info", "warning", "error"),
                         "debug, info, warning or error"),
    "metrics_port": _Option(_port_number, "serve Prometheus metrics on this HTTP port (0: off)"),
    "bot_delay": _Option(_seconds(False), "seconds a server bot waits before it moves"),
    "clock_interval": _Option(_seconds(True),
                              "seconds between looks for turn deadlines that ran out"),
    "reveal_seconds": _Option(_seconds(True),
                              "seconds committed seats have to reveal their entropy once every "
                              "seat is taken; then the table ends before any deal"),
    "abandon_after": _Option(_seconds(False),
                             "seconds with no move and no seat connected (a watch or Play "
                             "stream, on any replica) after which a started table ends as "
                             "'abandoned', stakes returned as by AbortTable (0: never)"),
    "abandon_unstarted_after": _Option(_seconds(False),
                                       "the same for a table whose game has not started "
                                       "(0: never)"),
    "snapshot_every": _Option(_whole(1, "at least 1"),
                              "moves between snapshots of a table's state (faster rebuilds)"),
    "idle_seconds": _Option(_seconds(False), "drop a table unused this long from memory "
                                             "(rebuilt on use; 0: never)"),
    "views_kept_seconds": _Option(_seconds(True),
                                  "seconds a watched table keeps the views of its current "
                                  "version (its streams, its mover's answer and GetView share "
                                  "them); then they are let go, and rendered again if asked "
                                  "for"),
    "replica_poll_seconds": _Option(_seconds(True),
                                    "over PostgreSQL, seconds between looks at the store for "
                                    "changes other replicas made that this one was not told of "
                                    "(a lost notice is late by at most this)"),
    "max_tables": _Option(_whole(0, "0 or more"), "most unfinished tables this store may hold"),
    "max_watchers_per_table": _Option(_whole(0, "0 or more"),
                                      "most open WatchTable streams on one table"),
    "max_watchers_per_caller": _Option(_whole(0, "0 or more"),
                                       "most open WatchTable streams of one peer address "
                                       "(0: no limit)"),
    "max_streams_per_seat": _Option(_whole(1, "at least 1"),
                                    "most open WatchTable streams of one seat"),
    "max_log_entries": _Option(_whole(16, "at least 16"), "most log entries of one table (a "
                                                          "change past it: LOG_FULL)"),
    "max_seat_changes": _Option(_whole(0, "0 or more"), "most seats one caller (address, "
                                                        "platform player) gives up in 10 "
                                                        "minutes before their start (then: "
                                                        "SEAT_CHURN; 0: no limit)"),
    "rate_limit": _Option(_seconds(False), "requests a second allowed per caller: a seat's "
                                           "calls count for its token and its address alike, "
                                           "others for the address (0: off)"),
    "rate_burst": _Option(_seconds(True), "requests a caller may send at once before the rate "
                                          "limit applies"),
    "max_message_bytes": _Option(_whole(1024, "at least 1024"),
                                 "largest request message accepted"),
    "grace_seconds": _Option(_seconds(False), "on SIGTERM, how long in-flight calls may finish"),
    "tls_cert": _Option(_readable_file, "PEM certificate chain for TLS (with --tls-key)"),
    "tls_key": _Option(_readable_file, "PEM private key for TLS (with --tls-cert)"),
    "tls_client_ca": _Option(_readable_file, "PEM CA bundle: require client certificates "
                                             "signed by it (mutual TLS)"),
    "plugins": _Option(_names, "only load the plugins of these distributions (comma-separated; "
                               "empty: all installed)"),
    "disable_plugin": _Option(_names, "do not load the plugins of this distribution "
                                      "(repeatable; the variable takes a comma-separated list)"),
    "prefer_plugin": _Option(_names, "when two distributions claim one variant id or bot policy "
                                     "name, this one's claim wins and the other is dropped "
                                     "(repeatable; the variable takes a comma-separated list); "
                                     "without it such a clash stops the server"),
    "seat_token_ttl": _Option(_seconds(False), "seconds a seat token is valid once issued (by "
                                               "JoinTable or ReissueSeatToken; 0: no expiry)"),
    "grant_public_key": _Option(_grant_key, "PEM public key (Ed25519, EC P-256 or RSA) that "
                                            "checks platform join grants; empty: no grants; needs "
                                            "--api-key"),
    "http_address": _Option(_optional_address,
                            "HOST:PORT of the HTTP port for browsers: Connect, gRPC-Web and the "
                            "web table (empty: off)"),
    "http_allowed_origins": _Option(_origins,
                                    "web origins (scheme://host[:port], comma-separated; *: "
                                    "any) whose pages may call the HTTP port; the server's own "
                                    "page always may"),
    "http_allowed_hosts": _Option(_hosts,
                                  "host names the HTTP port answers to (comma-separated; *: "
                                  "any; empty: the loopback names when it listens on loopback, "
                                  "else any): a guard against DNS rebinding"),
    "http_static_dir": _Option(_folder, "folder of the web table served at / on the HTTP port "
                                        "(empty: the bundle built beside the code, "
                                        "clients/web/dist in a checkout, "
                                        "bezique/clients/web/dist when installed)"),
    "trusted_proxies": _Option(_networks,
                               "IP addresses or CIDR blocks of reverse proxies (comma-separated; "
                               "empty: none) whose X-Forwarded-For names the caller, on both "
                               "ports; from any other peer the header is ignored"),
    "max_connections": _Option(_whole(1, "at least 1"),
                               "most open connections on each port (lowered at start to fit "
                               "the descriptors the process may open)"),
    "max_connections_per_peer": _Option(_whole(1, "at least 1"),
                                        "most open connections of one peer address on the "
                                        "HTTP port (IPv6: one /64; trusted proxies: no cap)"),
    "request_head_seconds": _Option(_seconds(True),
                                    "seconds a connection has to send a complete request "
                                    "head (HTTP), or to finish its handshake (gRPC), before "
                                    "it is closed"),
    "idle_connection_seconds": _Option(_seconds(True),
                                       "close a connection with no call open for this long "
                                       "(HTTP: whole seconds, rounded up)"),
}


def env_name(field: str) -> str:
    """The environment variable of a settings field: ``BEZIQUE_<FIELD>``."""
    return "BEZIQUE_" + field.upper()


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


class _OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose mistakes are one line on stderr (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _argparse_type(field: str) -> Parse:
    parse = _OPTIONS[field].parse

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:  # argparse words it: "argument --flag: <message>"
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = field  # argparse names the type in some messages
    return convert


def _metavar(name: str, kind: object) -> str:
    special = {"address": "HOST:PORT", "store": "URL", "plugins": "DIST[,DIST...]",
               "sqlite_synchronous": "MODE", "log_format": "FORMAT", "log_level": "LEVEL",
               "metrics_port": "PORT", "rate_limit": "PER_SECOND", "rate_burst": "REQUESTS",
               "max_message_bytes": "BYTES", "tls_cert": "PEM", "tls_key": "PEM",
               "tls_client_ca": "PEM", "api_key": "KEY", "grant_public_key": "PEM",
               "http_address": "HOST:PORT",
               "http_allowed_origins": "ORIGIN[,ORIGIN...]", "http_allowed_hosts": "HOST[,HOST...]",
               "http_static_dir": "DIR", "trusted_proxies": "CIDR[,CIDR...]"}
    if name in special:
        return special[name]
    return "N" if kind in (int, "int") else "SECONDS"


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="bezique-server", description="The bezique card-table gRPC server.",
        epilog=f"Exit status: 0 after a clean shutdown, {USAGE_ERROR} for a bad flag or "
               f"variable, {STARTUP_ERROR} when the server cannot start (port in use, store "
               "unreachable or held by another server, path not writable).")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {distribution_version()}")
    defaults = Config()
    for item in fields(Config):
        name = item.name
        help_text = f"{_OPTIONS[name].help} (env {env_name(name)}; default " \
                    f"{getattr(defaults, name)!r})"
        if name == "test_mode":
            parser.add_argument(flag_name(name), action=argparse.BooleanOptionalAction,
                                default=argparse.SUPPRESS, help=help_text)
        elif name in ("disable_plugin", "prefer_plugin"):
            parser.add_argument(flag_name(name), action="append", type=_argparse_type(name),
                                default=argparse.SUPPRESS, metavar="DIST", help=help_text)
        else:
            parser.add_argument(flag_name(name), type=_argparse_type(name),
                                default=argparse.SUPPRESS, metavar=_metavar(name, item.type),
                                help=help_text)
    return parser


def parse_config(argv: Sequence[str] | None = None,
                 environ: Mapping[str, str] | None = None) -> Config:
    """The settings from flags, then environment variables, then defaults; a mistake exits 2
    with one line naming the flag or the variable."""
    env = os.environ if environ is None else environ
    parser = build_parser()
    given = vars(parser.parse_args(sys.argv[1:] if argv is None else list(argv)))
    values: dict[str, Any] = {}
    for item in fields(Config):
        name = item.name
        if name in given:
            value = given[name]
            if name in ("disable_plugin", "prefer_plugin"):  # once per flag, each a tuple
                value = tuple(n for names in value for n in names)
            values[name] = value
            continue
        variable = env_name(name)
        if name == "address" and variable not in env and ADDRESS_VARIABLE in env:
            variable = ADDRESS_VARIABLE
        raw = env.get(variable)
        if raw is None:
            continue
        try:
            values[name] = _OPTIONS[name].parse(raw)
        except ValueError as exc:
            parser.error(f"environment variable {variable}: {exc}")
    config = Config(**values)
    problem = _inconsistency(config)
    if problem:
        parser.error(problem)
    return config


def _inconsistency(config: Config) -> str:
    """What is wrong with a combination of settings (each one valid on its own), or ''."""
    if bool(config.tls_cert) != bool(config.tls_key):
        return "--tls-cert and --tls-key (BEZIQUE_TLS_CERT, BEZIQUE_TLS_KEY) go together"
    if config.tls_client_ca and not config.tls_cert:
        return "--tls-client-ca (BEZIQUE_TLS_CLIENT_CA) needs --tls-cert and --tls-key"
    if config.tls_cert:
        problem = _tls_problem(config)
        if problem:
            return problem
    if not config.http_address and (config.http_allowed_origins or config.http_allowed_hosts
                                    or config.http_static_dir):
        return ("--http-allowed-origins, --http-allowed-hosts and --http-static-dir "
                "(BEZIQUE_HTTP_ALLOWED_ORIGINS, BEZIQUE_HTTP_ALLOWED_HOSTS, "
                "BEZIQUE_HTTP_STATIC_DIR) need --http-address (BEZIQUE_HTTP_ADDRESS)")
    if config.http_address and _same_port(config.http_address, config.address):
        return f"--http-address {config.http_address} is the gRPC --address; give it a port " \
               "of its own"
    if config.grant_public_key and not config.api_key:
        return ("--grant-public-key (BEZIQUE_GRANT_PUBLIC_KEY) needs --api-key "
                "(BEZIQUE_API_KEY): without the platform key anybody creates tables, and a "
                "table with buy-ins takes a stranger's join")
    overlap = set(config.plugins) & set(config.disable_plugin)
    if overlap:
        return (f"--plugins and --disable-plugin both name {', '.join(sorted(overlap))}")
    overlap = set(config.prefer_plugin) & set(config.disable_plugin)
    if overlap:
        return (f"--prefer-plugin and --disable-plugin both name {', '.join(sorted(overlap))}")
    return ""


def _same_port(one: str, other: str) -> bool:
    """Whether two HOST:PORT addresses name the same fixed port (port 0 never clashes)."""
    host, _, port = one.rpartition(":")
    other_host, _, other_port = other.rpartition(":")
    host, other_host = host.strip("[]"), other_host.strip("[]")
    anywhere = ("0.0.0.0", "::")
    return port != "0" and int(port) == int(other_port) and (
        host == other_host or host in anywhere or other_host in anywhere)


def _tls_problem(config: Config) -> str:
    """Load the TLS files the way a TLS server would (stdlib ``ssl``), so that a file that is
    not PEM, or a key that does not match its certificate, is named here rather than in gRPC's
    own multi-line log."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    except (ssl.SSLError, OSError) as exc:
        return (f"--tls-cert {config.tls_cert} / --tls-key {config.tls_key}: not a PEM "
                f"certificate chain and its private key ({exc.__class__.__name__}: "
                f"{getattr(exc, 'reason', None) or exc})")
    if config.tls_client_ca:
        try:
            context.load_verify_locations(config.tls_client_ca)
        except (ssl.SSLError, OSError) as exc:
            return (f"--tls-client-ca {config.tls_client_ca}: not a PEM CA bundle "
                    f"({exc.__class__.__name__}: {getattr(exc, 'reason', None) or exc})")
    return ""
