"""``bezique-server --http-address`` as a process: its second line, a port in use, and SIGTERM
with a browser's watch stream open."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess

import httpx

from bezique.service.config import STARTUP_ERROR
from bezique.v1 import table_service_pb2 as pb
from tests.helpers import ROOT, SERVER, summary
from tests.http.web import Web
from tests.service.helpers import clean_env, one_line, run_server


def test_an_http_port_in_use_is_one_line(busy_port: int) -> None:
    code, lines = run_server("--address", "127.0.0.1:0",
                             "--http-address", f"127.0.0.1:{busy_port}")
    line = one_line(lines)
    assert code == STARTUP_ERROR
    assert f"cannot listen on 127.0.0.1:{busy_port}" in line and "in use" in line


async def test_sigterm_tells_a_browser_stream_where_to_resume_and_exits_0() -> None:
    process = subprocess.Popen([SERVER, "--address", "127.0.0.1:0", "--http-address",
                                "127.0.0.1:0"], cwd=ROOT, env=clean_env(), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        assert "listening on" in process.stdout.readline()
        found = re.fullmatch(r"bezique-server serving browsers \(Connect, gRPC-Web, web table\)"
                             r" on (http://127\.0\.0\.1:\d+)/\n", process.stdout.readline())
        assert found is not None
        async with httpx.AsyncClient(base_url=found.group(1), timeout=30) as http:
            web = Web(http)
            created = await web.connect("CreateTable", pb.CreateTableRequest(
                variant_id="highcard"), pb.CreateTableResponse, json=True)
            seen: list[int] = []
            task = asyncio.create_task(web.watch_until_failure(created.table_id, seen))
            async with asyncio.timeout(30):
                while not seen:
                    await asyncio.sleep(0.02)
            process.send_signal(signal.SIGTERM)
            failure = await asyncio.wait_for(task, 30)
        assert failure.code == "14"  # UNAVAILABLE
        assert summary(failure.details)["metadata"] == {"resume_from": "1"}
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
