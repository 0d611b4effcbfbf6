"""Finding 4 over a real port: a spectator watching 100 Bezique tricks cannot tell from the
public phase who holds a declaration (``declare_prompt=always``, the default), where with
``when_possible`` the phase tells him every time."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import AsyncIterator

import pytest

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.service.server import RunningServer, start_server
from bezique.variants.registry import load_registry
from tests.helpers import server_config

TRICKS = 100
Seen = tuple[str, bool, bool]
"""What the spectator sees right after a trick: phase, winner to move, declaration_pending."""


@pytest.fixture
async def bezique_server() -> AsyncIterator[RunningServer]:
    server = await start_server(server_config(), load_registry())
    yield server
    await server.stop()


async def watch_tricks(address: str, options: dict[str, str]) -> list[tuple[bool, Seen]]:
    """Two seats played by the test, each declaring whenever it can and passing otherwise,
    so holding a declaration is exactly declaring (public). After every trick that ends
    while the stock lasts, a spectator (no token) reads the view."""
    rng = random.Random(15)
    watched: list[tuple[bool, Seen]] = []
    async with AsyncTableClient(address, retries=5, backoff=0.01) as client:
        while len(watched) < TRICKS:
            table = await client.create_table("bezique-2p", {**options, "claims": "false"})
            seats = [await client.join(table.table_id, s, f"p{s}") for s in (0, 1)]
            while len(watched) < TRICKS:
                spectator = await client.view(table.table_id, None)
                if spectator.HasField("outcome") or spectator.phase == "endgame":
                    break  # the phase-1 tricks of this table are over
                seat: SeatHandle = seats[spectator.to_move[0]]
                mine = await client.view(table.table_id, seat.token)
                legal = list(mine.legal_moves)
                if mine.phase == "declare":
                    declarations = [m for m in legal if m.kind != "pass"]
                    move = declarations[0] if declarations else legal[0]
                else:
                    move = rng.choice(legal)
                answer = await client.submit(seat, move, mine.version)
                ended = [e for e in answer.events if e.kind == "trick"]
                if not ended or mine.phase != "play":
                    continue
                winner = ended[0].seat
                after = await client.view(table.table_id, None)
                own = await client.view(table.table_id, seats[winner].token)
                # his own view says whether he holds one (when_possible: not asked, none)
                holds = own.phase == "declare" and any(m.kind != "pass"
                                                       for m in own.legal_moves)
                seen = (after.phase, list(after.to_move) == [winner],
                        after.detail.fields["declaration_pending"].bool_value)
                watched.append((holds, seen))
    return watched


async def test_always_a_spectator_cannot_tell_who_holds_a_meld(
        bezique_server: RunningServer) -> None:
    watched = await watch_tricks(bezique_server.address, {"declare_prompt": "always"})
    holding = {seen for holds, seen in watched if holds}
    empty = {seen for holds, seen in watched if not holds}
    assert len(watched) == TRICKS and holding and empty
    assert holding == empty == {("declare", True, True)}


async def test_the_default_is_the_always_prompt(bezique_server: RunningServer) -> None:
    async with AsyncTableClient(bezique_server.address) as client:
        info = {i.id: i for i in await client.list_variants()}["bezique-2p"]
    prompt = {o.name: o for o in info.options}["declare_prompt"]
    assert prompt.default_value == "always" and list(prompt.choices) == ["always",
                                                                         "when_possible"]
    assert info.version == 2


async def test_when_possible_the_phase_tells(bezique_server: RunningServer) -> None:
    watched = await watch_tricks(bezique_server.address, {"declare_prompt": "when_possible"})
    assert {seen for holds, seen in watched if holds} == {("declare", True, True)}
    assert {seen[0] for holds, seen in watched if not holds} <= {"play", "endgame"}
    assert any(not holds for holds, _ in watched)


async def test_a_version_1_table_is_still_served_and_replays_identically(
        bezique_server: RunningServer) -> None:
    """A table stored by variant version 1 (no ``declare_prompt`` in its options, which
    prompted as ``when_possible``) is replayed from its log by version 2: every stored event
    must come out again (the server refuses a log that replays differently), and the
    spectator sees the very same table."""
    store = bezique_server.store
    async with AsyncTableClient(bezique_server.address, retries=5, backoff=0.01) as client:
        table = await client.create_table("bezique-2p", {"declare_prompt": "when_possible"},
                                          seed=b"declare-prompt-version-1")
        seats = [await client.join(table.table_id, s, f"p{s}", entropy=b"") for s in (0, 1)]
        asked = not_asked = 0
        while True:  # every trick while the stock lasts: some winners asked, some not
            spectator = await client.view(table.table_id, None)
            if spectator.phase == "endgame":
                break
            seat = seats[spectator.to_move[0]]
            mine = await client.view(table.table_id, seat.token)
            answer = await client.submit(seat, mine.legal_moves[0], mine.version)
            kinds = {e.kind for e in answer.events}
            if "trick" in kinds and mine.phase == "play":
                asked += "draw" not in kinds
                not_asked += "draw" in kinds
        assert asked and not_asked, (asked, not_asked)
        found = await store.load_table(table.table_id)
        assert found is not None
        record, state = found
        entries = await store.read_log(table.table_id)
        options = {k: v for k, v in record.options.items() if k != "declare_prompt"}
        old_id = "v1" + record.table_id[2:]
        created = entries[0]
        old_entries = [dataclasses.replace(created, payload={
            **created.payload, "variant_version": 1, "options": options}), *entries[1:]]
        await store.create_table(dataclasses.replace(record, table_id=old_id, variant_version=1,
                                                     options=options), state, old_entries)
        new_view = await client.view(table.table_id, None)
        old_view = await client.view(old_id, None)
        history = await client.history(old_id)
    assert history.variant_version == 1 and "declare_prompt" not in history.options
    new_view.table_id = old_view.table_id = ""
    assert old_view == new_view and old_view.version == len(entries)
