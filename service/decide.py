"""The table's own rules as a pure function: :func:`decide` takes the table's state, a command
and the time, and gives the entries to append, or refuses.

A refusal is raised as the service's own error (service/errors.py, plain Python): each
already carries what the caller is told (status, field, reason), so a second refusal type
would only be mapped one to one onto them. The game's rules (a move's legality, a deal) are
the variant's: a decision that starts the game or aborts it returns a ``started`` or
``aborted`` entry without events, and the game makes them when the entry is drafted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from bezique.service import names
from bezique.service.auth import hash_matches
from bezique.service.errors import (
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    StaleVersion,
    Unauthenticated,
    quoted,
)
from bezique.service.settings import Settings
from bezique.table.entries import (
    Aborted,
    Ended,
    Entry,
    Joined,
    Left,
    Revealed,
    Started,
    TokenReissued,
)
from bezique.table.state import Table, evolve
from bezique.terms import PLATFORM_JOINS, REVEAL_TIMEOUT
from bezique.variants.api import Event
from bezique.variants.words import ABANDONED


@dataclass(frozen=True, slots=True)
class Join:
    """Take ``seat`` (None: the first free one) for a player (its token's hash) or a bot."""

    seat: int | None
    name: str = ""
    token_hash: str = ""
    bot: str = ""
    entropy: str = ""
    entropy_commitment: str = ""
    player_id: str = ""
    buy_in: int = 0
    grant_jti: str = ""
    buy_in_range: tuple[int, int] | None = None
    """The buy-ins the variant takes at this table (None: none), when ``buy_in`` is set."""
    vouched: bool = False
    """The join came with the platform's API key or one of its grants."""
    churned: str = ""
    """The caller whose seat churn budget is spent (an address block, ``player:<id>``), if
    any: the budgets are per caller and per process, kept by the command path."""
    bot_policies: tuple[str, ...] = ()
    """The variant's bot policies: their labels (``<policy> bot``) are the server's."""
    variant: str = ""
    """The table's variant, for messages only."""


@dataclass(frozen=True, slots=True)
class Leave:
    seat: int


@dataclass(frozen=True, slots=True)
class Reissue:
    """A new token (its hash) for the seat a player holds."""

    seat: int
    token_hash: str


@dataclass(frozen=True, slots=True)
class Reveal:
    """The seat reveals its committed entropy (hex)."""

    seat: int
    entropy: str


@dataclass(frozen=True, slots=True)
class EndReveal:
    """The reveal round's deadline passed at ``version``."""

    version: int


@dataclass(frozen=True, slots=True)
class Abort:
    note: str = ""


@dataclass(frozen=True, slots=True)
class Abandon:
    """The abandon sweep found the table idle at ``version`` (no entry, no connected seat
    for its window): it ends as an abort does, with the reason ``abandoned``."""

    version: int


Command = Join | Leave | Reissue | Reveal | EndReveal | Abort | Abandon


def decide(table: Table, command: Command, now: float, settings: Settings | None = None
           ) -> list[Entry]:
    """The entries ``command`` appends to ``table`` at ``now`` (none: nothing to do), or a
    ServiceError. Every entry returned is one :func:`evolve` takes."""
    settings = settings or Settings()
    if isinstance(command, Join):
        entries = _join(table, command, now, settings)
    elif isinstance(command, Leave):
        entries = _leave(table, command)
    elif isinstance(command, Reissue):
        entries = _reissue(table, command, now, settings)
    elif isinstance(command, Reveal):
        entries = _reveal(table, command)
    elif isinstance(command, EndReveal):
        entries = _end_reveal(table, command)
    elif isinstance(command, Abandon):
        return [_abandon(table, command)]  # past the log's limit too, as an abort
    else:
        return [_abort(table, command)]  # past the log's limit too: how a full table ends
    if entries:
        check_room(table, settings)
        check_not_finished(table)
        after = table
        for entry in entries:
            after = evolve(after, entry)
        if after.ready:
            entries.append(Started())
    return entries


def check_room(table: Table, settings: Settings) -> None:
    """A change that would begin past the log's limit is refused (only an abort may)."""
    limit = settings.limits.max_log_entries
    if table.version >= limit:
        raise ResourceExhausted(f"table {table.table_id} holds its limit of {limit} log "
                                "entries", reason="LOG_FULL")


def check_not_finished(table: Table) -> None:
    check_not_ended(table)  # the more telling reason for a table that never dealt
    if table.finished:
        raise FailedPrecondition(f"table {table.table_id} has ended", field="table_id",
                                 reason="TABLE_FINISHED")


def check_not_ended(table: Table) -> None:
    if table.ended is not None:
        raise FailedPrecondition(
            f"table {table.table_id} ended before any deal ({table.ended.reason}): start a "
            "new table", reason="REVEAL_TIMED_OUT")


def check_not_revealing(table: Table) -> None:
    """Refuse a change that the reveal round, or an end before any deal, does not allow. A
    seat is never given up in the round: a new holder could then choose its entropy after
    seeing the seats' revealed entropy."""
    check_not_ended(table)
    awaiting = table.awaiting_reveal
    if awaiting:
        raise FailedPrecondition(
            f"table {table.table_id} waits for seats {list(awaiting)} to reveal their "
            "entropy (RevealEntropy): no move yet, and no seat may be given up",
            reason="REVEAL_ROUND")


def holder(table: Table, presented_hash: str, now: float) -> int:
    """The seat the token of ``presented_hash`` holds. Every seat is compared (constant
    time). A token that was replaced or given up is SEAT_TOKEN_REVOKED, one past its expiry
    SEAT_TOKEN_EXPIRED."""
    found = None
    for index, seat in enumerate(table.seats):
        if hash_matches(presented_hash, seat.token_hash) and found is None:
            found = index
    if found is None:
        why = table.revoked.get(presented_hash)
        if why is not None:
            raise PermissionDenied("this seat token was " + (
                "replaced by a newer one (ReissueSeatToken)" if why == "reissued"
                else "given up (LeaveTable)"), field="authorization",
                reason="SEAT_TOKEN_REVOKED")
        raise PermissionDenied("this token holds no seat at this table", field="authorization")
    if table.seats[found].expired(now):
        raise Unauthenticated("this seat token has expired; ask the platform for a new one",
                              field="authorization", reason="SEAT_TOKEN_EXPIRED")
    return found


def token_expiry(now: float, settings: Settings) -> float | None:
    """When a token issued now expires (``--seat-token-ttl``); None: never. Written into the
    token's log entry, so every replica agrees whatever its own setting."""
    ttl = settings.seat_token_ttl
    return now + ttl if ttl > 0 else None


def _check_seat(table: Table, seat: int) -> None:
    if not 0 <= seat < len(table.seats):
        raise InvalidArgument(f"seat {seat} does not exist (0..{len(table.seats) - 1})",
                              field="seat")


def _join(table: Table, join: Join, now: float, settings: Settings) -> list[Entry]:
    check_not_finished(table)
    _check_admitted(table, join)
    seat = join.seat
    if seat is None:
        free = [i for i, s in enumerate(table.seats) if not s.occupied]
        if not free:
            raise FailedPrecondition(f"table {table.table_id} has no free seat", field="seat",
                                     reason="TABLE_FULL")
        seat = free[0]
    else:
        _check_seat(table, seat)
        if table.seats[seat].occupied:
            raise FailedPrecondition(f"seat {seat} is taken", field="seat", reason="SEAT_TAKEN")
    _check_churn(table, join, settings)
    _check_binding(join)
    if not join.bot:
        _check_name(table, join)
    deadline = None
    if table.free_seats == 1 and (join.entropy_commitment or table.owing):
        # this join takes the last seat and opens the reveal round: its deadline
        deadline = now + settings.reveal_seconds
    return [Joined(seat, join.name or f"seat {seat}", "" if join.bot else join.token_hash,
                   join.bot, join.entropy,
                   join.player_id, join.buy_in, join.grant_jti,
                   None if join.bot else token_expiry(now, settings), join.entropy_commitment,
                   deadline)]


def _check_admitted(table: Table, join: Join) -> None:
    """Whether this join may take a seat at all, before which seat is asked: a grant is used
    once per table (its jti is in the log: every replica agrees; a replay is told so even
    when its seat is taken), and a table of the platform's takes only joins it vouches for."""
    if join.grant_jti and join.grant_jti in table.grant_jtis:
        raise PermissionDenied("this join grant was used already (its jti is in the "
                               "table's log)", field="join_grant", reason="GRANT_REPLAYED")
    if table.joins == PLATFORM_JOINS and not join.vouched and not join.bot:
        raise Unauthenticated(f"table {table.table_id} takes joins only with a join grant "
                              "(join_grant) or the platform API key (x-api-key): the "
                              "platform did not open its seats to anyone",
                              field="join_grant", reason="GRANT_REQUIRED")


def _check_churn(table: Table, join: Join, settings: Settings) -> None:
    """A caller (an address block, a platform's player) that gave up its budget of seats
    (``max_seat_changes`` a ``seat_churn_window``) joins none until it refills: a stranger's
    join-leave loop is charged to him, never to the table, so it locks no table for the
    others; and the log of a table grows by a loop only as fast as many callers' budgets
    allow (``max_log_entries`` bounds it in the end)."""
    if join.churned:
        limits = settings.limits
        who = "this player" if join.churned.startswith("player:") else "this address"
        raise ResourceExhausted(f"{who} gave up more than {limits.max_seat_changes} seats "
                                f"in {limits.seat_churn_window:g} s before their games "
                                "started; try again later", reason="SEAT_CHURN")


def _check_name(table: Table, join: Join) -> None:
    """A name no seated player's looks like, and none of the server's own labels (a bot's,
    an unnamed seat's); no name at all takes the seat's label."""
    name = join.name
    if not name:
        return
    why = names.reserved(name, names.server_labels(len(table.seats), join.bot_policies))
    if why is not None:
        raise InvalidArgument(f"display_name {quoted(name)} {why}: the names of bots and of "
                              "unnamed seats are the server's", field="display_name")
    seated = names.clash(name, [seat.name for seat in table.seats if seat.occupied])
    if seated is not None:
        raise FailedPrecondition(f"display_name {quoted(name)} is taken: it looks like "
                                 f"{quoted(seated)}, who sits at this table (case, invisible "
                                 "characters and look-alike letters aside); choose another",
                                 field="display_name", reason="NAME_TAKEN")


def _check_binding(join: Join) -> None:
    """A buy-in must be one the variant takes, within the table's bounds."""
    if not join.buy_in:
        return
    if join.buy_in_range is None:
        raise InvalidArgument(f"{join.variant or 'this variant'} takes no buy-ins",
                              field="buy_in")
    low, high = join.buy_in_range
    if not low <= join.buy_in <= high:
        raise InvalidArgument(f"buy_in must be {low}..{high} chips at this table",
                              field="buy_in")


def _leave(table: Table, leave: Leave) -> list[Entry]:
    check_not_finished(table)
    if table.started:
        raise FailedPrecondition("the game has started: a seat cannot be given up now",
                                 reason="GAME_STARTED")
    check_not_revealing(table)
    _check_seat(table, leave.seat)
    if not table.seats[leave.seat].occupied:  # the command path names a token's seat
        raise FailedPrecondition(f"seat {leave.seat} is free: nothing to give up", field="seat")
    return [Left(leave.seat)]


def _reissue(table: Table, reissue: Reissue, now: float, settings: Settings) -> list[Entry]:
    _check_seat(table, reissue.seat)
    held = table.seats[reissue.seat]
    if not held.token_hash:
        raise FailedPrecondition(f"seat {reissue.seat} is " + (
            "played by a bot" if held.bot else "free") + ": it has no token to reissue",
            field="seat")
    return [TokenReissued(reissue.seat, reissue.token_hash, token_expiry(now, settings),
                          table.deadline)]


def _reveal(table: Table, reveal: Reveal) -> list[Entry]:
    """A repeat of a reveal already made changes nothing (a client may retry it)."""
    seat = reveal.seat
    _check_seat(table, seat)
    held = table.seats[seat]
    if not held.entropy_commitment:
        raise FailedPrecondition(f"seat {seat} joined without an entropy commitment: it has "
                                 "nothing to reveal", field="entropy", reason="NOTHING_TO_REVEAL")
    if hashlib.sha256(bytes.fromhex(reveal.entropy)).hexdigest() != held.entropy_commitment:
        raise InvalidArgument(f"sha256 of this entropy is not the commitment seat {seat} "
                              "joined with", field="entropy", reason="REVEAL_MISMATCH")
    if held.entropy:
        return []
    if table.ended is None and table.free_seats:
        raise FailedPrecondition(
            f"table {table.table_id} has {table.free_seats} free seat(s): the reveal round "
            "opens once every seat is taken (and every commitment is in)",
            reason="REVEAL_NOT_OPEN")
    check_not_ended(table)
    return [Revealed(seat, reveal.entropy, table.deadline)]


def _end_reveal(table: Table, end: EndReveal) -> list[Entry]:
    """Never a re-seat or a deal without the withholding seats: either would let a seat
    re-roll against the entropy already revealed."""
    if table.version != end.version:
        raise StaleVersion(table.table_id, end.version, table.version)
    withheld = table.awaiting_reveal
    if not withheld:
        return []
    event = Event(REVEAL_TIMEOUT, detail={"withheld": list(withheld)})
    return [Ended(withheld, REVEAL_TIMEOUT, (event.to_dict(),))]


def _abort(table: Table, abort: Abort) -> Entry:
    """An abort in the reveal round names the seats that had not revealed."""
    check_not_finished(table)
    return Aborted(abort.note, withheld=table.awaiting_reveal)


def _abandon(table: Table, abandon: Abandon) -> Entry:
    """Only at the version found idle: an entry since (a move, a join) means someone came
    back, and the sweep looks again later."""
    if table.version != abandon.version:
        raise StaleVersion(table.table_id, abandon.version, table.version)
    check_not_finished(table)
    return Aborted(withheld=table.awaiting_reveal, reason=ABANDONED)
