"""What a viewer may see of a log entry's events: everything once the game is over, else each
event with the cards it does not show that viewer removed."""

from __future__ import annotations

from collections.abc import Sequence

from bezique.service.store import LogEntry
from bezique.table.entries import stored_events
from bezique.variants.api import Event


def events_for(entry: LogEntry, viewer: int | None, finished: bool) -> list[Event]:
    """An entry's events as ``viewer`` may see them (everything, once the game is over)."""
    return list(redacted(parsed_events(entry), viewer, finished))


def parsed_events(entry: LogEntry) -> tuple[Event, ...]:
    """An entry's events as the log holds them (nothing redacted yet)."""
    return tuple(Event.from_dict(raw) for raw in stored_events(entry.payload))


def redacted(events: Sequence[Event], viewer: int | None, finished: bool) -> tuple[Event, ...]:
    """``events`` as ``viewer`` may see them (everything, once the game is over)."""
    return tuple(events) if finished else tuple(event.redacted_for(viewer) for event in events)
