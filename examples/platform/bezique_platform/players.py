"""The scripted players: each stands for a player's own device, with its own client and no
platform API key. It joins with the grant the platform handed it, keeps its seat token to
itself, and plays random legal moves. Two kinds misbehave, so the platform's handling of
tables that end before any deal is exercised: a no-show never joins, and a withholder joins
with an entropy commitment it never reveals."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets

import grpc

from bezique.clients.sdk import AsyncTableClient, SeatHandle
from bezique.v1 import table_service_pb2 as pb


class ScriptedPlayer:
    """One player's device: its client, its seats."""

    def __init__(self, player_id: str, address: str, *, no_show: bool = False,
                 withhold: bool = False, think: float = 0.0) -> None:
        self.player_id = player_id
        self.think = think
        """Seconds the player takes over each move."""
        self.busy = asyncio.Lock()
        """Held while the player sits at a table: one table at a time."""
        self.client = AsyncTableClient(address, retries=8)  # no API key: a player's own client
        self.no_show = no_show
        self.withhold = withhold

    async def close(self) -> None:
        await self.client.close()

    async def join(self, table_id: str, grant: str) -> SeatHandle | None:
        """Take the seat the grant names (seat, name and buy-in are the grant's); None for a
        no-show, who drops the grant."""
        if self.no_show:
            return None
        if not self.withhold:
            return await self.client.join(table_id, grant=grant)
        secret = secrets.token_bytes(32)  # committed to, and never revealed
        answer = await self.client.stub.JoinTable(pb.JoinTableRequest(
            table_id=table_id, join_grant=grant,
            entropy_commitment=hashlib.sha256(secret).digest()), timeout=30)
        return SeatHandle(table_id, answer.seat, answer.seat_token)

    async def play(self, seat: SeatHandle) -> pb.View:
        """Random legal moves until the table ends; its last view."""
        rng = random.Random(f"{seat.table_id}:{seat.seat}")
        while True:
            view = await self.client.view(seat.table_id, seat.token)
            if view.HasField("outcome"):
                return view
            if not view.legal_moves:
                await asyncio.sleep(0.02)
                continue
            await asyncio.sleep(self.think)
            try:
                await self.client.submit(seat, rng.choice(list(view.legal_moves)), view.version)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.ABORTED:  # stale: look again
                    raise
