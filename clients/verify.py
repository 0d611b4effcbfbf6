"""Shuffle verification: after a game ends, anyone can check that every deal came from the
committed seed and that the log replays, event for event, under the installed variant.

The check is pure over a GetHistoryResponse (``verify_history``), so a tampered copy can be
tested as easily as the real thing. It never trusts the server's word: the seed is checked
against the commitment published before the first deal, and every event is recomputed.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf import json_format, struct_pb2

from bezique.clients.contributions import contributions_digest
from bezique.service.terms import (
    MOVE_KINDS,
    REVEAL_TIMEOUT,
    EntryKind,
    card_codes,
    jsonable,
    whole_numbers,
)
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import ABORTED, Event, Game, Move, Options, Variant, VariantError
from bezique.variants.cards import Shoe
from bezique.variants.chance import (
    Chance,
    CountingChance,
    SeededChance,
    bot_random,
    mixed_seed,
    stacked_shoe,
)
from bezique.variants.host import abort_game, resolve_options, start_game
from bezique.variants.registry import Registry, load_registry

T = TypeVar("T")


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
    contributors: tuple[int, ...] = ()
    """The seats whose entropy went into the deals (fair against the operator only if any)."""
    test_settings: tuple[str, ...] = ()
    """The test settings the table was created with (only with ``allow_test_settings``)."""
    bot_moves: int = 0
    timeouts: int = 0
    aborted: bool = False
    """An operator ended the table (an ``aborted`` entry), settled as the variant says."""
    committed: tuple[int, ...] = ()
    """The contributors that joined with a commitment and revealed it once every seat was
    taken: their entropy was fixed before anyone could see it. The others sent theirs in the
    clear at join (public from then on)."""
    ended: str = ""
    """Why the table ended before any deal (``reveal_timeout``); empty for a game played."""
    withheld: tuple[int, ...] = ()
    """For ``reveal_timeout``: the seats that did not reveal their committed entropy."""


@dataclass
class _Seat:
    entropy: bytes
    bot: str
    buy_in: int = 0
    commitment: bytes = b""
    """sha256 of the seat's entropy when it joined with a commitment (revealed later)."""

    @property
    def owes_reveal(self) -> bool:
        return bool(self.commitment) and not self.entropy


def _as_sent(detail: Mapping[str, Any]) -> struct_pb2.Struct:
    """A replayed detail as the server sends it: a Struct, where every number is a double, so
    it equals the history's exactly when the server would have sent the same."""
    message = struct_pb2.Struct()
    message.update(jsonable(detail))
    return message


def _shown(detail: struct_pb2.Struct) -> dict[str, Any]:
    found: dict[str, Any] = whole_numbers(json_format.MessageToDict(detail))
    return found


def _codes(shoe: Shoe, ids: Sequence[int]) -> str:
    """Cards after a move's own text (which names them by id): ``[7S#0 AS#7]``."""
    return f"[{card_codes(shoe, ids, with_ids=True)}]"


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
            ("detail", told.detail, _as_sent(mine.detail))]
        for name, theirs, ours in pairs:
            if theirs != ours:
                if name == "cards":
                    theirs, ours = _codes(shoe, told_cards), _codes(shoe, mine.cards)
                elif name == "detail":
                    theirs, ours = _shown(told.detail), _shown(_as_sent(mine.detail))
                raise VerificationError(
                    f"{where}: {name} differs: the history has {theirs!r} but the seed and "
                    f"the moves give {ours!r}", version)
        _check_codes(version, shoe, told.cards, where)
    if len(history) != len(replayed):
        raise VerificationError(
            f"the history has {len(history)} events but the replay gives {len(replayed)} "
            f"({', '.join(e.kind for e in replayed)})", version)


def _check_codes(version: int, shoe: Shoe, cards: Sequence[pb.Card], where: str) -> None:
    """Every card's code is the one its id names: clients show a history's cards by code, so
    a code the ids do not back would be shown although the replay never checked it."""
    for card in cards:
        expected = shoe.code(card.id) if 0 <= card.id < len(shoe) else None
        if card.code != expected:
            raise VerificationError(f"{where}: card #{card.id} has the code {card.code!r}, but "
                                    f"that id is {expected or 'no card of the shoe'}", version)


def _chance(history: pb.GetHistoryResponse, shoe: Shoe, key: bytes) -> CountingChance:
    source: Chance = SeededChance(key)
    if history.test.stacked_shoe:
        try:
            order = shoe.order_from_codes(list(history.test.stacked_shoe))
        except ValueError as exc:
            raise VerificationError(f"the stacked shoe of the test settings: {exc}") from exc
        source = stacked_shoe(source, order)
    return CountingChance(source)


def test_settings_of(history: pb.GetHistoryResponse) -> tuple[str, ...]:
    """The test-mode settings a table was created with: its deals were chosen, not drawn."""
    test = history.test
    names = [("seed", bool(test.seed)), ("stacked_shoe", bool(test.stacked_shoe)),
             ("first_dealer", test.HasField("first_dealer"))]
    return tuple(name for name, used in names if used)


@dataclass(frozen=True)
class OwnSeat:
    """What a player kept from joining (the SDK's SeatHandle has these fields): the proof that
    the history the server serves now is the one he took part in."""

    seat: int
    entropy: bytes
    commitment: str
    seen: str = ""
    """The contributions digest the seat pinned before it revealed (SDK ``pins``), if any: the
    history must show every seat's contribution as the seat saw it then."""


def verify_history(history: pb.GetHistoryResponse, registry: Registry | None = None, *,
                   allow_test_settings: bool = False, seat: OwnSeat | None = None) -> Verified:
    """Check the seed against its commitment and replay every deal and move of the log,
    strictly: every deal from the seed and the seats' entropy, every timeout the variant's
    default move, every bot move the bot's own choice, no seat given up after the start.

    Given the caller's ``seat`` (what he kept when he joined), the history must also hold the
    commitment he was shown before any deal and the entropy he sent: without them the server
    could have chosen the seed, or his entropy, after the fact."""
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
    if seat is not None:
        _check_own_seat(history, seat)
    test = test_settings_of(history)
    if test and not allow_test_settings:
        raise VerificationError(f"the table was created with test settings ({', '.join(test)}):"
                                " its deals were chosen, not drawn (--allow-test-settings "
                                "checks it anyway)")
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
    replay = _Replay(variant, options, shoe, seed, history, registry)
    previous = 0
    for entry in history.entries:
        if entry.version != previous + 1:
            raise VerificationError(f"the log jumps from version {previous} to "
                                    f"{entry.version}", entry.version)
        previous = entry.version
        replay.entry(entry)
    if replay.aborted and replay.game is None:
        if history.outcome.reason != ABORTED:
            raise VerificationError(f"the table was aborted before its game started, but the "
                                    f"history's outcome says {history.outcome.reason!r}")
        return Verified(0, 0, (), test, aborted=True)
    if replay.ended:
        if history.outcome.reason != replay.ended:
            raise VerificationError(f"the table ended before any deal ({replay.ended}), but the "
                                    f"outcome says {history.outcome.reason!r}")
        return Verified(0, 0, (), test, ended=replay.ended, withheld=replay.withheld)
    if replay.game is None or replay.chance is None:
        raise VerificationError("the history never starts the game")
    _check_outcome(replay.game, history.outcome)
    if seat is not None and seat.entropy and seat.seat not in replay.contributors:
        raise VerificationError(f"seat {seat.seat}'s entropy did not go into the deals (the "
                                f"history says chance_version {history.chance_version}): the "
                                "deals came from the operator's seed alone")
    return Verified(len(replay.chance.deals), replay.moves, replay.contributors, test,
                    replay.bot_moves, replay.timeouts, replay.aborted, replay.committed)


def _check_own_seat(history: pb.GetHistoryResponse, own: OwnSeat) -> None:
    if own.commitment and own.commitment != history.seed_commitment:
        raise VerificationError(f"the history's seed commitment {history.seed_commitment} is "
                                f"not the {own.commitment} shown when seat {own.seat} joined")
    joins = [e for e in history.entries if e.entry_kind == EntryKind.JOINED and e.HasField("seat")
             and e.seat == own.seat]
    where = joins[-1].version if joins else None
    if joins and joins[-1].entropy_commitment:
        joined = joins[-1]
        if bytes(joined.entropy_commitment) != hashlib.sha256(own.entropy).digest():
            raise VerificationError(f"seat {own.seat}'s entropy commitment in the history is "
                                    "not the one it sent when it joined", joined.version)
        reveals = [e for e in history.entries if e.entry_kind == EntryKind.REVEALED
                   and e.HasField("seat") and e.seat == own.seat and e.version > joined.version]
        if reveals and bytes(reveals[-1].entropy) != own.entropy:
            raise VerificationError(f"seat {own.seat}'s revealed entropy in the history is not "
                                    "the entropy it committed to", reveals[-1].version)
        if own.seen and contributions_digest(history.entries) != own.seen:
            first = next((e.version for e in history.entries if e.entry_kind == EntryKind.REVEALED),
                         None)
            raise VerificationError(f"the seats' contributions in the history are not those "
                                    f"seat {own.seat} saw before it revealed (a commitment or "
                                    "entropy was changed afterwards)", first)
        return
    if not joins or bytes(joins[-1].entropy) != own.entropy:
        raise VerificationError(f"seat {own.seat}'s entropy in the history is not the entropy "
                                "it sent when it joined", where)


class _Replay:
    """The game rebuilt entry by entry, with who holds each seat."""

    def __init__(self, variant: Variant, options: Options, shoe: Shoe, seed: bytes,
                 history: pb.GetHistoryResponse, registry: Registry) -> None:
        self.variant, self.options, self.shoe, self.seed = variant, options, shoe, seed
        self.history = history
        self.policies = registry.bot_policies(variant.id)
        self.seat_count = variant.seat_count(options)
        self.seats: dict[int, _Seat] = {}
        self.game: Game | None = None
        self.chance: CountingChance | None = None
        self.contributors: tuple[int, ...] = ()
        self.committed: tuple[int, ...] = ()
        self.moves = self.bot_moves = self.timeouts = 0
        self.aborted = False
        self.ended = ""
        self.withheld: tuple[int, ...] = ()

    @property
    def owing(self) -> list[int]:
        """The seats that committed to entropy and have not revealed it."""
        return sorted(seat for seat, held in self.seats.items() if held.owes_reveal)

    def entry(self, entry: pb.HistoryEntry) -> None:
        kind, version = entry.entry_kind, entry.version
        if self.aborted:
            raise VerificationError(f"a {kind!r} entry follows the abort", version)
        if kind == EntryKind.CREATED:
            return
        if self.ended:
            raise VerificationError(f"a {kind!r} entry follows the end of the table", version)
        if kind == EntryKind.ABORTED:
            self._abort(entry)
            return
        if kind in (EntryKind.JOINED, EntryKind.LEFT):
            if self.game is not None:
                raise VerificationError(f"a {kind!r} entry follows the start of the game",
                                        version)
            if kind == EntryKind.LEFT and len(self.seats) == self.seat_count and self.owing:
                raise VerificationError("a seat is given up in the reveal round (a new holder "
                                        "could choose its entropy after the reveals)", version)
            seat = self._seat_of(entry)
            if not 0 <= seat < self.seat_count:
                raise VerificationError(f"seat {seat} is not a seat of this table "
                                        f"(0..{self.seat_count - 1})", version)
            if kind == EntryKind.JOINED:
                if seat in self.seats:
                    raise VerificationError(f"seat {seat} is joined while it is held", version)
                commitment = bytes(entry.entropy_commitment)
                if commitment and entry.entropy:
                    raise VerificationError(f"seat {seat} joins with both entropy and a "
                                            "commitment", version)
                self.seats[seat] = _Seat(bytes(entry.entropy), entry.bot_policy,
                                         entry.binding.buy_in, commitment)
            else:
                if seat not in self.seats:
                    raise VerificationError(f"seat {seat} is given up while it is free", version)
                del self.seats[seat]
        elif kind == EntryKind.REVEALED:
            self._reveal(entry)
        elif kind == EntryKind.ENDED:
            self._end(entry)
        elif kind == EntryKind.STARTED:
            if self.game is not None:
                raise VerificationError("the game starts a second time", version)
            if len(self.seats) != self.seat_count:
                free = sorted(set(range(self.seat_count)) - set(self.seats))
                raise VerificationError(f"the game starts with seats {free} free", version)
            if self.owing:
                raise VerificationError(f"the game starts before seats {self.owing} revealed "
                                        "their committed entropy", version)
            contributions = sorted((seat, held.entropy) for seat, held in self.seats.items()
                                   if held.entropy and self.history.chance_version >= 2)
            self.contributors = tuple(seat for seat, _ in contributions)
            self.committed = tuple(seat for seat in self.contributors
                                   if self.seats[seat].commitment)
            self.chance = _chance(self.history, self.shoe, mixed_seed(self.seed, contributions))
            first = (self.history.test.first_dealer
                     if self.history.test.HasField("first_dealer") else None)
            buy_ins = {seat: held.buy_in for seat, held in self.seats.items() if held.buy_in}
            try:
                # played as the version that wrote the log: its legal moves, its bots' choices
                self.game, events = start_game(self.variant, self.options, self.chance, first,
                                               buy_ins, self.history.variant_version)
            except (VariantError, ValueError) as exc:
                raise VerificationError(f"the game does not start with buy-ins {buy_ins}: "
                                        f"{exc}", version) from exc
            _compare(version, self.shoe, entry.events, events)
        elif kind in MOVE_KINDS:
            self._move(entry)
        elif kind == EntryKind.TOKEN_REISSUED:
            # A seat's token replaced: who plays the seat does not change, nor the game.
            seat = self._seat_of(entry)
            if seat not in self.seats or self.seats[seat].bot:
                raise VerificationError(f"seat {seat}'s token is reissued, but no player holds "
                                        "it", version)
        else:
            raise VerificationError(f"unknown entry kind {kind!r}", version)

    def _abort(self, entry: pb.HistoryEntry) -> None:
        """An operator ended the table: the variant's settlement, recomputed."""
        self.aborted = True
        if entry.HasField("seat"):
            raise VerificationError("an 'aborted' entry names a seat", entry.version)
        if self.game is None:
            _compare(entry.version, self.shoe, entry.events, ())
            return
        if self.game.outcome() is not None:
            raise VerificationError("the game is aborted after it ended", entry.version)
        self.game, events = abort_game(self.game)
        _compare(entry.version, self.shoe, entry.events, events)

    def _reveal(self, entry: pb.HistoryEntry) -> None:
        """A seat reveals its committed entropy: only once every seat is taken (so every
        commitment came first), only once, and only the value it committed to."""
        version, seat = entry.version, self._seat_of(entry)
        held = self.seats.get(seat)
        if self.game is not None:
            raise VerificationError(f"seat {seat} reveals entropy after the start", version)
        if held is None or not held.commitment:
            raise VerificationError(f"seat {seat} reveals entropy it never committed to",
                                    version)
        if held.entropy:
            raise VerificationError(f"seat {seat} reveals its entropy a second time", version)
        if len(self.seats) != self.seat_count:
            raise VerificationError(f"seat {seat} reveals its entropy before every seat is "
                                    "taken (a later seat could choose its own after it)",
                                    version)
        revealed = bytes(entry.entropy)
        digest = hashlib.sha256(revealed).digest()
        if digest != held.commitment:
            raise VerificationError(f"seat {seat}'s revealed entropy does not match its "
                                    f"commitment: sha256 is {digest.hex()}, the seat committed "
                                    f"to {held.commitment.hex()}", version)
        held.entropy = revealed

    def _end(self, entry: pb.HistoryEntry) -> None:
        """The table ends before any deal: exactly the seats that owed a reveal withheld it."""
        version = entry.version
        if self.game is not None:
            raise VerificationError("an 'ended' entry follows the start of the game", version)
        withheld = sorted(entry.withheld_seats)
        if len(self.seats) != self.seat_count or not self.owing or withheld != self.owing:
            raise VerificationError(f"the table ends with seats {withheld} named as withholding "
                                    f"their entropy, but the seats that owed a reveal are "
                                    f"{self.owing}", version)
        self.ended = REVEAL_TIMEOUT
        self.withheld = tuple(withheld)

    def _seat_of(self, entry: pb.HistoryEntry) -> int:
        if not entry.HasField("seat"):
            raise VerificationError(f"a {entry.entry_kind!r} entry names no seat", entry.version)
        return entry.seat

    def _move(self, entry: pb.HistoryEntry) -> None:
        game, version = self.game, entry.version
        if game is None:
            raise VerificationError("a move comes before the game started", version)
        seat = self._seat_of(entry)
        move = Move(entry.move.kind, tuple(card.id for card in entry.move.cards),
                    entry.move.amount, entry.move.label)
        bot = self.seats[seat].bot if seat in self.seats else ""
        expected: Move | None = None
        if entry.entry_kind == EntryKind.BOT_MOVE:
            policy = self.policies.get(bot)
            if policy is None:
                raise VerificationError(f"a bot move for seat {seat}, which no bot holds",
                                        version)
            rng = (bot_random(self.seed, version, seat) if self.history.chance_version >= 2
                   # a table from before: its bots drew from the table id and version
                   else random.Random(f"{self.history.table_id}:{version - 1}"))
            expected = policy.choose(game.view(seat), game.legal_moves(seat), rng)
            self.bot_moves += 1
        elif entry.entry_kind == EntryKind.TIMEOUT:
            if not self.history.turn_seconds:
                raise VerificationError(f"a timeout for seat {seat} on a table without a turn "
                                        "clock", version)
            expected = game.default_move(seat)
            self.timeouts += 1
        elif bot:
            raise VerificationError(f"seat {seat} is held by the {bot!r} bot, but its move is "
                                    "logged as a person's", version)
        if expected is not None and expected != move:
            raise VerificationError(
                f"seat {seat}'s {entry.entry_kind} is {move} {_codes(self.shoe, move.cards)}, "
                f"but it must be {expected} {_codes(self.shoe, expected.cards)}", version)
        _check_codes(version, self.shoe, entry.move.cards, "the move")
        try:
            events = game.apply(seat, move)
        except VariantError as exc:
            raise VerificationError(f"seat {seat}'s move {move} "
                                    f"{_codes(self.shoe, move.cards)} is refused on replay: "
                                    f"{exc}", version) from exc
        _compare(version, self.shoe, entry.events, events)
        self.moves += 1


def _check_outcome(game: Game, told: pb.Outcome) -> None:
    outcome = game.outcome()
    if outcome is None:
        raise VerificationError("the history says the game finished, but its moves do not "
                                "end the game")
    if (tuple(told.winners) != outcome.winners or tuple(told.scores) != outcome.scores
            or (ABORTED in (told.reason, outcome.reason) and told.reason != outcome.reason)):
        raise VerificationError(f"the outcome differs: the history has winners "
                                f"{list(told.winners)} scores {list(told.scores)}, the replay "
                                f"winners {list(outcome.winners)} scores "
                                f"{list(outcome.scores)}")
    replayed = _as_sent(outcome.detail)
    if told.reason != outcome.reason or told.detail != replayed:
        raise VerificationError(f"the outcome differs: the history says it ended with "
                                f"{told.reason!r} {_shown(told.detail)}, the replay with "
                                f"{outcome.reason!r} {_shown(replayed)}")
