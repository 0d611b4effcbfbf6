"""A quicker way to build the :class:`~variants.api.Event` records of a deal.

A deal of Quart-Bezique is short (about four decisions) but publishes some seventeen events, and
the frozen dataclass constructor (one ``object.__setattr__`` per field) is a large share of
the cost of a deal. :func:`event` fills the slots directly, which makes an object equal in
every field to the one the constructor makes (the tests check this), at half the cost.

It is used only while :class:`Event` is exactly what it was written against: these fields in
this order, slots, and no ``__post_init__``. If ``variants/api.py`` changes that, :func:`event`
simply calls the constructor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from variants.api import EMPTY, Detail, Event

_FIELDS = ("kind", "seat", "cards", "amount", "label", "detail", "visible_to", "hidden")


def _slot_setters() -> tuple[Callable[[Event, Any], None], ...] | None:
    if (tuple(f.name for f in fields(Event)) != _FIELDS or hasattr(Event, "__post_init__")
            or "__slots__" not in Event.__dict__):
        return None
    return tuple(getattr(Event, name).__set__ for name in _FIELDS)


_SETTERS = _slot_setters()
FAST = _SETTERS is not None


def event(kind: str, seat: int | None, cards: tuple[int, ...] = (), amount: int = 0,
          detail: Detail = EMPTY, visible_to: frozenset[int] | None = None) -> Event:
    """``Event(kind, seat, cards, amount, "", detail, visible_to, 0)``, built faster."""
    if _SETTERS is None:  # pragma: no cover - only if variants.api.Event changes shape
        return Event(kind, seat, cards, amount, "", detail, visible_to, 0)
    record = object.__new__(Event)
    set_kind, set_seat, set_cards, set_amount, set_label, set_detail, set_visible, set_hidden = \
        _SETTERS
    set_kind(record, kind)
    set_seat(record, seat)
    set_cards(record, cards)
    set_amount(record, amount)
    set_label(record, "")
    set_detail(record, detail)
    set_visible(record, visible_to)
    set_hidden(record, 0)
    return record
