"""Start-up mistakes, each as a real ``bezique-server`` process: one line on stderr that names
the flag, the variable or the problem, never a traceback; exit 2 for a bad setting, 1 for a
valid one that cannot start."""

from __future__ import annotations

import re
import socket
import subprocess
from importlib import metadata
from pathlib import Path

import pytest

from bezique.service.config import STARTUP_ERROR, USAGE_ERROR, Config, env_name, parse_config
from tests.helpers import ROOT, SERVER, ServerProcess, spawn_server
from tests.security.certs import make_ca, make_leaf
from tests.service.helpers import clean_env, one_line, run_server


@pytest.mark.parametrize(("args", "named", "says"), [
    (["--store", "foo:bar"], "--store", "not a store URL"),
    (["--log-level", "verbose"], "--log-level", "not one of debug, info, warning, error"),
    (["--sqlite-synchronous", "bogus"], "--sqlite-synchronous", "not one of normal, full"),
    (["--log-format", "xml"], "--log-format", "not one of json, console, auto"),
    (["--bot-delay", "-3"], "--bot-delay", "out of range"),
    (["--max-tables", "-1"], "--max-tables", "too small"),
    (["--max-tables", "many"], "--max-tables", "not a whole number"),
    (["--metrics-port", "70000"], "--metrics-port", "not a port number"),
    (["--address", "nonsense"], "--address", "not HOST:PORT"),
    (["--clock-interval", "0"], "--clock-interval", "above 0"),
    (["--idle-seconds", "nan"], "--idle-seconds", "out of range"),
    (["--replica-poll-seconds", "0"], "--replica-poll-seconds", "above 0"),
    (["--tls-cert", "/no/such/cert.pem", "--tls-key", "/no/such/key.pem"], "--tls-cert",
     "cannot read"),
    (["--tls-cert", __file__], "--tls-key", "go together"),
    (["--tls-cert", __file__, "--tls-key", __file__], "--tls-cert", "not a PEM certificate"),
    (["--plugins", "bad name!"], "--plugins", "not a distribution name"),
    (["--trusted-proxies", "10.0.0.1/8"], "--trusted-proxies", "host bits set"),
    (["--trusted-proxies", "proxy.example.com"], "--trusted-proxies",
     "not an IP address or CIDR block"),
    (["--max-connections-per-peer", "0"], "--max-connections-per-peer", "too small"),
    (["--request-head-seconds", "0"], "--request-head-seconds", "above 0"),
    (["--no-such-flag"], "--no-such-flag", "unrecognized"),
])
def test_a_bad_flag_is_one_line_naming_it(args: list[str], named: str, says: str) -> None:
    code, lines = run_server(*args)
    line = one_line(lines)
    assert code == USAGE_ERROR
    assert named in line and says in line, line


@pytest.mark.parametrize(("variable", "value", "says"), [
    ("BEZIQUE_METRICS_PORT", "abc", "not a port number"),
    ("BEZIQUE_LOG_LEVEL", "verbose", "not one of"),
    ("BEZIQUE_STORE", "foo:bar", "not a store URL"),
    ("BEZIQUE_MAX_TABLES", "-1", "too small"),
    ("BEZIQUE_BOT_DELAY", "-3", "out of range"),
    ("BEZIQUE_TEST_MODE", "perhaps", "not a yes/no value"),
    ("BEZIQUE_SQLITE_SYNCHRONOUS", "bogus", "not one of normal, full"),
    ("BEZIQUE_ADDRESS", "localhost", "not HOST:PORT"),
])
def test_a_bad_variable_is_one_line_naming_it(variable: str, value: str, says: str) -> None:
    code, lines = run_server(env=clean_env(**{variable: value}))
    line = one_line(lines)
    assert code == USAGE_ERROR
    assert f"environment variable {variable}" in line and says in line, line


def test_a_flag_wins_over_a_bad_variable_it_replaces() -> None:
    config = parse_config(["--metrics-port", "9100"], {"BEZIQUE_METRICS_PORT": "abc"})
    assert config.metrics_port == 9100


def grant_key(folder: Path) -> str:
    """A PEM public key join grants can be checked with."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    path = folder / "grant.pub"
    path.write_bytes(ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return str(path)


def test_a_grant_key_needs_the_api_key(tmp_path: Path) -> None:
    """Grants without the platform key would leave creation and buy-in tables to anybody: a
    server so started refuses to, in one line naming both flags."""
    code, lines = run_server("--grant-public-key", grant_key(tmp_path))
    line = one_line(lines)
    assert code == USAGE_ERROR
    assert "--grant-public-key" in line and "needs --api-key" in line, line
    assert parse_config(["--grant-public-key", grant_key(tmp_path), "--api-key", "k"],
                        {}).api_key == "k"


def test_every_setting_has_a_working_environment_variable(tmp_path: Path) -> None:
    ca, ca_cert, ca_key = make_ca(tmp_path)
    leaf = make_leaf(tmp_path, "server", ca_cert, ca_key, server=True)
    changed = {"address": "0.0.0.0:6000", "store": "memory:", "sqlite_synchronous": "full",
               "test_mode": "yes", "api_key": "k", "log_format": "json", "log_level": "debug",
               "metrics_port": "9100", "bot_delay": "0", "clock_interval": "1",
               "reveal_seconds": "7", "abandon_after": "3600", "abandon_unstarted_after": "0",
               "snapshot_every": "5", "idle_seconds": "0", "views_kept_seconds": "2",
               "replica_poll_seconds": "0.5",
               "max_tables": "3",
               "max_watchers_per_table": "4", "max_watchers_per_caller": "0",
               "max_streams_per_seat": "2", "max_log_entries": "500", "max_seat_changes": "3",
               "rate_limit": "2.5", "rate_burst": "9", "max_message_bytes": "2048",
               "grace_seconds": "0", "tls_cert": str(leaf.cert), "tls_key": str(leaf.key),
               "tls_client_ca": str(ca.cert), "plugins": "bezique-engine, bezique-highcard",
               "disable_plugin": "other-dist", "prefer_plugin": "bezique-engine,x",
               "seat_token_ttl": "60",
               "grant_public_key": grant_key(tmp_path), "http_address": "127.0.0.1:6001",
               "http_allowed_origins": "https://games.example.com",
               "http_allowed_hosts": "games.example.com",
               "http_static_dir": str(tmp_path),
               "trusted_proxies": "10.0.0.0/8, ::1", "max_connections": "50",
               "max_connections_per_peer": "5", "request_head_seconds": "2.5",
               "idle_connection_seconds": "30"}
    default = Config()
    config = parse_config([], {env_name(name): value for name, value in changed.items()})
    for name in Config.__dataclass_fields__:
        assert name in changed, f"no test value for {name}"
        assert getattr(config, name) != getattr(default, name) or name == "store", name
    assert config.plugins == ("bezique-engine", "bezique-highcard")
    assert config.prefer_plugin == ("bezique-engine", "x")
    assert config.disable_plugin == ("other-dist",)
    assert config.trusted_proxies == ("10.0.0.0/8", "::1/128")
    repeated = parse_config(["--disable-plugin", "a", "--disable-plugin", "b,c"], {})
    assert repeated.disable_plugin == ("a", "b", "c")
    preferred = parse_config(["--prefer-plugin", "a", "--prefer-plugin", "b,c"], {})
    assert preferred.prefer_plugin == ("a", "b", "c")


def test_version_prints_the_distribution_version() -> None:
    done = subprocess.run([SERVER, "--version"], env=clean_env(), text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.strip() == f"bezique-server {metadata.version('bezique-engine')}"


def test_a_port_in_use_is_one_line(busy_port: int) -> None:
    code, lines = run_server("--address", f"127.0.0.1:{busy_port}")
    line = one_line(lines)
    assert code == STARTUP_ERROR
    assert f"cannot listen on 127.0.0.1:{busy_port}" in line and "in use" in line


def test_a_metrics_port_in_use_is_one_line(busy_port: int) -> None:
    code, lines = run_server("--address", "127.0.0.1:0", "--metrics-port", str(busy_port))
    assert code == STARTUP_ERROR
    assert f"cannot serve metrics on port {busy_port}" in one_line(lines)


def test_an_unreachable_postgres_is_one_line_without_the_password() -> None:
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    url = f"postgresql://bezique:s3cret-pw@127.0.0.1:{closed}/bezique"
    code, lines = run_server("--address", "127.0.0.1:0", "--store", url)
    line = one_line(lines)
    assert code == STARTUP_ERROR
    assert "s3cret-pw" not in line
    assert f"postgresql://bezique:***@127.0.0.1:{closed}/bezique" in line
    assert "cannot reach PostgreSQL" in line


def test_an_unwritable_sqlite_path_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    database = blocker / "tables.sqlite"  # its folder is a file: no user can create it
    code, lines = run_server("--address", "127.0.0.1:0", "--store", f"sqlite:{database}")
    line = one_line(lines)
    assert code == STARTUP_ERROR
    assert f"cannot open the sqlite store {database}" in line


def test_a_sqlite_folder_as_database_is_one_line(tmp_path: Path) -> None:
    code, lines = run_server("--address", "127.0.0.1:0", "--store", f"sqlite:{tmp_path}")
    line = one_line(lines)
    assert code == STARTUP_ERROR
    assert f"cannot open the store sqlite:{tmp_path}" in line


def test_a_second_server_on_the_same_sqlite_file_refuses_to_start(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    store = f"sqlite:{tmp_path / 'tables.sqlite'}"
    first = spawn_server("--store", store)
    server_process_factory.append(first)
    code, lines = run_server("--address", "127.0.0.1:0", "--store", store)
    line = one_line(lines)
    assert code == STARTUP_ERROR
    assert re.search(rf"sqlite store {re.escape(str(tmp_path))}/tables.sqlite is in use by "
                     rf"another server \(pid {first.process.pid}\)", line), line
    assert first.process.poll() is None  # the first one serves on
    assert first.terminate() == 0
    again = spawn_server("--store", store)  # the lock went with the process
    server_process_factory.append(again)
    assert again.terminate() == 0


def test_a_sqlite_lock_of_a_killed_server_does_not_stay(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    store = f"sqlite:{tmp_path / 'tables.sqlite'}"
    first = spawn_server("--store", store)
    first.kill()  # SIGKILL: no clean-up ran
    second = spawn_server("--store", store)
    server_process_factory.append(second)
    assert second.terminate() == 0


def test_the_address_variable_is_used() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([SERVER], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL,
                               env=clean_env(BEZIQUE_ADDRESS=f"127.0.0.1:{port}"))
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == f"bezique-server listening on 127.0.0.1:{port}"
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0
