"""Join grants over a real port: a player's own client joins with a JWT the platform signed,
without the API key; expired, forged, replayed, wrong-table and mismatched grants are refused,
each with its own reason; only the configured key's algorithm is accepted."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from bezique.clients.sdk import AsyncTableClient
from bezique.service.config import parse_config
from bezique.variants.registry import load_registry
from tests.helpers import details
from tests.service.helpers import (
    KINDS,
    Platform,
    expect_error,
    grant,
    platform_of,
)


@pytest.fixture
async def granting(tmp_path: Path) -> AsyncIterator[Platform]:
    async for made in platform_of(tmp_path, "EdDSA"):
        yield made


async def reason_of(code: grpc.StatusCode, call: Any) -> str:
    return str(details(await expect_error(code, call))["reason"])


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_a_grant_joins_without_the_api_key(tmp_path: Path, kind: str) -> None:
    async for made in platform_of(tmp_path, kind):
        table = await made.platform.create_table("highcard", {"players": 2})
        seat = await made.player.join(table.table_id, grant=made.grant(table.table_id, seat=1))
        view = await made.player.view(table.table_id, seat.token)
        assert view.viewer_seat == 1
        assert (view.seats[1].display_name, view.seats[1].player_id) == ("ann", "acct-7")
        history = await made.player.history(table.table_id)
        (joined,) = [e for e in history.entries if e.entry_kind == "joined"]
        assert joined.binding.player_id == "acct-7" and joined.display_name == "ann"


async def test_a_grant_for_any_seat_takes_the_asked_or_first_free(granting: Platform) -> None:
    table = await granting.platform.create_table("highcard", {"players": 3})
    first = await granting.player.join(table.table_id, grant=granting.grant(table.table_id))
    asked = await granting.player.join(table.table_id, 2,
                                       grant=granting.grant(table.table_id, seat="any",
                                                            name="bob"))
    assert (first.seat, asked.seat) == (0, 2)


async def test_a_grant_is_used_once(granting: Platform) -> None:
    table = await granting.platform.create_table("highcard", {"players": 3})
    token = granting.grant(table.table_id)
    seat = await granting.player.join(table.table_id, grant=token)
    assert await reason_of(grpc.StatusCode.PERMISSION_DENIED,
                           granting.player.join(table.table_id, grant=token)) == "GRANT_REPLAYED"
    await granting.player.leave(seat)  # the seat given back does not free the grant
    assert await reason_of(grpc.StatusCode.PERMISSION_DENIED,
                           granting.player.join(table.table_id, grant=token)) == "GRANT_REPLAYED"
    assert (await granting.player.view(table.table_id)).seats[0].occupied is False


async def test_refused_grants_each_have_their_own_reason(granting: Platform,
                                                         tmp_path: Path) -> None:
    table = await granting.platform.create_table("highcard", {"players": 2})
    other = await granting.platform.create_table("highcard", {"players": 2})
    tid = table.table_id
    join = granting.player.join
    unauth, denied = grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED
    expired = granting.grant(tid, exp=int(time.time()) - 30)
    assert await reason_of(unauth, join(tid, grant=expired)) == "GRANT_EXPIRED"
    forged = grant(ed25519.Ed25519PrivateKey.generate(), "EdDSA", tid)
    assert await reason_of(unauth, join(tid, grant=forged)) == "GRANT_INVALID"
    assert await reason_of(denied, join(tid, grant=granting.grant(other.table_id))) \
        == "GRANT_WRONG_TABLE"
    assert await reason_of(unauth, join(tid, grant=granting.grant(tid, jti=None))) \
        == "GRANT_INVALID"
    assert await reason_of(unauth, join(tid, grant=granting.grant(tid, seat="left"))) \
        == "GRANT_INVALID"
    assert await reason_of(unauth, join(tid, grant="not.a.grant")) == "GRANT_INVALID"
    # what the request asks must be what the grant says
    asks: list[tuple[int | None, str, str]] = [(0, "", ""), (None, "acct-8", ""),
                                               (None, "", "eve")]
    for seat, player_id, name in asks:
        assert await reason_of(denied, join(tid, seat, name, player_id=player_id,
                                            grant=granting.grant(tid, seat=1))) \
            == "GRANT_MISMATCH"
    view = await granting.player.view(tid)
    assert not any(s.occupied for s in view.seats) and view.version == 1


def unsigned(table_id: str, header: dict[str, str], secret: bytes = b"") -> str:
    """A grant with a chosen header: `none` (no signature) or an HMAC with ``secret``."""
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    claims = {"table": table_id, "sub": "acct-7", "exp": int(time.time()) + 60,
              "jti": uuid.uuid4().hex}
    signing = f"{part(json.dumps(header).encode())}.{part(json.dumps(claims).encode())}"
    signature = hmac.new(secret, signing.encode(), hashlib.sha256).digest() if secret else b""
    return f"{signing}.{part(signature)}"


async def test_only_the_keys_algorithm_is_accepted(granting: Platform, tmp_path: Path) -> None:
    table = await granting.platform.create_table("highcard", {"players": 2})
    tid = table.table_id
    pem = Path(tmp_path / "grant.pub").read_bytes()
    attempts = [unsigned(tid, {"alg": "none", "typ": "JWT"}),
                unsigned(tid, {"alg": "HS256", "typ": "JWT"}, pem),  # the public key as secret
                grant(ec.generate_private_key(ec.SECP256R1()), "ES256", tid)]
    for token in attempts:
        assert await reason_of(grpc.StatusCode.UNAUTHENTICATED,
                               granting.player.join(tid, grant=token)) == "GRANT_INVALID"


async def test_a_server_without_a_grant_key_takes_no_grant(client: AsyncTableClient) -> None:
    table = await client.create_table("highcard", {"players": 2})
    token = grant(ed25519.Ed25519PrivateKey.generate(), "EdDSA", table.table_id)
    assert await reason_of(grpc.StatusCode.UNAUTHENTICATED,
                           client.join(table.table_id, grant=token)) == "GRANT_INVALID"


async def test_a_grant_carries_the_buy_in_to_the_game(tmp_path: Path) -> None:
    async for made in platform_of(tmp_path, "EdDSA", load_registry()):
        table = await made.platform.create_table("quart-bezique", {"players": 2,
                                                                   "max_buy_in": 4000})
        ann = await made.player.join(table.table_id,
                                     grant=made.grant(table.table_id, buy_in=4000))
        await made.player.join(table.table_id, grant=made.grant(table.table_id, sub="acct-9",
                                                                name="bob"))
        view = await made.player.view(table.table_id, ann.token)
        assert [(s.player_id, s.buy_in, s.stack) for s in view.seats] == [
            ("acct-7", 4000, 3990), ("acct-9", 0, 990)]
        # the player cannot choose another buy-in than the grant's
        other = await made.platform.create_table("quart-bezique", {"players": 2})
        assert await reason_of(grpc.StatusCode.PERMISSION_DENIED, made.player.join(
            other.table_id, grant=made.grant(other.table_id, buy_in=500), buy_in=900)) \
            == "GRANT_MISMATCH"


@pytest.mark.parametrize("bad", ["not a key", "p384"])
def test_the_grant_key_is_checked_at_start_up(tmp_path: Path, bad: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "key.pem"
    if bad == "p384":  # a key of a kind grants cannot use
        path.write_bytes(ec.generate_private_key(ec.SECP384R1()).public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    else:
        path.write_text("-----BEGIN PUBLIC KEY-----\nnonsense\n-----END PUBLIC KEY-----\n")
    with pytest.raises(SystemExit) as exited:
        parse_config(["--grant-public-key", str(path)], {})
    assert exited.value.code == 2
    assert "--grant-public-key" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse_config([], {"BEZIQUE_SEAT_TOKEN_TTL": "-1"})
    assert parse_config([], {"BEZIQUE_SEAT_TOKEN_TTL": "90"}).seat_token_ttl == 90


async def test_a_numeric_date_given_as_a_string_is_refused(granting: Platform) -> None:
    """JWT's exp and nbf are NumericDates (numbers): a string of digits is not one, however
    readily a library converts it."""
    table = await granting.platform.create_table("highcard", {"players": 2})
    tid = table.table_id
    for claims in ({"exp": str(int(time.time()) + 60)}, {"nbf": str(int(time.time()) - 5)}):
        refused = await expect_error(grpc.StatusCode.UNAUTHENTICATED,
                                     granting.player.join(tid, grant=granting.grant(tid, **claims)))
        assert details(refused)["reason"] == "GRANT_INVALID"
        assert next(iter(claims)) in (refused.details() or "")
    assert (await granting.player.view(tid)).version == 1


async def test_a_replayed_grant_is_told_so_even_when_its_seat_is_taken(
        granting: Platform) -> None:
    table = await granting.platform.create_table("highcard", {"players": 2})
    token = granting.grant(table.table_id, seat=1)
    await granting.player.join(table.table_id, grant=token)
    assert await reason_of(grpc.StatusCode.PERMISSION_DENIED,
                           granting.player.join(table.table_id, grant=token)) == "GRANT_REPLAYED"
