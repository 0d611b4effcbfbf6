"""The HTTP port's flags: off unless given, validated in one place like the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from bezique.service.config import USAGE_ERROR, Config, parse_config


def refused(argv: list[str], env: dict[str, str] | None = None) -> str:
    with pytest.raises(SystemExit) as exited:
        parse_config(argv, env or {})
    assert exited.value.code == USAGE_ERROR
    return str(exited.value)


def test_the_http_port_is_off_unless_given() -> None:
    assert parse_config([], {}).http_address == ""
    assert Config().http_address == ""


def test_http_flags_and_variables(tmp_path: Path) -> None:
    config = parse_config(["--http-address", "127.0.0.1:8080", "--http-allowed-origins",
                           "https://a.example.com, http://localhost:5173/"], {})
    assert config.http_address == "127.0.0.1:8080"
    assert config.http_allowed_origins == ("https://a.example.com", "http://localhost:5173")
    config = parse_config([], {"BEZIQUE_HTTP_ADDRESS": "[::1]:0",
                               "BEZIQUE_HTTP_STATIC_DIR": str(tmp_path),
                               "BEZIQUE_HTTP_ALLOWED_ORIGINS": "*"})
    assert (config.http_address, config.http_static_dir) == ("[::1]:0", str(tmp_path))
    assert config.http_allowed_origins == ("*",)


def test_http_mistakes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["--http-address", "8080"], "is not HOST:PORT"),
        (["--http-address", "127.0.0.1:1", "--http-allowed-origins", "games.example.com"],
         "is not an origin"),
        (["--http-address", "127.0.0.1:1", "--http-allowed-origins", "https://a.com/path"],
         "is not an origin"),
        (["--http-address", "127.0.0.1:1", "--http-static-dir", str(tmp_path / "no")],
         "is not a folder"),
        (["--http-allowed-origins", "https://a.com"], "need --http-address"),
        (["--http-allowed-hosts", "a.com"], "need --http-address"),
        (["--http-address", "127.0.0.1:1", "--http-allowed-hosts", "https://a.com"],
         "is not a host name"),
        (["--address", "127.0.0.1:7000", "--http-address", "0.0.0.0:7000"], "port of its own"),
    ]
    for argv, says in cases:
        refused(argv)
        error = capsys.readouterr().err
        assert says in error and error.count("\n") == 1, (argv, error)
    refused([], {"BEZIQUE_HTTP_ADDRESS": "nowhere"})
    assert "environment variable BEZIQUE_HTTP_ADDRESS" in capsys.readouterr().err
