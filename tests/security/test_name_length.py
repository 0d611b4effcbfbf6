"""A display name's 64-character limit holds for the name the log keeps: it is counted before
NFC, and NFC turns some characters into two or three (U+FB2C, a Hebrew presentation form, into
three), so 64 characters were kept as 192. Over a real port."""

from __future__ import annotations

import grpc
import pytest

from bezique.clients.sdk import AsyncTableClient
from tests.helpers import details
from tests.service.helpers import expect_error


@pytest.mark.parametrize("char", ["\ufb2c", "\u0958"])
async def test_a_name_is_no_longer_than_64_characters_as_kept(client: AsyncTableClient,
                                                               char: str) -> None:
    table = await client.create_table("highcard")
    name = char * 64
    error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                               client.join(table.table_id, name=name, commit=False))
    assert details(error)["fields"] == ["display_name"]
    view = await client.view(table.table_id)
    assert not any(seat.occupied for seat in view.seats)
