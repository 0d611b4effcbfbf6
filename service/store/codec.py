"""JSON encoding of records for the SQL backends (one place, so both agree).

orjson: the payload of every move is encoded once per append, on the event loop's thread,
where the standard library's encoder cost about as much as the rest of the append.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from bezique.service.store.base import TableState


def _default(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot store {type(value).__name__} as JSON")


def dumps(value: Any) -> str:
    return orjson.dumps(value, default=_default).decode()


def loads(text: str | bytes | None) -> Any:
    return orjson.loads(text) if text else {}


def state_from_row(version: int, phase: str, free_seats: int, finished: Any, seats: str,
                   deadline: float | None) -> TableState:
    return TableState(int(version), phase, int(free_seats), bool(finished), loads(seats),
                      deadline)
