"""The web table in a real browser: the bundle (built when missing or stale), a real
``bezique-server`` subprocess serving it and the protocol on its HTTP port, and headless
Chromium (Debian's ``chromium`` package, never a downloaded build) driven by Playwright (the
helpers the tests import by name are in tests/web/pages.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, sync_playwright

from tests.web.pages import CHROMIUM, CHROMIUM_ARGS, Tab, WebServer, open_tab, serve_web

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def web_bundle() -> Path:
    """clients/web/dist, built by ``npm ci`` and ``npm run build`` when missing or stale."""
    sys.path.insert(0, str(ROOT / "tools"))
    from webbundle import BundleError, ensure_bundle

    try:
        return ensure_bundle()
    except BundleError as error:
        pytest.fail(str(error), pytrace=False)


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
    made = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    made.set_default_timeout(20_000)
    yield made
    made.close()


@pytest.fixture
def browser_pair(context: BrowserContext, web_server: WebServer) -> Iterator[tuple[Tab, Tab]]:
    """Two players: two profiles of one browser (each its own sessionStorage)."""
    assert context.browser is not None
    second = context.browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    second.set_default_timeout(20_000)
    yield open_tab(context, web_server), open_tab(second, web_server)
    second.close()
