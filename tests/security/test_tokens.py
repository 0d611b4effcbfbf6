"""Seat tokens: high entropy, stored only as a hash, valid for one seat of one table."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bezique.clients.sdk import AsyncTableClient
from bezique.service import auth
from bezique.service.server import start_server
from tests.helpers import highcard_registry, server_config
from tests.service.helpers import two_seats


async def test_the_store_never_holds_a_token(tmp_path: Path) -> None:
    database = tmp_path / "tokens.sqlite"
    server = await start_server(server_config(store=f"sqlite:{database}"), highcard_registry())
    try:
        async with AsyncTableClient(server.address, retries=0) as client:
            _, first, second = await two_seats(client)
    finally:
        await server.stop()
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir())
    for token in (first.token, second.token):
        assert token.encode() not in stored
        assert hashlib.sha256(token.encode()).hexdigest().encode() in stored


def token_matches(token: str, stored_hash: str | None) -> bool:
    """A presented token against a stored hash, as the command path compares them."""
    return auth.hash_matches(auth.token_hash(token), stored_hash)


def test_tokens_are_random_and_long() -> None:
    tokens = {auth.new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    assert all(len(t) == 64 and not t.startswith("-") for t in tokens)
    token = auth.new_token()
    assert token_matches(token, auth.token_hash(token))
    assert not token_matches(token[:-1] + "0" if token[-1] != "0" else token[:-1] + "1",
                             auth.token_hash(token))
    assert not token_matches(token, "")
    assert auth.bearer_token({"authorization": f"Bearer {token}"}) == token
    assert auth.bearer_token({"authorization": token}) is None
