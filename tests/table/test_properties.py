"""Properties of the decider over random command sequences, without a store or a port: what
decide returns, evolve takes; a refusal is a service error and changes nothing; the state's
invariants hold after every step; and replaying the stored form of every entry gives the same
state (evolve over encode/decode)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bezique.service.decide import (
    Abort,
    Command,
    EndReveal,
    Join,
    Leave,
    Reissue,
    Reveal,
    decide,
)
from bezique.service.errors import ServiceError
from bezique.table.entries import Created, Entry, Joined, decode, encode
from bezique.table.state import GameFacts, Table, evolve
from bezique.terms import OPEN_JOINS, PLATFORM_JOINS
from tests.table.helpers import SETTINGS, commitment, entropy, token

SEATS = 3


@st.composite
def commands(draw: st.DrawFn) -> list[tuple[float, Command]]:
    found: list[tuple[float, Command]] = []
    now = 0.0
    for n in range(draw(st.integers(1, 30))):
        now += draw(st.sampled_from([0.0, 1.0, 50.0]))
        seat = draw(st.integers(0, SEATS))  # one past the last seat, too
        choice = draw(st.sampled_from(["join", "commit", "bot", "leave", "reissue", "reveal",
                                       "bad reveal", "end", "abort"]))
        command: Command
        if choice in ("join", "commit", "bot"):
            command = Join(draw(st.none() | st.just(seat)), f"p{n}",
                           "" if choice == "bot" else token(seat % SEATS, n),
                           bot="random" if choice == "bot" else "",
                           entropy_commitment=commitment(n) if choice == "commit" else "",
                           grant_jti=draw(st.sampled_from(["", "g1", "g2", f"g{n + 3}"])),
                           vouched=draw(st.booleans()))
        elif choice == "leave":
            command = Leave(seat % SEATS)
        elif choice == "reissue":
            command = Reissue(seat, token(seat % SEATS, n + 100))
        elif choice in ("reveal", "bad reveal"):
            which = draw(st.integers(0, 30)) if choice == "reveal" else 99
            command = Reveal(seat % SEATS, entropy(which).hex())
        elif choice == "end":
            command = EndReveal(draw(st.integers(0, 40)))
        else:
            command = Abort()
        found.append((now, command))
    return found


def check_invariants(table: Table) -> None:
    held = {seat.token_hash for seat in table.seats if seat.token_hash}
    assert not held & set(table.revoked), "a revoked token still holds a seat"
    assert table.free_seats + sum(seat.occupied for seat in table.seats) == len(table.seats)
    if table.started:
        assert not table.free_seats and not table.owing
    assert not (table.started and table.ended is not None)
    assert table.awaiting_reveal == () or (not table.free_seats and not table.started)
    for seat in table.seats:
        assert not (seat.bot and seat.token_hash)


@given(commands(), st.sampled_from(["", OPEN_JOINS, PLATFORM_JOINS]))
def test_decided_entries_are_taken_by_evolve_and_survive_their_stored_form(
        steps: list[tuple[float, Command]], joins: str) -> None:
    table = evolve(Table.empty(SEATS), Created("highcard", 1, {}, "c", 2, joins))
    log: list[Entry] = [Created("highcard", 1, {}, "c", 2, joins)]
    for now, command in steps:
        before = table
        try:
            entries = decide(table, command, now, SETTINGS)
        except ServiceError:
            assert table == before
            continue
        for entry in entries:
            if isinstance(entry, Joined) and not entry.bot and joins == PLATFORM_JOINS:
                assert isinstance(command, Join) and command.vouched
            table = evolve(table, entry, GameFacts())
            log.append(entry)
        check_invariants(table)
    again = Table.empty(SEATS)
    for entry in log:
        again = evolve(again, decode(entry.kind, entry.seat, encode(entry)), GameFacts())
    assert again == table and again.version == len(log)


@given(commands())
def test_grants_are_used_once(
        steps: list[tuple[float, Command]]) -> None:
    table = Table.empty(SEATS)
    grants: list[str] = []
    for now, command in steps:
        try:
            entries = decide(table, command, now, SETTINGS)
        except ServiceError:
            continue
        for entry in entries:
            table = evolve(table, entry, GameFacts())
            if isinstance(entry, Joined) and entry.grant_jti:
                grants.append(entry.grant_jti)
    assert len(grants) == len(set(grants))
    assert table.grant_jtis == set(grants)
