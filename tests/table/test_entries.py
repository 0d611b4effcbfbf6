"""Typed log entries: each kind's stored form is the one the log has always held, so every
older log still loads, and decoding what was encoded gives the record back."""

from __future__ import annotations

from typing import Any

import pytest

from bezique.table.entries import (
    Aborted,
    Created,
    Ended,
    Entry,
    EntryError,
    Joined,
    Left,
    Moved,
    Revealed,
    Started,
    TokenReissued,
    decode,
    encode,
)
from bezique.variants.api import Move

EVENT = {"kind": "deal", "seat": 0, "cards": [3, 17], "amount": 0, "label": "", "detail": {},
         "visible_to": [0], "hidden": 0}

SAMPLES: list[tuple[Entry, dict[str, Any]]] = [
    (Created("highcard", 1, {"players": 2}, "ab" * 32, 2),
     {"variant": "highcard", "variant_version": 1, "options": {"players": 2},
      "commitment": "ab" * 32, "chance": 2}),
    (Created("quart-bezique", 1, {}, "cd" * 32, 2, "platform"),
     {"variant": "quart-bezique", "variant_version": 1, "options": {},
      "commitment": "cd" * 32, "chance": 2, "joins": "platform"}),
    (Joined(0, "ann", "h" * 64, entropy="00" * 16, player_id="p-1", buy_in=50,
            grant_jti="j-1", token_expires=12.5),
     {"name": "ann", "token_hash": "h" * 64, "entropy": "00" * 16, "player_id": "p-1",
      "buy_in": 50, "grant_jti": "j-1", "token_expires": 12.5}),
    (Joined(1, "random bot", bot="random"), {"name": "random bot", "bot": "random"}),
    (Joined(1, "bob", "h" * 64, entropy_commitment="c" * 64, deadline=70.0),
     {"name": "bob", "token_hash": "h" * 64, "entropy_commitment": "c" * 64,
      "deadline": 70.0}),
    (Left(1), {}),
    (TokenReissued(0, "k" * 64, None, 40.0), {"token_hash": "k" * 64, "deadline": 40.0}),
    (TokenReissued(0, "k" * 64, 99.0), {"token_hash": "k" * 64, "deadline": None,
                                        "token_expires": 99.0}),
    (Revealed(1, "11" * 16, 70.0), {"entropy": "11" * 16, "deadline": 70.0}),
    (Started((EVENT,), 30.0), {"events": [EVENT], "deadline": 30.0}),
    (Moved("move", 0, Move("play", (3,))), {
        "move": {"kind": "play", "cards": [3], "amount": 0, "label": ""}, "events": [],
        "deadline": None}),
    (Moved("bot_move", 1, Move("raise", (), 10), (EVENT,), 5.0), {
        "move": {"kind": "raise", "cards": [], "amount": 10, "label": ""}, "events": [EVENT],
        "deadline": 5.0}),
    (Aborted(), {"events": [], "deadline": None}),
    (Aborted("closing", (EVENT,)), {"events": [EVENT], "deadline": None, "note": "closing"}),
    (Aborted("", (), (0, 2)), {"events": [], "deadline": None, "withheld": [0, 2]}),
    (Aborted(reason="abandoned"), {"events": [], "deadline": None, "reason": "abandoned"}),
    (Ended((1,), events=(EVENT,)), {"reason": "reveal_timeout", "withheld": [1],
                                    "events": [EVENT], "deadline": None}),
]


@pytest.mark.parametrize(("entry", "stored"), SAMPLES)
def test_each_kind_is_stored_as_the_log_always_held_it(entry: Entry,
                                                       stored: dict[str, Any]) -> None:
    payload = encode(entry)
    assert payload == stored
    assert list(payload) == list(stored)  # the same keys in the same order: the same JSON
    assert decode(entry.kind, entry.seat, payload) == entry


def test_older_payloads_decode_with_what_they_left_out() -> None:
    created = decode("created", None, {"variant": "bezique", "variant_version": 1,
                                       "options": {}, "commitment": "c"})
    assert isinstance(created, Created) and created.chance == 0
    joined = decode("joined", 0, {"name": "ann", "token_hash": "h"})
    assert joined == Joined(0, "ann", "h")
    assert decode("revealed", 1, {"entropy": "00"}) == Revealed(1, "00", None)
    assert decode("ended", None, {"withheld": [1]}) == Ended((1,))


@pytest.mark.parametrize(("kind", "seat", "payload"), [
    ("move", 0, {"events": []}),  # no move
    ("move", None, {"move": {"kind": "play"}}),  # no seat
    ("token_reissued", 0, {}),  # no token hash
    ("joined", 0, {"name": "ann", "buy_in": "lots"}),
    ("shuffled", None, {}),
])
def test_an_entry_that_does_not_hold_its_kind_is_refused(kind: str, seat: int | None,
                                                          payload: dict[str, Any]) -> None:
    with pytest.raises(EntryError):
        decode(kind, seat, payload)
