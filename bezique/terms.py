"""The protocol's fixed terms, in one place for the service and the clients: the kinds of log
entry, an option value's wire text, the JSON form of a value, and a move written with its
card codes.

Pure (no gRPC, no protobuf), so a client imports it without the server. "Terms" rather than
"vocabulary": a variant's ``Vocabulary`` is its words for people; these are the wire's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from bezique.variants.api import Move
from bezique.variants.cards import Shoe


class EntryKind:
    """The kinds of a table's log entry (``LogEntry.kind``, ``HistoryEntry.entry_kind``).

    Plain strings, not an Enum: the log stores them and the wire carries them as text, and a
    store or client compares them with the text it reads.
    """

    CREATED: Final = "created"
    """The table is made: its options and seed commitment."""
    JOINED: Final = "joined"
    """A seat is taken (by a player or a bot), with its entropy or commitment."""
    LEFT: Final = "left"
    """A seat is given up before the game started."""
    REVEALED: Final = "revealed"
    """A seat revealed the entropy it committed to when it joined."""
    STARTED: Final = "started"
    """The game starts: the opening chance steps' events (the first deal)."""
    MOVE: Final = "move"
    """A player's move and the events it caused."""
    BOT_MOVE: Final = "bot_move"
    """A bot's move, chosen by the policy of the bot holding the seat."""
    TIMEOUT: Final = "timeout"
    """The variant's default move, made when the seat's turn clock ran out."""
    ENDED: Final = "ended"
    """The table ended before any deal (its ``reason``: :data:`REVEAL_TIMEOUT`)."""
    ABORTED: Final = "aborted"
    """An operator's AbortTable: the table ends, settled by the variant."""
    TOKEN_REISSUED: Final = "token_reissued"
    """ReissueSeatToken: the seat's token is replaced, the old one revoked."""


ENTRY_KINDS: Final = frozenset({
    EntryKind.CREATED, EntryKind.JOINED, EntryKind.LEFT, EntryKind.REVEALED, EntryKind.STARTED,
    EntryKind.MOVE, EntryKind.BOT_MOVE, EntryKind.TIMEOUT, EntryKind.ENDED, EntryKind.ABORTED,
    EntryKind.TOKEN_REISSUED})
"""Every kind of log entry the service writes."""

MOVE_KINDS: Final = frozenset({EntryKind.MOVE, EntryKind.BOT_MOVE, EntryKind.TIMEOUT})
"""Entry kinds that hold a move of the game."""

SEAT_KINDS: Final = frozenset({EntryKind.JOINED, EntryKind.LEFT, EntryKind.TOKEN_REISSUED})
"""Entry kinds that change who holds a seat, or with which token."""

PLATFORM_JOINS: Final = "platform"
"""A ``created`` entry's ``joins``: a seat is taken only with a join grant or the API key."""
OPEN_JOINS: Final = "open"
"""A ``created`` entry's ``joins``: anyone may take a seat (its creator opened them)."""

REVEAL_TIMEOUT: Final = "reveal_timeout"
"""The reason of an ``ended`` entry (and its event) when seats did not reveal their committed
entropy in time."""


def option_text(value: object) -> str:
    """An option value in its wire form (options travel as strings): ``none``, ``true`` and
    ``false`` as the option parser reads them back, anything else as ``str`` gives it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def jsonable(value: Any) -> Any:
    """``value`` as JSON holds it: mappings as dicts with string keys, tuples as lists, sets as
    sorted lists; anything else that JSON cannot hold is a TypeError.

    The one normaliser: details go into a protobuf Struct in this form, the SQL stores encode
    what orjson cannot in it, and a replay's events are compared with a stored copy in it (a
    store may have turned tuples into lists).
    """
    if value is None or isinstance(value, str | int | float):  # bool is an int
        return value
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if isinstance(value, set | frozenset):
        return [jsonable(item) for item in sorted(value)]
    raise TypeError(f"a {type(value).__name__} cannot be written as JSON")


def whole_numbers(value: Any) -> Any:
    """A value read back from a protobuf Struct, with whole floats as ints again.

    Not :func:`jsonable`'s job: a Struct holds every number as a double, so a detail the variant
    wrote as ``3`` arrives as ``3.0``; the clients show it, and compare it, as the variant wrote
    it.
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    return value


MOVE_TEXT_CARDS = 8
"""How many cards :func:`describe_move` names: a submitted move can be as long as a client
likes, and its text goes into an error message."""


def card_codes(shoe: Shoe, card_ids: Iterable[int], *, with_ids: bool = False) -> str:
    """Cards by their codes, separated by spaces (``7S AS``), an id outside the shoe as
    ``#id``. ``with_ids`` adds each card's id (``7S#0``, and ``?#id`` outside the shoe): it
    tells identical cards of different packs apart."""
    parts = []
    for card in card_ids:
        code = shoe.code(card) if 0 <= card < len(shoe) else ""
        parts.append(f"{code or '?'}#{card}" if with_ids else code or f"#{card}")
    return " ".join(parts)


def describe_move(move: Move, shoe: Shoe) -> str:
    """A move in one line of text, as the server's errors name it: kind, label, card codes and
    the amount (or an offered move's range), e.g. ``declare bezique QS JD`` or ``raise amount
    10..990``. Kind and label are cut to 40 characters, the cards to the first
    :data:`MOVE_TEXT_CARDS`."""
    cards = card_codes(shoe, move.cards[:MOVE_TEXT_CARDS])
    if len(move.cards) > MOVE_TEXT_CARDS:
        cards += f" (+{len(move.cards) - MOVE_TEXT_CARDS} cards)"
    amount = (f"amount {move.amount_range}" if move.amount_range is not None
              else str(move.amount) if move.amount else "")
    return " ".join(part for part in (move.kind[:40], move.label[:40], cards, amount) if part)
