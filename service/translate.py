"""Domain records to protobuf messages and back. The only place that knows both sides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.protobuf import struct_pb2, timestamp_pb2

from bezique.service.errors import InvalidArgument
from bezique.service.live import Seat, ViewResult
from bezique.service.store import TableRecord, TableResult, TableState
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
    vocabulary_of,
)
from bezique.variants.cards import Shoe
from bezique.variants.registry import Origin, origin_of_module

_OPTION_TYPES = {OptionType.INT: pb.OPTION_TYPE_INT, OptionType.BOOL: pb.OPTION_TYPE_BOOL,
                 OptionType.CHOICE: pb.OPTION_TYPE_CHOICE}


def option_text(value: object) -> str:
    """An option value in its wire (string) form."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


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
    return pb.VariantInfo(id=variant.id, title=variant.title, description=variant.description,
                          min_seats=variant.min_seats, max_seats=variant.max_seats,
                          version=variant.version,
                          options=[option_schema(s) for s in variant.options],
                          bot_policies=list(policies), distribution=origin.name,
                          distribution_version=origin.version,
                          vocabulary=vocabulary_pb(vocabulary_of(variant)))


def vocabulary_pb(words: Vocabulary) -> pb.Vocabulary:
    return pb.Vocabulary(phases=dict(words.phases), events=dict(words.events),
                         zones=dict(words.zones), details=dict(words.details),
                         moves=dict(words.moves))


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    message = timestamp_pb2.Timestamp()
    message.FromNanoseconds(int(seconds * 1e9))
    return message


_CARD_MESSAGES: dict[tuple[object, ...], tuple[pb.Card, ...]] = {}


def cards(shoe: Shoe, ids: Iterable[int]) -> list[pb.Card]:
    """Card messages for ids; built once per shoe (a repeated field copies them on extend)."""
    key = (shoe.ranks, shoe.packs)  # what makes a shoe: the same key, the same cards
    made = _CARD_MESSAGES.get(key)
    if made is None:
        made = _CARD_MESSAGES[key] = tuple(pb.Card(code=c.code, id=c.id) for c in shoe.cards)
    return [made[i] for i in ids]


def set_move(into: pb.Move, shoe: Shoe, move: Move) -> None:
    """Write ``move`` into a Move field (in place: a message built apart is copied when
    stored)."""
    into.kind, into.amount, into.label = move.kind, move.amount, move.label
    into.cards.extend(cards(shoe, move.cards))
    span = move.amount_range
    if span is not None:
        into.amount_range.minimum, into.amount_range.maximum = span.minimum, span.maximum
        into.amount_range.step = span.step


def move_from_pb(message: pb.Move) -> Move:
    if not message.kind:
        raise InvalidArgument("move.kind is empty: submit one of the legal moves",
                              field="move.kind")
    if len(message.cards) > 64 or len(message.kind) > 64 or len(message.label) > 64:
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
        field.update(_jsonable(detail))
    else:
        field.SetInParent()


def set_outcome(into: pb.Outcome, outcome: Outcome) -> None:
    """Write ``outcome`` into an Outcome field, in place."""
    into.winners.extend(outcome.winners)
    into.scores.extend(outcome.scores)
    into.reason = outcome.reason
    _set_detail(into.detail, outcome.detail)


def _add_seats(into: Any, seats: Sequence[Seat], view: View | None) -> None:
    """Every seat's public state, added in place (scores, stacks and hidden hand sizes come
    from the viewer's view). Only the fields that differ from their default are passed: each
    keyword costs protobuf about as much as a set field (half the time of a view's seats)."""
    scores = view.scores if view is not None else ()
    stacks = view.stacks if view is not None else ()
    hidden = ({} if view is None else
              {zone.owner: zone.hidden for zone in view.zones if zone.name == "hand"})
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
    written into ``into`` when given: a response's own field, so the view is not copied.
    A ViewResult rendered before (the mover's answer, then its own stream's update) is copied
    from its first rendering, in C, instead of being built again."""
    message = pb.View() if into is None else into
    if result.wire:
        message.CopyFrom(result.wire[0])
        return message
    _render_view(result, message)
    result.wire.append(message)
    return message


def _render_view(result: ViewResult, message: pb.View) -> None:
    live, view, viewer = result.live, result.view, result.viewer
    outcome, deadline, legal = result.outcome, result.deadline, result.legal
    message.table_id = live.table_id
    message.version = result.version
    message.variant_id = live.variant.id
    message.phase = result.phase
    _add_seats(message.seats, result.seats, view)
    message.waiting_for_players = not result.started and outcome is None
    message.seed_commitment = live.record.commitment
    if viewer is not None:
        message.viewer_seat = viewer
    if view is None:
        message.awaiting_reveal.extend(result.awaiting_reveal)
        if outcome is not None:  # ended before any deal
            set_outcome(message.outcome, outcome)
        elif deadline is not None:  # the reveal round's
            message.deadline.CopyFrom(timestamp(deadline))
        return
    shoe = view.shoe or live.variant.shoe(live.record.options)
    message.to_move.extend(view.to_move)
    message.hand.extend(cards(shoe, view.hand))
    for zone in view.zones:
        if zone.name == "hand" and not zone.cards:
            continue  # hidden hands are counted in seats[].hidden_hand_count
        zone_pb = message.zones.add(name=zone.name, cards=cards(shoe, zone.cards),
                                    hidden_count=zone.hidden)
        if zone.owner is not None:
            zone_pb.owner = zone.owner
    message.pot = view.pot
    for move in legal:
        set_move(message.legal_moves.add(), shoe, move)
    _set_detail(message.detail, view.detail)
    if deadline is not None and outcome is None:
        message.deadline.CopyFrom(timestamp(deadline))
    if outcome is not None:
        set_outcome(message.outcome, outcome)


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
