"""The pure pieces: card labels, detail values, the prompt's parsing, seat counts, policies."""

from __future__ import annotations

import io

from google.protobuf import struct_pb2
from rich.console import Console
from rich.text import Text

from bezique.clients.play import QUIT, choose_policy, parse_choice, pass_number, seat_count
from bezique.clients.render import (
    Words,
    detail_dict,
    event_text,
    legal_moves_text,
    move_text,
    ordered_details,
    outcome_reason,
    own_zone_cards,
    shown_hands,
    shown_moves,
    value_text,
    view_renderable,
)
from bezique.terms import card_label
from bezique.v1 import table_service_pb2 as pb


def test_card_labels_use_suit_symbols() -> None:
    assert [card_label(c) for c in ("TH", "AS", "7D", "QC")] == ["10♥", "A♠", "7♦", "Q♣"]


def test_detail_values_read_as_written() -> None:
    detail = struct_pb2.Struct()
    detail.update({"deal": 2, "scores": [10, 0], "trump": "H", "hand": ["QS", "JD"]})
    assert detail_dict(detail) == {"deal": 2, "scores": [10, 0], "trump": "H",
                                   "hand": ["QS", "JD"]}
    assert value_text(["QS", "JD"]) == "Q♠, J♦"
    assert value_text(None) == "-" and value_text(True) == "yes"
    # no raw lists or records: a list of lists by its parts, a record by its name
    assert value_text([[], ["common_marriage"]]) == "-; common marriage"
    assert value_text([{"name": "koronka", "points": 6, "cards": ["KS", "QS", "JS"]},
                       {"name": "bezique", "points": 4}]) == "koronka 6, bezique 4"
    assert value_text({"b": 1, "a": "x_y"}) == "a x y, b 1"  # keys in a stable order
    assert value_text("x" * 100, 10) == "x" * 9 + "…"


def test_parse_choice() -> None:
    assert parse_choice(" 3 ", 5) == 3
    assert parse_choice("Q", 5) == QUIT
    for bad in ("", "0", "6", "-1", "two", "1.0", "p"):
        assert parse_choice(bad, 5) is None
    for key in ("", " ", "p", "P", "pass"):
        assert parse_choice(key, 5, pass_at=4) == 4
    assert parse_choice("2", 5, pass_at=4) == 2 and parse_choice("q", 5, pass_at=4) == QUIT
    moves = [pb.Move(kind="declare", label="bezique"), pb.Move(kind="pass")]
    assert pass_number(moves) == 2 and pass_number(moves[:1]) is None


def info(**fields: object) -> pb.VariantInfo:
    return pb.VariantInfo(**fields)  # type: ignore[arg-type]


def test_seat_count_from_the_registry_or_the_schema() -> None:
    assert seat_count(info(id="highcard", min_seats=2, max_seats=4), {"players": "3"}) == 3
    remote = info(id="elsewhere", min_seats=2, max_seats=6, options=[
        pb.OptionSchema(name="players", default_value="4")])
    assert seat_count(remote, {}) == 4
    assert seat_count(remote, {"players": "5"}) == 5
    assert seat_count(info(id="elsewhere", min_seats=3, max_seats=3), {}) == 3


def test_choose_policy_prefers_a_real_bot() -> None:
    assert choose_policy(info(id="x", bot_policies=["random", "highest"]), None) == "highest"
    assert choose_policy(info(id="x", bot_policies=["random"]), None) == "random"
    assert choose_policy(info(id="x", bot_policies=["random", "highest"]), "random") == "random"


def test_choose_policy_plays_the_bot_the_web_tables_play_now_plays() -> None:
    """The terminal's default bot is the web's (lobby.ts bestBot): the default search level,
    not merely the first policy that is not random."""
    levels = ["random", "heuristic", "search-easy", "search", "search-hard"]
    assert choose_policy(info(id="x", bot_policies=levels), None) == "search"
    assert choose_policy(info(id="x", bot_policies=["random", "heuristic", "search-easy",
                                                    "search-2", "search-5"]), None) == "search-5"
    assert choose_policy(info(id="x", bot_policies=["random", "greedy", "my-heuristic"]),
                         None) == "my-heuristic"
    assert choose_policy(info(id="x", bot_policies=[]), None) == "random"


def test_board_shows_hand_zones_pot_clock_and_numbered_moves() -> None:
    view = pb.View(table_id="t1", version=9, variant_id="demo", viewer_seat=0, phase="play",
                   to_move=[0], hand=[pb.Card(code="AS", id=1), pb.Card(code="TH", id=2)],
                   zones=[pb.Zone(name="trick", cards=[pb.Card(code="KD", id=3)]),
                          pb.Zone(name="melds", owner=1, cards=[pb.Card(code="QS", id=4)])],
                   seats=[pb.SeatState(seat=0, occupied=True, display_name="ann", stack=90),
                          pb.SeatState(seat=1, occupied=True, display_name="bot",
                                       bot_policy="random", stack=80,
                                       hidden_hand_count=2)],
                   pot=30, legal_moves=[pb.Move(kind="play", cards=[pb.Card(code="AS", id=1)]),
                                        pb.Move(kind="raise", amount=20)])
    view.detail.update({"trump": "D", "dealer": 1, "trick_seats": [1]})
    view.deadline.FromSeconds(4102444800)
    out = io.StringIO()
    words = Words(zones={"trick": "Current trick", "melds": "Melds"})
    Console(file=out, width=100, color_system=None).print(view_renderable(view, words=words))
    text = out.getvalue()
    for expected in ("trumps ♦", "dealer: Seat 1 (bot)", "Current trick: K♦ (Seat 1 (bot))",
                     "Melds of Seat 1 (bot): Q♠", "Pot: 30", "Your hand: A♠ 10♥",
                     "1. play A♠", "2. raise 20", "s left", "To move: Seat 0 (you)"):
        assert expected in text, expected


def test_detail_keys_come_in_a_stable_order() -> None:
    """By key, whatever order the Struct gives them in."""
    for order in (["level", "zeta", "alpha", "stack"], ["alpha", "stack", "zeta", "level"]):
        detail = {key: 1 for key in order}
        assert [key for key, _ in ordered_details(detail)] == [
            "alpha", "level", "stack", "zeta"]
    event = pb.Event(kind="raise", seat=0, amount=5)
    event.detail.update({"stack": 1, "level": 2, "all_in": False})
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(event_text(
        event, {0: "Seat 0"}, words=Words(details={"all_in": "all-in"})))
    assert out.getvalue().strip() == "Seat 0 raise (+5)  all-in: no, level: 2, stack: 1"


def test_moves_in_hand_order_and_identical_cards_once() -> None:
    """Two packs hold identical cards: playing either from the hand is the same move for the
    player, so it is listed once; a card from the player's melds is told apart."""
    view = pb.View(viewer_seat=0, legal_moves=[
        pb.Move(kind="play", cards=[pb.Card(code="KH", id=7)]),
        pb.Move(kind="play", cards=[pb.Card(code="AS", id=1)]),
        pb.Move(kind="play", cards=[pb.Card(code="AS", id=33)]),
        pb.Move(kind="play", cards=[pb.Card(code="9S", id=2)]),
        pb.Move(kind="play", cards=[pb.Card(code="KH", id=40)]),
        pb.Move(kind="pass")],
        zones=[pb.Zone(name="melds", owner=0, cards=[pb.Card(code="KH", id=40)])])
    shown = shown_moves(view)
    assert [(m.kind, [c.id for c in m.cards]) for m in shown] == [
        ("play", [2]), ("play", [1]), ("play", [7]), ("play", [40]), ("pass", [])]
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(
        legal_moves_text(shown, words=Words(zones={"melds": "Melds"}),
                         placed=own_zone_cards(view)))
    text = out.getvalue()
    assert "4. play K♥ (from your melds)" in text and text.count("A♠") == 1


def test_a_move_is_shown_in_the_servers_words_when_it_sends_them() -> None:
    """``Move.text`` is what the terminal shows (its cards in colour); a move without it (an
    older server) is written by the client. A kind of many moves names the kind once."""
    declare = pb.Move(kind="declare", label="royal_marriage", text="declare royal wedding K♠ Q♠",
                      cards=[pb.Card(code="KS", id=3), pb.Card(code="QS", id=4)])
    older = pb.Move(kind="declare", label="royal_marriage",
                    cards=[pb.Card(code="KS", id=3), pb.Card(code="QS", id=4)])
    plays = [pb.Move(kind="play", cards=[pb.Card(code=code, id=n)], text=f"play {label} now")
             for n, (code, label) in enumerate(zip(["7S", "8S", "9S", "TS", "JS"],
                                                   ["7♠", "8♠", "9♠", "10♠", "J♠"], strict=True))]

    def shown(text: Text) -> str:
        out = io.StringIO()
        Console(file=out, width=200, color_system=None).print(text)
        return out.getvalue().strip()

    assert shown(move_text(declare)) == "declare royal wedding K♠ Q♠"
    assert shown(move_text(older)) == "declare royal marriage K♠ Q♠"
    styled = move_text(declare)
    assert any(span.style == "bold red" or span.style == "bold default"
               for span in styled.spans)  # its cards in their colours
    compact = shown(legal_moves_text(plays))
    assert compact == "play:  1 7♠ now  2 8♠ now  3 9♠ now  4 10♠ now  5 J♠ now"


def test_shown_cards_are_told_under_the_seat_that_showed_them() -> None:
    """Quart's showdown puts every hand still in on one shared zone: the board names whose
    cards are whose, from the deal's ``reveal`` events (a new deal forgets them)."""
    def reveal(seat: int, *codes: str) -> pb.Event:
        event = pb.Event(kind="reveal", seat=seat)
        event.detail.update({"hand": list(codes)})
        return event

    shown = shown_hands([pb.Event(kind="deal_start", seat=0), reveal(0, "AS", "QS"),
                         reveal(2, "QS", "7D")])
    assert shown == {0: ["AS", "QS"], 2: ["QS", "7D"]}
    assert shown_hands([pb.Event(kind="deal_start", seat=1)], shown) == {}
    view = pb.View(table_id="t1", version=9, variant_id="demo", viewer_seat=0, phase="betting",
                   zones=[pb.Zone(name="muck/shown", cards=[
                       pb.Card(code=code, id=n) for n, code in enumerate(["QS", "7D", "AS", "QS"])
                   ])],
                   seats=[pb.SeatState(seat=s, occupied=True, display_name=name)
                          for s, name in enumerate(["ann", "bob", "cid"])])
    out = io.StringIO()
    board = view_renderable(view, words=Words(zones={"muck/shown": "Shown cards"}), shown=shown)
    Console(file=out, width=120, color_system=None).print(board)
    assert "Shown cards: Seat 0 (you): Q♠ A♠; Seat 2 (cid): 7♦ Q♠" in out.getvalue()
    # a card no seat showed: one heap, as before
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(
        view_renderable(view, words=Words(zones={"muck/shown": "Shown cards"}), shown={0: ["AS"]}))
    assert "Shown cards: Q♠ 7♦ A♠ Q♠" in out.getvalue()


def test_quarts_deals_played_reads_in_the_variants_words_for_any_count() -> None:
    """The server keeps Quart's reason "1 deals played" (old histories verify); the terminal
    finds the vocabulary's "{deals} deals played" for it, in both languages, for 1 as for 2."""
    from bezique.variants.quart.words import RUSSIAN, VOCABULARY

    for deals in (1, 2):
        outcome = pb.Outcome(winners=[0], scores=[120, 80], reason=f"{deals} deals played")
        outcome.detail.update({"deals": deals})
        english = outcome_reason(outcome, Words(outcomes=VOCABULARY.outcomes))
        russian = outcome_reason(outcome, Words(outcomes=RUSSIAN.outcomes))
        assert english == f"most chips after the last deal (deals played: {deals})"
        assert russian == f"больше всех фишек после последней сдачи (сыграно сдач: {deals})"
    assert outcome_reason(pb.Outcome(reason="target_reached"), Words()) == "target reached"


def test_a_bezique_card_played_says_where_from_once() -> None:
    """Bezique's play event has the detail ``from``; its English value reads after the key's
    word ("from: the hand", not "from: from the hand")."""
    from bezique.variants.bezique.words import VOCABULARY as ENGLISH

    words = Words(events=dict(ENGLISH.events), details=dict(ENGLISH.details),
                  labels=dict(ENGLISH.labels))
    said = []
    for source in ("hand", "table"):
        event = pb.Event(kind="play", seat=0)
        event.detail.update({"from": source})
        out = io.StringIO()
        Console(file=out, width=200, color_system=None).print(event_text(
            event, {0: "Seat 0"}, words=words))
        said.append(out.getvalue().strip())
    assert said == ["Seat 0 plays  from: the hand", "Seat 0 plays  from: the table"]
