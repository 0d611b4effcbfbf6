"""DNS rebinding: the HTTP port answers only to the host names it is known by.

A page whose name was re-pointed at the server's address calls it as its own origin, past CORS,
but its requests still carry ``Host: <its name>``: those are refused with 421 and act on
nothing. Whether the port is on loopback (and so needs no list of names) is decided by the
socket it is bound to, however its address was written."""

from __future__ import annotations

import httpx
import pytest

from bezique.service.httpapi.hosts import Hosts, host_name, is_loopback
from bezique.service.server import start_server
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import highcard_registry, server_config, serving

CREATE = "/bezique.v1.TableService/CreateTable"
LIST = "/bezique.v1.TableService/ListTables"


def created(http: httpx.Client, host: str) -> httpx.Response:
    return http.post(CREATE, headers={"host": host, "content-type": "application/json",
                                      "origin": f"http://{host}"},
                     content=b'{"variantId": "bezique-2p"}')


def listed(http: httpx.Client) -> int:
    answer = http.post(LIST, headers={"content-type": "application/proto"},
                       content=pb.ListTablesRequest().SerializeToString())
    assert answer.status_code == 200, answer.text
    return len(pb.ListTablesResponse.FromString(answer.content).tables)


def test_a_rebound_name_is_refused_on_loopback_and_changes_nothing(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    log = tmp_path_factory.mktemp("hosts") / "server.log"
    with serving(log, http=True) as server, httpx.Client(base_url=server.http_url,
                                                         timeout=30) as http:
        port = server.http_url.rsplit(":", 1)[1]
        refused = created(http, f"evil.example:{port}")
        assert refused.status_code == 421
        assert "--http-allowed-hosts" in refused.text
        assert http.get("/", headers={"host": f"evil.example:{port}"}).status_code == 421
        assert listed(http) == 0
        for name in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert created(http, name).status_code == 200, name
        assert listed(http) == 2


def test_named_hosts_are_the_only_ones_answered(tmp_path_factory: pytest.TempPathFactory
                                                ) -> None:
    log = tmp_path_factory.mktemp("named-hosts") / "server.log"
    with serving(log, "--http-allowed-hosts", "tables.example.com", http=True) as server, \
            httpx.Client(base_url=server.http_url, timeout=30) as http:
        port = server.http_url.rsplit(":", 1)[1]
        assert created(http, f"tables.example.com:{port}").status_code == 200
        assert created(http, "tables.example.com").status_code == 200
        assert created(http, f"127.0.0.1:{port}").status_code == 421
        assert created(http, f"evil.example:{port}").status_code == 421


def test_the_default_follows_the_listening_address() -> None:
    assert Hosts((), "127.0.0.1").permits("localhost:8080")
    assert not Hosts((), "127.0.0.1").permits("evil.example:8080")
    assert not Hosts((), "::1").permits(None)
    assert Hosts((), "::1").permits("[::1]:8080")
    assert Hosts((), "0.0.0.0").permits("anything.example")  # its public names are unknown
    assert not Hosts(("games.example",), "0.0.0.0").permits("other.example")
    assert Hosts(("*",), "127.0.0.1").permits("evil.example")
    assert [host_name(h) for h in ("[::1]:80", "a.example:80", "A.Example", "::1")] == \
        ["::1", "a.example", "a.example", "::1"]
    assert is_loopback("127.0.0.2") and is_loopback("localhost") and not is_loopback("0.0.0.0")


@pytest.mark.parametrize("address", ["127.1:0", "2130706433:0", "[::ffff:127.0.0.1]:0"])
async def test_a_loopback_port_named_otherwise_still_refuses_a_rebound_name(address: str
                                                                            ) -> None:
    """The HTTP port answers to any Host unless it listens on loopback; whether it does was
    read from the text of --http-address, so a loopback address written another way (127.1,
    a decimal address, an IPv4-mapped one, or a name /etc/hosts maps to 127.0.0.1) counted
    as public and a DNS-rebound page could call it. The socket it is bound to decides."""
    server = await start_server(server_config(http_address=address), highcard_registry())
    try:
        assert server.http is not None
        port = server.http.port
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            for host, status in ((f"evil.example:{port}", 421), (f"127.0.0.1:{port}", 200),
                                 (f"localhost:{port}", 200)):
                answer = await http.post(LIST, content=b"{}", headers={
                    "host": host, "content-type": "application/json"})
                assert answer.status_code == status, (address, host, answer.status_code)
    finally:
        await server.stop()
