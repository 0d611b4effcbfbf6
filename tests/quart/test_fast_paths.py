"""The shortcuts of the hot path give what the plain code gives: ``Betting.choices`` answers
like the four separate questions, ``Betting.act`` moves like the checked actions, the turn passes
as the rules state it, the cached raise ladder offers the plain raises, and the read-ahead
shuffle is the stepwise one."""

from __future__ import annotations

import copy
import hashlib
import hmac
import pickle
import random
from collections.abc import Callable, Iterator

import pytest

import bezique.variants.chance as chance_module
from bezique.variants.api import AmountRange, Move
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from bezique.variants.quart.betting import LAST_STANDING, OPEN, SHOWDOWN, Betting
from bezique.variants.quart.game import QuartGame, _raise_offer
from tests.quart.helpers import QUART, TRUMP


def test_a_game_pickles_mid_betting_in_random_play() -> None:
    """(``choices`` against the rules as written: tests/quart/test_betting_rules.py.)"""
    for variant, raw in ((QUART, {"players": "3"}), (TRUMP, {}), (QUART, {"players": "5"})):
        options = resolve_options(variant.options, raw)
        for game_no in range(12):
            game, _ = variant.start(options, SeededChance(bytes([game_no + 1]) * 32))
            assert isinstance(game, QuartGame)
            rng = random.Random(game_no)
            for _ in range(300):
                if not game.to_move:
                    break
                seat = game.to_move[0]
                legal = game.legal_moves(seat)
                game.apply(seat, legal[rng.randrange(len(legal))])
            copy = pickle.loads(pickle.dumps(game))
            assert copy.stacks == game.stacks and copy.to_move == game.to_move


# --------------------------------------------------------------------------- the betting


def _slots(betting: Betting) -> dict[str, object]:
    return {name: copy.copy(getattr(betting, name)) for name in Betting.__slots__}


def _checked(betting: Betting, seat: int, move: Move) -> int:
    """The move through the betting's own checked methods."""
    if move.kind == "raise":
        return betting.raise_to(seat, move.amount)
    action: Callable[[int], int] = getattr(betting, move.kind)
    return action(seat)


def _reference_advance(betting: Betting, seat: int) -> tuple[str, int | None, list[bool]]:
    """The turn order as the rules state it, list by list: the status, the turn and the
    ``acted`` flags ``Betting._advance`` must leave after ``seat`` acted."""
    order, folded, all_in = betting.order, betting.folded, betting.all_in
    contrib, level, acted = betting.contrib, betting.level, list(betting.acted)
    live = [s for s in order if not folded[s]]
    if len(live) == 1:
        return LAST_STANDING, None, acted
    actors = [s for s in live if not all_in[s]]
    if len(actors) == 1 and contrib[actors[0]] >= level:
        pending: list[int] = []
    else:
        pending = [s for s in actors if not acted[s] or contrib[s] < level]
    if not pending and len(live) == 2 and len(actors) == 2 and folded[seat]:
        pending = actors  # a fold left two level: the next of them may show, raise or fold
    if not pending:
        if len(live) == 2 or betting.multiway or len(actors) <= 1:
            return SHOWDOWN, None, acted
        acted = [False] * len(acted)
        pending = actors
    start = order.index(seat) if seat in order else -1
    turn = next(order[(start + step) % len(order)] for step in range(1, len(order) + 1)
                if order[(start + step) % len(order)] in pending)
    return OPEN, turn, acted


def _random_tables() -> Iterator[tuple[QuartGame, random.Random]]:
    """Tables in random play, across the options that change the betting's turn order."""
    for variant, raw in ((QUART, {}), (QUART, {"players": "3", "multiway_showdown": "false"}),
                         (TRUMP, {"players": "6", "starting_stack": "60", "max_bet": "25"}),
                         (QUART, {"players": "2", "starting_stack": "35"})):
        options = resolve_options(variant.options, raw)
        for game_no in range(6):
            game, _ = variant.start(options, SeededChance(bytes([game_no + 7]) * 32))
            assert isinstance(game, QuartGame)
            yield game, random.Random(game_no)


def test_act_leaves_the_betting_as_the_checked_moves_do() -> None:
    for game, rng in _random_tables():
        for _ in range(250):
            if not game.to_move:
                break
            seat = game.to_move[0]
            legal = game.legal_moves(seat)
            move = legal[rng.randrange(len(legal))]
            betting = game.betting
            assert betting is not None
            fast, plain = pickle.loads(pickle.dumps(betting)), pickle.loads(pickle.dumps(betting))
            assert fast.act(seat, move.kind, move.amount) == _checked(plain, seat, move)
            assert _slots(fast) == _slots(plain)
            game.apply(seat, move)


def test_advance_passes_the_turn_as_the_rules_state_it(monkeypatch: pytest.MonkeyPatch) -> None:
    advance = Betting._advance
    checked = 0

    def compared(betting: Betting, seat: int) -> None:
        nonlocal checked
        expected = _reference_advance(betting, seat)
        advance(betting, seat)
        assert (betting.status, betting.turn, betting.acted) == expected
        checked += 1

    monkeypatch.setattr(Betting, "_advance", compared)
    for game, rng in _random_tables():  # every deal's first turn, then every action's
        for _ in range(250):
            if not game.to_move:
                break
            seat = game.to_move[0]
            legal = game.legal_moves(seat)
            game.apply(seat, legal[rng.randrange(len(legal))])
    assert checked > 500


# --------------------------------------------------------------------------- the raises


def test_the_raise_is_one_offer_with_the_whole_range() -> None:
    """One raise, from the minimum level to the stack (or the table limit), step 1, suggesting
    the minimum; the cached offer is the same value a fresh one would be."""
    for level in (0, 7, 40):
        for min_bet in (1, 10):
            for high in (level + min_bet, level + 12 * min_bet + 3):
                offer = _raise_offer(level + min_bet, high)
                assert offer == Move("raise", amount=level + min_bet)
                assert offer.amount_range == AmountRange(level + min_bet, high, 1)


# --------------------------------------------------------------------------- the shuffle


def _reference_draw(seed: bytes, purpose: str, size: int, count: int,
                    limit: Callable[[int], int]) -> list[int]:
    """docs/fairness.md's shuffle written again from the text, with the rejection limit given."""
    items = list(range(size))
    stream, counter = b"", 0
    for i in range(min(count, size - 1)):
        n = size - i
        while True:
            while len(stream) < 8:
                stream += hmac.new(seed, f"{purpose}:{counter}".encode(), hashlib.sha256).digest()
                counter += 1
            value, stream = int.from_bytes(stream[:8], "big"), stream[8:]
            if value < limit(n):
                break
        j = i + value % n
        items[i], items[j] = items[j], items[i]
    return items[:count]


def test_the_macs_are_hmac_sha256() -> None:
    for seed in (bytes(range(16)), bytes(range(32)), bytes(range(100))):
        key = hmac.new(seed, digestmod=hashlib.sha256)
        expected = b"".join(hmac.new(seed, b"deal/9:%d" % n, hashlib.sha256).digest()
                            for n in range(3, 8))
        assert chance_module._macs(key, b"deal/9:", 3, 5) == expected


def test_values_the_read_ahead_keeps_at_once_are_kept_at_every_step() -> None:
    """The read-ahead checks every value against one bound, ``2**64 - size``: it must lie
    below the limit of every step of a shuffle of ``size`` items, and the values at the
    limits must be refused."""
    for size in range(1, 300):
        below_all = 2**64 - size - 1
        assert chance_module._all_kept([below_all] * size, size)
        for n in range(1, size + 1):
            assert below_all < chance_module._limit(n) <= 2**64
            assert not chance_module._all_kept([chance_module._limit(n)], size)


@pytest.mark.parametrize("size", [1, 2, 5, 64, 144])
def test_the_read_ahead_shuffle_is_the_stepwise_one(size: int) -> None:
    chance = SeededChance(bytes(range(32)))
    for deal in range(40):
        purpose = f"deal/{deal}"
        for count in {0, 1, 16, 17, size - 1, size}:
            fast = chance.draw(purpose, range(size), count)
            steps = min(count, size - 1)
            plain = chance._fisher_yates_stepwise(purpose, list(range(size)), max(steps, 0))
            assert fast == plain[:count]


def test_rejected_values_fall_back_to_the_stepwise_shuffle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejections are too rare to meet (about one deal in 10**16): with a limit that rejects
    about half the values, the shuffle must still be the documented construction."""
    half = 1 << 63
    monkeypatch.setattr(chance_module, "_limit", lambda n: half)
    monkeypatch.setattr(chance_module, "_all_kept",
                        lambda values, size: all(value < half for value in values))
    seed = bytes(range(32))
    chance = SeededChance(seed)
    for deal in range(20):
        for size, count in ((144, 17), (24, 24), (5, 3)):
            assert chance.draw(f"deal/{deal}", range(size), count) == _reference_draw(
                seed, f"deal/{deal}", size, count, lambda n: half)
