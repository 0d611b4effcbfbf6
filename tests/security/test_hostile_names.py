"""Blank and look-alike names, over a real port (issue #26, 8): a name that shows nothing, one
that looks like a seated player's, and one that looks like a bot are refused, and change
nothing at the table."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from tests.helpers import details
from tests.service.helpers import expect_error, platform_of

BLANK = ["   ", "\u00a0", "\u2800\u2800", "\u200d", "\ufe0f", "\u200c\u200d", "\u3000",
         " \u2800\u00a0 ", "\ufe00", "\u0301"]
"""Names accepted before: each shows nothing beside the other names of a table."""
LOOK_ALIKES = ["ann\u200d", "Ann", "\u0430nn", "ann\ufe0f", "ANN", "\uff41\uff4e\uff4e",
               " ann ", "a\u200cnn"]
"""Each looks like ``ann`` on a screen (a Cyrillic а, fullwidth letters, joiners, selectors)."""
BOT_LIKE = ["heuristic bot", "random bot", "highest bot", "Random Bot", "r\u0430ndom bot",
            "highest-bot", "randombot", "seat 1"]
"""Labels the server gives bots (``<policy> bot``) and unnamed seats (``seat <n>``)."""


@pytest.mark.parametrize("name", BLANK)
async def test_a_name_that_shows_nothing_is_refused(client: AsyncTableClient, name: str) -> None:
    table = await client.create_table("highcard")
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.join(table.table_id, name=name))
    assert details(error)["fields"] == ["display_name"]
    assert "shows nothing" in (error.details() or "")
    assert (await client.view(table.table_id)).version == 1


@pytest.mark.parametrize("name", LOOK_ALIKES)
async def test_a_look_alike_of_a_seated_name_is_taken(client: AsyncTableClient,
                                                      name: str) -> None:
    table = await client.create_table("highcard", {"players": 3})
    await client.join(table.table_id, name="ann")
    version = (await client.view(table.table_id)).version
    error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION,
                               client.join(table.table_id, name=name))
    assert details(error)["reason"] == "NAME_TAKEN"
    assert (error.details() or "").startswith("display_name ")
    assert "looks like 'ann'" in (error.details() or "")
    assert (await client.view(table.table_id)).version == version


async def test_a_name_given_up_is_free_again(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", {"players": 3})
    ann = await client.join(table.table_id, name="ann")
    await expect_error(grpc.StatusCode.FAILED_PRECONDITION, client.join(table.table_id,
                                                                        name="Ann"))
    await client.leave(ann)
    seat = await client.join(table.table_id, name="Ann")
    assert (await client.view(table.table_id)).seats[seat.seat].display_name == "Ann"


@pytest.mark.parametrize("name", BOT_LIKE)
async def test_a_person_cannot_pass_for_a_bot_or_an_empty_seat(client: AsyncTableClient,
                                                               name: str) -> None:
    table = await client.create_table("highcard", {"players": 3}, bots={2: "random"})
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.join(table.table_id, name=name))
    assert details(error)["fields"] == ["display_name"]
    view = await client.view(table.table_id)
    assert [seat.occupied for seat in view.seats] == [False, False, True]
    assert view.seats[2].display_name == "random bot"  # the server's label, its alone


async def test_names_are_kept_in_nfc_and_trimmed(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", {"players": 3})
    seat = await client.join(table.table_id, name="\u00a0Zoe\u0308 ")
    unnamed = await client.join(table.table_id)  # no name: the seat's label, as before
    view = await client.view(table.table_id)
    assert view.seats[seat.seat].display_name == "Zo\u00eb"
    assert view.seats[unnamed.seat].display_name == f"seat {unnamed.seat}"
    joined = [e.display_name for e in (await client.history(table.table_id)).entries
              if e.entry_kind == "joined"]
    assert joined == ["Zo\u00eb", f"seat {unnamed.seat}"]


async def test_a_platforms_grant_names_follow_the_same_rules(tmp_path: Path) -> None:
    async for made in platform_of(tmp_path, "EdDSA"):
        table = await made.platform.create_table("highcard", {"players": 3})
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT, made.player.join(
            table.table_id, grant=made.grant(table.table_id, name="\u2800")))
        assert details(error)["fields"] == ["display_name"]
        await made.player.join(table.table_id, grant=made.grant(table.table_id, name="ann"))
        error = await expect_error(grpc.StatusCode.FAILED_PRECONDITION, made.player.join(
            table.table_id, grant=made.grant(table.table_id, sub="acct-8", name="\u0430nn")))
        assert details(error)["reason"] == "NAME_TAKEN"
