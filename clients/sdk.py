"""The Python SDK: an async client (grpc.aio) and a sync wrapper over the same code.

* Seat tokens travel as ``authorization: Bearer <token>`` metadata.
* Safe calls (reads, and SubmitMove thanks to its request id) are retried on UNAVAILABLE with
  exponential backoff; CreateTable and JoinTable are not (a retry could create a second table).
* ``watch`` resumes by itself after a cut stream, from the last version it delivered.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

T = TypeVar("T")
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
ERROR_DOMAIN = "bezique.v1"


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo | None:
    """The server's ErrorInfo (reason, metadata) of a failed call, if it sent one."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info) and info.domain == ERROR_DOMAIN:
            return info
    return None


def error_reason(error: grpc.aio.AioRpcError) -> int:
    """The failed call's reason as a ``pb.ErrorReason`` value: ERROR_REASON_UNSPECIFIED when
    the error did not come from the table service or names a reason newer than this client."""
    info = error_info(error)
    name = f"ERROR_REASON_{info.reason}" if info is not None else ""
    known = name in pb.ErrorReason.keys()  # noqa: SIM118
    return pb.ErrorReason.Value(name) if known else pb.ERROR_REASON_UNSPECIFIED


@dataclass(frozen=True)
class SeatHandle:
    """What JoinTable gave: the seat and its secret token; and what the seat keeps to check
    the game afterwards without trusting the server (``verify_history(..., seat=handle)``):
    the entropy it sent and the seed commitment it was shown before any deal."""

    table_id: str
    seat: int
    token: str
    entropy: bytes = b""
    commitment: str = ""


def auth_metadata(token: str | None, api_key: str = "") -> tuple[tuple[str, str], ...]:
    metadata: list[tuple[str, str]] = []
    if token:
        metadata.append(("authorization", f"Bearer {token}"))
    if api_key:
        metadata.append(("x-api-key", api_key))
    return tuple(metadata)


def make_channel(target: str, *, root_certificates: bytes | None = None,
                 private_key: bytes | None = None, certificate_chain: bytes | None = None,
                 tls: bool = False) -> grpc.aio.Channel:
    """An aio channel, TLS when certificates are given or ``tls`` is set."""
    if tls or root_certificates or certificate_chain:
        credentials = grpc.ssl_channel_credentials(root_certificates, private_key,
                                                   certificate_chain)
        return grpc.aio.secure_channel(target, credentials)
    return grpc.aio.insecure_channel(target)


def move_request(move: pb.Move) -> pb.Move:
    """A legal move as offered, ready to submit (only ids, kind, amount and label matter)."""
    return pb.Move(kind=move.kind, cards=[pb.Card(id=c.id, code=c.code) for c in move.cards],
                   amount=move.amount, label=move.label)


def amount_range(move: pb.Move) -> tuple[int, int, int] | None:
    """The (minimum, maximum, step) of a move offered with a range of amounts, else None."""
    if not move.HasField("amount_range"):
        return None
    span = move.amount_range
    return span.minimum, span.maximum, max(1, span.step)


def amount_allowed(move: pb.Move, amount: int) -> bool:
    """Whether ``amount`` may be submitted with the offered ``move`` (its exact amount, or one
    in its range)."""
    span = amount_range(move)
    if span is None:
        return amount == move.amount
    low, high, step = span
    return low <= amount <= high and (amount - low) % step == 0


def with_amount(move: pb.Move, amount: int) -> pb.Move:
    """The offered ``move`` with ``amount`` in its range, ready to submit; ValueError (naming
    the range) for an amount the offer does not allow, before any call is made."""
    if not amount_allowed(move, amount):
        span = amount_range(move)
        allowed = (str(move.amount) if span is None else
                   f"{span[0]} to {span[1]}" + (f" in steps of {span[2]}" if span[2] > 1 else ""))
        raise ValueError(f"{move.kind} takes an amount of {allowed}, not {amount}")
    chosen = move_request(move)
    chosen.amount = amount
    return chosen


class AsyncTableClient:
    """Every TableService call, with auth metadata, retries and watch resumption."""

    def __init__(self, target: str | grpc.aio.Channel, *, api_key: str = "", retries: int = 4,
                 backoff: float = 0.1, timeout: float | None = 30.0, **tls: Any) -> None:
        self.channel = make_channel(target, **tls) if isinstance(target, str) else target
        self.stub = pb_grpc.TableServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.api_key = api_key
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout

    async def close(self) -> None:
        await self.channel.close(None)

    async def __aenter__(self) -> AsyncTableClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _retry(self, call: Callable[[], Awaitable[T]]) -> T:
        delay = self.backoff
        for attempt in range(self.retries + 1):
            try:
                return await call()
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE or attempt == self.retries:
                    raise
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    def _md(self, token: str | None = None) -> tuple[tuple[str, str], ...]:
        return auth_metadata(token, self.api_key)

    async def list_variants(self) -> list[pb.VariantInfo]:
        response = await self._retry(lambda: self.stub.ListVariants(
            pb.ListVariantsRequest(), metadata=self._md(), timeout=self.timeout))
        return list(response.variants)

    async def create_table(self, variant_id: str, options: Mapping[str, object] | None = None,
                           *, bots: Mapping[int, str] | None = None, turn_seconds: int = 0,
                           seed: bytes = b"", stacked_shoe: Sequence[str] = (),
                           first_dealer: int | None = None) -> pb.CreateTableResponse:
        test = pb.TestSettings(seed=seed, stacked_shoe=list(stacked_shoe))
        if first_dealer is not None:
            test.first_dealer = first_dealer
        request = pb.CreateTableRequest(
            variant_id=variant_id,
            options={k: _option_text(v) for k, v in (options or {}).items()},
            bots=[pb.BotSeat(seat=s, policy=p) for s, p in (bots or {}).items()],
            turn_seconds=turn_seconds)
        if seed or stacked_shoe or first_dealer is not None:
            request.test.CopyFrom(test)
        response: pb.CreateTableResponse = await self.stub.CreateTable(
            request, metadata=self._md(), timeout=self.timeout)
        return response

    async def list_tables(self, variant_id: str = "", only_open: bool = False
                          ) -> list[pb.TableSummary]:
        tables: list[pb.TableSummary] = []
        token = ""
        while True:
            request = pb.ListTablesRequest(variant_id=variant_id, only_open=only_open,
                                           page_token=token)
            page = await self._retry(lambda r=request: self.stub.ListTables(  # type: ignore[misc]
                r, metadata=self._md(), timeout=self.timeout))
            tables.extend(page.tables)
            token = page.next_page_token
            if not token:
                return tables

    async def join(self, table_id: str, seat: int | None = None, name: str = "",
                   entropy: bytes | None = None) -> SeatHandle:
        """Take a seat. The seat contributes ``entropy`` to every deal of the table: 32 fresh
        random bytes unless given (a platform may pass its player's own; ``b""``: none)."""
        sent = secrets.token_bytes(32) if entropy is None else entropy
        request = pb.JoinTableRequest(table_id=table_id, display_name=name, entropy=sent)
        if seat is not None:
            request.seat = seat
        response = await self.stub.JoinTable(request, metadata=self._md(), timeout=self.timeout)
        return SeatHandle(table_id, response.seat, response.seat_token, sent,
                          response.view.seed_commitment)

    async def leave(self, seat: SeatHandle) -> int:
        response = await self.stub.LeaveTable(pb.LeaveTableRequest(table_id=seat.table_id),
                                              metadata=self._md(seat.token), timeout=self.timeout)
        return int(response.version)

    async def view(self, table_id: str, token: str | None = None) -> pb.View:
        response = await self._retry(lambda: self.stub.GetView(
            pb.GetViewRequest(table_id=table_id), metadata=self._md(token),
            timeout=self.timeout))
        view: pb.View = response.view
        return view

    async def submit(self, seat: SeatHandle, move: pb.Move, expected_version: int,
                     request_id: str | None = None) -> pb.SubmitMoveResponse:
        """Submit a move; retried with the same request id, so it is applied at most once."""
        request = pb.SubmitMoveRequest(table_id=seat.table_id, move=move_request(move),
                                       expected_version=expected_version,
                                       request_id=request_id or uuid.uuid4().hex)
        response: pb.SubmitMoveResponse = await self._retry(lambda: self.stub.SubmitMove(
            request, metadata=self._md(seat.token), timeout=self.timeout))
        return response

    async def history(self, table_id: str, token: str | None = None, page_size: int = 0
                      ) -> pb.GetHistoryResponse:
        """The whole history, every page read and joined into one response. Should the game
        end between two pages, it is read again from the start, so every entry is as the
        finished game shows it (nothing hidden any more) and the seed is there to verify."""
        for _ in range(2):
            whole = await self._history_page(table_id, token, page_size, "")
            page = whole
            while page.next_page_token and page.finished == whole.finished:
                page = await self._history_page(table_id, token, page_size,
                                                 page.next_page_token)
                whole.entries.extend(page.entries)
            if page.finished == whole.finished:
                whole.next_page_token = ""
                return whole
        raise RuntimeError("the table kept changing while its history was read")

    async def _history_page(self, table_id: str, token: str | None, page_size: int,
                            page_token: str) -> pb.GetHistoryResponse:
        request = pb.GetHistoryRequest(table_id=table_id, page_size=page_size,
                                       page_token=page_token)
        response: pb.GetHistoryResponse = await self._retry(lambda: self.stub.GetHistory(
            request, metadata=self._md(token), timeout=self.timeout))
        return response

    async def watch(self, table_id: str, token: str | None = None, from_version: int = 0,
                    *, resume: bool = True) -> AsyncIterator[pb.WatchTableResponse]:
        """Updates from ``from_version`` on; a cut stream is resumed where it stopped."""
        last = from_version
        failures = 0
        while True:
            call = self.stub.WatchTable(pb.WatchTableRequest(table_id=table_id,
                                                             from_version=last),
                                        metadata=self._md(token))
            try:
                async for update in call:
                    failures = 0
                    if update.version > last:
                        last = update.version
                        yield update
                return
            except grpc.aio.AioRpcError as error:
                resumable = error.code() in RETRYABLE | {grpc.StatusCode.RESOURCE_EXHAUSTED}
                failures += 1
                if not resume or not resumable or failures > self.retries:
                    raise
                await asyncio.sleep(self.backoff * 2 ** (failures - 1))
            finally:
                call.cancel()


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


class TableClient:
    """The sync SDK: the async client driven on a private event-loop thread."""

    def __init__(self, target: str, **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="bezique-sdk")
        self._thread.start()
        self._client: AsyncTableClient = self._run(self._make(target, kwargs))

    @staticmethod
    async def _make(target: str, kwargs: dict[str, Any]) -> AsyncTableClient:
        return AsyncTableClient(target, **kwargs)

    def _run(self, coroutine: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()  # type: ignore[arg-type]

    def close(self) -> None:
        self._run(self._client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def __enter__(self) -> TableClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def list_variants(self) -> list[pb.VariantInfo]:
        return self._run(self._client.list_variants())

    def create_table(self, variant_id: str, options: Mapping[str, object] | None = None,
                     **kwargs: Any) -> pb.CreateTableResponse:
        return self._run(self._client.create_table(variant_id, options, **kwargs))

    def list_tables(self, variant_id: str = "", only_open: bool = False
                    ) -> list[pb.TableSummary]:
        return self._run(self._client.list_tables(variant_id, only_open))

    def join(self, table_id: str, seat: int | None = None, name: str = "",
             entropy: bytes | None = None) -> SeatHandle:
        return self._run(self._client.join(table_id, seat, name, entropy))

    def leave(self, seat: SeatHandle) -> int:
        return self._run(self._client.leave(seat))

    def view(self, table_id: str, token: str | None = None) -> pb.View:
        return self._run(self._client.view(table_id, token))

    def submit(self, seat: SeatHandle, move: pb.Move, expected_version: int,
               request_id: str | None = None) -> pb.SubmitMoveResponse:
        return self._run(self._client.submit(seat, move, expected_version, request_id))

    def history(self, table_id: str, token: str | None = None, page_size: int = 0
                ) -> pb.GetHistoryResponse:
        return self._run(self._client.history(table_id, token, page_size))

    def watch(self, table_id: str, token: str | None = None, from_version: int = 0
              ) -> Iterator[pb.WatchTableResponse]:
        stream = self._client.watch(table_id, token, from_version).__aiter__()
        while True:
            try:
                yield self._run(stream.__anext__())
            except StopAsyncIteration:
                return
