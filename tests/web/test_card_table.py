"""The web table as players meet it: Play now in one click, the card table, the result and
Play again, the replay from its first step, a seat that outlives its browser context and moves
to another with a resume code, the Bezique auto-pass, Quart's call and presets, Russian and
English, and a phone's width. Screenshots of each page in both languages and both sizes go to
build/web-screens/ (tests/web/pages.py: screens)."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, BrowserContext, Page

from bezique.v1 import table_service_pb2 as pb
from tests.web.pages import (
    CARD,
    MOVE,
    SIZES,
    Tab,
    WebServer,
    click_and_wait,
    create_table,
    horizontal_overflow,
    my_turn,
    next_turn,
    open_tab,
    play_to_end,
    screens,
    switch_language,
    table_id_of,
)

INTERNALS = re.compile(r"melds \[\[|version \d|Seat \d \(you\)|· target$|\[\]|null|undefined")
"""What a player must never read: the protocol's insides."""


def page_words(page: Page, selector: str = "#app") -> str:
    return page.locator(selector).inner_text()


def new_context(browser: Browser, locale: str = "en-US", phone: bool = False,
                storage_state: object = None) -> BrowserContext:
    width, height = SIZES["phone" if phone else "wide"]
    made = browser.new_context(viewport={"width": width, "height": height}, locale=locale,
                               has_touch=phone, is_mobile=phone,
                               storage_state=storage_state)  # type: ignore[arg-type]
    made.set_default_timeout(20_000)
    return made


def seated_tab(context: BrowserContext, server: WebServer) -> Tab:
    """The lobby at the laptop's size, the player's name typed in."""
    tab = open_tab(context, server)
    width, height = SIZES["wide"]
    tab.page.set_viewport_size({"width": width, "height": height})
    tab.page.fill("#name", "ann")
    return tab


def play_now(page: Page, variant: str) -> str:
    page.locator(f"button.play-now[data-variant='{variant}']").click()
    page.wait_for_url(re.compile(r"#/table/"))
    page.locator("#table[data-mode='seat']").wait_for()
    return table_id_of(page)


def test_play_now_to_the_end_then_play_again(context: BrowserContext,
                                             web_server: WebServer) -> None:
    tab = seated_tab(context, web_server)
    page = tab.page
    # The lobby: a Play now per variant, against its best bot; the rules folded away.
    card = page.locator(".variant-card[data-variant='highcard']")
    assert "highest bot" in card.locator(".against").inner_text()
    assert not card.locator("form.variant").is_visible()
    screens(page, "lobby", ".variant-card")
    table_id = play_now(page, "highcard")
    view = web_server.view(table_id)
    assert [seat.bot_policy for seat in view.seats] == ["", "highest"]
    assert page.locator("#seats .seat.own .name .who").inner_text() == "ann"
    assert play_to_end(page) == 3  # the default hand of three cards
    # The result screen: who won, in words, with Play again and the replay.
    result = page.locator("#result")
    result.wait_for()
    said = result.inner_text()
    assert "Game over:" in said and "ann" in said and not INTERNALS.search(said)
    screens(page, "result", "#result .actions")
    page.locator("#play-again").click()
    page.wait_for_function("id => !location.hash.includes(id)", arg=table_id)
    page.locator("#table[data-mode='seat']").wait_for()
    again = table_id_of(page)
    first, second = web_server.history(table_id), web_server.history(again)
    assert again != table_id and len(second) > 0
    answer = web_server.stub.GetHistory(pb.GetHistoryRequest(table_id=again))
    assert answer.variant_id == "highcard"
    seats = [(s.seat, s.bot_policy) for s in web_server.view(again).seats]
    assert seats == [(0, ""), (1, "highest")]
    assert [e.display_name for e in second if e.entry_kind == "joined" and e.seat == 0] == ["ann"]
    assert len(first) > len(second)
    # My tables: the finished one and the new one, reopened from the lobby.
    page.locator("#to-lobby").click()
    mine = page.locator("#my-tables tr")
    mine.first.wait_for()
    assert page.locator(f"#my-tables tr[data-table='{table_id}']").get_attribute(
        "data-state") == "finished"
    assert page.locator(f"#my-tables tr[data-table='{again}']").get_attribute(
        "data-state") == "live"
    page.locator(f"#my-tables tr[data-table='{again}'] button.reopen").click()
    page.locator("#table[data-mode='seat']").wait_for()
    assert table_id_of(page) == again
    tab.assert_no_errors()


def test_a_seat_outlives_its_browser_and_moves_with_a_resume_code(
        browser: Browser, web_server: WebServer) -> None:
    first = new_context(browser)
    tab = open_tab(first, web_server)
    page = tab.page
    page.fill("#name", "ann")
    table_id = create_table(page, "highcard", {"players": "2", "hand_size": "5"},
                            {1: "bot:random"})
    assert my_turn(page)
    click_and_wait(page, page.locator(CARD).first)
    # The resume code: shown on asking, with a warning that it is the seat itself; it is not in
    # the page's address.
    page.locator("#resume summary").click()
    assert "secret" in page.locator("#resume .secret").inner_text()
    code = page.locator("#resume-code").input_value()
    assert code.startswith("bz1.") and code not in page.url
    state = first.storage_state()
    tab.assert_no_errors()
    first.close()
    # The browser closed and opened again (its storage kept): the lobby lists the table, and
    # it opens at the seat, whose turn it is.
    second = new_context(browser, storage_state=state)
    tab = open_tab(second, web_server)
    page = tab.page
    page.locator(f"#my-tables tr[data-table='{table_id}'] button.reopen").click()
    page.locator("#table[data-mode='seat']").wait_for()
    assert my_turn(page)
    click_and_wait(page, page.locator(CARD).first)
    tab.assert_no_errors()
    second.close()
    # Another device: nothing stored, the code pasted in the lobby.
    third = new_context(browser)
    tab = open_tab(third, web_server)
    page = tab.page
    page.locator("summary").filter(has_text="another device").click()
    page.fill("#resume-input", code)
    page.locator("#resume-form button").click()
    page.locator("#table[data-mode='seat']").wait_for()
    assert table_id_of(page) == table_id
    assert play_to_end(page) == 3
    moves = [e for e in web_server.history(table_id) if e.entry_kind == "move" and e.seat == 0]
    assert len(moves) == 5
    joined = [e for e in web_server.history(table_id) if e.entry_kind == "joined"]
    assert len(joined) == 2  # one seat taken once, played from three browsers
    tab.assert_no_errors()
    third.close()


BEZIQUE_PREFER = ("#moves button.move[data-kind='declare']", CARD, MOVE)


def test_a_bezique_table_its_result_and_its_replay(context: BrowserContext,
                                                   web_server: WebServer) -> None:
    tab = seated_tab(context, web_server)
    page = tab.page
    table_id = create_table(page, "bezique-2p", {"target": "10", "claims": "false"},
                            {1: "bot:heuristic"})
    assert my_turn(page)
    # The card table: the target and the deal, the trump card, the stock, the opponent's hand
    # as card backs with its count, no internals.
    head = page.locator("#table-head").inner_text()
    assert "Play to 10" in head and "Deal 1" in head
    assert page.locator("#seats .middle [data-zone='trump'] .card").count() == 1
    assert page.locator("#seats .middle [data-zone='stock'] .card.back").count() == 1
    opponent = page.locator("#seats .seat[data-seat='1']")
    assert opponent.get_attribute("data-place") == "top"
    assert opponent.locator(".hidden-hand").get_attribute("data-count") == str(
        web_server.view(table_id).seats[1].hidden_hand_count)
    assert page.locator("#seats .seat.own").get_attribute("data-place") == "bottom"
    assert not INTERNALS.search(page_words(page))
    page.locator("#auto-pass").check()
    moves = 0
    deadline = time.monotonic() + 90
    while (turn := next_turn(page, BEZIQUE_PREFER)) is not None:
        assert time.monotonic() < deadline, "the deal did not end"
        # With the setting on, the page never stops at a prompt where passing is all there is.
        kinds = page.locator("#moves button.move").evaluate_all(
            "els => els.map(e => e.dataset.kind)")
        assert kinds != ["pass"]
        if moves == 4:
            assert page.locator("#seats .middle [data-zone='trick']").count() == 1
            screens(page, "bezique-table", "#seats .seat.own")
            turn = next_turn(page, BEZIQUE_PREFER)
            assert turn is not None
        assert turn.selector is not None
        click_and_wait(page, page.locator(turn.selector).first, turn.version)
        moves += 1
    history = web_server.history(table_id)
    # Every trick ann won before the stock ran out asked her to declare (declare_prompt is
    # "always"): her next move is a declaration, the seven's exchange or show, or a pass (the
    # page's, where passing was all there was). Playing the first card of her hand, she may
    # win no trick: such a deal checks nothing here.
    answers: list[tuple[int, str]] = []
    stock_left = asked = False
    for entry in history:
        if asked and entry.move.kind:
            answers.append((entry.seat, entry.move.kind))
            asked = False
        for event in entry.events:
            stock_left = {"deal": True, "endgame": False}.get(event.kind, stock_left)
            asked = asked or (stock_left and event.kind == "trick" and event.seat == 0)
    assert all(seat == 0 and kind in {"declare", "exchange_seven", "show_seven", "pass"}
               for seat, kind in answers), answers
    # The result: points by meld, brisques, the last trick, the totals.
    result = page.locator("#result .result-table")
    result.first.wait_for()
    rows = page.locator("#result .result-table tr").evaluate_all(
        "els => els.map(e => e.className)")
    assert {"brisquesRow", "lastTrickRow", "total"} <= set(rows)
    final = web_server.view(table_id)
    totals = page.locator("#result tr.total td").all_inner_texts()
    assert totals == [str(seat.score) for seat in final.seats]
    assert not INTERNALS.search(page_words(page, "#result"))
    # The replay opens at its first step; every hand is shown at each step, with the scores.
    page.locator("#replay-link").click()
    page.locator("#replay-position[data-step='1']").wait_for()
    page.locator("#fairness[data-status='verified']").wait_for()
    for _ in range(8):
        page.locator("#replay-next").click()
    hands = [page.locator(f".replay-seat[data-seat='{seat}'] .hand .card").count()
             for seat in (0, 1)]
    assert hands[0] > 0 and hands[1] > 0
    screens(page, "replay", "#replay-controls")
    page.locator("#replay-end").click()
    scores = page.locator(".replay-seat .score b").all_inner_texts()
    assert scores == [str(seat.score) for seat in final.seats]
    # The controls stay in view when the steps go on (the page scrolls under them).
    page.mouse.wheel(0, 3000)
    page.keyboard.press("ArrowLeft")
    box = page.locator("#replay-controls").bounding_box()
    assert box is not None and 0 <= box["y"] < 900
    tab.assert_no_errors()


AMOUNT = "#moves input.amount-input"


def test_a_quart_table_on_a_phone_in_russian(browser: Browser, web_server: WebServer) -> None:
    phone = new_context(browser, locale="ru-RU", phone=True)
    tab = open_tab(phone, web_server)
    page = tab.page
    # The browser's language chooses Russian; the switch changes it.
    page.locator("button.play-now").first.wait_for()
    assert page.locator("button.play-now").first.inner_text() == "Играть"
    assert horizontal_overflow(page) <= 0
    switch_language(page, "en")
    assert page.locator("button.play-now").first.inner_text() == "Play now"
    switch_language(page, "ru")
    table_id = create_table(page, "quart-bezique", {"players": "3", "deals": "3"},
                            {1: "bot:heuristic", 2: "bot:heuristic"})
    # Around the felt: the two opponents at the sides, the player at the bottom.
    page.locator("#seats .seat.own").wait_for()
    places = [page.locator(f"#seats .seat[data-seat='{seat}']").get_attribute("data-place")
              for seat in range(3)]
    assert places == ["bottom", "left", "right"]
    shot = False
    moves = 0
    deadline = time.monotonic() + 60
    while (turn := next_turn(page, (AMOUNT, "#moves button.move[data-kind='show']",
                                    "#moves button.move[data-kind='bet']", MOVE))) is not None:
        assert time.monotonic() < deadline, "the deals did not end"
        # A touch screen: no key hints.
        assert page.locator("#moves kbd").count() == 0
        assert "нажмите" in page.locator("#status").inner_text()
        assert page.locator("#to-call").count() == 1
        assert turn.selector is not None
        target = page.locator(turn.selector).first
        if turn.selector == AMOUNT:
            presets = page.locator("#moves .preset")
            assert presets.first.inner_text() == "Минимум"
            assert presets.last.inner_text() == "Ва-банк"
            if not shot:
                assert horizontal_overflow(page) <= 0
                screens(page, "quart-table", "#seats .seat.own")
                shot = True
                turn = next_turn(page, (AMOUNT,))
                assert turn is not None
            presets.first.click()
            assert page.locator(AMOUNT).first.input_value() == page.locator(
                AMOUNT).first.get_attribute("min")
            target = page.locator("#moves li.ranged button.move").first
        click_and_wait(page, target, turn.version)
        moves += 1
    assert moves >= 1
    page.locator("#result").wait_for()
    assert horizontal_overflow(page) <= 0
    said = page.locator("#result").inner_text()
    assert "Игра окончена" in said and not INTERNALS.search(said)
    # A showdown's hands are each under their seat's name in the result, combinations in words.
    history = web_server.history(table_id)
    shown: set[tuple[int, int]] = set()
    deal = 0
    for event in (event for entry in history for event in entry.events):
        if event.kind == "deal_start":
            deal = int(event.detail.fields["deal"].number_value)
        if event.kind == "reveal":
            shown.add((deal, event.seat))
    # A result per deal: the chips each won and the stacks after it.
    ends = [event for entry in history for event in entry.events if event.kind == "deal_end"]
    page.locator("#result .result-table").first.wait_for()
    assert page.locator("#result .result-table").count() == len(ends)
    last = [int(v.number_value) for v in ends[-1].detail.fields["stacks"].list_value.values]
    assert page.locator("#result .result-table").first.locator(
        "tr.total td").all_inner_texts() == [str(v) for v in last]
    if shown:
        page.locator("#result tr.shown").first.wait_for()
        for deal, seat in shown:
            cards = page.locator(f"#result .result-table[data-deal='{deal}'] tr.shown "
                                 f"td[data-seat='{seat}'] .card")
            assert cards.count() == 4
        combos = " ".join(page.locator("#result tr.combination").all_inner_texts())
        assert not re.search(r"koronka-\d|three-of-a-kind|two-beziques", combos)
    tab.assert_no_errors()
    phone.close()


def test_the_lobby_names_open_tables_seats_as_the_table_does(context: BrowserContext,
                                                             web_server: WebServer) -> None:
    """A bot seat by its policy in the page's language and a seat joined without a name by
    its number, not the server's labels ("heuristic bot", "seat 0")."""
    created = web_server.stub.CreateTable(pb.CreateTableRequest(
        variant_id="bezique-2p", bots=[pb.BotSeat(seat=1, policy="heuristic")]))
    table_id = created.table_id
    web_server.stub.JoinTable(pb.JoinTableRequest(table_id=table_id, seat=0,
                                                  entropy=bytes(range(32))))
    assert [seat.display_name for seat in web_server.view(table_id).seats] == [
        "seat 0", "heuristic bot"]
    tab = open_tab(context, web_server)
    page = tab.page
    players = page.locator(f"#tables tr[data-table='{table_id}'] td.players")
    players.wait_for()
    assert players.inner_text() == "Seat 1, heuristic bot"
    switch_language(page, "ru")
    page.wait_for_function("id => document.querySelector(`#tables tr[data-table='${id}'] "
                           "td.players`)?.textContent.includes('бот')", arg=table_id)
    assert players.inner_text() == "Место 1, бот «эвристика»"
    tab.assert_no_errors()
