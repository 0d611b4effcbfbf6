"""The TLS flags reach the SDK's channel (a server with a certificate is reachable with
``--tls-ca`` naming the authority that signed it), and the API key reaches CreateTable."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.cli.helpers import BIN, Run, clean_env
from tests.helpers import ROOT


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that is its own authority, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bezique test")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "server.pem", folder / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    cert, key = self_signed(tmp_path_factory.mktemp("tls"))
    process = subprocess.Popen(
        [str(BIN / "bezique-server"), "--address", "127.0.0.1:0", "--store", "memory:",
         "--tls-cert", str(cert), "--tls-key", str(key), "--api-key", "sesame"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=clean_env(BEZIQUE_LOG_FORMAT="json"))
    assert process.stdout is not None
    match = re.search(r"listening on ([\d.]+:\d+)", process.stdout.readline())
    try:
        assert match, "the TLS server did not start"
        yield match.group(1), cert
    finally:
        process.kill()
        process.wait(timeout=10)


def test_tls_ca_reaches_a_tls_server(run: Run, tls_server: tuple[str, Path]) -> None:
    address, cert = tls_server
    result = run("--tls-ca", str(cert), "variants", address=address)
    assert result.code == 0, result.err
    assert "highcard" in result.out


def test_tls_flags_after_the_subcommand_work_too(run: Run, tls_server: tuple[str, Path]
                                                 ) -> None:
    address, cert = tls_server
    result = run("tables", "--tls-ca", str(cert), address=address)
    assert result.code == 0, result.err


def test_a_missing_certificate_file_is_named(run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    result = run("--tls-ca", str(missing), "variants")
    assert result.code == 2 and str(missing) in result.err


def test_the_api_key_from_flag_or_environment(run: Run, tls_server: tuple[str, Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    address, cert = tls_server
    refused = run("--tls-ca", str(cert), "create", "highcard", address=address)
    assert refused.code == 1 and "UNAUTHENTICATED" in refused.err and "x-api-key" in refused.err
    created = run("--tls-ca", str(cert), "--api-key", "sesame", "create", "highcard",
                  address=address)
    assert created.code == 0, created.err
    monkeypatch.setenv("BEZIQUE_API_KEY", "sesame")
    assert run("--tls-ca", str(cert), "create", "highcard", address=address).code == 0
