"""The replay checks the shuffle in the page: the TypeScript verifier (clients/node/src/fair,
bundled into the web table) reproduces every deal of a finished table, and a history changed on
its way to the page fails, naming the deal."""

from __future__ import annotations

import json

from playwright.sync_api import BrowserContext, Route

from tests.web.pages import WebServer, bot_table, open_tab


def finished_bot_table(server: WebServer) -> str:
    """A two-player Bezique table played by bots alone, over several whole deals (about one
    match in 500 reaches 300 in its first deal: then another is played)."""
    for _ in range(5):
        table_id = bot_table(server, "bezique-2p", {"target": "300", "claims": "false"})
        if shuffles(server, table_id) >= 2:
            return table_id
    raise AssertionError("five bezique matches to 300 each ended in their first deal")


def shuffles(server: WebServer, table_id: str) -> int:
    return sum(1 for entry in server.history(table_id) for event in entry.events
               if event.kind == "shuffle")


def test_the_replay_verifies_every_deal(context: BrowserContext, web_server: WebServer) -> None:
    table_id = finished_bot_table(web_server)
    deals = shuffles(web_server, table_id)
    tab = open_tab(context, web_server, f"#/replay/{table_id}")
    fairness = tab.page.locator("#fairness[data-status='verified']")
    fairness.wait_for()
    assert (f"Shuffle verified: all {deals} deals were reproduced in this page"
            in (fairness.text_content() or ""))
    assert tab.page.locator("#fairness li[data-step^='deal '].ok").count() == deals
    assert tab.page.locator("#fairness li.failed").count() == 0
    tab.assert_no_errors()


def test_a_changed_deal_fails_in_the_page(context: BrowserContext,
                                          web_server: WebServer) -> None:
    table_id = finished_bot_table(web_server)

    def swap_two_dealt_cards(route: Route) -> None:
        answer = route.fetch()
        history = answer.json()
        dealt = [event for entry in history["entries"] for event in entry.get("events", [])
                 if event["kind"] == "deal"]
        dealt[0]["cards"][0], dealt[1]["cards"][0] = dealt[1]["cards"][0], dealt[0]["cards"][0]
        route.fulfill(response=answer, body=json.dumps(history))

    context.route("**/bezique.v1.TableService/GetHistory", swap_two_dealt_cards)
    # Connect's JSON form, so that the history can be changed on its way to the page
    tab = open_tab(context, web_server, f"#/replay/{table_id}", "?protocol=connect-json")
    fairness = tab.page.locator("#fairness[data-status='failed']")
    fairness.wait_for()
    assert "Shuffle NOT verified" in (fairness.text_content() or "")
    failed = tab.page.locator("#fairness li.failed")
    assert failed.count() == 1
    assert "deal 1: packet 1, card 1: the history shows" in (failed.text_content() or "")
    tab.assert_no_errors()


def test_a_variant_the_verifier_does_not_know_is_not_called_a_failure(
        context: BrowserContext, web_server: WebServer) -> None:
    """A plugin's variant has no deal check in the page: it says it cannot check the shuffle
    (and who can), not that the history differs."""
    table_id = finished_bot_table(web_server)

    def rename_the_variant(route: Route) -> None:
        answer = route.fetch()
        history = answer.json()
        history["variantId"] = "spades"
        route.fulfill(response=answer, body=json.dumps(history))

    context.route("**/bezique.v1.TableService/GetHistory", rename_the_variant)
    tab = open_tab(context, web_server, f"#/replay/{table_id}", "?protocol=connect-json")
    fairness = tab.page.locator("#fairness[data-status='unchecked']")
    fairness.wait_for()
    text = fairness.text_content() or ""
    assert "cannot check the shuffle" in text and "bezique verify" in text
    assert "NOT verified" not in text
    assert tab.page.locator("#fairness li.failed").count() == 0
    assert tab.page.locator("#fairness li.unchecked[data-step='deals']").count() == 1
    tab.assert_no_errors()
