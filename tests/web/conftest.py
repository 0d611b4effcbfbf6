"""The web table in a real browser: the bundle (built when missing or stale), a real
``bezique-server`` subprocess serving it and the protocol on its HTTP port, and headless
Chromium (Debian's ``chromium`` package, never a downloaded build) driven by Playwright."""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from playwright.sync_api import Browser, BrowserContext, sync_playwright

from bezique.v1 import table_service_pb2_grpc
from tests.web.pages import CHROMIUM, CHROMIUM_ARGS, Tab, WebServer, open_tab

ROOT = Path(__file__).resolve().parents[2]
SERVER = str(Path(sys.executable).with_name("bezique-server"))


@pytest.fixture(scope="session")
def web_bundle() -> Path:
    """clients/web/dist, built by ``npm ci`` and ``npm run build`` when missing or stale."""
    sys.path.insert(0, str(ROOT / "tools"))
    from webbundle import BundleError, ensure_bundle

    try:
        return ensure_bundle()
    except BundleError as error:
        pytest.fail(str(error), pytrace=False)


def _read_lines(process: subprocess.Popen[bytes], count: int, timeout: float) -> list[str]:
    """The first ``count`` lines the process prints, read unbuffered (a buffered reader would
    take the second line into its buffer where a selector no longer sees it)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    data = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while data.count(b"\n") < count and time.monotonic() < deadline:
            if selector.select(timeout=max(0.0, deadline - time.monotonic())):
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                data += chunk
    return data.decode(errors="replace").splitlines()[:count]


@contextmanager
def serve_web(bundle: Path, log: Path, *extra: str) -> Iterator[WebServer]:
    """A real server: gRPC on one port, Connect/gRPC-Web and the bundle on the HTTP port
    (``extra``: more flags), stopped at the end."""
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [SERVER, "--address", "127.0.0.1:0", "--http-address", "127.0.0.1:0",
             "--http-static-dir", str(bundle), "--store", "memory:", "--bot-delay", "0",
             "--test-mode", *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, bufsize=0,
            env={**os.environ, "BEZIQUE_LOG_FORMAT": "json"})
    try:
        grpc_line, http_line = [*_read_lines(process, 2, 60), "", ""][:2]
        grpc_match = re.search(r"listening on ([\d.]+:\d+)", grpc_line)
        http_match = re.search(r"on (http://[\d.]+:\d+)/", http_line)
        if grpc_match is None or http_match is None:
            pytest.fail(f"bezique-server did not start: {grpc_line!r} {http_line!r}\n"
                        f"{log.read_text()}", pytrace=False)
        with grpc.insecure_channel(grpc_match.group(1)) as channel:
            yield WebServer(http_match.group(1), grpc_match.group(1),
                            table_service_pb2_grpc.TableServiceStub(channel))  # type: ignore[no-untyped-call]
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="package")
def web_server(web_bundle: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> Iterator[WebServer]:
    """The server most browser tests share (a reveal round of 60 s, the default)."""
    with serve_web(web_bundle, tmp_path_factory.mktemp("web-server") / "server.log") as server:
        yield server


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Headless Chromium from Debian's package (.ci/run installs it)."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests need Debian's chromium package "
                    "(apt-get install chromium; .ci/run installs it)", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser profile (its own sessionStorage) for one test."""
    made = browser.new_context(viewport={"width": 1200, "height": 900})
    made.set_default_timeout(20_000)
    yield made
    made.close()


@pytest.fixture
def browser_pair(context: BrowserContext, web_server: WebServer) -> Iterator[tuple[Tab, Tab]]:
    """Two players: two profiles of one browser (each its own sessionStorage)."""
    assert context.browser is not None
    second = context.browser.new_context(viewport={"width": 1200, "height": 900})
    second.set_default_timeout(20_000)
    yield open_tab(context, web_server), open_tab(second, web_server)
    second.close()
