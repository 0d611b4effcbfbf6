"""service/names.py: a name shows something, look-alike names are one, the server's labels are
its own. Pure: no server here (tests/security/test_hostile_names.py goes over a port)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bezique.service import names

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\u180e",
             "\ufe00", "\ufe0f", "\U000e0100", "\U000e0041", "\u115f", "\u1160", "\u3164",
             "\uffa0", "\u2800", "\u17b4"]
"""Characters that draw nothing by themselves (format, default ignorable, blank)."""
SPACES = [" ", "\t", "\u00a0", "\u2002", "\u2009", "\u202f", "\u3000", "\u1680", "\u205f"]
CYRILLIC = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
            "x": "\u0445", "y": "\u0443"}
"""Latin letters and the Cyrillic letters drawn the same."""
LABELS = names.server_labels(3, ["random", "heuristic"])


@pytest.mark.parametrize("raw", [" ", "\u00a0\u00a0", "\u2800", "\u200d", "\ufe0f",
                                 "\u200d\u200c", "\u3000", " \u2800 \u00a0", "\u3164",
                                 "\u115f\u1160", "\u0301", "\U000e0041", "\ue000"])
def test_a_name_that_shows_nothing_is_refused(raw: str) -> None:
    with pytest.raises(names.NameRefused, match="shows nothing"):
        names.stored(raw)


def test_a_name_is_kept_in_nfc_and_trimmed_and_nothing_inside_changes() -> None:
    assert names.stored("  Zoe\u0308\u00a0") == "Zo\u00eb"
    assert names.stored("\u2800ann lee\u3000") == "ann lee"
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467 family \u2764\ufe0f"
    assert names.stored(family) == family  # the joiners and the emoji's selector stay
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    assert names.stored(persian) == persian


@pytest.mark.parametrize("other", ["ann", "Ann", "ANN", "ann\u200d", "ann\ufe0f", "a\u200cnn",
                                   "\u0430nn", "\uff41\uff4e\uff4e", "ann\u00ad", " ann ",
                                   "\U0001d41a\U0001d427\U0001d427"])
def test_look_alikes_of_ann_clash_with_ann(other: str) -> None:
    assert names.clash(other, ["bob", "ann"]) == "ann"


@pytest.mark.parametrize(("one", "other"), [("Ian", "lan"), ("rn", "m"), ("b0b", "bob"),
                                            ("paypal", "\u0440\u0430ypal")])
def test_letters_drawn_alike_clash(one: str, other: str) -> None:
    assert names.clash(one, [other]) == other


@pytest.mark.parametrize(("one", "other"), [("ann", "anne"), ("ann", "bob"), ("IAN", "lan"),
                                            ("ann lee", "annlee"), ("Zo\u00eb", "Zoe")])
def test_names_that_look_different_do_not_clash(one: str, other: str) -> None:
    assert names.clash(one, [other]) is None


@pytest.mark.parametrize("name", ["heuristic bot", "Random Bot", "r\u0430ndom bot",
                                  "heuristic-bot", "heuristicbot", "B0T", "bot",
                                  "ann (random bot)", "seat 1", "Seat 2", "seat1"])
def test_the_server_labels_and_the_word_bot_are_reserved(name: str) -> None:
    assert names.reserved(name, LABELS) is not None


@pytest.mark.parametrize("name", ["ann", "robot", "Abbott", "seat", "seat 7", "bob"])
def test_names_of_people_are_not_reserved(name: str) -> None:
    assert names.reserved(name, LABELS) is None


def test_the_confusables_data_is_unicodes() -> None:
    table = names.prototypes()
    assert len(table) > 6000
    assert table["\u0430"] == "a" and table["m"] == "rn" and table["1"] == "l"


# ----------------------------------------------------------------------------- properties

NAME_TEXT = st.text(min_size=1, max_size=20).filter(
    lambda text: any(names.shows(char) for char in text))


@given(NAME_TEXT)
def test_stored_is_nfc_trimmed_idempotent_and_keeps_the_key(raw: str) -> None:
    kept = names.stored(raw)
    assert kept == unicodedata.normalize("NFC", kept)
    assert kept == names.stored(kept)
    assert not kept[0].isspace() and not kept[-1].isspace()
    assert names.key(kept) == names.key(raw)


@given(st.text(st.sampled_from(INVISIBLE + SPACES), min_size=1, max_size=12))
def test_only_invisible_characters_and_spaces_are_refused(raw: str) -> None:
    with pytest.raises(names.NameRefused):
        names.stored(raw)


@given(NAME_TEXT, st.lists(st.tuples(st.integers(0, 40), st.sampled_from(INVISIBLE)),
                           min_size=1, max_size=5))
def test_invisible_characters_anywhere_keep_the_name(name: str,
                                                     inserts: list[tuple[int, str]]) -> None:
    padded = name
    for at, char in inserts:
        at %= len(padded) + 1
        padded = padded[:at] + char + padded[at:]
    assert names.clash(padded, [name]) == name


@given(st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz "), min_size=1, max_size=16),
       st.data())
def test_case_and_cyrillic_look_alikes_keep_the_name(name: str, data: st.DataObject) -> None:
    assert names.clash(name.upper(), [name]) == name
    assert names.clash(name.title(), [name]) == name
    swapped = "".join(CYRILLIC[char] if char in CYRILLIC and data.draw(st.booleans()) else char
                      for char in name)
    assert names.clash(swapped, [name]) == name


@given(st.text(max_size=30))
def test_any_text_gets_a_key_and_an_answer(raw: str) -> None:
    names.key(raw)
    names.reserved(raw, LABELS)
    try:
        kept = names.stored(raw)
    except names.NameRefused:
        assert not any(names.shows(char) for char in raw)
    else:
        assert any(names.shows(char) for char in kept)
