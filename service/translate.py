"""Domain records to protobuf messages and back. The only place that knows both sides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from google.protobuf import struct_pb2, timestamp_pb2
from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from bezique.service.errors import InvalidArgument
from bezique.service.live import LiveTable, Seat, ViewResult
from bezique.service.settings import Limits
from bezique.service.store import TableRecord, TableResult, TableState
from bezique.service.table_manager import HistoryItem, HistoryPage, MoveResult, Update
from bezique.table.entries import Aborted, Ended, Joined, Revealed, decode
from bezique.terms import PLATFORM_JOINS, describe_move, jsonable, option_text
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import (
    Event,
    Move,
    OptionSpec,
    OptionType,
    Outcome,
    Variant,
    View,
    Vocabulary,
    Zone,
)
from bezique.variants.cards import Shoe
from bezique.variants.host import vocabularies_of
from bezique.variants.registry import Origin, Registry, origin_of_module

_OPTION_TYPES = {OptionType.INT: pb.OPTION_TYPE_INT, OptionType.BOOL: pb.OPTION_TYPE_BOOL,
                 OptionType.CHOICE: pb.OPTION_TYPE_CHOICE}


def option_schema(spec: OptionSpec) -> pb.OptionSchema:
    message = pb.OptionSchema(name=spec.name, type=_OPTION_TYPES[spec.type],
                              default_value=option_text(spec.default), choices=spec.choices,
                              nullable=spec.nullable, description=spec.description)
    if spec.minimum is not None:
        message.minimum = spec.minimum
    if spec.maximum is not None:
        message.maximum = spec.maximum
    return message


def variant_info(variant: Variant, policies: Iterable[str],
                 origin: Origin | None = None) -> pb.VariantInfo:
    """``origin``: the distribution the registry loaded the variant from; when not given, the
    installed distribution that owns the variant's module."""
    origin = origin or origin_of_module(type(variant).__module__)
    others = vocabularies_of(variant)
    own = others.pop(next(iter(others)))  # the variant's own language comes first
    return pb.VariantInfo(id=variant.id, title=variant.title, description=variant.description,
                          min_seats=variant.min_seats, max_seats=variant.max_seats,
                          version=variant.version,
                          options=[option_schema(s) for s in variant.options],
                          bot_policies=list(policies), distribution=origin.name,
                          distribution_version=origin.version,
                          vocabulary=vocabulary_pb(own),
                          translations={language: vocabulary_pb(words)
                                        for language, words in others.items()})


def vocabulary_pb(words: Vocabulary) -> pb.Vocabulary:
    return pb.Vocabulary(phases=dict(words.phases), events=dict(words.events),
                         zones=dict(words.zones), details=dict(words.details),
                         moves=dict(words.moves), outcomes=dict(words.outcomes),
                         labels=dict(words.labels), options=dict(words.options),
                         title=words.title, description=words.description,
                         language=words.language)


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    message = timestamp_pb2.Timestamp()
    message.FromNanoseconds(int(seconds * 1e9))
    return message


@cache
def _card_messages(shoe: Shoe) -> tuple[pb.Card, ...]:
    """The card message of every id of a shoe, built once per shoe (a repeated field copies
    them on extend)."""
    return tuple(pb.Card(code=c.code, id=c.id) for c in shoe.cards)


def cards(shoe: Shoe, ids: Iterable[int]) -> list[pb.Card]:
    """Card messages for ids."""
    made = _card_messages(shoe)
    return [made[i] for i in ids]


def set_move(into: pb.Move, shoe: Shoe, move: Move) -> None:
    """Write ``move`` into a Move field (in place: a message built apart is copied when
    stored). Fields at their default are left alone: each set costs protobuf a call."""
    into.kind = move.kind
    if move.amount:
        into.amount = move.amount
    if move.label:
        into.label = move.label
    if move.cards:
        into.cards.extend(cards(shoe, move.cards))
    span = move.amount_range
    if span is not None:
        into.amount_range.minimum, into.amount_range.maximum = span.minimum, span.maximum
        into.amount_range.step = span.step


def move_from_pb(message: pb.Move) -> Move:
    if not message.kind:
        raise InvalidArgument("move.kind is empty: submit one of the legal moves",
                              field="move.kind")
    longest = Limits.max_move_part
    if max(len(message.cards), len(message.kind), len(message.label)) > longest:
        raise InvalidArgument("move is larger than any legal move", field="move")
    return Move(message.kind, tuple(card.id for card in message.cards), message.amount,
                message.label)


def add_events(into: Any, shoe: Shoe, version: int, events: Sequence[Event]) -> None:
    """Append ``events`` to the repeated field ``into``: added in place, since building a
    message and then adding it copies it."""
    for event in events:
        message = into.add(version=version, kind=event.kind, hidden_count=event.hidden,
                           amount=event.amount, label=event.label)
        if event.cards:
            message.cards.extend(cards(shoe, event.cards))
        if event.seat is not None:
            message.seat = event.seat
        _set_detail(message.detail, event.detail)


def _set_detail(field: struct_pb2.Struct, detail: Mapping[str, Any]) -> None:
    """A detail Struct, present even when empty (as a client reads it)."""
    if detail:
        field.update(jsonable(detail))
    else:
        field.SetInParent()


def set_outcome(into: pb.Outcome, outcome: Outcome) -> None:
    """Write ``outcome`` into an Outcome field, in place."""
    into.winners.extend(outcome.winners)
    into.scores.extend(outcome.scores)
    into.reason = outcome.reason
    _set_detail(into.detail, outcome.detail)


def _add_seats(into: Any, seats: Sequence[Seat], hidden: Mapping[int | None, int],
               scores: Sequence[int], stacks: Sequence[int]) -> None:
    """Every seat's public state, added in place (scores, stacks and hidden hand sizes come
    from the viewer's view). Only the fields that differ from their default are passed: each
    keyword costs protobuf about as much as a set field (half the time of a view's seats)."""
    for index, seat in enumerate(seats):
        fields: dict[str, Any] = {"seat": index}
        if seat.occupied:
            fields["occupied"] = True
        if seat.name:
            fields["display_name"] = seat.name
        if seat.bot:
            fields["bot_policy"] = seat.bot
        if seat.player_id:
            fields["player_id"] = seat.player_id
        if seat.buy_in:
            fields["buy_in"] = seat.buy_in
        if hidden.get(index):
            fields["hidden_hand_count"] = hidden[index]
        if index < len(scores) and scores[index]:
            fields["score"] = scores[index]
        if index < len(stacks) and stacks[index]:
            fields["stack"] = stacks[index]
        into.add(**fields)


def view_to_pb(result: ViewResult, into: pb.View | None = None) -> pb.View:
    """The wire view of a ViewResult (its outcome and deadline are those of its version),
    written into ``into`` when given (a response's own field). Parsed, in C, from the view's
    bytes (:func:`view_wire`), so the view is rendered once however many answers carry it."""
    message = pb.View() if into is None else into
    message.MergeFromString(view_wire(result))
    return message


def view_wire(result: ViewResult) -> bytes:
    """A ViewResult's serialised pb.View, rendered on first use and kept with it: the
    mover's SubmitMove answer, the watchers of its viewer and GetView share one rendering.
    Bytes, not the message: a few hundred bytes kept per viewer while the table is
    watched, where a message keeps its arena."""
    if result.wire:
        found: bytes = result.wire[0]
        return found
    data = _render_view(result)
    result.wire.append(data)
    return data


def _render_view(result: ViewResult) -> bytes:
    """The view's bytes, in parts: its own fields, then its zones, its seats and its legal
    moves, each part the bytes of its repeated field. A parser reads fields in any order, so
    the parts are joined as they are: what several viewers of a version see alike (the
    view's fields but the viewer's seat, hand and detail; its zones; its seats) is rendered
    once for all of them (``LiveTable.shared_wire``), the viewer's hand from its cards' kept
    bytes (:func:`_hand_fields`), and a legal move once for every view that offers it
    (:func:`_move_wire`)."""
    live, view, outcome = result.live, result.view, result.outcome
    if view is None:
        message = _head(result)
        if result.viewer is not None:
            message.viewer_seat = result.viewer
        message.awaiting_reveal.extend(result.awaiting_reveal)
        if outcome is not None:  # ended before any deal
            set_outcome(message.outcome, outcome)
        elif result.deadline is not None:  # the reveal round's
            message.deadline.CopyFrom(timestamp(result.deadline))
        return message.SerializeToString() + _seats_wire(result, (), (), ())
    shoe = view.shoe or live.variant.shoe(live.record.options)
    head = live.shared_wire(result.version, ("head", result.phase, view.to_move, view.pot,
                                             not view.detail, result.deadline, outcome),
                            lambda: _started_head(result, view))
    fields = _hand_fields(shoe)
    own = [fields[card] for card in view.hand]
    if result.viewer is not None:
        own.append(_viewer_field(result.viewer))
    if view.detail:  # the game's own, per viewer
        message = pb.View()
        _set_detail(message.detail, view.detail)
        own.append(message.SerializeToString())
    # hidden hands are not zones: they are counted in seats[].hidden_hand_count
    shown = tuple(zone for zone in view.zones if zone.name != "hand" or zone.cards)
    hidden = tuple((zone.owner, zone.hidden) for zone in view.zones if zone.name == "hand")
    zones = live.shared_wire(result.version, ("zones", shoe, shown),
                             lambda: _zones_wire(shoe, shown))
    kept = _moves_of(shoe) if result.legal else {}
    return b"".join((head, *own, zones, _seats_wire(result, hidden, view.scores, view.stacks),
                     *[_move_wire(move, shoe, kept) for move in result.legal]))


def _head(result: ViewResult) -> pb.View:
    """A view's fields that every viewer of its version sees alike, as a message."""
    live = result.live
    return pb.View(table_id=live.table_id, version=result.version, variant_id=live.variant.id,
                   phase=result.phase,
                   waiting_for_players=not result.started and result.outcome is None,
                   seed_commitment=live.record.commitment)


def _started_head(result: ViewResult, view: View) -> bytes:
    """The bytes of a started game's view's fields but the viewer's seat, hand and detail
    (an empty detail is among them: present, as a client reads it)."""
    message = _head(result)
    message.to_move.extend(view.to_move)
    message.pot = view.pot
    if not view.detail:
        message.detail.SetInParent()
    deadline, outcome = result.deadline, result.outcome
    if deadline is not None and outcome is None:
        message.deadline.CopyFrom(timestamp(deadline))
    if outcome is not None:
        set_outcome(message.outcome, outcome)
    return message.SerializeToString()


@cache
def _hand_fields(shoe: Shoe) -> tuple[bytes, ...]:
    """Each card of a shoe as the bytes of one View.hand entry, made once per shoe."""
    return tuple(pb.View(hand=[card]).SerializeToString() for card in _card_messages(shoe))


@cache
def _viewer_field(seat: int) -> bytes:
    """The bytes of View.viewer_seat, per seat."""
    return pb.View(viewer_seat=seat).SerializeToString()


def _seats_wire(result: ViewResult, hidden: tuple[tuple[int | None, int], ...],
                scores: tuple[int, ...], stacks: tuple[int, ...]) -> bytes:
    """The bytes of a view's seats (View.seats): the same for every viewer of a version that
    sees the same hand sizes, scores and stacks (the seats themselves are the version's)."""
    def render() -> bytes:
        message = pb.View()
        _add_seats(message.seats, result.seats, dict(hidden), scores, stacks)
        return message.SerializeToString()
    return result.live.shared_wire(result.version, ("seats", hidden, scores, stacks), render)


def _zones_wire(shoe: Shoe, zones: tuple[Zone, ...]) -> bytes:
    """The bytes of a view's zones (View.zones)."""
    message = pb.View()
    add_zone = message.zones.add
    for zone in zones:
        # Only the fields that differ from their default (as for the seats): most zones are
        # empty piles, and an empty list or a zero passed still costs protobuf its work.
        zone_pb = (add_zone(name=zone.name, cards=cards(shoe, zone.cards)) if zone.cards
                   else add_zone(name=zone.name))
        if zone.hidden:
            zone_pb.hidden_count = zone.hidden
        if zone.owner is not None:
            zone_pb.owner = zone.owner
    return message.SerializeToString()


_MOVES: dict[Shoe, dict[tuple[Any, ...], bytes]] = {}
"""Offered moves' bytes (one View.legal_moves entry each), by shoe, then by move and range: a
game offers the same moves over and over (a card of a hand, a bid)."""
MOVES_KEPT = 4096
"""At most this many moves' bytes are kept per shoe (all are let go when it is reached)."""


def _moves_of(shoe: Shoe) -> dict[tuple[Any, ...], bytes]:
    found = _MOVES.get(shoe)
    if found is None:
        if len(_MOVES) >= 64:
            _MOVES.clear()
        found = _MOVES[shoe] = {}
    return found


def _move_wire(move: Move, shoe: Shoe, kept: dict[tuple[Any, ...], bytes]) -> bytes:
    """One offered move's bytes, with its text, kept in ``kept`` (the shoe's). The key is the
    move's fields and its offered range (which a move's equality leaves out), in a plain
    tuple; a move whose fields do not hash (an untyped plugin's list of cards) is rendered
    each time."""
    key = (move.kind, move.cards, move.amount, move.label, move.amount_range)
    try:
        found = kept.get(key)
    except TypeError:
        return _render_move(move, shoe)
    if found is None:
        found = _render_move(move, shoe)
        if len(kept) >= MOVES_KEPT:
            kept.clear()
        kept[key] = found
    return found


def _render_move(move: Move, shoe: Shoe) -> bytes:
    message = pb.View()
    offered = message.legal_moves.add()
    set_move(offered, shoe, move)
    offered.text = describe_move(move, shoe)  # the one text every client shows
    return message.SerializeToString()


def table_summary(record: TableRecord, state: TableState) -> pb.TableSummary:
    seats = [pb.SeatState(seat=i, occupied=bool(s.get("occupied")),
                          display_name=str(s.get("name", "")), bot_policy=str(s.get("bot", "")),
                          player_id=str(s.get("player_id", "")), buy_in=int(s.get("buy_in", 0)))
             for i, s in enumerate(state.seats)]
    return pb.TableSummary(
        table_id=record.table_id, variant_id=record.variant_id,
        options={k: option_text(v) for k, v in record.options.items()}, seats=seats,
        free_seats=state.free_seats, phase=state.phase, version=state.version,
        finished=state.finished, created_at=timestamp(record.created_at),
        seed_commitment=record.commitment, turn_seconds=record.turn_seconds,
        awaiting_reveal=[i for i, s in enumerate(state.seats)
                         if state.phase == "reveal" and s.get("owes_reveal")])


def table_result(row: TableResult) -> pb.TableResult:
    """A stored result as the results feed sends it."""
    data = row.data
    message = pb.TableResult(
        cursor=row.cursor, table_id=row.table_id, variant_id=str(data.get("variant_id", "")),
        variant_version=int(data.get("variant_version", 0)), reason=str(data.get("reason", "")),
        seed_commitment=str(data.get("commitment", "")),
        revealed_seed=bytes.fromhex(str(data.get("seed", ""))), version=row.version,
        finished_at=timestamp(row.finished_at))
    outcome = data.get("outcome")
    scores: list[int] = []
    if outcome:
        scores = [int(score) for score in outcome.get("scores", ())]
        set_outcome(message.outcome, Outcome(tuple(outcome.get("winners", ())), tuple(scores),
                                             str(outcome.get("reason", "")),
                                             outcome.get("detail") or {}))
    chips = data.get("chip_changes") or []
    for index, seat in enumerate(data.get("seats", ())):
        added = message.seats.add(seat=index, player_id=str(seat.get("player_id", "")),
                                  display_name=str(seat.get("name", "")),
                                  bot_policy=str(seat.get("bot", "")),
                                  score=scores[index] if index < len(scores) else 0)
        if index < len(chips):
            added.chip_change = int(chips[index])
    return message


# ---------------------------------------------------------------- requests and responses
# One builder per call, so the servicer only calls the table manager and this module.


def test_settings(test: pb.TestSettings) -> dict[str, Any]:
    """A CreateTable request's test settings as the table manager takes them (the seed, the
    stacked shoe and the first dealer only when given)."""
    settings: dict[str, Any] = {}
    if test.seed:
        settings["seed"] = bytes(test.seed)
    if test.stacked_shoe:
        settings["stacked_shoe"] = list(test.stacked_shoe)
    if test.HasField("first_dealer"):
        settings["first_dealer"] = test.first_dealer
    return settings


def list_variants_response(registry: Registry) -> pb.ListVariantsResponse:
    return pb.ListVariantsResponse(variants=[
        variant_info(v, registry.bot_policies(v.id), registry.origins.get(v.id))
        for v in registry.variants.values()])


def create_table_response(live: LiveTable, existed: bool = False) -> pb.CreateTableResponse:
    return pb.CreateTableResponse(table_id=live.table_id, seed_commitment=live.record.commitment,
                                  table=table_summary(live.record, live.summary()),
                                  platform_joins=live.joins == PLATFORM_JOINS, existed=existed)


def list_tables_response(rows: Iterable[tuple[TableRecord, TableState]], next_page_token: str
                         ) -> pb.ListTablesResponse:
    return pb.ListTablesResponse(tables=[table_summary(record, state) for record, state in rows],
                                 next_page_token=next_page_token)


def join_table_response(seat: int, token: str, view: ViewResult) -> pb.JoinTableResponse:
    response = pb.JoinTableResponse(seat=seat, seat_token=token)
    view_to_pb(view, into=response.view)
    expires = view.seats[seat].token_expires
    if expires is not None:
        response.seat_token_expires.CopyFrom(timestamp(expires))
    return response


def reissue_seat_token_response(seat: int, token: str, expires: float | None, version: int
                                ) -> pb.ReissueSeatTokenResponse:
    response = pb.ReissueSeatTokenResponse(seat=seat, seat_token=token, version=version)
    if expires is not None:
        response.seat_token_expires.CopyFrom(timestamp(expires))
    return response


def reveal_entropy_response(view: ViewResult) -> pb.RevealEntropyResponse:
    response = pb.RevealEntropyResponse(version=view.version)
    view_to_pb(view, into=response.view)
    return response


def leave_table_response(version: int) -> pb.LeaveTableResponse:
    return pb.LeaveTableResponse(version=version)


def get_view_response(view: ViewResult) -> pb.GetViewResponse:
    response = pb.GetViewResponse()
    view_to_pb(view, into=response.view)
    return response


def submit_move_response(result: MoveResult) -> pb.SubmitMoveResponse:
    """The move's answer as a message (for the HTTP API, which may send it as JSON): parsed
    from its bytes (:func:`submit_move_wire`), so both ports send the same answer."""
    return pb.SubmitMoveResponse.FromString(submit_move_wire(result))


def submit_move_wire(result: MoveResult) -> bytes:
    """The move's answer, serialised: the move's events as its seat may see them, and the
    seat's view after it. The view is appended as the bytes its watch streams are sent
    (:func:`view_wire`, rendered once), not parsed into a message and serialised again."""
    live = result.after.live
    head = pb.SubmitMoveResponse(version=result.version, duplicate=result.duplicate)
    add_events(head.events, live.variant.shoe(live.record.options), result.version,
               result.events)
    return _field(head.SerializeToString(), _SUBMIT_VIEW, view_wire(result.after))


def _field(before: bytes, tag: bytes, message: bytes) -> bytes:
    """``before`` with a serialised sub-message appended as the field of ``tag``."""
    return before + tag + _varint(len(message)) + message


def watch_table_response(update: Update) -> pb.WatchTableResponse:
    """One watch message (for the HTTP API, which may send it as JSON): parsed from its bytes
    (:func:`watch_update_wire`), so both ports send the same update."""
    return pb.WatchTableResponse.FromString(watch_update_wire(update))


def watch_update_wire(update: Update) -> bytes:
    """One watch message, serialised: built once per audience (a seat, or every spectator)
    of a published entry and kept in its broadcast, so every stream of that audience is sent
    the same bytes, serialised once. The key is the broadcast (one committed entry, so one
    version) and the viewer: a seat's stream is only ever queued the entries committed while
    its token held the seat (:class:`~service.watch.WatchHub` ends it at the first that does
    not), so the bytes it is sent are its holder's. The view goes last (field 5, the
    highest): the bytes are those of the whole message serialised at once."""
    broadcast, viewer = update.broadcast, update.viewer
    if broadcast is not None:
        cached = broadcast.wire.get(viewer)
        if cached is not None:
            return cached
    data = _watch_head(update)
    if update.view is not None:
        view = view_wire(update.view)
        data = _field(data, _WATCH_VIEW, view)
    if broadcast is not None:
        broadcast.wire[viewer] = data
    return data


def _watch_head(update: Update) -> bytes:
    """An update's fields but its view (version, kind, seat, events), serialised. Viewers of
    a broadcast who see its events alike share them: an event a viewer sees whole is the
    event itself (``Event.redacted_for``), so equal lists are lists of the same objects, kept
    alive with the bytes (their ids cannot be reused meanwhile)."""
    broadcast = update.broadcast
    key = tuple(map(id, update.events))
    if broadcast is not None:
        found = broadcast.heads.get(key)
        if found is not None:
            return found[1]
    head = pb.WatchTableResponse(version=update.version, entry_kind=update.kind)
    add_events(head.events, update.shoe, update.version, update.events)
    if update.seat is not None:
        head.seat = update.seat
    data = head.SerializeToString()
    if broadcast is not None:
        broadcast.heads[key] = (update.events, data)
    return data


_WATCH_VIEW = b"\x2a"
"""The key of WatchTableResponse.view (field 5, length-delimited)."""
_PLAY_UPDATE_TAG = b"\x0a"
"""PlayResponse.update's tag: field 1, length-delimited."""
_PLAY_RESULT_TAG = b"\x12"
"""PlayResponse.result: field 2, length-delimited."""
_PLAY_ANSWER_TAG = b"\x1a"
"""PlayResponse.answer: field 3, length-delimited."""
_PLAY_ACCEPTED = b"\x12"
"""PlayResult.accepted: field 2, length-delimited."""
_SUBMIT_VIEW = b"\x12"
"""SubmitMoveResponse.view: field 2, length-delimited."""


def play_update(update: pb.WatchTableResponse) -> tuple[int, bytes]:
    """An update on a Play stream, with its version (see :func:`play_update_bytes`)."""
    return play_update_bytes(update.version, update.SerializeToString())


def play_update_bytes(version: int, update: bytes) -> tuple[int, bytes]:
    """A serialized WatchTableResponse as a serialized PlayResponse{update}: its own bytes
    behind the field's tag and length, so an update serialized once is never copied into a
    new message."""
    return version, _field(b"", _PLAY_UPDATE_TAG, update)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def play_accepted(request_id: str, result: MoveResult) -> tuple[bytes, int]:
    """A taken move's result on a Play stream (serialized: SubmitMove's answer's bytes in
    it, not copied into a message), and the version it reached."""
    answer = _field(pb.PlayResult(request_id=request_id).SerializeToString(), _PLAY_ACCEPTED,
                    submit_move_wire(result))
    return _field(b"", _PLAY_RESULT_TAG, answer), result.version


def answer_beside_update(result: bytes) -> bytes:
    """A serialized PlayResponse{result} (:func:`play_accepted`) as PlayResponse.answer's
    bytes, to append to an update's message: the same PlayResult behind field 3's tag (a
    parser merges the fields of concatenated messages)."""
    if not result.startswith(_PLAY_RESULT_TAG):
        raise ValueError("not a serialized PlayResponse with only `result`")
    return _PLAY_ANSWER_TAG + result[1:]


def play_refused(request_id: str, code: int, message: str, details: bytes) -> bytes:
    """A refused move's result on a Play stream (serialized): SubmitMove's status, code,
    message and ``grpc-status-details-bin`` bytes."""
    return pb.PlayResponse(result=pb.PlayResult(
        request_id=request_id, code=code, message=message,
        status_details=details)).SerializeToString()


def abort_table_response(version: int) -> pb.AbortTableResponse:
    return pb.AbortTableResponse(version=version)


def watch_results_response(row: TableResult) -> pb.WatchResultsResponse:
    return pb.WatchResultsResponse(result=table_result(row))


def get_history_response(page: HistoryPage) -> pb.GetHistoryResponse:
    """A page of the log as its viewer may see it; the seed and test settings once the table
    is over."""
    record = page.live.record
    shoe = page.live.variant.shoe(record.options)
    response = pb.GetHistoryResponse(
        table_id=record.table_id, variant_id=record.variant_id,
        variant_version=record.variant_version,
        options={k: option_text(v) for k, v in record.options.items()},
        seed_commitment=record.commitment, finished=page.finished,
        next_page_token=page.next_page_token, chance_version=page.live.chance_version,
        turn_seconds=record.turn_seconds)
    for item in page.items:
        _add_history_entry(response.entries, shoe, page.seats, item)
    if page.finished:
        response.revealed_seed = record.seed
        if record.test.get("seed_fixed"):
            response.test.seed = record.seed
        response.test.stacked_shoe.extend(record.test.get("stacked_shoe", []))
        if record.test.get("first_dealer") is not None:
            response.test.first_dealer = int(record.test["first_dealer"])
        if page.outcome is not None:
            set_outcome(response.outcome, page.outcome)
    return response


def _add_history_entry(into: RepeatedCompositeFieldContainer[pb.HistoryEntry], shoe: Shoe,
                       seats: Sequence[Seat], item: HistoryItem) -> None:
    """One log entry of a history page, added in place: what every entry has, then what its
    kind adds (a join's entropy, bot and binding; a reveal's entropy; the seats an end
    withheld; an abort's note)."""
    entry = item.entry
    record = decode(entry.kind, entry.seat, entry.payload)
    message = into.add(version=entry.version, entry_kind=entry.kind,
                       time=timestamp(entry.created_at))
    add_events(message.events, shoe, entry.version, item.events)
    if entry.seat is not None:
        message.seat = entry.seat
        message.display_name = (record.name if isinstance(record, Joined) else
                                 seats[entry.seat].name if entry.seat < len(seats) else "")
    if isinstance(record, Joined):
        message.entropy = bytes.fromhex(record.entropy)
        message.bot_policy = record.bot
        if record.player_id or record.buy_in:
            message.binding.player_id = record.player_id
            message.binding.buy_in = record.buy_in
        message.entropy_commitment = bytes.fromhex(record.entropy_commitment)
    elif isinstance(record, Revealed):
        message.entropy = bytes.fromhex(record.entropy)
    elif isinstance(record, Ended):
        message.withheld_seats.extend(record.withheld)
    elif isinstance(record, Aborted):
        message.note = record.note
        message.withheld_seats.extend(record.withheld)
        message.reason = record.reason
    if item.move is not None:
        set_move(message.move, shoe, item.move)
