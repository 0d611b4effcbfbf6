"""Quart-Bezique in the browser: a raise typed to any amount of its range is the raise the
server takes, one outside the range comes back with the server's error naming the range, and
the page speaks the variant's own words (VariantInfo.vocabulary)."""

from __future__ import annotations

import time

from playwright.sync_api import BrowserContext

from tests.web.pages import MOVE, WebServer, click_and_wait, create_table, next_turn, open_tab

AMOUNT = "#moves input.amount-input"
RAISE = "#moves li.ranged button.move"
STAY_IN = ("#moves button.move[data-kind='show']", "#moves button.move[data-kind='bet']",
           "#moves button.move[data-kind='allin']", MOVE)


def raises(server: WebServer, table_id: str) -> list[int]:
    return [entry.move.amount for entry in server.history(table_id)
            if entry.entry_kind == "move" and entry.seat == 0 and entry.move.kind == "raise"]


def test_a_typed_raise_in_range_is_taken_and_one_outside_shows_the_range(
        context: BrowserContext, web_server: WebServer) -> None:
    tab = open_tab(context, web_server)
    page = tab.page
    page.fill("#name", "ann")
    table_id = create_table(page, "quart-bezique", {"players": "3", "deals": "9"},
                            {1: "bot:heuristic", 2: "bot:heuristic"})
    # Until seat 0 is offered a raise (it opens the betting in one deal of three at least).
    deadline = time.monotonic() + 60
    while (turn := next_turn(page, (AMOUNT, *STAY_IN))) is not None:
        assert time.monotonic() < deadline, "no raise was offered"
        if turn.selector == AMOUNT:
            break
        assert turn.selector is not None
        click_and_wait(page, page.locator(turn.selector).first, turn.version)
    assert turn is not None, "the table ended before seat 0 was offered a raise"
    low, step, high = (int(page.locator(AMOUNT).first.get_attribute(name) or "0")
                       for name in ("min", "step", "max"))
    assert low < high
    assert page.locator("#table-head .phase").text_content() == "Betting"  # the variant's word

    # Outside the range: the server refuses it, and the page shows its answer with the range.
    page.locator(AMOUNT).first.fill(str(high + step))
    page.locator(RAISE).first.click()
    notice = page.locator("#notice")
    notice.filter(has_text="outside the offered range").wait_for()
    said = notice.text_content() or ""
    assert f"amount {high + step} is outside the offered range {low}..{high}" in said, said
    assert "ILLEGAL_MOVE" in said
    assert raises(web_server, table_id) == []

    # In the range, not the suggested minimum: that amount is the raise the server took.
    chosen = min(high, low + 2 * step)
    turn = next_turn(page, (AMOUNT,))
    assert turn is not None and turn.selector == AMOUNT
    page.locator(AMOUNT).first.fill(str(chosen))
    click_and_wait(page, page.locator(RAISE).first, turn.version)
    assert raises(web_server, table_id) == [chosen]

    # The events are the variant's sentences, with the amount in its place.
    history = web_server.history(table_id)
    mine = next(event for entry in history for event in entry.events
                if event.kind == "raise" and event.seat == 0)
    sentence = page.locator("#events .sentence[data-kind='raise']").filter(
        has_text="ann raises, putting in")
    sentence.first.wait_for(state="attached")
    assert f"ann raises, putting in {mine.amount}." in (sentence.first.text_content()
                                                                   or "")
    ante = next(event for entry in history for event in entry.events if event.kind == "ante")
    ante_line = page.locator("#events .sentence[data-kind='ante']").first.text_content() or ""
    assert f"puts {ante.amount} in as the ante." in ante_line
    assert "{amount}" not in (page.locator("#events").text_content() or "")
    tab.assert_no_errors()


def test_a_table_wide_event_is_the_variant_sentence(context: BrowserContext,
                                                     web_server: WebServer) -> None:
    """Quart's "deal_end" has no seat: the vocabulary's sentence is the whole line."""
    tab = open_tab(context, web_server)
    page = tab.page
    table_id = create_table(page, "quart-bezique", {"players": "3", "deals": "1"},
                            {0: "bot:heuristic", 1: "bot:heuristic", 2: "bot:heuristic"})
    page.locator("#outcome p").wait_for()
    history = web_server.history(table_id)
    assert any(event.kind == "deal_end" and not event.HasField("seat")
               for entry in history for event in entry.events)
    page.locator("#events .sentence[data-kind='deal_end']").first.wait_for(state="attached")
    line = page.locator("#events .sentence[data-kind='deal_end']").first.text_content() or ""
    assert line.startswith("The deal ends"), line
    tab.assert_no_errors()
