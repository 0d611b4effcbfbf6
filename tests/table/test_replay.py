"""The server replays a stored log through the same reducer as the verifier: an entry no
decision could have written makes the log unreplayable (LOG_NOT_REPLAYABLE on load), never a
table in a state the rules forbid."""

from __future__ import annotations

import pytest

from bezique.service.live import rebuild
from bezique.service.store import LogEntry, TableRecord
from bezique.variants.api import LogVersionError
from bezique.variants.chance import commitment
from bezique.variants.host import resolve_options
from tests.helpers import highcard_registry


def replay(*kinds: tuple[str, int | None, dict[str, object]]) -> None:
    variant = highcard_registry().variant("highcard")
    options = resolve_options(variant.options, {"players": "2"})
    seed = b"s" * 32
    record = TableRecord("t1", variant.id, variant.version, options, seed, commitment(seed),
                         0.0, 0, {})
    entries = [LogEntry(version, kind, seat, payload)
               for version, (kind, seat, payload) in enumerate(kinds, start=1)]
    rebuild(record, variant, 2, entries)


def test_a_log_that_seats_two_players_in_one_seat_does_not_load() -> None:
    replay(("created", None, {"chance": 2}), ("joined", 0, {"name": "ann", "token_hash": "a"}))
    with pytest.raises(LogVersionError, match="seat 0 is joined while it is held"):
        replay(("created", None, {"chance": 2}),
               ("joined", 0, {"name": "ann", "token_hash": "a"}),
               ("joined", 0, {"name": "eve", "token_hash": "e"}))


def test_a_log_whose_entry_lacks_what_its_kind_needs_does_not_load() -> None:
    with pytest.raises(LogVersionError, match="token_reissued"):
        replay(("created", None, {}), ("joined", 0, {"name": "ann", "token_hash": "a"}),
               ("token_reissued", 0, {"deadline": None}))
