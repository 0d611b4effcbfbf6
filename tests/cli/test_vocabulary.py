"""A variant declares its vocabulary; ListVariants sends it, and the terminal clients use it:
the example plugin (a third party's game) reads in words, not raw keys, and a variant that
declares nothing still reads (raw keys with spaces)."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from bezique.clients.render import Words, event_text
from bezique.clients.sdk import AsyncTableClient
from bezique.v1 import table_service_pb2 as pb
from bezique.variants.api import NO_VOCABULARY, Vocabulary
from bezique.variants.host import vocabulary_of
from tests.cli.helpers import Run, finish
from tests.core.plain import PlainCard


def infos(address: str) -> dict[str, pb.VariantInfo]:
    async def ask() -> dict[str, pb.VariantInfo]:
        async with AsyncTableClient(address) as client:
            return {info.id: info for info in await client.list_variants()}

    return asyncio.run(ask())


def test_list_variants_sends_each_built_in_and_plugin_vocabulary(server: str) -> None:
    found = infos(server)
    highcard = found["highcard"].vocabulary
    assert highcard.events["round_won"] == "wins the round"
    assert highcard.zones["table"] == "On the table"
    assert "highest card" in highcard.moves["play"]
    quart = found["quart-bezique"].vocabulary
    assert quart.zones["muck/folded"] == "Folded cards"
    assert quart.details["min_bet"] == "min raise"
    assert "compared" in quart.moves["show"]
    bezique = found["bezique-2p"].vocabulary
    assert bezique.phases["endgame"].startswith("Endgame")
    assert "LOSE" in bezique.moves["claim"]


def test_a_plugin_without_vocabulary_gets_an_empty_one() -> None:
    assert vocabulary_of(PlainCard()) is NO_VOCABULARY
    worded = PlainCard()
    worded.vocabulary = Vocabulary(phases={"a": "A"})  # type: ignore[attr-defined]
    assert vocabulary_of(worded).phases == {"a": "A"}
    # the clients fall back to the raw key, underscores as spaces
    line = io.StringIO()
    Console(file=line, width=200, color_system=None).print(event_text(
        pb.Event(kind="round_won", seat=1), {1: "Seat 1"}, words=Words()))
    assert line.getvalue().strip() == "Seat 1 round won"


def test_the_replay_and_the_view_of_the_example_plugin_read_in_its_words(
        run: Run, server: str) -> None:
    created = run("create", "highcard", "--bot", "1=highest", "--option", "hand_size=2")
    table = next(line.split(": ")[1] for line in created.out.splitlines()
                 if line.startswith("table: "))
    joined = run("join", table)
    token = next(line.split(": ")[1] for line in joined.out.splitlines()
                 if line.startswith("token: "))
    view = run("view", table, f"--token={token}")
    assert "· Playing ·" in view.out  # the phase's label
    assert "play this card; the highest card on the table takes the round" in view.out
    assert "On the table" in view.out or "Hand" in view.out
    asyncio.run(finish(server, table, token))
    replay = run("history", table, "--replay")
    assert replay.code == 0, replay.err
    assert "Round 1:" in replay.out and "is dealt" in replay.out
    assert "round_won" not in replay.out
