"""The betting rules live in one place, ``Betting.choices``: it says what the rules text says,
and a table offers and accepts exactly what the betting allows (its legal moves, its refusals
and the betting's checked actions all come from there)."""

from __future__ import annotations

import itertools
import pickle
import random
from collections.abc import Iterator

from bezique.variants.api import IllegalMoveError, Move
from bezique.variants.chance import SeededChance
from bezique.variants.host import resolve_options
from bezique.variants.quart.betting import KINDS, Betting, BettingError
from bezique.variants.quart.game import QuartGame
from tests.quart.helpers import QUART, TRUMP, rules_as_written


def _states(games: int) -> Iterator[tuple[QuartGame, int]]:
    """Tables in random play with raises to random levels, short stacks among them (so all-ins
    and side pots come up): each state with the seat to act."""
    for variant, raw in ((QUART, {"players": "3"}), (QUART, {"players": "2",
                                                             "starting_stack": "35"}),
                         (TRUMP, {"players": "6", "starting_stack": "60", "max_bet": "25"}),
                         (QUART, {"players": "4", "starting_stack": "80",
                                  "multiway_showdown": "false"})):
        options = resolve_options(variant.options, raw)
        for game_no in range(games):
            game, _ = variant.start(options, SeededChance(bytes([game_no + 40]) * 32))
            assert isinstance(game, QuartGame)
            rng = random.Random(game_no)
            for _ in range(200):
                if not game.to_move:
                    break
                seat = game.to_move[0]
                yield game, seat
                move = rng.choice(game.legal_moves(seat))
                if move.amount_range is not None:
                    move = move.with_amount(rng.randint(move.amount_range.minimum,
                                                        move.amount_range.maximum))
                game.apply(seat, move)


def _bettings(count: int) -> Iterator[tuple[Betting, int]]:
    """Bettings of random stacks, limits and seats dealt in, in random play: each state with
    the seat to act (stacks far apart, as a table's are after some deals)."""
    rng = random.Random(18)
    for _ in range(count):
        seats = rng.randint(2, 6)
        order = sorted(rng.sample(range(seats), rng.randint(2, seats)))
        stacks = [rng.choice((0, rng.randint(1, 40), rng.randint(1, 200))) for _ in range(seats)]
        min_bet = rng.randint(1, 30)
        betting = Betting(order, stacks, min_bet=min_bet, multiway=rng.random() < 0.5,
                          max_bet=rng.choice((None, min_bet, min_bet + rng.randint(0, 50))))
        while betting.turn is not None:
            seat = betting.turn
            yield betting, seat
            bet, show, span, allin = betting.choices(seat)
            moves = [("fold", 0)] + [(kind, 0) for kind, can in (("bet", bet), ("show", show),
                                                                  ("allin", allin)) if can]
            if span is not None:
                moves.append(("raise", rng.randint(*span)))
            betting.act(seat, *rng.choice(moves))


def test_choices_are_the_rules_as_written() -> None:
    seen: set[tuple[int, bool]] = set()
    lone_short_stacks = 0  # short of a minimum raise with nobody left to bet against
    states = ((game.betting, seat) for game, seat in _states(4))
    for betting, seat in itertools.chain(states, _bettings(1500)):
        assert betting is not None
        stated = rules_as_written(betting, seat)
        assert betting.choices(seat) == stated
        seen.update((index, bool(answer)) for index, answer in enumerate(stated))
        whole = betting.contrib[seat] + betting.stacks[seat]
        if betting.level < whole < betting.level + betting.min_bet and not any(
                not betting.folded[s] and not betting.all_in[s]
                for s in betting.order if s != seat):
            lone_short_stacks += 1
    assert seen == {(index, answer) for index in range(4) for answer in (False, True)}, \
        "random play must meet every choice both open and closed"
    assert lone_short_stacks > 0


def _probes(betting: Betting, seat: int) -> list[Move]:
    """Every kind of move, and raises at and beyond both ends of the range."""
    probes = [Move(kind) for kind in KINDS if kind != "raise"]
    span = betting.raise_range(seat)
    low, high = span if span is not None else (betting.level + betting.min_bet,) * 2
    probes += [Move("raise", amount=amount) for amount in (low - 1, low, high, high + 1)]
    return probes


def test_a_table_offers_and_accepts_what_the_betting_allows() -> None:
    refused = 0
    for game, seat in _states(3):
        betting = game.betting
        assert betting is not None
        offered = {move.kind for move in game.legal_moves(seat)}
        assert offered == {kind for kind in KINDS if betting.refusal(seat, kind, (
            betting.raise_range(seat) or (0, 0))[0]) is None}
        for move in _probes(betting, seat):
            reason = betting.refusal(seat, move.kind, move.amount)
            table, plain = pickle.loads(pickle.dumps(game)), pickle.loads(pickle.dumps(betting))
            try:
                table.apply(seat, move)
            except IllegalMoveError as exc:
                assert reason is not None and reason in str(exc), (move, reason, exc)
                refused += 1
                try:
                    plain.do(seat, move.kind, move.amount)
                except BettingError as error:
                    assert str(error) == reason
                else:
                    raise AssertionError(f"the betting made {move} that the table refused")
            else:
                assert reason is None, (move, reason)
                assert plain.do(seat, move.kind, move.amount) >= 0
    assert refused > 1000
