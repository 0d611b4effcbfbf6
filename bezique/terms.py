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

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
"""A card code's suit letter as people read it."""
RANK_WORDS: Final = {"T": "10"}
"""A card code's rank letter, where people print it otherwise."""


def card_label(code: str) -> str:
    """``TH`` -> ``10♥``: a card code (rank letter, suit letter) as printed on the card; any
    other code as it is, and ``?`` for none."""
    if len(code) != 2:
        return code or "?"
    rank, suit = code[0], code[1]
    return RANK_WORDS.get(rank, rank) + SUIT_SYMBOLS.get(suit, suit)


def card_codes(shoe: Shoe, card_ids: Iterable[int], *, with_ids: bool = False) -> str:
    """Cards by their codes, separated by spaces (``7S AS``), an id outside the shoe as
    ``#id``. ``with_ids`` adds each card's id (``7S#0``, and ``?#id`` outside the shoe): it
    tells identical cards of different packs apart."""
    parts = []
    for card in card_ids:
        code = shoe.code(card) if 0 <= card < len(shoe) else ""
        parts.append(f"{code or '?'}#{card}" if with_ids else code or f"#{card}")
    return " ".join(parts)


def amount_range_text(minimum: int, maximum: int, step: int) -> str:
    """An offered move's amounts in words: ``to any amount from 20 to 90`` (``in steps of
    10``)."""
    steps = f" in steps of {step}" if step > 1 else ""
    return f"to any amount from {minimum} to {maximum}{steps}"


def describe_move(move: Move, shoe: Shoe) -> str:
    """A move in one line of words: the one text of a move, which the server sends with each
    legal move (``Move.text``) and names a refused one by in its errors, and which every
    client shows. Kind and label as the variant names them (underscores as spaces, cut to 40
    characters), the cards as printed on them (the first :data:`MOVE_TEXT_CARDS`), and the
    amount or an offered move's range: ``declare bezique Q♠ J♦``, ``raise to any amount from
    10 to 990``."""
    cards = " ".join(card_label(shoe.code(card)) if 0 <= card < len(shoe) else f"#{card}"
                     for card in move.cards[:MOVE_TEXT_CARDS])
    if len(move.cards) > MOVE_TEXT_CARDS:
        cards += f" (+{len(move.cards) - MOVE_TEXT_CARDS} cards)"
    span = move.amount_range
    amount = (amount_range_text(span.minimum, span.maximum, span.step) if span is not None
              else str(move.amount) if move.amount else "")
    words = (str(move.kind)[:40].replace("_", " "), str(move.label)[:40].replace("_", " "))
    return " ".join(part for part in (*words, cards, amount) if part)
