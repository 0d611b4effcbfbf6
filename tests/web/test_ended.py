"""How a table that ended without its players reads in the lobby: an abandoned table leaves
the open tables and "My tables" says, in words and in both languages, that nobody played it;
and Quart's "N deals played" reads as the variant's words whatever N is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from bezique.v1 import table_service_pb2 as pb
from tests.web.pages import (
    WebServer,
    bot_table,
    create_table,
    open_tab,
    serve_web,
    switch_language,
)

WINDOW = "2"
"""Seconds without a move or a connected seat before a table ends as abandoned (started or
not): small, so the test waits a few seconds, not ten minutes."""


@pytest.fixture(scope="module")
def hasty_server(web_bundle: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[WebServer]:
    """A server that ends idle tables after :data:`WINDOW` seconds."""
    log = tmp_path_factory.mktemp("hasty-server") / "server.log"
    with serve_web(web_bundle, log, "--abandon-unstarted-after", WINDOW,
                   "--abandon-after", WINDOW) as server:
        yield server


def test_an_abandoned_table_leaves_the_lobby_and_says_so(browser: Browser,
                                                         hasty_server: WebServer) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    context.set_default_timeout(20_000)
    try:
        table = open_tab(context, hasty_server)
        table.page.fill("#name", "ann")
        table_id = create_table(table.page, "highcard", {"players": "2"}, {1: "open"})
        # The lobby in another tab of the same browser (the table's tab closed: no seat is
        # connected any more), the waiting table listed as open.
        lobby = open_tab(context, hasty_server)
        table.page.close()
        page = lobby.page
        row = page.locator(f"#tables tr[data-table='{table_id}']")
        row.wait_for()
        mine = page.locator(f"#my-tables tr[data-table='{table_id}']")
        assert mine.get_attribute("data-state") == "live"
        # After the window the server ends it; the lobby's next refresh no longer lists it.
        row.wait_for(state="detached", timeout=15_000)
        answer = hasty_server.stub.GetView(pb.GetViewRequest(table_id=table_id))
        assert answer.view.outcome.reason == "abandoned"
        page.locator(f"#my-tables tr[data-table='{table_id}'][data-ended='abandoned']").wait_for()
        assert mine.get_attribute("data-state") == "finished"
        assert mine.locator("td.state").inner_text() == "ended: abandoned, nobody played"
        switch_language(page, "ru")
        mine.locator("td.state").wait_for()
        assert mine.locator("td.state").inner_text() == "закончен: брошен, никто не играл"
        # Reopened, the table says the same at length.
        mine.locator("button.reopen").click()
        outcome = page.locator("#outcome p")
        outcome.wait_for()
        assert "Стол брошен" in outcome.inner_text()
        lobby.assert_no_errors()
    finally:
        context.close()


def outcome_line(page: Page, lang: str) -> str:
    switch_language(page, lang)
    page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    outcome = page.locator("#outcome p")
    outcome.wait_for()
    return outcome.inner_text()


def played_out(web_server: WebServer, deals: int, tries: int = 20) -> str:
    """A two-seat Quart table of random bots that played all its ``deals`` (a random bot may go
    broke first, which ends the table with another reason: such tables are set aside)."""
    for _ in range(tries):
        table_id = bot_table(web_server, "quart-bezique", {"players": "2", "deals": str(deals)})
        answer = web_server.stub.GetView(pb.GetViewRequest(table_id=table_id))
        if answer.view.outcome.reason == f"{deals} deals played":  # the server's, kept
            return table_id
    raise AssertionError(f"no table of {tries} played its {deals} deals out")


def test_quarts_deals_played_reads_in_words(browser: Browser, web_server: WebServer) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    context.set_default_timeout(20_000)
    try:
        for deals in (1, 2):
            table_id = played_out(web_server, deals)
            tab = open_tab(context, web_server, f"#/watch/{table_id}")
            english = outcome_line(tab.page, "en")
            assert f"most chips after the last deal (deals played: {deals})" in english
            russian = outcome_line(tab.page, "ru")
            assert f"больше всех фишек после последней сдачи (сыграно сдач: {deals})" in russian
            assert "deals played" not in russian and "1 deals" not in english
            switch_language(tab.page, "en")
            tab.assert_no_errors()
            tab.page.close()
    finally:
        context.close()
