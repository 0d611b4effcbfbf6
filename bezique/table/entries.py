"""One frozen record per kind of log entry, and their stored form (a ``LogEntry``'s ``payload``)
in one place: :func:`encode` and :func:`decode`.

The stored JSON is the log's, and older logs hold it as it was written then, so decoding is
lenient where older servers wrote less (``chance``, ``deadline``) and encoding writes exactly
the keys it always wrote, in the same order. The events of a game entry are kept in their
stored form (``events``) and, when the entry was just made, as the game's own objects
(``made``): a draft's caller needs them, the log never holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from bezique.terms import MOVE_KINDS, REVEAL_TIMEOUT, EntryKind
from bezique.variants.api import Event, Move

Payload = dict[str, Any]
StoredEvents = tuple[Mapping[str, Any], ...]


class EntryError(ValueError):
    """A stored entry that cannot be read as its kind (a missing or mistyped field)."""


@dataclass(frozen=True, slots=True)
class Created:
    """The table is made: its variant, options and seed commitment, and how it draws."""

    kind: ClassVar[str] = EntryKind.CREATED
    variant: str
    variant_version: int
    options: Mapping[str, Any]
    commitment: str
    chance: int = 0
    """The chance construction (0: a table from before seats contributed entropy)."""
    joins: str = ""
    """Who may take a seat: PLATFORM_JOINS, OPEN_JOINS, or "" (anyone; tables from before)."""
    seat: ClassVar[None] = None
    deadline: ClassVar[None] = None


@dataclass(frozen=True, slots=True)
class Joined:
    """A seat is taken, by a player (its token's hash, maybe a binding) or by a bot."""

    kind: ClassVar[str] = EntryKind.JOINED
    seat: int
    name: str
    token_hash: str = ""
    bot: str = ""
    entropy: str = ""
    """The seat's entropy, hex, sent in the clear at join."""
    player_id: str = ""
    buy_in: int = 0
    grant_jti: str = ""
    token_expires: float | None = None
    entropy_commitment: str = ""
    """sha256 of the seat's secret entropy, hex (revealed once every seat is taken)."""
    deadline: float | None = None
    """Set by the join that takes the last seat and opens the reveal round."""


@dataclass(frozen=True, slots=True)
class Left:
    """A seat is given up before the game started."""

    kind: ClassVar[str] = EntryKind.LEFT
    seat: int
    deadline: ClassVar[None] = None


@dataclass(frozen=True, slots=True)
class TokenReissued:
    """A seat's token is replaced; the old one is revoked."""

    kind: ClassVar[str] = EntryKind.TOKEN_REISSUED
    seat: int
    token_hash: str
    token_expires: float | None = None
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class Revealed:
    """A seat reveals the entropy it committed to, hex."""

    kind: ClassVar[str] = EntryKind.REVEALED
    seat: int
    entropy: str
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class Started:
    """The game starts: the opening chance steps' events. Decided with no events; the game
    makes them when the entry is drafted (service.live)."""

    kind: ClassVar[str] = EntryKind.STARTED
    events: StoredEvents = ()
    deadline: float | None = None
    made: tuple[Event, ...] | None = field(default=None, compare=False)
    seat: ClassVar[None] = None


@dataclass(frozen=True, slots=True)
class Moved:
    """A move of the game (``kind``: a player's ``move``, a ``bot_move`` or a ``timeout``)."""

    kind: str
    seat: int
    move: Move
    events: StoredEvents = ()
    deadline: float | None = None
    made: tuple[Event, ...] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Aborted:
    """An operator ended the table, settled by the variant (its events); in the reveal round
    it names the seats that had not revealed (``withheld``)."""

    kind: ClassVar[str] = EntryKind.ABORTED
    note: str = ""
    events: StoredEvents = ()
    withheld: tuple[int, ...] = ()
    made: tuple[Event, ...] | None = field(default=None, compare=False)
    reason: str = ""
    """Why, when not an operator's AbortTable (empty): ``abandoned`` (the server's abandon
    sweep: no move and no connected seat for its window). The outcome's reason is this one."""
    seat: ClassVar[None] = None
    deadline: ClassVar[None] = None


@dataclass(frozen=True, slots=True)
class Ended:
    """The table ended before any deal: the seats that withheld their committed entropy."""

    kind: ClassVar[str] = EntryKind.ENDED
    withheld: tuple[int, ...]
    reason: str = REVEAL_TIMEOUT
    events: StoredEvents = ()
    seat: ClassVar[None] = None
    deadline: ClassVar[None] = None


Entry = Created | Joined | Left | TokenReissued | Revealed | Started | Moved | Aborted | Ended
GameEntry = Started | Moved | Aborted
"""The entries the game takes part in: their events are the game's."""


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def stored_events(payload: Mapping[str, Any]) -> StoredEvents:
    """The events a stored entry holds, in their stored form (none for a kind without)."""
    return tuple(payload.get("events", ()))


def decode(kind: str, seat: int | None, payload: Mapping[str, Any]) -> Entry:
    """The record of a stored entry (``LogEntry.kind``, ``.seat``, ``.payload``)."""
    try:
        return _decode(kind, seat, payload)
    except (KeyError, TypeError, ValueError) as exc:
        raise EntryError(f"a {kind!r} entry does not hold what its kind needs: {exc!r}"
                         ) from exc


def _seat(kind: str, seat: int | None) -> int:
    if seat is None:
        raise EntryError(f"a {kind!r} entry names no seat")
    return seat


def _decode(kind: str, seat: int | None, payload: Mapping[str, Any]) -> Entry:
    deadline = _optional_float(payload.get("deadline"))
    if kind in MOVE_KINDS:
        return Moved(kind, _seat(kind, seat), Move.from_dict(payload["move"]),
                     stored_events(payload), deadline)
    if kind == EntryKind.JOINED:
        return Joined(_seat(kind, seat), str(payload.get("name", "")),
                      str(payload.get("token_hash", "")), str(payload.get("bot", "")),
                      str(payload.get("entropy", "")), str(payload.get("player_id", "")),
                      int(payload.get("buy_in", 0)), str(payload.get("grant_jti", "")),
                      _optional_float(payload.get("token_expires")),
                      str(payload.get("entropy_commitment", "")), deadline)
    if kind == EntryKind.CREATED:
        return Created(str(payload.get("variant", "")), int(payload.get("variant_version", 0)),
                       dict(payload.get("options", {})), str(payload.get("commitment", "")),
                       int(payload.get("chance", 0)), str(payload.get("joins", "")))
    if kind == EntryKind.LEFT:
        return Left(_seat(kind, seat))
    if kind == EntryKind.TOKEN_REISSUED:
        return TokenReissued(_seat(kind, seat), str(payload["token_hash"]),
                             _optional_float(payload.get("token_expires")), deadline)
    if kind == EntryKind.REVEALED:
        return Revealed(_seat(kind, seat), str(payload.get("entropy", "")), deadline)
    if kind == EntryKind.STARTED:
        return Started(stored_events(payload), deadline)
    if kind == EntryKind.ABORTED:
        return Aborted(str(payload.get("note", "")), stored_events(payload),
                       tuple(int(s) for s in payload.get("withheld", ())),
                       reason=str(payload.get("reason", "")))
    if kind == EntryKind.ENDED:
        return Ended(tuple(int(s) for s in payload.get("withheld", ())),
                     str(payload.get("reason", REVEAL_TIMEOUT)), stored_events(payload))
    raise EntryError(f"unknown entry kind {kind!r}")


def encode(entry: Entry) -> Payload:
    """The payload the log stores for ``entry``: the keys each kind has always written."""
    payload: Payload
    if isinstance(entry, Moved):
        return {"move": entry.move.to_dict(), "events": list(entry.events),
                "deadline": entry.deadline}
    if isinstance(entry, Joined):
        return _joined(entry)
    if isinstance(entry, Created):
        payload = {"variant": entry.variant, "variant_version": entry.variant_version,
                   "options": entry.options, "commitment": entry.commitment,
                   "chance": entry.chance}
        if entry.joins:
            payload["joins"] = entry.joins
        return payload
    if isinstance(entry, Left):
        return {}
    if isinstance(entry, TokenReissued):
        payload = {"token_hash": entry.token_hash, "deadline": entry.deadline}
        if entry.token_expires is not None:
            payload["token_expires"] = entry.token_expires
        return payload
    if isinstance(entry, Revealed):
        return {"entropy": entry.entropy, "deadline": entry.deadline}
    if isinstance(entry, Started):
        return {"events": list(entry.events), "deadline": entry.deadline}
    if isinstance(entry, Aborted):
        payload = {"events": list(entry.events), "deadline": None}
        if entry.note:
            payload["note"] = entry.note
        if entry.withheld:
            payload["withheld"] = list(entry.withheld)
        if entry.reason:
            payload["reason"] = entry.reason
        return payload
    return {"reason": entry.reason, "withheld": list(entry.withheld),
            "events": list(entry.events), "deadline": None}


_JOINED_OPTIONAL: Final = ("token_hash", "bot", "entropy", "player_id", "buy_in", "grant_jti",
                           "token_expires", "entropy_commitment", "deadline")
"""A join's keys after its name, each written only when it holds something (the order the
log has always had)."""


def _joined(entry: Joined) -> Payload:
    payload: Payload = {"name": entry.name}
    for key in _JOINED_OPTIONAL:
        value = getattr(entry, key)
        if value:
            payload[key] = value
    return payload
