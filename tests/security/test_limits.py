"""Every limit is configurable and answers RESOURCE_EXHAUSTED (or the option's error)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.service.limits import RateLimiter
from tests.helpers import details, eventually
from tests.service.helpers import expect_error, serving, two_seats


async def watch_until_cancelled(client: AsyncTableClient, table_id: str,
                                token: str | None) -> None:
    async for _ in client.watch(table_id, token, 0, resume=False):
        pass


async def test_rate_limit_per_caller() -> None:
    # a slow refill (one call in 4 s), so that the five calls below fit in one token's time
    # however loaded the machine; the sleep after them can only be long enough
    async with serving(rate_limit=0.25, rate_burst=4.0) as (_, client):
        # 3 calls from this peer (no entropy: no reveals, which a seat's address pays too)
        table_id, first, _ = await two_seats(client, entropy=b"")
        await client.list_variants()  # the 4th
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, client.list_variants())
        assert details(error)["reason"] == "RATE_LIMITED"
        # a seat token is no way around the address's bucket: its calls count there too
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   client.view(table_id, first.token))
        assert details(error)["reason"] == "RATE_LIMITED"
        await asyncio.sleep(4.1)  # the bucket refills at one call in 4 s
        assert await client.list_variants()


def test_the_bucket_refills_and_forgets_idle_callers() -> None:
    limiter = RateLimiter(rate=10, burst=2, max_callers=2)
    assert limiter.allow("a", 0.0) and limiter.allow("a", 0.0)
    assert not limiter.allow("a", 0.0)
    assert limiter.allow("a", 0.1)
    assert limiter.allow("b", 0.1)
    assert limiter.allow("c", 10.0)  # a and b were full again: forgotten, not refused
    assert RateLimiter(rate=0, burst=0).allow("anyone")


async def test_watch_streams_per_caller_and_per_table() -> None:
    async with serving(max_watchers_per_caller=2, max_watchers_per_table=3) as (server, client):
        table_id, first, _ = await two_seats(client)
        live = await server.manager.table(table_id)

        def hold(token: str | None) -> Coroutine[None, None, None]:
            return watch_until_cancelled(client, table_id, token)

        held = [asyncio.create_task(hold(None)) for _ in range(2)]
        await eventually(lambda: len(live.watchers) == 2, what="two watchers")
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, hold(None))
        assert details(error)["reason"] == "TOO_MANY_STREAMS"
        # a seat token does not make a new caller: tokens are minted by joining tables
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, hold(first.token))
        assert details(error)["reason"] == "TOO_MANY_STREAMS"
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)
        await eventually(lambda: not live.watchers, what="the watchers to be released")
        assert not server.manager.closing


async def test_spectators_cannot_crowd_the_seats_out() -> None:
    async with serving(max_watchers_per_caller=0, max_watchers_per_table=3) as (server, client):
        table_id, first, second = await two_seats(client)
        live = await server.manager.table(table_id)

        def hold(token: str | None) -> Coroutine[None, None, None]:
            return watch_until_cancelled(client, table_id, token)

        held = [asyncio.create_task(hold(None)) for _ in range(3)]
        await eventually(lambda: len(live.watchers) == 3, what="three spectators")
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, hold(None))
        assert "spectator watchers" in (error.details() or "")
        held += [asyncio.create_task(hold(token)) for token in (first.token, second.token)]
        await eventually(lambda: len(live.watchers) == 5, what="both seats watching too")
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)
        await eventually(lambda: not live.watchers, what="the watchers to be released")


async def test_tables_per_server() -> None:
    async with serving(max_tables=2) as (_, client):
        await client.create_table("highcard")
        await client.create_table("highcard")
        await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, client.create_table("highcard"))


async def test_maximum_message_size() -> None:
    async with serving(max_message_bytes=4096) as (_, client):
        error = await expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   client.create_table("highcard", {"players": "9" * 10_000}))
        assert "message" in (error.details() or "").lower()
        assert await client.list_variants()


async def test_option_values_are_range_checked(client: AsyncTableClient) -> None:
    for value in ("1", "5", "-3", "99999999999999999999"):
        error = await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                                   client.create_table("highcard", {"players": value}))
        assert details(error)["fields"] == ["options[players]"]


async def test_long_names_and_request_ids_are_refused(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard")
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT, client.join(table.table_id,
                                                                     name="x" * 65))
    table_id, first, _ = await two_seats(client)
    view = await client.view(table_id, first.token)
    await expect_error(grpc.StatusCode.INVALID_ARGUMENT,
                       client.submit(first, view.legal_moves[0], view.version, "r" * 129))


async def test_made_up_tokens_earn_no_bucket_of_their_own() -> None:
    import secrets

    from bezique.v1 import table_service_pb2 as pb

    async with serving(rate_limit=1.0, rate_burst=3.0) as (_, client):
        passed = 0
        for _ in range(20):
            made_up = (("authorization", f"Bearer {secrets.token_hex(32)}"),)
            try:
                await client.stub.ListVariants(pb.ListVariantsRequest(), metadata=made_up)
                passed += 1
            except grpc.aio.AioRpcError as error:
                assert details(error)["reason"] == "RATE_LIMITED"
        assert passed <= 4  # the peer's burst of 3, and what refilled meanwhile


def test_the_least_recently_used_caller_is_forgotten_first() -> None:
    limiter = RateLimiter(rate=1, burst=1, max_callers=2)
    assert limiter.allow("a", 0.0) and limiter.allow("b", 0.0)
    assert not limiter.allow("a", 0.0)  # a is now the most recently used, with no token left
    assert limiter.allow("c", 0.0)  # b goes, not a
    assert not limiter.allow("a", 0.0)
    assert len(limiter._buckets) == 2
