"""Connected seats in the store, for the abandon sweep (``Store.touch_tables`` and
``Store.idle_tables``): the SQL both database stores run, in one place beside each other.

A replica writes "a seat of this table is connected now" into ``presence`` for the tables where
it holds a seat's stream; a table is idle when its last log entry and its last presence are
both older than its window (service/scheduler.py, docs/operations.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from bezique.service.store.base import UNSTARTED_PHASES, StoreError

SQLITE_TOUCH = ("INSERT INTO presence (table_id, seen_at) VALUES (?, ?) ON CONFLICT (table_id) "
                "DO UPDATE SET seen_at = max(seen_at, excluded.seen_at)")

SQLITE_IDLE = f"""
    SELECT table_id, version FROM (
        SELECT t.table_id AS table_id, coalesce(l.version, t.version) AS version,
               t.phase AS phase,
               max(coalesce(l.created_at, t.created_at), coalesce(p.seen_at, 0)) AS last
        FROM tables t
        LEFT JOIN log l ON l.table_id = t.table_id
             AND l.version = (SELECT max(version) FROM log WHERE log.table_id = t.table_id)
        LEFT JOIN presence p ON p.table_id = t.table_id
        WHERE t.finished = 0)
    WHERE last < CASE WHEN phase IN ({", ".join("?" * len(UNSTARTED_PHASES))}) THEN ? ELSE ? END
    ORDER BY table_id LIMIT ?"""

POSTGRES_TOUCH = ("INSERT INTO presence (table_id, seen_at) SELECT unnest($1::text[]), $2 "
                  "ON CONFLICT (table_id) DO UPDATE SET "
                  "seen_at = GREATEST(presence.seen_at, excluded.seen_at)")

POSTGRES_IDLE = """
    SELECT t.table_id, t.version FROM tables t
    LEFT JOIN presence p ON p.table_id = t.table_id
    WHERE NOT t.finished AND GREATEST(
        COALESCE((SELECT l.created_at FROM log l WHERE l.table_id = t.table_id
                  ORDER BY l.version DESC LIMIT 1), t.created_at),
        COALESCE(p.seen_at, 0))
        < CASE WHEN t.phase = ANY($3::text[]) THEN $2::float8 ELSE $1::float8 END
    ORDER BY t.table_id LIMIT $4"""
"""Parameters: started_before, unstarted_before, UNSTARTED_PHASES, limit."""


def sqlite_touch(db: sqlite3.Connection, table_ids: Sequence[str], seen_at: float) -> None:
    try:
        db.executemany(SQLITE_TOUCH, [(table_id, seen_at) for table_id in table_ids])
    except sqlite3.Error as exc:
        raise StoreError(f"could not record connected seats: {exc}") from exc


def sqlite_idle(db: sqlite3.Connection, started_before: float, unstarted_before: float,
                limit: int) -> list[tuple[str, int]]:
    rows = db.execute(SQLITE_IDLE, (*UNSTARTED_PHASES, unstarted_before, started_before, limit))
    return [(str(t), int(v)) for t, v in rows]
