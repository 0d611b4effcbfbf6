"""Helpers shared by the store tests."""

from __future__ import annotations

import asyncpg

from bezique.service.store.postgres import CHANNEL, RESULTS_CHANNEL


async def store_listener(postgres_url: str) -> tuple[asyncpg.Connection, list[tuple[str, str]]]:
    """A connection listening on the store's channels, and the (channel, payload) pairs it
    hears, in order: what the other replicas are told. The caller closes the connection."""
    heard: list[tuple[str, str]] = []
    listener = await asyncpg.connect(postgres_url)
    for channel in (CHANNEL, RESULTS_CHANNEL):
        await listener.add_listener(channel, lambda _c, _p, ch, payload: heard.append(
            (ch, payload)))
    return listener, heard
