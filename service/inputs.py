"""Wire-input hygiene: what a caller sends is checked here, before any table is held, and a bad
value is refused naming its field. The table's own rules are service/decide.py's.
"""

from __future__ import annotations

import unicodedata

from bezique.service import names
from bezique.service.errors import InvalidArgument
from bezique.service.settings import Limits

MIN_ENTROPY, MAX_ENTROPY = Limits.min_entropy, Limits.max_entropy
"""Bounds on a seat's entropy in bytes: enough to be unguessable, small enough for the log."""
COMMITMENT_BYTES = Limits.commitment_bytes

_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                           "\u2066\u2067\u2068\u2069"
                           # invisible: a name that looks like another's
                           "\u00ad\u200b\u2060\ufeff"
                           # letters that show as blank space (Hangul fillers)
                           "\u115f\u1160\u3164\uffa0")
_JOINERS = frozenset("\u200c\u200d")
"""The format characters a name may hold: the zero-width (non-)joiners of emoji sequences and
of scripts such as Persian. Every other format character (tag characters, invisible operators,
...) shows nothing, so a name holding them looks like another's."""


def unsafe_characters(text: str) -> str:
    """The characters of ``text`` a terminal or a page would act on instead of showing: C0
    and C1 controls (escape sequences), line and paragraph separators, bidi overrides, and
    the invisible characters a look-alike name would hide in."""
    return "".join(c for c in text if unicodedata.category(c) in ("Cc", "Zl", "Zp")
                   or c in _BIDI_CONTROLS
                   or (unicodedata.category(c) == "Cf" and c not in _JOINERS))


def check_join(limits: Limits, name: str, entropy: bytes, entropy_commitment: bytes) -> str:
    """A join's display name, entropy and commitment as sent; the name as the log keeps it."""
    if len(name) > limits.max_name_length:
        raise InvalidArgument(f"display_name is longer than {limits.max_name_length} "
                              "characters", field="display_name")
    unsafe = unsafe_characters(name)
    if unsafe:
        raise InvalidArgument(f"display_name holds control or bidi-override characters "
                              f"({', '.join(f'U+{ord(c):04X}' for c in unsafe[:5])}): "
                              "they would paint other players' screens",
                              field="display_name")
    name = displayed(name)
    if len(name) > limits.max_name_length:  # NFC makes some characters two or three
        raise InvalidArgument(f"display_name is longer than {limits.max_name_length} "
                              "characters once normalized (NFC)", field="display_name")
    if entropy and not MIN_ENTROPY <= len(entropy) <= MAX_ENTROPY:
        raise InvalidArgument(f"entropy must be {MIN_ENTROPY} to {MAX_ENTROPY} bytes, or "
                              "empty", field="entropy")
    if entropy_commitment and (entropy or len(entropy_commitment) != COMMITMENT_BYTES):
        raise InvalidArgument("entropy_commitment must be sha256 of the seat's entropy "
                              f"({COMMITMENT_BYTES} bytes), sent instead of entropy",
                              field="entropy_commitment")
    return name


def displayed(name: str) -> str:
    """A display name as the log keeps it (service/names.py); empty stays empty (the seat's
    label is used)."""
    try:
        return names.stored(name) if name else ""
    except names.NameRefused as exc:
        raise InvalidArgument(str(exc), field="display_name") from exc


def check_reveal(entropy: bytes) -> None:
    if not MIN_ENTROPY <= len(entropy) <= MAX_ENTROPY:
        raise InvalidArgument(f"entropy must be {MIN_ENTROPY} to {MAX_ENTROPY} bytes",
                              field="entropy")


def check_note(limits: Limits, note: str) -> None:
    """An operator's note on AbortTable (kept in the log, shown in the history)."""
    if len(note) > limits.max_note_length:
        raise InvalidArgument(f"note is longer than {limits.max_note_length} characters",
                              field="note")
    if unsafe_characters(note):
        raise InvalidArgument("note holds control or bidi-override characters", field="note")


def check_request_id(limits: Limits, request_id: str) -> None:
    if len(request_id) > limits.max_request_id_length:
        raise InvalidArgument(f"request_id is longer than {limits.max_request_id_length} "
                              "characters", field="request_id")
    if not request_id.isprintable():
        raise InvalidArgument("request_id holds control characters", field="request_id")
