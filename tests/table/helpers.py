"""Tables built by deciding commands and evolving what was decided, with no store and no port."""

from __future__ import annotations

import hashlib

from bezique.service.decide import Command, decide
from bezique.service.settings import Limits, Settings
from bezique.table.entries import Entry
from bezique.table.state import GameFacts, Table, evolve

SETTINGS = Settings(reveal_seconds=60.0,
                    limits=Limits(max_seat_changes=3, seat_churn_window=100.0,
                                  max_log_entries=40))


def entropy(seat: int) -> bytes:
    return bytes([seat + 1]) * 16


def commitment(seat: int) -> str:
    return hashlib.sha256(entropy(seat)).hexdigest()


def token(seat: int, n: int = 0) -> str:
    return f"{seat:02x}{n:02x}" * 16


def run(table: Table, command: Command, now: float = 1000.0,
        settings: Settings = SETTINGS) -> tuple[Table, list[Entry]]:
    """``command`` decided and what it decided evolved (the game never ends here)."""
    entries = decide(table, command, now, settings)
    for entry in entries:
        table = evolve(table, entry, GameFacts())
    return table, entries
