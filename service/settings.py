"""The table service's settings and limits, with their defaults in one place."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """Bounds on what one client or one table may hold (hostile input must not grow memory,
    the log or a response without bound), every one of them here: the wire's fixed bounds
    (read by the modules that check a request) and the table's, some of which an operator sets
    by flag (:meth:`bezique.service.config.Config.limits` builds the record from them)."""

    # The wire's bounds: fixed, since clients are written to them.
    max_table_id: int = 64
    """A table id: 1 to this many printable characters (a grant's ``table`` claim too)."""
    max_player_id: int = 128
    """A platform's player id (``player_id`` of JoinTable and of the ListTables filter, a
    grant's ``sub``, and its ``jti``): one bound, since a filter longer than any id a seat can
    be bound to would match nothing, and 128 is what platforms' ids (UUIDs, ULIDs, prefixed
    database keys) need with room to spare."""
    max_page_token: int = 64
    """A ListTables page token (the server's own are a table id)."""
    list_page: int = 100
    """Tables per ListTables page unless the caller asks for another size."""
    max_list_page: int = 1_000
    max_move_part: int = 64
    """A submitted move's cards, kind and label: longer than any legal move of any variant,
    refused before the variant sees it."""
    min_entropy: int = 16
    max_entropy: int = 64
    """Bytes of a seat's entropy (JoinTable, RevealEntropy)."""
    commitment_bytes: int = 32
    """An entropy commitment is a sha256 digest."""
    min_test_seed: int = 16
    """Bytes of a test-mode table's given seed (``TestSettings.seed``)."""
    max_grant_length: int = 4096
    """Characters of a join grant (a signed JWT), refused before it is parsed."""
    max_service_name: int = 200
    """A health call's service name: every watched name is a key kept while its streams are
    open, so a name is bounded as any other field is."""
    max_http_head_bytes: int = 64 * 1024
    """A request's head (request line and headers) on the HTTP port."""

    max_tables: int = 100_000
    max_watchers_per_table: int = 1000
    """Open watch streams of one table, all viewers together."""
    max_streams_per_seat: int = 8
    """Open watch streams of one seat (counted over live streams: a seat that is left ends
    its streams, so joining again cannot pile them up)."""
    watch_queue: int = 256
    max_name_length: int = 64
    max_request_id_length: int = 128
    max_note_length: int = 200
    """An operator's note on AbortTable (kept in the log, shown in the history)."""
    max_turn_seconds: int = 86_400
    max_log_entries: int = 100_000
    """A change that would begin past this many entries is refused (``LOG_FULL``)."""
    max_seat_changes: int = 64
    """Seats one caller (address block, platform player) may give up (``left``) before the
    start per ``seat_churn_window`` seconds; its joins are ``SEAT_CHURN`` until its budget
    refills (0: no limit)."""
    seat_churn_window: float = 600.0
    history_page: int = 200
    """Entries per GetHistory page (and per read of a watch backlog) unless the caller asks
    for another size."""
    max_history_page: int = 1_000
    """The largest page: a page is read and encoded on the event loop (about 10 ms for 1,000
    entries), so many large pages at once must not stall the other calls."""


@dataclass(frozen=True)
class Settings:
    test_mode: bool = False
    bot_delay: float = 0.0
    snapshot_every: int = 64
    results_poll: float = 2.0
    """Seconds a results feed stream waits for a wake-up before it reads the store anyway
    (a lost notification, or a replica without one, delays a result by at most this); the
    server sets it, and its poll of the tables it holds, from --replica-poll-seconds."""
    reveal_seconds: float = 60.0
    """How long committed seats have to reveal their entropy once every seat is taken."""
    abandon_after: float = 24 * 3600.0
    """Seconds with no log entry and no seat connected after which a started table ends as
    ``abandoned`` (0: never)."""
    abandon_unstarted_after: float = 600.0
    """The same for a table whose game has not started (0: never)."""

    @property
    def abandon_check(self) -> float:
        """Seconds between passes of the abandon sweep, which also records this replica's
        connected seats in the store: a quarter of the shorter window (at most a minute), so a
        seat connected to any replica is seen well within every window."""
        windows = [w for w in (self.abandon_after, self.abandon_unstarted_after) if w > 0]
        return min(60.0, min(windows) / 4) if windows else 0.0
    limits: Limits = field(default_factory=Limits)
    seat_token_ttl: float = 0.0
    """Seconds a seat token is valid once issued; 0: no expiry."""
    platform: bool = False
    """The server has a platform API key: a table whose variant takes buy-ins takes joins
    only from the platform (its API key or its join grants), so no stack is one no wallet
    paid for."""
    grants: bool = False
    """The server takes join grants (--grant-public-key): with ``platform``, a new table takes
    joins only with a grant or the API key unless its creator opens its seats."""
