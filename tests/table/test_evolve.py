"""The one reducer refuses what no decision could have written, so a doctored log neither
loads on the server nor verifies (the verifier replays with it)."""

from __future__ import annotations

import hashlib

import pytest

from bezique.table.entries import (
    Aborted,
    Created,
    Ended,
    Entry,
    Joined,
    Left,
    Moved,
    Revealed,
    Started,
    TokenReissued,
)
from bezique.table.state import EntryRejected, GameFacts, Table, evolve
from bezique.variants.api import Move

SECRET = b"\x07" * 16
PROMISE = hashlib.sha256(SECRET).hexdigest()


def replayed(*entries: Entry) -> Table:
    table = Table.empty(2)
    for entry in entries:
        table = evolve(table, entry)
    return table


def test_a_replay_keeps_seats_tokens_grants_and_who_may_join() -> None:
    table = replayed(Created("highcard", 1, {}, "c", 2, "platform"),
                     Joined(0, "ann", "a", grant_jti="g"),
                     Joined(1, "bob", "b"), Left(1), Joined(1, "cy", "c"),
                     TokenReissued(0, "a2", 50.0))
    assert [seat.name for seat in table.seats] == ["ann", "cy"]
    assert table.seats[0].token_hash == "a2" and table.seats[0].token_expires == 50.0
    assert dict(table.revoked) == {"b": "left", "a": "reissued"}
    assert table.grant_jtis == {"g"} and table.joins == "platform" and table.version == 6
    assert table.chance_version == 2 and table.ready


@pytest.mark.parametrize(("entries", "why"), [
    ((Joined(0, "ann", "a"), Joined(0, "eve", "e")), "joined while it is held"),
    ((Left(0),), "given up while it is free"),
    ((Joined(2, "ann", "a"),), "not a seat of this table"),
    ((Joined(0, "ann", "a", entropy="00", entropy_commitment=PROMISE),), "both entropy"),
    ((Joined(0, "bot", bot="random"), TokenReissued(0, "x")), "no player holds it"),
    ((Started(),), "seats [0, 1] free"),
    ((Joined(0, "ann", "a", entropy_commitment=PROMISE), Joined(1, "bob", "b"), Started()),
     "before seats [0] revealed"),
    ((Joined(0, "ann", "a", entropy_commitment=PROMISE), Revealed(0, SECRET.hex())),
     "before every seat is taken"),
    ((Joined(0, "ann", "a", entropy_commitment=PROMISE), Joined(1, "bob", "b"),
      Revealed(0, "00" * 16)), "does not match its commitment"),
    ((Joined(0, "ann", "a", entropy_commitment=PROMISE), Joined(1, "bob", "b"), Left(1)),
     "given up in the reveal round"),
    ((Joined(0, "ann", "a", entropy_commitment=PROMISE), Joined(1, "bob", "b"), Ended((1,))),
     "owed a reveal are [0]"),
    ((Joined(0, "ann", "a"), Joined(1, "bob", "b"), Started(), Joined(0, "eve", "e")),
     "follows the start"),
    ((Moved("move", 0, Move("play")),), "before the game started"),
    ((Aborted(), Joined(0, "ann", "a")), "follows the abort"),
    ((Joined(0, "ann", "a"), Created("highcard", 1, {}, "c")), "follows the first one"),
    ((Joined(0, "ann", "a", entropy_commitment=PROMISE), Joined(1, "bob", "b"),
      Aborted(withheld=(1,))), "owed a reveal are [0]"),
])
def test_an_entry_no_decision_could_make_is_rejected(entries: tuple[Entry, ...],
                                                     why: str) -> None:
    with pytest.raises(EntryRejected, match=why.replace("[", r"\[").replace("]", r"\]")):
        replayed(*entries)


def test_the_game_says_when_it_is_over_and_an_over_game_is_not_aborted() -> None:
    table = replayed(Joined(0, "ann", "a"), Joined(1, "bob", "b"))
    table = evolve(table, Started(), GameFacts(start_stacks=(100, 100)))
    assert table.start_stacks == (100, 100) and not table.finished
    table = evolve(table, Moved("move", 1, Move("play"), deadline=9.0), GameFacts(True))
    assert table.finished and table.deadline == 9.0
    with pytest.raises(EntryRejected, match="aborted after it ended"):
        evolve(table, Aborted())


def test_a_moves_state_is_built_like_any_other() -> None:
    """evolve builds a move's state field by field (the hot path): the same as replacing the
    fields a move changes."""
    table = replayed(Created("highcard", 1, {}, "c", 2, "open"), Joined(0, "ann", "a"),
                     Joined(1, "bob", "b", grant_jti="g"), Started())
    for over in (False, True):
        after = evolve(table, Moved("move", 1, Move("play"), deadline=7.0), GameFacts(over))
        assert after == table._replace(version=table.version + 1, deadline=7.0,
                                       game_over=over)
