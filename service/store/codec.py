"""JSON encoding of records for the SQL backends (one place, so both agree)."""

from __future__ import annotations

import json
from typing import Any

from service.store.base import TableState


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def loads(text: str | bytes | None) -> Any:
    return json.loads(text) if text else {}


def state_from_row(version: int, phase: str, free_seats: int, finished: Any, seats: str,
                   deadline: float | None) -> TableState:
    return TableState(int(version), phase, int(free_seats), bool(finished), json.loads(seats),
                      deadline)
