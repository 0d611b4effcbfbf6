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
from bezique.table.entries import (
    Aborted,
    Created,
    Ended,
    Entry,
    Joined,
    Left,
    Moved,
    Revealed,
    Started,
    TokenReissued,
)
from bezique.table.state import EntryRejected, GameFacts, Table, evolve, outcome_of
from bezique.terms import (
    ENTRY_KINDS,
    MOVE_KINDS,
    EntryKind,
    card_codes,
    jsonable,
    whole_numbers,
)
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import (
    ABORTED,
    Event,
    Game,
    Move,
    Options,
    SeatRecord,
    Variant,
    VariantError,
)
from bezique.variants.cards import Shoe
from bezique.variants.chance import (
    Chance,
    CountingChance,
    SeededChance,
    bot_random,
    mixed_seed,
    stacked_shoe,
)
from bezique.variants.host import abort_game, bot_choice, resolve_options, start_game
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
        if previous == 0 and entry.entry_kind != EntryKind.CREATED:
            # the 'created' entry sets how the table draws (its chance version): a log
            # without it would replay as a table from before seats contributed entropy
            raise VerificationError(f"the log begins with a {entry.entry_kind!r} entry, not "
                                    "with the table's 'created' entry", entry.version)
        previous = entry.version
        replay.entry(entry)
    if replay.aborted and replay.game is None:
        if history.outcome.reason != (replay.table.abort_reason or ABORTED):
            raise VerificationError(f"the table was aborted before its game started, but the "
                                    f"history's outcome says {history.outcome.reason!r}")
        _check_blame(history, replay.owed_at_abort)
        return Verified(0, 0, (), test, aborted=True)
    if replay.ended:
        if history.outcome.reason != replay.ended:
            raise VerificationError(f"the table ended before any deal ({replay.ended}), but the "
                                    f"outcome says {history.outcome.reason!r}")
        _check_blame(history, replay.withheld)
        return Verified(0, 0, (), test, ended=replay.ended, withheld=replay.withheld)
    if replay.game is None or replay.chance is None:
        raise VerificationError("the history never starts the game")
    _check_outcome(replay.game, history.outcome, replay.table)
    if seat is not None and seat.entropy and seat.seat not in replay.contributors:
        raise VerificationError(f"seat {seat.seat}'s entropy did not go into the deals (the "
                                f"history says chance_version {history.chance_version}): the "
                                "deals came from the operator's seed alone")
    return Verified(len(replay.chance.deals), replay.moves, replay.contributors, test,
                    replay.bot_moves, replay.timeouts, replay.aborted, replay.committed)


def _check_blame(history: pb.GetHistoryResponse, withheld: Sequence[int]) -> None:
    """The outcome of a table that ended before any deal names exactly the seats that owed a
    reveal as having withheld their entropy (clients show it; a platform may act on it)."""
    told = _shown(history.outcome.detail).get("withheld", [])
    if list(told) != list(withheld):
        raise VerificationError(f"the outcome says seats {told} withheld their entropy, but the "
                                f"seats that owed a reveal are {list(withheld)}")


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
    """The game rebuilt entry by entry; who holds each seat is the table's own state, evolved
    by the server's own reducer (bezique.table), which refuses what no table could take."""

    def __init__(self, variant: Variant, options: Options, shoe: Shoe, seed: bytes,
                 history: pb.GetHistoryResponse, registry: Registry) -> None:
        self.variant, self.options, self.shoe, self.seed = variant, options, shoe, seed
        self.history = history
        self.policies = registry.bot_policies(variant.id)
        self.table = Table.empty(variant.seat_count(options), history.table_id)
        self.game: Game | None = None
        self.chance: CountingChance | None = None
        self.contributors: tuple[int, ...] = ()
        self.committed: tuple[int, ...] = ()
        self.moves = self.bot_moves = self.timeouts = 0
        self.events: list[Event] = []
        """The game's events so far, as the replay made them (a search bot's record)."""

    @property
    def aborted(self) -> bool:
        return self.table.aborted

    @property
    def ended(self) -> str:
        return self.table.ended.reason if self.table.ended is not None else ""

    @property
    def owed_at_abort(self) -> tuple[int, ...]:
        """The seats an abort in the reveal round leaves owing a reveal (every seat taken, a
        commitment not revealed), as the server's outcome names them; none otherwise."""
        table = self.table
        return table.owing if table.owing and not table.free_seats else ()

    @property
    def withheld(self) -> tuple[int, ...]:
        ended = self.table.ended
        return tuple(ended.detail["withheld"]) if ended is not None else ()

    def entry(self, told: pb.HistoryEntry) -> None:
        version = told.version
        entry = self._record(told)
        try:
            checked = evolve(self.table, entry)  # the table could take it: now the game
            facts = None
            if isinstance(entry, Started):
                facts = self._start(told)
            elif isinstance(entry, Moved):
                facts = self._move(told, entry)
            elif isinstance(entry, Aborted):
                facts = self._abort(told)
            self.table = checked if facts is None else evolve(self.table, entry, facts)
        except EntryRejected as exc:
            raise VerificationError(str(exc), version) from exc

    def _record(self, told: pb.HistoryEntry) -> Entry:
        """The typed entry a history entry shows (the history holds no token hashes)."""
        kind, version = told.entry_kind, told.version
        seat = told.seat if told.HasField("seat") else None
        history = self.history
        if kind == EntryKind.CREATED:
            return Created(history.variant_id, history.variant_version, dict(history.options),
                           history.seed_commitment, history.chance_version)
        if kind in (EntryKind.STARTED, EntryKind.ABORTED, EntryKind.ENDED):
            if seat is not None:
                raise VerificationError(f"an {kind!r} entry names a seat", version)
            if kind == EntryKind.STARTED:
                return Started()
            if kind == EntryKind.ABORTED:
                return Aborted(told.note, withheld=tuple(told.withheld_seats),
                               reason=told.reason)
            return Ended(tuple(sorted(told.withheld_seats)))
        if seat is None:
            if kind not in ENTRY_KINDS:
                raise VerificationError(f"unknown entry kind {kind!r}", version)
            raise VerificationError(f"a {kind!r} entry names no seat", version)
        if kind == EntryKind.JOINED:
            return Joined(seat, told.display_name or f"seat {seat}", bot=told.bot_policy,
                          entropy=bytes(told.entropy).hex(), player_id=told.binding.player_id,
                          buy_in=told.binding.buy_in,
                          entropy_commitment=bytes(told.entropy_commitment).hex())
        if kind == EntryKind.LEFT:
            return Left(seat)
        if kind == EntryKind.TOKEN_REISSUED:
            return TokenReissued(seat, "")
        if kind == EntryKind.REVEALED:
            return Revealed(seat, bytes(told.entropy).hex())
        if kind in MOVE_KINDS:
            move = Move(told.move.kind, tuple(card.id for card in told.move.cards),
                        told.move.amount, told.move.label)
            return Moved(kind, seat, move)
        raise VerificationError(f"unknown entry kind {kind!r}", version)

    def _start(self, entry: pb.HistoryEntry) -> GameFacts:
        """The deal, from the seed and the entropy the seats contributed (as the table's
        chance version says)."""
        version, table = entry.version, self.table
        contributions = table.contributions()
        self.contributors = tuple(seat for seat, _ in contributions)
        self.committed = tuple(seat for seat in self.contributors
                               if table.seats[seat].entropy_commitment)
        self.chance = _chance(self.history, self.shoe, mixed_seed(self.seed, contributions))
        first = (self.history.test.first_dealer
                 if self.history.test.HasField("first_dealer") else None)
        buy_ins = table.buy_ins()
        try:
            # played as the version that wrote the log: its legal moves, its bots' choices
            self.game, events = start_game(self.variant, self.options, self.chance, first,
                                           buy_ins, self.history.variant_version)
        except (VariantError, ValueError) as exc:
            raise VerificationError(f"the game does not start with buy-ins {buy_ins}: "
                                    f"{exc}", version) from exc
        _compare(version, self.shoe, entry.events, events)
        self.events.extend(events)
        return GameFacts(self.game.outcome() is not None)

    def _abort(self, entry: pb.HistoryEntry) -> GameFacts:
        """An operator ended the table: the variant's settlement, recomputed."""
        if self.game is None:
            _compare(entry.version, self.shoe, entry.events, ())
            return GameFacts()
        self.game, events = abort_game(self.game)
        _compare(entry.version, self.shoe, entry.events, events)
        self.events.extend(events)
        return GameFacts(self.game.outcome() is not None)

    def _move(self, entry: pb.HistoryEntry, moved: Moved) -> GameFacts:
        game, version, seat, move = self.game, entry.version, moved.seat, moved.move
        if game is None:
            raise VerificationError("a move comes before the game started", version)
        bot = self.table.seats[seat].bot
        expected: Move | None = None
        if entry.entry_kind == EntryKind.BOT_MOVE:
            policy = self.policies.get(bot)
            if policy is None:
                raise VerificationError(f"a bot move for seat {seat}, which no bot holds",
                                        version)
            rng = (bot_random(self.seed, version, seat) if self.history.chance_version >= 2
                   # a table from before: its bots drew from the table id and version
                   else random.Random(f"{self.history.table_id}:{version - 1}"))
            expected = bot_choice(policy, game.view(seat), game.legal_moves(seat), rng,
                                  lambda: SeatRecord.of(seat, self.options, self.events))
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
        self.events.extend(events)
        self.moves += 1
        return GameFacts(game.outcome() is not None)


def _check_outcome(game: Game, told: pb.Outcome, table: Table) -> None:
    outcome = outcome_of(table, game.outcome())
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
