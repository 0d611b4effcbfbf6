"""The search bot sees only its own seat, by construction: its entry point gets the seat's
view and record (the host's, redacted for the seat), never the game. A table whose hidden
cards are changed after the deal gives it the same view and record, and so the same decision
for the same seed; the bot's own samples keep every card the seat has seen where it saw it."""

from __future__ import annotations

import copy
import inspect
import random

import pytest

from bezique.variants.api import Event, SeatRecord
from bezique.variants.bezique.game import BeziqueGame
from bezique.variants.quart.game import QuartGame
from bezique.variants.search.policy import SearchPolicy
from tests.bots.helpers import Table, policy

CASES = [("bezique-2p", {"target": 1000}), ("bezique-3p", {"target": 1500}),
         ("quart-bezique", {"players": 4}), ("trump-quart-bezique", {"players": 3})]


def _swapped(events: list[Event], old: int, new: int, owner: int) -> list[Event]:
    """The events with ``old`` dealt to ``owner`` in place of ``new`` (only his own see it)."""
    result = []
    for event in events:
        if old in event.cards and event.visible_to == frozenset({owner}):
            cards = tuple(new if card == old else card for card in event.cards)
            event = Event(event.kind, event.seat, cards, event.amount, event.label,
                          event.detail, event.visible_to)
        result.append(event)
    return result


def changed(table: Table, seat: int) -> tuple[Table, int, int]:
    """A copy of the table with one hidden card of an opponent swapped for an unseen one."""
    other = copy.copy(table)
    game = other.game = copy.deepcopy(table.game)
    opponent = next(s for s in range(len(game.view(None).zones)) if s != seat
                    and game.legal_moves(s) == () and _hidden(game, s))
    old = _hidden(game, opponent)[0]
    if isinstance(game, BeziqueGame):
        new = game.stock[0]
        game.stock[0] = old
    else:
        assert isinstance(game, QuartGame)
        placed = {*game.muck_folded, *game.muck_shown, *(c for h in game.hands for c in h)}
        if game.trump_card is not None:
            placed.add(game.trump_card)
        new = next(c for c in game.shoe.ids if c not in placed)
    hand = game.hands[opponent]
    hand[hand.index(old)] = new
    other.events = _swapped(table.events, old, new, opponent)
    return other, old, new


def _hidden(game: object, seat: int) -> list[int]:
    if isinstance(game, BeziqueGame):
        return [c for c in game.hands[seat] if c not in game.known]
    assert isinstance(game, QuartGame)
    return list(game.hands[seat])


def position(variant_id: str, options: dict[str, object]) -> tuple[Table, int]:
    """A table in mid-deal where the seat to move has a choice to make."""
    rng = random.Random(7)
    for seed in range(50):
        table = Table(variant_id, options, seed)
        table.advance(rng.randrange(3, 12), rng)
        game = table.game
        if game.outcome() is not None:
            continue
        seat = game.to_move[0]
        moves = game.legal_moves(seat)
        if len(moves) > 1 and (isinstance(game, QuartGame) or game.phase == "play"):
            return table, seat
    raise AssertionError("no position with a choice")


@pytest.mark.parametrize(("variant_id", "options"), CASES)
def test_hidden_cards_changed_after_the_deal_change_no_decision(
        variant_id: str, options: dict[str, object]) -> None:
    bot = policy(variant_id, "search-easy")
    assert isinstance(bot, SearchPolicy)
    table, seat = position(variant_id, options)
    other, old, new = changed(table, seat)
    assert old != new and old not in other.game.view(None).card_ids()
    assert other.game.census() != table.game.census()  # the tables differ where it is hidden
    assert other.game.view(seat) == table.game.view(seat)
    assert other.record(seat) == table.record(seat)
    for seed in (1, 2, 3):
        searched = bot.decide(table.game.view(seat), table.game.legal_moves(seat),
                              random.Random(seed), table.record(seat))
        assert searched.iterations > 0
        assert other.decide(bot, seat, seed) == searched.move == table.decide(bot, seat, seed)


def test_the_entry_point_takes_no_game() -> None:
    """What a search bot may be given: a view, legal moves, a random source, a record."""
    parameters = inspect.signature(SearchPolicy.choose_seen).parameters
    assert list(parameters) == ["self", "view", "legal", "rng", "record"]
    assert set(SeatRecord.__slots__) == {"seat", "options", "events"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("variant_id", "options"), CASES)
def test_a_record_shows_no_card_hidden_from_its_seat(
        variant_id: str, options: dict[str, object]) -> None:
    table, seat = position(variant_id, options)
    record = table.record(seat)
    hidden = [e for e in table.events if e.cards and not e.visible_for(seat)]
    assert hidden  # the opponents' cards are in the host's events ...
    for event in record.events:  # ... and none of them reaches the seat's record
        assert event.visible_for(seat) or not event.cards
