"""Table storage: the log of every table, with compare-and-set on the version.

``open_store(url)`` picks the backend from a URL: ``memory:``, ``sqlite:PATH`` or
``postgresql://...``.
"""

from __future__ import annotations

from bezique.service.store.base import (
    LogEntry,
    RequestIdTaken,
    Snapshot,
    Store,
    StoreError,
    TableRecord,
    TableResult,
    TableState,
    VersionConflict,
)


def open_store(url: str) -> Store:
    """The store a URL names (not yet opened: call ``await store.open()``)."""
    if url in ("memory", "memory:"):
        from bezique.service.store.memory import MemoryStore

        return MemoryStore()
    if url.startswith("sqlite:"):
        from bezique.service.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:").removeprefix("//") or "data/bezique.sqlite")
    if url.startswith(("postgres://", "postgresql://")):
        from bezique.service.store.postgres import PostgresStore

        return PostgresStore(url)
    raise ValueError(f"unknown store URL {url!r} (memory:, sqlite:PATH, postgresql://...)")


__all__ = ["LogEntry", "RequestIdTaken", "Snapshot", "Store", "StoreError", "TableRecord",
           "TableResult", "TableState", "VersionConflict", "open_store"]
