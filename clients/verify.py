"""Shuffle verification: after a game ends, anyone can check that every deal came from the
committed seed and that the log replays, event for event, under the installed variant.

The check is pure over a GetHistoryResponse (``verify_history``), so a tampered copy can be
tested as easily as the real thing. It never trusts the server's word: the seed is checked
against the commitment published before the first deal, and every event is recomputed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf import json_format

from bezique.v1 import table_service_pb2 as pb
from variants.api import Event, Game, Move, VariantError, resolve_options
from variants.cards import Shoe
from variants.chance import Chance, CountingChance, SeededChance, stacked_shoe
from variants.registry import Registry, load_registry

T = TypeVar("T")
MOVE_ENTRIES = frozenset({"move", "bot_move", "timeout"})


class NotFinishedError(Exception):
    """The game is still going: its seed is secret, so nothing can be verified yet."""


class VerificationError(Exception):
    """The history does not hold up; ``version`` is the log entry where it first fails."""

    def __init__(self, message: str, version: int | None = None) -> None:
        where = f"version {version}: " if version is not None else ""
        super().__init__(where + message)
        self.version = version


@dataclass(frozen=True)
class Verified:
    deals: int
    moves: int


def _normal(value: Any) -> Any:
    """A detail value as the wire carries it (every number a float), for comparison."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Mapping):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_normal(v) for v in value]
    return str(value)


def _codes(shoe: Shoe, ids: Sequence[int]) -> str:
    return "[" + " ".join(f"{shoe.code(i) if 0 <= i < len(shoe) else '?'}#{i}"
                          for i in ids) + "]"


def _compare(version: int, shoe: Shoe, history: Sequence[pb.Event],
             replayed: Sequence[Event]) -> None:
    """Raise VerificationError naming the first field where the two event lists differ."""
    for index, (told, mine) in enumerate(zip(history, replayed, strict=False)):
        where = f"event {index + 1} ({mine.kind})"
        seat = told.seat if told.HasField("seat") else None
        told_cards = tuple(card.id for card in told.cards)
        pairs: list[tuple[str, object, object]] = [
            ("kind", told.kind, mine.kind), ("seat", seat, mine.seat),
            ("cards", told_cards, mine.cards), ("amount", told.amount, mine.amount),
            ("label", told.label, mine.label),
            ("detail", _normal(json_format.MessageToDict(told.detail)),
             _normal(dict(mine.detail)))]
        for name, theirs, ours in pairs:
            if theirs != ours:
                if name == "cards":
                    theirs, ours = _codes(shoe, told_cards), _codes(shoe, mine.cards)
                raise VerificationError(
                    f"{where}: {name} differs: the history has {theirs!r} but the seed and "
                    f"the moves give {ours!r}", version)
    if len(history) != len(replayed):
        raise VerificationError(
            f"the history has {len(history)} events but the replay gives {len(replayed)} "
            f"({', '.join(e.kind for e in replayed)})", version)


def _chance(history: pb.GetHistoryResponse, shoe: Shoe, seed: bytes) -> CountingChance:
    source: Chance = SeededChance(seed)
    if history.test.stacked_shoe:
        try:
            order = shoe.order_from_codes(list(history.test.stacked_shoe))
        except ValueError as exc:
            raise VerificationError(f"the stacked shoe of the test settings: {exc}") from exc
        source = stacked_shoe(source, order)
    return CountingChance(source)


def verify_history(history: pb.GetHistoryResponse, registry: Registry | None = None
                   ) -> Verified:
    """Check the seed against its commitment and replay every deal and move of the log."""
    if not history.finished:
        raise NotFinishedError(f"table {history.table_id} has not finished: its seed is "
                               "revealed only when the game ends")
    seed = bytes(history.revealed_seed)
    if not seed:
        raise VerificationError("the history reveals no seed although the game has finished")
    digest = hashlib.sha256(seed).hexdigest()
    if digest != history.seed_commitment:
        raise VerificationError(f"sha256 of the revealed seed is {digest}, not the published "
                                f"commitment {history.seed_commitment}")
    registry = registry or load_registry()
    try:
        variant = registry.variant(history.variant_id)
        options = resolve_options(variant.options, dict(history.options))
    except VariantError as exc:
        raise VerificationError(f"cannot set up {history.variant_id!r} here: {exc}") from exc
    if not variant.accepts_log_version(history.variant_version):
        raise VerificationError(f"the log was written by {variant.id} version "
                                f"{history.variant_version}; the installed version "
                                f"{variant.version} cannot replay it")
    shoe = variant.shoe(options)
    chance = _chance(history, shoe, seed)
    first_dealer = history.test.first_dealer if history.test.HasField("first_dealer") else None
    game: Game | None = None
    moves = 0
    previous = 0
    for entry in history.entries:
        if entry.version != previous + 1:
            raise VerificationError(f"the log jumps from version {previous} to "
                                    f"{entry.version}", entry.version)
        previous = entry.version
        if entry.entry_kind == "started":
            if game is not None:
                raise VerificationError("the game starts a second time", entry.version)
            game, events = variant.start(options, chance, first_dealer)
            _compare(entry.version, shoe, entry.events, events)
        elif entry.entry_kind in MOVE_ENTRIES:
            game = _replay_move(game, entry, shoe)
            moves += 1
    if game is None:
        raise VerificationError("the history never starts the game")
    _check_outcome(game, history.outcome)
    return Verified(len(chance.deals), moves)


def _replay_move(game: Game | None, entry: pb.HistoryEntry, shoe: Shoe) -> Game:
    if game is None:
        raise VerificationError("a move comes before the game started", entry.version)
    if not entry.HasField("seat"):
        raise VerificationError("a move entry names no seat", entry.version)
    move = Move(entry.move.kind, tuple(card.id for card in entry.move.cards),
                entry.move.amount, entry.move.label)
    try:
        events = game.apply(entry.seat, move)
    except VariantError as exc:
        raise VerificationError(f"seat {entry.seat}'s move {move} "
                                f"{_codes(shoe, move.cards)} is refused on replay: {exc}",
                                entry.version) from exc
    _compare(entry.version, shoe, entry.events, events)
    return game


def _check_outcome(game: Game, told: pb.Outcome) -> None:
    outcome = game.outcome()
    if outcome is None:
        raise VerificationError("the history says the game finished, but its moves do not "
                                "end the game")
    if tuple(told.winners) != outcome.winners or tuple(told.scores) != outcome.scores:
        raise VerificationError(f"the outcome differs: the history has winners "
                                f"{list(told.winners)} scores {list(told.scores)}, the replay "
                                f"winners {list(outcome.winners)} scores "
                                f"{list(outcome.scores)}")
