"""JSON encoding of records for the SQL backends (one place, so both agree).

orjson: the payload of every move is encoded once per append, on the event loop's thread,
where the standard library's encoder cost about as much as the rest of the append.
"""

from __future__ import annotations

from typing import Any

import orjson

from bezique.service.store.base import TableState
from bezique.terms import jsonable


def dumps(value: Any) -> str:
    return orjson.dumps(value, default=jsonable).decode()


def loads(text: str | bytes | None) -> Any:
    return orjson.loads(text) if text else {}


def state_from_row(version: int, phase: str, free_seats: int, finished: Any, seats: str,
                   deadline: float | None) -> TableState:
    return TableState(int(version), phase, int(free_seats), bool(finished), loads(seats),
                      deadline)
