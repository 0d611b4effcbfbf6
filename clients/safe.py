"""Server strings made harmless before a client prints them.

A display name, a variant's text, an event's detail or an error message comes from the server,
and so, in the end, from whoever chose it: a name holding ``ESC[2J`` would clear the terminals
of everyone who views the table, and a right-to-left override would make the text after it read
backwards. :func:`visible` is the one place that decides what a printed server string may hold;
:func:`cleaned` applies it to every string of a wire message.
"""

from __future__ import annotations

import unicodedata
from typing import TypeVar

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

BIDI_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]  # LRE RLE PDF LRO RLO
    + [chr(c) for c in range(0x2066, 0x206A)]  # LRI RLI FSI PDI
    + ["\u200e", "\u200f", "\u061c"])  # LRM RLM ALM: marks, not overrides, but as invisible
"""Characters that change the direction text is shown in."""

M = TypeVar("M", bound=Message)


def _shown(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character (C0, DEL, C1: so no escape sequence can start)
    and every bidi control written out as a visible ``\\x1b`` / ``\\u202e`` escape; other
    text, emoji and accents included, is kept as it is."""
    if text.isprintable():  # the common case, in C: nothing to do
        return text
    return "".join(_shown(c) if c in BIDI_CONTROLS or unicodedata.category(c) == "Cc" else c
                   for c in text)


def cleaned(message: M) -> M:
    """A copy of ``message`` whose strings, at any depth (maps, lists, ``Struct`` details),
    have passed through :func:`visible`. Bytes are left alone."""
    copy = type(message)()
    copy.CopyFrom(message)
    _clean(copy)
    return copy


def _clean(message: Message) -> None:
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_STRING:
            if field.is_repeated:
                value[:] = [visible(v) for v in value]
            else:
                setattr(message, field.name, visible(value))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            entry = _map_entry(field)
            if entry is not None:
                _clean_map(entry, value)
            elif field.is_repeated:
                for item in value:
                    _clean(item)
            else:
                _clean(value)


def _map_entry(field: FieldDescriptor) -> Descriptor | None:
    """The entry type of a map field; None for any other field."""
    entry = field.message_type
    return entry if entry is not None and entry.GetOptions().map_entry else None


def _clean_map(entry: Descriptor, entries: object) -> None:
    items = dict(entries)  # type: ignore[call-overload]
    entries.clear()  # type: ignore[attr-defined]
    scalar = entry.fields_by_name["value"].type != FieldDescriptor.TYPE_MESSAGE
    for key, value in items.items():
        name = visible(key) if isinstance(key, str) else key
        if scalar:
            entries[name] = visible(value) if isinstance(value, str) else value  # type: ignore[index]
        else:
            entries[name].CopyFrom(value)  # type: ignore[index]
            _clean(entries[name])  # type: ignore[index]
