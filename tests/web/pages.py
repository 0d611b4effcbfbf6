"""How the browser tests drive the web table: serve it from a real server process, open it,
create a table from the lobby's form, wait for the seat's turn, click a move and wait for the
table to move on, read the cards the page holds. Everything goes through the page as a player
would; the server's own records (gRPC, from Python) are read to check what the clicks did."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from playwright.sync_api import BrowserContext, Locator, Page

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import serving

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SCREENS = ROOT / "build" / "web-screens"
"""Screenshots of each variant's table, written for review (not compared)."""

@dataclass
class WebServer:
    """The server under test: its HTTP address for browsers and a gRPC stub for checks."""

    url: str
    grpc_address: str
    stub: table_service_pb2_grpc.TableServiceStub

    def view(self, table_id: str, token: str = "") -> pb.View:
        metadata = [("authorization", f"Bearer {token}")] if token else []
        answer: pb.GetViewResponse = self.stub.GetView(pb.GetViewRequest(table_id=table_id),
                                                       metadata=metadata)
        return answer.view

    def history(self, table_id: str, token: str = "") -> list[pb.HistoryEntry]:
        metadata = [("authorization", f"Bearer {token}")] if token else []
        entries: list[pb.HistoryEntry] = []
        page_token = ""
        while True:
            page: pb.GetHistoryResponse = self.stub.GetHistory(
                pb.GetHistoryRequest(table_id=table_id, page_token=page_token, page_size=1000),
                metadata=metadata)
            entries.extend(page.entries)
            page_token = page.next_page_token
            if not page_token:
                return entries


@contextmanager
def serve_web(bundle: Path, log: Path, *extra: str) -> Iterator[WebServer]:
    """A real server: gRPC on one port, Connect/gRPC-Web and the bundle on the HTTP port
    (``extra``: more flags), stopped at the end."""
    with serving(log, "--http-static-dir", str(bundle), "--test-mode", *extra,
                 http=True) as listening, grpc.insecure_channel(listening.grpc_address) as channel:
        yield WebServer(listening.http_url, listening.grpc_address,
                        table_service_pb2_grpc.TableServiceStub(channel))  # type: ignore[no-untyped-call]


@dataclass
class Tab:
    """A page of the web table and the script errors it raised (a test asserts none)."""

    page: Page
    errors: list[str] = field(default_factory=list)

    def assert_no_errors(self) -> None:
        assert not self.errors, self.errors


def open_tab(context: BrowserContext, server: WebServer, route: str = "#/", query: str = ""
             ) -> Tab:
    page = context.new_page()
    tab = Tab(page)
    page.on("pageerror", lambda error: tab.errors.append(str(error)))
    page.goto(f"{server.url}/{query}{route}")
    return tab


def create_table(page: Page, variant: str, options: Mapping[str, str] | None = None,
                 seats: Mapping[int, str] | None = None, turn_seconds: int = 0) -> str:
    """Fill the lobby's form of ``variant`` and create the table; returns its id. ``seats``
    maps a seat to "you", "open" or "bot:POLICY" (the form's defaults otherwise)."""
    form = page.locator(f"form.variant[data-variant='{variant}']")
    form.wait_for(state="attached")
    rules = page.locator(f".variant-card[data-variant='{variant}'] details.rules")
    if rules.get_attribute("open") is None:
        rules.locator("summary").click()
    for name, value in (options or {}).items():
        field_ = form.locator(f"[name='{name}']")
        kind = field_.evaluate("e => e.tagName + ':' + (e.type || '')")
        if kind == "INPUT:checkbox":
            field_.set_checked(value == "true")
        elif kind.startswith("SELECT"):
            field_.select_option(value)
        else:
            field_.fill(value)
    for seat, choice in (seats or {}).items():
        form.locator(f"select[data-seat='{seat}']").select_option(choice)
    if turn_seconds:
        form.locator("[name='turn_seconds']").fill(str(turn_seconds))
    form.locator("button.create").click()
    page.wait_for_url(re.compile(r"#/(table|watch)/"))
    page.locator("#table").wait_for()
    return table_id_of(page)


def table_id_of(page: Page) -> str:
    match = re.search(r"#/(?:table|watch|replay)/([^/?#]+)", page.url)
    assert match, page.url
    return match.group(1)


def version(page: Page) -> int:
    """The log version the page shows (the table's data-version: not shown to players)."""
    return int(page.locator("#table").get_attribute("data-version") or "0")


def wait_version(page: Page, at_least: int, timeout: float = 20_000) -> None:
    """Until the page shows version ``at_least`` or later."""
    page.wait_for_function(
        "n => Number(document.querySelector('#table')?.dataset.version || 0) >= n",
        arg=at_least, timeout=timeout)


TURN_JS = """prefer => {
  if (document.querySelector('#outcome p')) return { over: true };
  if (!document.querySelector("#status[data-turn='mine']")) return false;
  const version = Number(document.querySelector('#table')?.dataset.version || 0);
  return { over: false, version, selector: prefer.find((s) => document.querySelector(s)) ?? null };
}"""

CARD = "#hand button.card.playable"
MOVE = "#moves button.move:not([disabled])"
CARD_OR_MOVE = (CARD, MOVE)
"""Play a card of the hand if one is playable, else the first move."""


@dataclass
class Turn:
    """The page's seat is to move: the shown version and the first preferred element there."""

    version: int
    selector: str | None


def next_turn(page: Page, prefer: Sequence[str] = CARD_OR_MOVE, timeout: float = 20_000
              ) -> Turn | None:
    """Wait until it is this page's seat's turn (the turn, with the first selector of
    ``prefer`` that matches) or the game is over (None). One round trip to the browser."""
    handle = page.wait_for_function(TURN_JS, arg=list(prefer), timeout=timeout)
    found = handle.json_value()
    if found["over"]:
        return None
    return Turn(int(found["version"]), found["selector"])


def my_turn(page: Page, timeout: float = 20_000) -> bool:
    """Wait until it is this page's seat's turn (True) or the game is over (False)."""
    return next_turn(page, (), timeout) is not None


def click_and_wait(page: Page, target: Locator, before: int | None = None) -> None:
    """Click a card or a move and wait until the table has moved on from the shown version."""
    if before is None:
        before = version(page)
    target.click()
    page.wait_for_function(
        "n => document.querySelector('#outcome p') !== null || "
        "Number(document.querySelector('#table')?.dataset.version || 0) > n", arg=before)


def play_to_end(page: Page, prefer: Sequence[str] = CARD_OR_MOVE, seconds: float = 60.0,
                before_click: Callable[[Page, str], Locator] | None = None) -> int:
    """Play this page's seat until the game is over, each turn clicking the first element of
    ``prefer`` there is (``before_click`` may fill in something first and name what to click
    instead); returns the number of moves made."""
    moves = 0
    deadline = time.monotonic() + seconds
    while (turn := next_turn(page, prefer)) is not None:
        assert time.monotonic() < deadline, f"the game did not end in {seconds} s"
        assert turn.selector is not None, f"none of {prefer} on the page"
        target = (before_click(page, turn.selector) if before_click is not None
                  else page.locator(turn.selector).first)
        click_and_wait(page, target, turn.version)
        moves += 1
    return moves


def first(locator: Locator) -> Locator | None:
    return locator.first if locator.count() > 0 else None


def card_or_move(page: Page) -> Locator | None:
    """A playable card of the hand if there is one, else the first move."""
    return first(page.locator(CARD)) or first(page.locator(MOVE))


def card_ids(page: Page, selector: str = "[data-card-id]") -> list[int]:
    """The shoe ids of every card drawn in the page's DOM under ``selector``."""
    found: list[str] = page.eval_on_selector_all(
        selector, "els => els.map(e => e.getAttribute('data-card-id'))")
    return [int(text) for text in found]


def screenshot(page: Page, name: str) -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


SIZES = {"wide": (1366, 900), "phone": (390, 844)}
"""The two sizes the web table is checked and shown at: a laptop and a phone."""


def switch_language(page: Page, lang: str) -> None:
    """Choose ``lang`` ("en", "ru") with the page's switch (the button names the other one)."""
    if page.evaluate("() => document.documentElement.lang") != lang:
        page.locator("#lang").click()
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)


def horizontal_overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than its viewport (0: no horizontal scroll)."""
    return int(page.evaluate(
        "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - window.innerWidth"))


def screens(page: Page, name: str, ready: str) -> list[Path]:
    """Screenshots of the page in both languages and both sizes (``ready``: a selector shown
    once the page is drawn again after the language switch); at the phone's size the page
    must not scroll sideways. The page is left in its language at its size."""
    taken = []
    was = page.evaluate("() => document.documentElement.lang")
    size_was = page.viewport_size
    for lang in ("en", "ru"):
        switch_language(page, lang)
        page.locator(ready).first.wait_for()
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(50)
            if size == "phone":
                assert horizontal_overflow(page) <= 0, f"{name} ({lang}) scrolls sideways at 390 px"
            taken.append(screenshot(page, f"{name}-{lang}-{size}"))
    if size_was is not None:
        page.set_viewport_size(size_was)
    switch_language(page, was)
    page.locator(ready).first.wait_for()
    return taken
