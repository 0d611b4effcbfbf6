"""Attacks on this session's changes, read from the code (brief attack4): the derived view's
kept position when a game changes outside ``apply`` (an operator's abort), moves of odd types
Quart's refusal path let through, and the shuffle's hand-hashed HMAC pads at every key length."""

from __future__ import annotations

import hashlib
import hmac
import pickle
from collections.abc import Sequence

import pytest

from bezique.variants._hmac_pads import HmacPads
from bezique.variants.api import (
    ABORTED,
    BaseGame,
    Census,
    Event,
    IllegalMoveError,
    Move,
    Outcome,
    Pile,
    abort_game,
    resolve_options,
)
from bezique.variants.cards import piquet_shoe
from bezique.variants.chance import SeededChance
from bezique.variants.quart.game import QuartGame
from bezique.variants.quart.variant import QuartBezique, TrumpQuartBezique

# ---------------------------------------------------------------------------- abort and view


class _Staked(BaseGame):
    """Two seats stake chips and lay a card face up, in turn; an operator's abort gives the
    stakes back and puts the laid cards back in the box, face down (a plugin's own
    ``abort``, as docs/plugins.md describes)."""

    shoe = piquet_shoe(1)

    def __init__(self) -> None:
        self.hands: list[list[int]] = [[7, 8], [12, 13]]
        self.table: list[int] = []
        self.box: list[int] = []
        self.stacks = [100, 100]
        self.pot = 0
        self.ended = False

    @property
    def phase(self) -> str:
        return "over" if self.ended else "play"

    @property
    def to_move(self) -> tuple[int, ...]:
        return () if self.ended or len(self.table) >= 4 else (len(self.table) % 2,)

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if seat not in self.to_move:
            return ()
        return tuple(Move("stake", (card,), 10) for card in self.hands[seat])

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        self.hands[seat].remove(move.cards[0])
        self.table.append(move.cards[0])
        self.stacks[seat] -= move.amount
        self.pot += move.amount
        return (Event("stake", seat, move.cards, move.amount),)

    def abort(self) -> Sequence[Event]:
        self.stacks = [100, 100]
        self.pot = 0
        self.box += self.table
        self.table = []
        self.ended = True
        return (Event("stakes_returned"),)

    def outcome(self) -> Outcome | None:
        return Outcome((), tuple(self.stacks), ABORTED) if self.ended else None

    def default_move(self, seat: int) -> Move:
        return self.legal_moves(seat)[0]

    def census(self) -> Census:
        return Census((Pile.hand(0, self.hands[0]), Pile.hand(1, self.hands[1]),
                       Pile("table", tuple(self.table)), Pile("box", tuple(self.box),
                                                              frozenset())),
                      chips=sum(self.stacks) + self.pot, stacks=tuple(self.stacks),
                      pot=self.pot)


def test_the_views_after_an_abort_are_the_aborted_state_not_the_last_one_viewed() -> None:
    """The service publishes every watcher's view right after an ``aborted`` entry commits.
    BaseGame.view keeps the position last viewed until ``apply``; a plugin's ``abort`` changes
    the game outside ``apply``, so those views showed the table before the abort (the stakes
    still in the pot, the laid cards still face up) though the log says they went back."""
    game = _Staked()
    game.apply(0, Move("stake", (7,), 10))
    game.apply(1, Move("stake", (12,), 10))
    before = game.view(None)  # the watchers' views of the last move, kept by BaseGame.view
    assert before.pot == 20 and before.card_ids() == {7, 12}
    same, events = abort_game(game)
    assert same is game and [event.kind for event in events] == ["stakes_returned"]
    for viewer in (None, 0, 1):
        view = game.view(viewer)
        assert view == game.census().view_for(viewer, "over", ()), viewer
        assert view.pot == 0 and view.stacks == (100, 100) and view.zone("table") is not None
        assert 7 not in view.card_ids() and 12 not in view.card_ids()


# ---------------------------------------------------------------------------- odd move types


def _quart(variant: QuartBezique, raw: dict[str, str], log_version: int | None) -> QuartGame:
    options = resolve_options(variant.options, raw)
    game, _ = variant.start(options, SeededChance(bytes([7]) * 32), 0, log_version=log_version)
    assert isinstance(game, QuartGame)
    return game


@pytest.mark.parametrize(("variant", "log_version"), [(QuartBezique(), None),
                                                      (TrumpQuartBezique(), None),
                                                      (QuartBezique(), 1)])
@pytest.mark.parametrize("amount", [25.5, 20.0, "20", b"20", None, 1 + 0j])
def test_a_raise_whose_amount_is_not_a_whole_number_is_refused_and_changes_nothing(
        variant: QuartBezique, log_version: int | None, amount: object) -> None:
    """A raise the offer does not match goes to why_illegal, which asked only whether the
    betting allows the level: 25.5 and 20.0 were made (a stack of 964.5, a log entry that
    replays as a raise to 25), and "20" raised TypeError instead of IllegalMoveError. The
    server builds amounts from int64 fields, but the guard is the plugin API's promise to
    every caller (the conformance kit, an embedding platform): refuse, change nothing."""
    game = _quart(variant, {"players": "3", "starting_stack": "500", "min_bet": "5"},
                  log_version)
    seat = game.to_move[0]
    betting = game.betting
    assert betting is not None and betting.raise_range(seat) is not None
    before = pickle.dumps(game)
    with pytest.raises(IllegalMoveError, match="whole number"):
        game.apply(seat, Move("raise", amount=amount))  # type: ignore[arg-type]
    assert pickle.dumps(game) == before
    made = game.apply(seat, Move("raise", amount=20))  # a whole number in range still is
    assert [event.kind for event in made][:1] == ["raise"]
    assert all(type(stack) is int for stack in game.stacks)


# ---------------------------------------------------------------------------- the HMAC pads


def test_the_pads_are_hmac_sha256_at_every_key_length_around_the_block() -> None:
    """RFC 2104 by hand: a key longer than SHA-256's 64-byte block is hashed first, a shorter
    one padded with zeros. Every length from empty to past two blocks, and keys whose bytes
    are the pads' own (0x36, 0x5c) or all ones, give hmac's bytes; a key of exactly 64 bytes
    (hashed by a ``>=`` slip) and one of 65 (left unhashed by a ``> 65``) among them."""
    for length in range(0, 150):
        for key in (bytes(i % 256 for i in range(length)), b"\x36" * length, b"\x5c" * length,
                    b"\xff" * length):
            expected = b"".join(hmac.digest(key, b"deal/3:%d" % n, hashlib.sha256)
                                for n in range(5, 8))
            assert HmacPads(key).macs(b"deal/3:", 5, 3) == expected, (length, key[:1])
