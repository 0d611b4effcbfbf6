"""The web table (clients/web) played in headless Chromium against a real server process.

Every game is played by clicking (or pressing keys) on the page, against the server's bots
or another browser; the server's log, read over gRPC, checks what the clicks did. A
screenshot of each variant's table goes to build/web-screens/ for review.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import BrowserContext, Locator, Page

from bezique.v1 import table_service_pb2 as pb
from tests.web.pages import (
    CARD,
    MOVE,
    ROOT,
    Tab,
    WebServer,
    card_ids,
    card_or_move,
    click_and_wait,
    create_table,
    my_turn,
    next_turn,
    open_tab,
    play_to_end,
    screenshot,
    version,
    wait_version,
)


def seat_moves(server: WebServer, table_id: str, seat: int) -> list[pb.HistoryEntry]:
    return [e for e in server.history(table_id) if e.entry_kind == "move" and e.seat == seat]


# ----------------------------------------------------------------------------- whole games


@pytest.mark.parametrize("protocol", ["connect", "connect-json", "grpc-web"])
def test_a_whole_highcard_game_by_clicking(context: BrowserContext, web_server: WebServer,
                                           protocol: str) -> None:
    tab = open_tab(context, web_server, query=f"?protocol={protocol}")
    page = tab.page
    page.fill("#name", "ann")
    table_id = create_table(page, "highcard", {"players": "2", "hand_size": "5"},
                            {1: "bot:random"})
    assert page.locator("#table").get_attribute("data-mode") == "seat"
    for _ in range(2):
        turn = next_turn(page)
        assert turn is not None and turn.selector is not None
        click_and_wait(page, page.locator(turn.selector).first, turn.version)
    if protocol == "connect":
        screenshot(page, "highcard")
    played = 2 + play_to_end(page)
    assert played == 5
    outcome = page.locator("#outcome").text_content() or ""
    assert outcome.startswith("Game over:") and "most rounds won" in outcome
    final = web_server.view(table_id)
    assert final.HasField("outcome")
    # The server holds exactly the moves the page made, by seat 0, named as typed.
    assert len(seat_moves(web_server, table_id, 0)) == 5
    joined = [e for e in web_server.history(table_id) if e.entry_kind == "joined" and e.seat == 0]
    assert [e.display_name for e in joined] == ["ann"]
    # The sentences name both seats' plays, with the cards drawn as cards.
    events = page.locator("#events")
    assert events.locator("[data-kind='play']").count() == 10
    assert events.locator("[data-kind='round_won']").count() == 5
    tab.assert_no_errors()


BEZIQUE_PREFER = ("#moves button.move[data-kind='declare']", CARD, MOVE)
"""Declare when a declaration is offered, else play a card from the hand (or a move)."""


def test_a_bezique_deal_against_the_bot(context: BrowserContext, web_server: WebServer) -> None:
    tab = open_tab(context, web_server)
    page = tab.page
    # A target of 10 ends the match with its first deal; no claims, so the deal is played out.
    table_id = create_table(page, "bezique-2p", {"target": "10", "claims": "false"},
                            {1: "bot:heuristic"})
    assert my_turn(page)
    hand = page.locator("#hand .card")
    assert hand.count() == 8
    codes = [c or "" for c in hand.evaluate_all("els => els.map(e => e.dataset.code)")]
    assert codes == sorted(codes, key=lambda c: ("SHCD".index(c[1]), "789TJQKA".index(c[0])))
    # the moves are numbered in the hand's order: key 1 plays the first card shown
    ids = "els => els.map(e => Number(e.dataset.cardId))"
    offered = page.locator("#moves button.move.kind-play .card").evaluate_all(ids)
    in_hand = hand.evaluate_all(ids)
    assert offered and offered == [card for card in in_hand if card in offered]
    # each move says the server's text of it (Move.text), its cards shown as cards: the
    # page's own words would say "Play"
    said = page.locator("#moves button.move.kind-play .kind").all_text_contents()
    assert said and set(said) == {"play"}
    trumps = page.locator("#table-head .trumps").text_content() or ""
    assert re.search("[♠♥♦♣]", trumps)
    moves = 0
    deadline = time.monotonic() + 90
    while (turn := next_turn(page, BEZIQUE_PREFER)) is not None:
        assert time.monotonic() < deadline, "the deal did not end"
        if moves == 6:
            screenshot(page, "bezique-2p")
        assert turn.selector is not None
        click_and_wait(page, page.locator(turn.selector).first, turn.version)
        moves += 1
    assert (page.locator("#outcome").text_content() or "").startswith("Game over:")
    history = web_server.history(table_id)
    kinds = {event.kind for entry in history for event in entry.events}
    assert {"trick", "draw", "deal_end"} <= kinds
    assert len(seat_moves(web_server, table_id, 0)) == moves >= 16
    tab.assert_no_errors()


AMOUNT = "#moves input.amount-input"
QUART_PREFER = ("#moves button.move[data-kind='show']", "#moves button.move[data-kind='bet']",
                AMOUNT, "#moves button.move[data-kind='raise']",
                "#moves button.move[data-kind='allin']", MOVE)
"""Stay in the deal: show or call, else raise, else go all in; fold only when nothing else
is legal."""


def quart_click(page: Page, selector: str, typed: list[int]) -> Locator:
    """A raise with an amount range gets an amount typed in (two steps above its minimum,
    noted in ``typed``)."""
    if selector != AMOUNT:
        return page.locator(selector).first
    ranged = page.locator(AMOUNT).first
    low, step, high = (int(ranged.get_attribute(a) or "0") for a in ("min", "step", "max"))
    typed.append(min(high, low + 2 * step))
    ranged.fill(str(typed[-1]))
    return page.locator("#moves li.ranged button.move").first


def test_a_quart_deal_against_three_bots(context: BrowserContext, web_server: WebServer) -> None:
    tab = open_tab(context, web_server)
    page = tab.page
    # Three deals of three seats: the deal passes clockwise, so in one of them seat 0 sits at
    # the dealer's left and opens the betting (in the others the bots may all fold first).
    table_id = create_table(page, "quart-bezique", {"players": "3", "deals": "3"},
                            {1: "bot:heuristic", 2: "bot:heuristic"})
    moves = 0
    typed: list[int] = []
    deadline = time.monotonic() + 60
    while (turn := next_turn(page, QUART_PREFER)) is not None:
        assert time.monotonic() < deadline, "the deals did not end"
        if moves == 0:
            assert page.locator("#hand .card").count() == 4
            assert page.locator("#seats .seat .stack").count() == 3
            screenshot(page, "quart-bezique")
        assert turn.selector is not None
        click_and_wait(page, quart_click(page, turn.selector, typed), turn.version)
        moves += 1
    assert moves >= 1
    assert (page.locator("#outcome").text_content() or "").startswith("Game over:")
    # The page's stacks are the server's, and every chip is still there.
    stacks = [int(page.locator(f"#seats .seat[data-seat='{seat}'] .stack b").text_content() or "")
              for seat in range(3)]
    final = web_server.view(table_id)
    assert stacks == [seat.stack for seat in final.seats]
    assert sum(stacks) == 3 * 1000
    mine = seat_moves(web_server, table_id, 0)
    assert len(mine) == moves and all(entry.move.kind != "fold" for entry in mine)
    # Amounts typed in a range (servers that offer ranges) are the amounts the server took.
    raised = [entry.move.amount for entry in mine if entry.move.kind == "raise"]
    assert all(amount in raised for amount in typed)
    tab.assert_no_errors()


def test_keyboard_play_and_the_replay(context: BrowserContext, web_server: WebServer) -> None:
    tab = open_tab(context, web_server)
    page = tab.page
    page.fill("#name", "kim")
    table_id = create_table(page, "highcard", {"players": "3", "hand_size": "4"},
                            {1: "bot:random", 2: "bot:random"})
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    pressed = 0
    while my_turn(page):
        before = version(page)
        page.keyboard.press("1")  # the first legal move: the lowest card of the sorted hand
        wait_version(page, before + 1)
        pressed += 1
    assert pressed == 4 == len(seat_moves(web_server, table_id, 0))
    # The replay of the finished table: every entry of the history, stepped with the keys.
    page.locator("#replay-link").click()
    log = page.locator("#replay-log li")
    log.first.wait_for(state="attached")
    history = web_server.history(table_id)
    assert log.count() == len(history)
    total = len(history)
    # The replay opens at its first step, not at the result.
    assert page.locator("#replay-position").text_content() == f"step 1 of {total}"
    assert page.locator("#replay #outcome").text_content() == page_outcome_of(web_server, table_id)
    page.keyboard.press("End")
    assert page.locator("#replay-position").text_content() == f"step {total} of {total}"
    page.keyboard.press("ArrowLeft")
    assert page.locator("#replay-position").text_content() == f"step {total - 1} of {total}"
    assert log.nth(total - 1).is_hidden()
    page.keyboard.press("Home")
    assert page.locator("#replay-position").text_content() == f"step 0 of {total}"
    page.locator("#replay-end").click()
    # Once the game is over the seed is revealed and every hand shows in the replay.
    seed = page.locator("#replay .replay-facts dd code").nth(1).text_content() or ""
    assert re.fullmatch(r"[0-9a-f]{64,}", seed)
    dealt = page.locator("#replay-log [data-kind='deal'] [data-card-id]").count()
    assert dealt == 3 * 4
    # The page itself reproduces the deal from the seed and the seats' entropy (the verifier
    # of clients/node/src/fair, on WebCrypto) and says so.
    page.locator("#fairness[data-status='verified']").wait_for()
    assert "Shuffle verified: the deal was reproduced in this page" in (
        page.locator("#fairness").text_content() or "")
    assert page.locator("#fairness li.failed").count() == 0
    assert page.locator("#fairness li[data-step='deal 1'].ok").count() == 1
    screenshot(page, "highcard-replay")
    tab.assert_no_errors()


def page_outcome_of(server: WebServer, table_id: str) -> str:
    """The outcome line as the pages word it, from the server's final view."""
    view = server.view(table_id)
    names = {s.seat: s.display_name or f"Seat {s.seat + 1}" for s in view.seats}
    shared = [name for name in names.values() if list(names.values()).count(name) > 1]
    names = {seat: f"{name} {seat + 1}" if name in shared else name
             for seat, name in names.items()}
    winners = [names[s] for s in view.outcome.winners]
    head = (f"{winners[0]} wins" if len(winners) == 1
            else " and ".join(winners) + " share the win" if winners else "nobody wins")
    scores = ", ".join(f"{names[i]} {score}" for i, score in enumerate(view.outcome.scores))
    return f"Game over: {head} · final: {scores} · {view.outcome.reason.replace('_', ' ')}"


# ----------------------------------------------------------------------------- seats and views


def test_a_reload_keeps_the_seat_and_the_game_goes_on(context: BrowserContext,
                                                      web_server: WebServer) -> None:
    tab = open_tab(context, web_server)
    page = tab.page
    table_id = create_table(page, "highcard", {"players": "2", "hand_size": "6"},
                            {1: "bot:random"}, turn_seconds=120)
    for _ in range(2):
        assert my_turn(page)
        target = card_or_move(page)
        assert target is not None
        click_and_wait(page, target)
    assert my_turn(page)
    hand_before = sorted(card_ids(page, "#hand [data-card-id]"))
    assert len(hand_before) == 4
    # The turn clock counts down.
    clock = page.locator("#clock")
    first_left = int(clock.get_attribute("data-left") or "0")
    assert 0 < first_left <= 120 and "s left" in (clock.text_content() or "")
    page.wait_for_function(
        "n => Number(document.querySelector('#clock')?.dataset.left) < n", arg=first_left)
    page.reload()
    assert page.locator("#table").get_attribute("data-mode") == "seat"
    assert my_turn(page)
    assert sorted(card_ids(page, "#hand [data-card-id]")) == hand_before
    # The log of what happened before the reload is there again (both seats' plays so far).
    page.locator("#events [data-kind='play']").nth(3).wait_for(state="attached")
    assert play_to_end(page) == 4
    history = web_server.history(table_id)
    assert len([e for e in history if e.entry_kind == "joined" and e.seat == 0]) == 1
    assert len(seat_moves(web_server, table_id, 0)) == 6
    tab.assert_no_errors()


def test_two_browsers_at_one_table_see_each_others_moves(browser_pair: tuple[Tab, Tab],
                                                         web_server: WebServer) -> None:
    ann, bob = browser_pair
    ann.page.fill("#name", "ann")
    table_id = create_table(ann.page, "highcard", {"players": "2", "hand_size": "4"},
                            {0: "you", 1: "open"})
    ann.page.locator("#status").filter(has_text="Waiting for players").wait_for()  # rendered
    # The invite link of the free seat is the table's address (a visitor there may sit down).
    invite = ann.page.locator("#invite-link").input_value()
    assert invite.endswith(f"#/table/{table_id}") and "bz1." not in invite
    bob.page.fill("#name", "bob")
    bob.page.locator(f"tr[data-table='{table_id}'] button.join").click()
    bob.page.wait_for_url(re.compile(f"#/table/{table_id}"))
    assert bob.page.locator("#table").get_attribute("data-mode") == "seat"
    ann.page.locator("#seats .seat[data-seat='1'] .name").filter(has_text="bob").wait_for()
    bob.page.locator("#seats .seat[data-seat='0'] .name").filter(has_text="ann").wait_for()
    moves = 0
    deadline = time.monotonic() + 60
    while not (ann.page.locator("#outcome p").count() and bob.page.locator("#outcome p").count()):
        assert time.monotonic() < deadline, "the game did not end"
        mover = next((t for t in (ann, bob)
                      if t.page.locator("#status[data-turn='mine']").count()), None)
        if mover is None:
            time.sleep(0.02)
            continue
        other = bob if mover is ann else ann
        card = mover.page.locator("#hand button.card.playable").first
        card_id = int(card.get_attribute("data-card-id") or "-1")
        click_and_wait(mover.page, card)
        moves += 1
        # The other page shows the card that was played, in a sentence of its log.
        other.page.locator(f"#events [data-kind='play'] [data-card-id='{card_id}']").wait_for(
            state="attached")
    assert moves == 8
    # Both pages tell the same end, in the players' names.
    said_to_ann = ann.page.locator("#outcome").text_content() or ""
    said_to_bob = bob.page.locator("#outcome").text_content() or ""
    assert said_to_ann == said_to_bob and said_to_ann.startswith("Game over:")
    history = web_server.history(table_id)
    assert {e.display_name for e in history if e.entry_kind == "joined"} == {"ann", "bob"}
    ann.assert_no_errors()
    bob.assert_no_errors()


# ----------------------------------------------------------------------------- hidden information


def _token(server: WebServer, table_id: str, seat: int, name: str) -> str:
    answer: pb.JoinTableResponse = server.stub.JoinTable(
        pb.JoinTableRequest(table_id=table_id, seat=seat, display_name=name,
                            entropy=bytes(range(32))))
    return answer.seat_token


def _play_some(server: WebServer, table_id: str, tokens: dict[int, str], count: int) -> None:
    """``count`` moves from Python: whoever is to move plays its first legal move (a
    declaration when one is offered, so that melds lie on the table)."""
    for _ in range(count):
        spectator = server.view(table_id)
        if spectator.HasField("outcome") or not spectator.to_move:
            return
        seat = spectator.to_move[0]
        view = server.view(table_id, tokens[seat])
        move = next((m for m in view.legal_moves if m.kind == "declare"), view.legal_moves[0])
        server.stub.SubmitMove(pb.SubmitMoveRequest(table_id=table_id, move=move,
                                                    expected_version=view.version,
                                                    request_id=f"t{table_id}{view.version}"),
                               metadata=[("authorization", f"Bearer {tokens[seat]}")])


def _seen_by_spectator(server: WebServer, table_id: str) -> set[int]:
    """Every card id a spectator may see: its view's zones and the events of its log."""
    view = server.view(table_id)
    seen = {card.id for zone in view.zones for card in zone.cards}
    for entry in server.history(table_id):
        seen |= {card.id for event in entry.events for card in event.cards}
        seen |= {card.id for card in entry.move.cards}
    return seen


@pytest.mark.parametrize(("variant", "options", "seats"), [
    ("bezique-2p", {"target": "1000"}, 2),
    ("trump-quart-bezique", {"players": "3"}, 3),
])
def test_a_spectator_page_holds_no_hidden_card(context: BrowserContext, web_server: WebServer,
                                               variant: str, options: dict[str, str],
                                               seats: int) -> None:
    created: pb.CreateTableResponse = web_server.stub.CreateTable(
        pb.CreateTableRequest(variant_id=variant, options=options))
    table_id = created.table_id
    tokens = {seat: _token(web_server, table_id, seat, f"p{seat}") for seat in range(seats)}
    _play_some(web_server, table_id, tokens, 12)
    tab = open_tab(context, web_server)  # the lobby lists the table: watch it from there
    page = tab.page
    page.locator(f"tr[data-table='{table_id}'] button.watch").click()
    page.wait_for_url(re.compile(f"#/watch/{table_id}"))
    for round_ in range(2):
        current = web_server.view(table_id).version
        wait_version(page, current)
        assert page.locator("#table").get_attribute("data-mode") == "spectator"
        assert page.locator("#hand").count() == 0 and page.locator("#moves button").count() == 0
        held = {card.id for token in tokens.values()
                for card in web_server.view(table_id, token).hand}
        public = _seen_by_spectator(web_server, table_id)
        hidden = held - public
        assert hidden, "the test needs cards in hands that a spectator may not see"
        in_dom = set(card_ids(page))
        assert in_dom, "the page draws the public cards"
        assert not in_dom & hidden
        assert in_dom <= public
        # No card code in any attribute or text either, beyond what the public cards explain,
        # and no seat's token anywhere in the page.
        html = page.content()
        assert all(token not in html for token in tokens.values())
        codes = set(page.eval_on_selector_all("[data-code]", "els => els.map(e => e.dataset.code)"))
        assert codes <= {c.code for z in web_server.view(table_id).zones for c in z.cards} | {
            card.code for entry in web_server.history(table_id) for event in entry.events
            for card in event.cards}
        if round_ == 0:
            screenshot(page, f"{variant}-spectator")
            _play_some(web_server, table_id, tokens, 6)  # live updates, then look again
    tab.assert_no_errors()


def test_server_strings_are_text_never_markup(context: BrowserContext,
                                              web_server: WebServer) -> None:
    created: pb.CreateTableResponse = web_server.stub.CreateTable(
        pb.CreateTableRequest(variant_id="highcard", options={"players": "3"}))
    hostile = '<img src=x onerror="window.__pwned=1"><b>x</b>'
    _token(web_server, created.table_id, 1, hostile)
    tab = open_tab(context, web_server, f"#/table/{created.table_id}")
    page = tab.page
    name = page.locator("#seats .seat[data-seat='1'] .name")
    name.wait_for()
    assert hostile in (name.text_content() or "")
    assert page.locator("#app img").count() == 0 and name.locator("b").count() == 0
    assert page.evaluate("() => window.__pwned") is None
    # A visitor of a table with free seats may take one: the page becomes a seat's.
    page.fill("#join-name", "cat")
    page.locator("#join").click()
    page.locator("#table[data-mode='seat']").wait_for()
    assert page.locator("#seats .seat.own .name .who").text_content() == "cat"
    tab.assert_no_errors()


def test_the_page_never_parses_markup() -> None:
    """Server strings reach the page only as text: no source of the web table uses an API
    that parses markup (the test above shows one name that would have been markup)."""
    sources = sorted((ROOT / "clients" / "web" / "src").glob("*.ts"))
    assert sources
    parsing = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser"
                         r"|createContextualFragment|\beval\(|new Function\(")
    found = [f"{path.name}: {line.strip()}" for path in sources
             for line in path.read_text().splitlines() if parsing.search(line)]
    assert not found, found
