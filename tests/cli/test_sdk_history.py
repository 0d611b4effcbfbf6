"""The SDK's history() follows GetHistory's pages (next_page_token) and joins their entries."""

from __future__ import annotations

from typing import Any

from bezique.clients.sdk import AsyncTableClient
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc
from tests.helpers import fake_table_service


class PagingHistory(table_service_pb2_grpc.TableServiceServicer):
    """A TableService whose GetHistory answers three pages of two entries, over a real port;
    the game ends while the first reading is at its last page (finished from then on)."""

    def __init__(self) -> None:
        self.tokens: list[str] = []

    async def GetHistory(self, request: pb.GetHistoryRequest, context: Any
                         ) -> pb.GetHistoryResponse:
        self.tokens.append(request.page_token)
        page = int(request.page_token or "0")
        return pb.GetHistoryResponse(
            table_id=request.table_id, finished=page == 2 or len(self.tokens) > 3,
            entries=[pb.HistoryEntry(version=2 * page + 1), pb.HistoryEntry(version=2 * page + 2)],
            next_page_token=str(page + 1) if page < 2 else "")


async def test_history_joins_every_page() -> None:
    servicer = PagingHistory()
    async with fake_table_service(servicer) as address, \
            AsyncTableClient(address, retries=0) as client:
        history = await client.history("t1")
    # read again from the start once the game ended: every page as the finished game shows it
    assert servicer.tokens == ["", "1", "2", "", "1", "2"]
    assert [entry.version for entry in history.entries] == [1, 2, 3, 4, 5, 6]
    assert history.finished and history.table_id == "t1" and not history.next_page_token
