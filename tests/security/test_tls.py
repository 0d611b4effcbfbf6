"""TLS and mutual TLS, in the server and the SDK, with certificates the test makes."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from bezique.service.server import start_server
from tests.helpers import highcard_registry, server_config
from tests.security.certs import make_ca, make_leaf


async def test_tls_serves_clients_that_trust_the_ca(tmp_path: Path) -> None:
    ca, ca_cert, ca_key = make_ca(tmp_path)
    server_pem = make_leaf(tmp_path, "server", ca_cert, ca_key, server=True)
    server = await start_server(server_config(tls_cert=str(server_pem.cert),
                                              tls_key=str(server_pem.key)), highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0,
                                    root_certificates=ca.cert.read_bytes()) as client:
            assert [v.id for v in await client.list_variants()] == ["highcard"]
        # a refused handshake fails at once (UNAVAILABLE); the deadline only bounds a hang,
        # and a short one would turn a slow handshake on a loaded machine into another code
        async with AsyncTableClient(server.address, retries=0, timeout=30) as plain:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await plain.list_variants()
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        other_ca, _, _ = make_ca(tmp_path, "another CA")
        async with AsyncTableClient(server.address, retries=0, timeout=30,
                                    root_certificates=other_ca.cert.read_bytes()) as wrong:
            with pytest.raises(grpc.aio.AioRpcError):
                await wrong.list_variants()
    finally:
        await server.stop()


async def test_mutual_tls_requires_a_client_certificate(tmp_path: Path) -> None:
    ca, ca_cert, ca_key = make_ca(tmp_path)
    server_pem = make_leaf(tmp_path, "server", ca_cert, ca_key, server=True)
    client_pem = make_leaf(tmp_path, "platform", ca_cert, ca_key, server=False)
    server = await start_server(server_config(
        tls_cert=str(server_pem.cert), tls_key=str(server_pem.key),
        tls_client_ca=str(ca.cert)), highcard_registry())
    try:
        async with AsyncTableClient(
                server.address, retries=0, root_certificates=ca.cert.read_bytes(),
                private_key=client_pem.key.read_bytes(),
                certificate_chain=client_pem.cert.read_bytes()) as client:
            assert await client.list_variants()
        async with AsyncTableClient(server.address, retries=0, timeout=30,
                                    root_certificates=ca.cert.read_bytes()) as anonymous:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await anonymous.list_variants()
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await server.stop()
