"""The apply guard (BaseGame) on Quart's betting: every seat tries every hostile move on states
of random play; what the rules as written allow is made, anything else is refused and changes
nothing."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator

from bezique.variants.api import GameOverError, IllegalMoveError, Move, NotYourTurnError
from bezique.variants.chance import SeededChance
from bezique.variants.host import match_move, resolve_options
from bezique.variants.quart.betting import KINDS
from bezique.variants.quart.game import QuartGame
from tests.quart.helpers import QUART, TRUMP, rules_as_written


def _quart_states() -> Iterator[tuple[QuartGame, bool]]:
    """Quart tables in random play, current and version 1 (the raise ladder), short stacks
    and a raise cap among them: every state, with whether the table offers the ladder."""
    tables = ((QUART, {"players": "3"}, None),
              (QUART, {"players": "2", "starting_stack": "35"}, 1),
              (TRUMP, {"players": "5", "starting_stack": "60", "max_bet": "25"}, None),
              (QUART, {"players": "4", "starting_stack": "80",
                       "multiway_showdown": "false"}, 1))
    for variant, raw, log_version in tables:
        options = resolve_options(variant.options, raw)
        for game_no in range(2):
            game, _ = variant.start(options, SeededChance(bytes([game_no + 90]) * 32),
                                    log_version=log_version)
            assert isinstance(game, QuartGame)
            rng = random.Random(game_no)
            for _ in range(120):
                yield game, log_version is not None
                if not game.to_move:
                    break
                move = rng.choice(game.legal_moves(game.to_move[0]))
                if move.amount_range is not None:
                    move = move.with_amount(rng.randint(move.amount_range.minimum,
                                                        move.amount_range.maximum))
                game.apply(game.to_move[0], move)


_HUGE = 2**63 - 1


def _probes(game: QuartGame, seat: int) -> list[Move]:
    """Hostile moves: every kind and some that are none, with stray cards, labels and
    amounts, and raises at, inside and past both ends of the range, up to int64's ends."""
    betting = game.betting  # None once the table is over: the probes then must all fail
    low = game.rules.min_bet + (betting.level if betting is not None else 0)
    span = (betting.raise_range(seat) if betting is not None else None) or (low, low)
    probes = [Move(kind) for kind in (*KINDS, "check", "call", "FOLD", "raise ")]
    probes += [Move(kind, amount=1) for kind in KINDS if kind != "raise"]
    probes += [Move(kind, (0,)) for kind in KINDS] + [Move(kind, label="x") for kind in KINDS]
    probes += [Move("raise", amount=a) for a in (
        span[0] - 1, span[0], (span[0] + span[1]) // 2, span[1], span[1] + 1, 0, -1, -_HUGE,
        _HUGE)]
    probes.append(Move("raise", (1, 2), span[0]))
    return probes


def _allowed(game: QuartGame, seat: int, move: Move) -> bool:
    """The rules as written (tests/quart/helpers.py states them apart from the code), on
    one move: only the seat to act, no cards or label, an amount on a raise only."""
    betting = game.betting
    if game.outcome() is not None or betting is None or betting.turn != seat:
        return False
    if move.cards or move.label or (move.amount and move.kind != "raise"):
        return False
    bet, show, span, allin = rules_as_written(betting, seat)
    return {"fold": True, "bet": bet, "show": show, "allin": allin,
            "raise": span is not None and span[0] <= move.amount <= span[1]
            }.get(move.kind, False)


def test_the_guard_takes_only_what_the_rules_allow_and_a_refusal_changes_nothing() -> None:
    """Every seat (not only the one to act) tries every hostile move on every state: what the
    rules allow is made, anything else is refused with the game exactly as it was (its pickled
    state and every view), and a move taken though not offered is only a raise in range."""
    made = refused = off_ladder = 0
    for game, ladder in _quart_states():
        before = pickle.dumps(game)
        views = [game.view(v) for v in (None, *range(game.seats))]
        offered = {seat: game.legal_moves(seat) for seat in range(game.seats)}
        for seat in range(game.seats):
            for move in _probes(game, seat):
                table = pickle.loads(before)
                allowed = _allowed(table, seat, move)
                try:
                    table.apply(seat, move)
                except (IllegalMoveError, NotYourTurnError, GameOverError):
                    assert not allowed, (seat, move, "refused though the rules allow it")
                    assert pickle.dumps(table) == before, (seat, move, "a refusal changed it")
                    assert [table.view(v) for v in (None, *range(game.seats))] == views
                    refused += 1
                    continue
                assert allowed, (seat, move, "made though the rules forbid it")
                made += 1
                if move not in offered[seat] and match_move(move, offered[seat]) is None:
                    assert move.kind == "raise", move
                    assert ladder, (move, "off the offer on a table without a ladder")
                    off_ladder += 1
        assert pickle.dumps(game) == before  # the probes worked on copies
    assert refused > 5000 and made > 500 and off_ladder > 50, (refused, made, off_ladder)
