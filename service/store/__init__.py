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

POSTGRES_EXTRA = ("the PostgreSQL store needs asyncpg, which is not installed: "
                  "pip install 'bezique-engine[postgres]'")


class MissingExtra(Exception):
    """A store needs an optional dependency that is not installed; the message says how to
    install it."""


def open_store(url: str, *, sqlite_synchronous: str = "normal") -> Store:
    """The store a URL names, configured here once (not yet opened: call ``await
    store.open()``); ``sqlite_synchronous`` is sqlite's ``PRAGMA synchronous``."""
    if url in ("memory", "memory:"):
        from bezique.service.store.memory import MemoryStore

        return MemoryStore()
    if url.startswith("sqlite:"):
        from bezique.service.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:").removeprefix("//") or "data/bezique.sqlite",
                           synchronous=sqlite_synchronous)
    if url.startswith(("postgres://", "postgresql://")):
        try:
            from bezique.service.store.postgres import PostgresStore
        except ModuleNotFoundError as exc:  # asyncpg comes with the optional extra only
            if exc.name != "asyncpg":
                raise
            raise MissingExtra(POSTGRES_EXTRA) from None
        return PostgresStore(url)
    raise ValueError(f"unknown store URL {url!r} (memory:, sqlite:PATH, postgresql://...)")


__all__ = ["POSTGRES_EXTRA", "LogEntry", "MissingExtra", "RequestIdTaken", "Snapshot", "Store",
           "StoreError", "TableRecord", "TableResult", "TableState", "VersionConflict",
           "open_store"]
