"""A lying TableService for the clients' tests: every view of its one two-seat table says both
seats are taken and asks seat 0 to reveal its entropy (``awaiting_reveal``), while its
history shows seat 1 free until a test lets it be taken. An honest client reveals only once
its own read of the history shows every seat taken."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import fake_table_service

TABLE = "liar"
SEED_COMMITMENT = "ab" * 32


class LyingTable(table_service_pb2_grpc.TableServiceServicer):
    """The table: seat 0 is the client's; ``joined`` are the seats its history shows taken."""

    def __init__(self) -> None:
        self.joined: dict[int, bytes] = {}
        """Seat -> entropy commitment, as the history shows them."""
        self.reveals: list[bytes] = []

    def _view(self) -> pb.View:
        """Before a reveal: seat 0 is asked for it; after one, the game has started."""
        revealed = bool(self.reveals)
        return pb.View(table_id=TABLE, version=2 + len(self.joined) + len(self.reveals),
                       variant_id="highcard", viewer_seat=0,
                       phase="play" if revealed else "reveal", waiting_for_players=not revealed,
                       seed_commitment=SEED_COMMITMENT, awaiting_reveal=[] if revealed else [0],
                       seats=[pb.SeatState(seat=n, occupied=True, display_name=f"p{n}")
                              for n in range(2)])

    async def JoinTable(self, request: pb.JoinTableRequest, context: Any
                        ) -> pb.JoinTableResponse:
        self.joined[0] = request.entropy_commitment
        return pb.JoinTableResponse(seat=0, seat_token="token-0", view=self._view())

    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        return pb.GetViewResponse(view=self._view())

    async def GetHistory(self, request: pb.GetHistoryRequest, context: Any
                         ) -> pb.GetHistoryResponse:
        entries = [pb.HistoryEntry(version=1, entry_kind="created")]
        entries += [pb.HistoryEntry(version=2 + n, entry_kind="joined", seat=seat,
                                    entropy_commitment=commitment)
                    for n, (seat, commitment) in enumerate(sorted(self.joined.items()))]
        return pb.GetHistoryResponse(table_id=TABLE, variant_id="highcard",
                                     seed_commitment=SEED_COMMITMENT, entries=entries)

    async def RevealEntropy(self, request: pb.RevealEntropyRequest, context: Any
                            ) -> pb.RevealEntropyResponse:
        self.reveals.append(request.entropy)
        view = self._view()
        return pb.RevealEntropyResponse(version=view.version, view=view)

    def take_every_seat(self) -> None:
        """From now on the history shows seat 1 taken too."""
        self.joined[1] = b"\x01" * 32


@contextlib.asynccontextmanager
async def lying_server() -> AsyncIterator[tuple[str, LyingTable]]:
    """The lying table on a real local port: its address and the servicer."""
    table = LyingTable()
    async with fake_table_service(table) as address:
        yield address, table
