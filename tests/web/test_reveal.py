"""Seat entropy in the browser: the web table commits to its seat's entropy at JoinTable,
reveals it when the table asks (also after a reload in the reveal round), and says how a table
ended that never dealt (a seat did not reveal) or was aborted. Real pages in headless
Chromium against real server processes; the server's log, read over gRPC, checks the rest."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Route, expect

from bezique.v1 import table_service_pb2 as pb
from tests.web.pages import Tab, WebServer, click_and_wait, create_table, open_tab, serve_web

REVEAL_URL = "**/bezique.v1.TableService/RevealEntropy"


def kinds(server: WebServer, table_id: str) -> list[str]:
    return [entry.entry_kind for entry in server.history(table_id)]


def ann_and_bob_sit_down(ann: Tab, bob: Tab) -> str:
    """Ann's page makes a two-seat highcard table and takes seat 0, Bob's page joins seat 1;
    the table's id."""
    ann.page.fill("#name", "ann")
    table_id = create_table(ann.page, "highcard", {"players": "2", "hand_size": "3"},
                            {0: "you", 1: "open"})
    bob.page.fill("#name", "bob")
    bob.page.locator(f"tr[data-table='{table_id}'] button.join").click()
    bob.page.wait_for_url(re.compile(f"#/table/{table_id}"))
    return table_id


def play_out(ann: Tab, bob: Tab, seconds: float = 60) -> int:
    """Both pages click a playable card whenever it is their turn, until both show the end."""
    moves = 0
    deadline = time.monotonic() + seconds
    while not (ann.page.locator("#outcome p").count() and bob.page.locator("#outcome p").count()):
        assert time.monotonic() < deadline, "the game did not end"
        mover = next((t for t in (ann, bob)
                      if t.page.locator("#status[data-turn='mine']").count()), None)
        if mover is None:
            time.sleep(0.02)
            continue
        click_and_wait(mover.page, mover.page.locator("#hand button.card.playable").first)
        moves += 1
    return moves


def test_two_browser_seats_commit_reveal_and_a_reload_still_reveals(
        browser_pair: tuple[Tab, Tab], web_server: WebServer) -> None:
    ann, bob = browser_pair
    # Bob's page cannot reach RevealEntropy at first: the reveal round waits for his seat.
    refused: list[str] = []

    def refuse(route: Route) -> None:
        refused.append(route.request.url)
        route.abort()

    bob.page.route(REVEAL_URL, refuse)
    table_id = ann_and_bob_sit_down(ann, bob)

    # Ann's page revealed; both pages say whose reveal the table waits for.
    ann.page.locator("#status").filter(
        has_text="Waiting for bob to reveal their entropy").wait_for()
    bob.page.locator("#status").filter(has_text="Waiting for bob to reveal").wait_for()
    bob.page.locator("#notice").filter(has_text="Could not reveal").wait_for()
    assert refused
    assert "reveal" in (ann.page.locator("#clock").text_content() or "")
    view = web_server.view(table_id)
    assert view.phase == "reveal" and list(view.awaiting_reveal) == [1]
    history = web_server.history(table_id)
    joined = {e.seat: e for e in history if e.entry_kind == "joined"}
    # Both seats committed: sha256 only, no entropy in the clear.
    assert {seat: (len(e.entropy_commitment), e.entropy) for seat, e in joined.items()} == {
        0: (32, b""), 1: (32, b"")}
    assert [e.seat for e in history if e.entry_kind == "revealed"] == [0]

    # A reload in the reveal round: the secret is in the tab's sessionStorage, so it reveals.
    bob.page.unroute(REVEAL_URL)
    bob.page.reload()
    bob.page.locator("#hand .card").first.wait_for()
    assert play_out(ann, bob) == 6
    history = web_server.history(table_id)
    revealed = {e.seat: e.entropy for e in history if e.entry_kind == "revealed"}
    assert sorted(revealed) == [0, 1]
    for seat, entropy in revealed.items():
        assert hashlib.sha256(entropy).digest() == joined[seat].entropy_commitment
    order = kinds(web_server, table_id)
    assert max(i for i, k in enumerate(order) if k == "revealed") < order.index("started")
    ann.assert_no_errors()
    bob.assert_no_errors()


HISTORY_URL = "**/bezique.v1.TableService/GetHistory"


def test_a_page_does_not_reveal_while_its_history_shows_a_free_seat(
        browser_pair: tuple[Tab, Tab], web_server: WebServer) -> None:
    """Issue #26: the server's view asks Ann's seat to reveal, but the history her page reads
    (doctored here, as a lying server would answer) shows seat 1 free: her page sends no
    RevealEntropy. With the true history (after a reload) it reveals and the game starts."""
    ann, bob = browser_pair
    sent: list[str] = []
    ann.page.on("request", lambda request: sent.append(request.url)
                if request.url.endswith("/RevealEntropy") else None)

    def hide_seat_1(route: Route) -> None:
        response = route.fetch()
        history = pb.GetHistoryResponse.FromString(response.body())
        shown = [e for e in history.entries if not (e.entry_kind == "joined" and e.seat == 1)]
        del history.entries[:]
        history.entries.extend(shown)
        route.fulfill(status=response.status, body=history.SerializeToString(),
                      headers={"content-type": response.headers["content-type"]})

    ann.page.route(HISTORY_URL, hide_seat_1)
    table_id = ann_and_bob_sit_down(ann, bob)
    ann.page.locator("#notice").filter(has_text="history shows seat 1 free").wait_for()
    bob.page.locator("#status").filter(has_text="Waiting for ann to reveal").wait_for()
    assert [e.seat for e in web_server.history(table_id) if e.entry_kind == "revealed"] == [1]
    assert list(web_server.view(table_id).awaiting_reveal) == [0]
    assert sent == []

    ann.page.unroute(HISTORY_URL)
    ann.page.reload()
    ann.page.locator("#hand .card").first.wait_for()
    assert len(sent) == 1
    order = kinds(web_server, table_id)
    assert order.count("revealed") == 2 and order[-1] == "started"
    ann.assert_no_errors()
    bob.assert_no_errors()


@pytest.fixture(scope="module")
def keyed_server(web_bundle: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[WebServer]:
    """A server with a platform API key: only the platform may create and abort tables."""
    log = tmp_path_factory.mktemp("keyed-server") / "server.log"
    with serve_web(web_bundle, log, "--api-key", KEY) as server:
        yield server


KEY = "platform-key"


def test_an_aborted_table_says_so(context: BrowserContext, keyed_server: WebServer) -> None:
    platform = (("x-api-key", KEY),)
    created = keyed_server.stub.CreateTable(pb.CreateTableRequest(
        variant_id="highcard", options={"players": "2", "hand_size": "6"},
        bots=[pb.BotSeat(seat=1, policy="random")]), metadata=platform)  # seat 0 stays open
    tab = open_tab(context, keyed_server, f"#/watch/{created.table_id}")
    tab.page.locator("#table").wait_for()
    keyed_server.stub.AbortTable(pb.AbortTableRequest(table_id=created.table_id,
                                                      note="closing time"), metadata=platform)
    tab.page.locator("#outcome").filter(has_text="ended before the game finished").wait_for()
    expect(tab.page.locator("#status")).to_have_text("The table has ended.")  # retried
    assert "Game over" not in (tab.page.locator("#outcome").text_content() or "")
    tab.assert_no_errors()


@pytest.fixture(scope="module")
def quick_reveal_server(web_bundle: Path, tmp_path_factory: pytest.TempPathFactory
                        ) -> Iterator[WebServer]:
    """A server whose reveal round lasts 5 s: the page must reveal its own seat first, on a
    loaded machine too."""
    log = tmp_path_factory.mktemp("web-quick-reveal") / "server.log"
    with serve_web(web_bundle, log, "--reveal-seconds", "5") as server:
        yield server


def test_a_seat_that_never_reveals_ends_the_table_readably(
        context: BrowserContext, quick_reveal_server: WebServer) -> None:
    server = quick_reveal_server
    tab = open_tab(context, server)
    table_id = create_table(tab.page, "highcard", {"players": "2"}, {0: "you", 1: "open"})
    # Seat 1 commits from Python and never reveals.
    server.stub.JoinTable(pb.JoinTableRequest(
        table_id=table_id, seat=1, display_name="mallory",
        entropy_commitment=hashlib.sha256(b"never told").digest()))
    tab.page.locator("#status").filter(
        has_text="Waiting for mallory to reveal their entropy").wait_for()
    outcome = tab.page.locator("#outcome")
    outcome.filter(has_text="No game").wait_for(timeout=30_000)
    assert "mallory did not reveal in time" in (outcome.text_content() or "")
    expect(tab.page.locator("#status")).to_have_text("The table has ended.")  # retried
    assert [e.seat for e in server.history(table_id) if e.entry_kind == "revealed"] == [0]
    tab.assert_no_errors()
