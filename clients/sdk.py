"""The Python SDK: an async client (grpc.aio) and a sync wrapper over the same code.

* Seat tokens travel as ``authorization: Bearer <token>`` metadata.
* Safe calls (reads, and SubmitMove thanks to its request id) are retried on UNAVAILABLE with
  exponential backoff; CreateTable and JoinTable are not (a retry could create a second table).
* ``watch`` resumes by itself after a cut stream, from the last version it delivered.
* ``play`` opens a seat's Play stream (updates down, moves up, one call): a
  :class:`PlaySession`, which resumes the same way and sends its unanswered moves again.
* A seat joins with a commitment to its entropy and reveals it when the table asks (every
  seat taken): the client does it by itself from ``join``, ``view`` and ``watch`` for every
  seat it joined (or was given with ``remember``), so a game starts without the caller's help.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from bezique.clients.contributions import contributions_digest, free_seats
from bezique.terms import option_text
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

T = TypeVar("T")
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
ERROR_DOMAIN = "bezique.v1"


def status_details(error: grpc.RpcError) -> list[any_pb2.Any]:
    """The rich status details of a failed call (the ``google.rpc.Status`` the server puts in
    its trailers), ``[]`` when it sent none: the one decoder, for the async and the sync
    client's errors alike; :func:`error_info` and :func:`legal_moves_now` read it."""
    if not isinstance(error, grpc.aio.AioRpcError | grpc.Call):
        return []
    trailing: Any = error.trailing_metadata()  # the stubs of the two kinds of call differ
    for key, value in trailing or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status()
            try:
                status.ParseFromString(value)
            except DecodeError:
                return []  # not the server's (a proxy's, say): no details rather than a crash
            return list(status.details)
    return []


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The server's ErrorInfo (reason, metadata) of a failed call, if it sent one."""
    for detail in status_details(error):
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info) and info.domain == ERROR_DOMAIN:
            return info
    return None


def legal_moves_now(error: grpc.RpcError) -> list[str]:
    """The legal moves an ILLEGAL_MOVE refusal names (its PreconditionFailure's subjects, in
    the server's words), ``[]`` for any other error."""
    legal: list[str] = []
    for detail in status_details(error):
        failure = error_details_pb2.PreconditionFailure()
        if detail.Unpack(failure):
            legal += [v.subject for v in failure.violations if v.type == "ILLEGAL_MOVE"]
    return legal


def error_reason(error: grpc.RpcError) -> int:
    """The failed call's reason as a ``pb.ErrorReason`` value: ERROR_REASON_UNSPECIFIED when
    the error did not come from the table service or names a reason newer than this client."""
    info = error_info(error)
    name = f"ERROR_REASON_{info.reason}" if info is not None else ""
    known = name in pb.ErrorReason.keys()  # noqa: SIM118
    return pb.ErrorReason.Value(name) if known else pb.ERROR_REASON_UNSPECIFIED


class RevealRefused(Exception):
    """The client will not reveal a seat's entropy: its own read of the table's history shows
    a seat free (whoever took it next could choose his entropy knowing this one)."""

    def __init__(self, table_id: str, free: Sequence[int]) -> None:
        super().__init__(f"table {table_id}: seats {list(free)} are free in its history; a "
                         "seat reveals its entropy only once every seat is taken")
        self.table_id = table_id
        self.free = list(free)


@dataclass(frozen=True)
class SeatHandle:
    """What JoinTable gave: the seat and its secret token; and what the seat keeps to check
    the game afterwards without trusting the server (``verify_history(..., seat=handle)``):
    the entropy it sent and the seed commitment it was shown before any deal.

    With ``committed`` the seat sent only sha256 of ``entropy`` at JoinTable: ``entropy`` is
    then a secret until the seat reveals it (RevealEntropy), once every seat is taken."""

    table_id: str
    seat: int
    token: str
    entropy: bytes = b""
    commitment: str = ""
    expires: float | None = None
    """When the token expires (epoch seconds; the server's --seat-token-ttl); None: never."""
    committed: bool = False


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
        self._unrevealed: dict[str, dict[int, SeatHandle]] = {}
        """table id -> seat -> handle: this client's seats that committed to entropy and have
        not revealed it yet (revealed when a view or update asks for it)."""
        self.pins: dict[tuple[str, int], str] = {}
        """(table id, seat) -> the contributions digest the seat saw before it revealed
        (``bezique.clients.contributions``): keep it to verify the game afterwards."""

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
                           first_dealer: int | None = None, open_seats: bool = False
                           ) -> pb.CreateTableResponse:
        """A new table. ``open_seats``: anyone may join it, where the server would otherwise
        take joins only with a join grant or the API key (a server with a grant key)."""
        test = pb.TestSettings(seed=seed, stacked_shoe=list(stacked_shoe))
        if first_dealer is not None:
            test.first_dealer = first_dealer
        request = pb.CreateTableRequest(
            variant_id=variant_id,
            options={k: option_text(v) for k, v in (options or {}).items()},
            bots=[pb.BotSeat(seat=s, policy=p) for s, p in (bots or {}).items()],
            turn_seconds=turn_seconds, open_seats=open_seats)
        if seed or stacked_shoe or first_dealer is not None:
            request.test.CopyFrom(test)
        response: pb.CreateTableResponse = await self.stub.CreateTable(
            request, metadata=self._md(), timeout=self.timeout)
        return response

    async def rematch(self, table_id: str) -> pb.CreateTableResponse:
        """Play again: the rematch of the finished table ``table_id`` (its variant, options,
        bots and turn clock), the same table for every caller (``existed``: made earlier).
        Then join it (``join``), your old seat if it is still free."""
        response: pb.CreateTableResponse = await self.stub.CreateTable(
            pb.CreateTableRequest(rematch_of=table_id), metadata=self._md(),
            timeout=self.timeout)
        return response

    async def list_tables(self, variant_id: str = "", only_open: bool = False, *,
                          player_id: str = "",
                          finished: pb.FinishedFilter = pb.FINISHED_FILTER_UNSPECIFIED
                          ) -> list[pb.TableSummary]:
        """Every page of ListTables. ``finished``: ``pb.FINISHED_FILTER_FINISHED`` lists
        ended tables, ``..._ANY`` every table; by default unfinished ones."""
        tables: list[pb.TableSummary] = []
        token = ""
        while True:
            request = pb.ListTablesRequest(variant_id=variant_id, only_open=only_open,
                                           page_token=token, player_id=player_id,
                                           finished=finished)
            page = await self._retry(lambda r=request: self.stub.ListTables(  # type: ignore[misc]
                r, metadata=self._md(), timeout=self.timeout))
            tables.extend(page.tables)
            token = page.next_page_token
            if not token:
                return tables

    async def join(self, table_id: str, seat: int | None = None, name: str = "",
                   entropy: bytes | None = None, *, commit: bool = True, player_id: str = "",
                   buy_in: int = 0, grant: str = "") -> SeatHandle:
        """Take a seat. The seat contributes ``entropy`` to every deal of the table: 32 fresh
        random bytes unless given (a platform may pass its player's own; ``b""``: none).

        With ``commit`` (the default) only sha256 of the entropy is sent now and the entropy
        stays secret in the handle until every seat is taken; this client then reveals it by
        itself (see ``reveal_owed``). ``commit=False`` sends it in the clear, as clients did
        before commit-reveal: then the table is fair against the operator only if an honest
        seat joins after every seat the operator controls.

        A platform (this client's ``api_key``) may bind the seat to its ``player_id`` and give
        it a ``buy_in`` (its starting stack, betting variants); a player's own client passes
        the platform's join ``grant`` instead of an API key."""
        secret = secrets.token_bytes(32) if entropy is None else entropy
        committed = commit and bool(secret)
        request = pb.JoinTableRequest(table_id=table_id, display_name=name, player_id=player_id,
                                      buy_in=buy_in, join_grant=grant)
        if committed:
            request.entropy_commitment = hashlib.sha256(secret).digest()
        else:
            request.entropy = secret
        if seat is not None:
            request.seat = seat
        response = await self.stub.JoinTable(request, metadata=self._md(), timeout=self.timeout)
        handle = SeatHandle(table_id, response.seat, response.seat_token, secret,
                            response.view.seed_commitment, _expiry(response),
                            committed=committed)
        if committed:
            self.remember(handle)
            await self.reveal_owed(response.view)
        return handle

    async def reissue(self, table_id: str, seat: int) -> SeatHandle:
        """A new token for a seat (needs this client's platform ``api_key``); the seat's old
        token stops working at once, and its watch streams end. A reveal this client still
        owes for the seat is made with the new token."""
        response = await self.stub.ReissueSeatToken(
            pb.ReissueSeatTokenRequest(table_id=table_id, seat=seat), metadata=self._md(),
            timeout=self.timeout)
        owed = self._unrevealed.get(table_id, {}).get(seat)
        if owed is not None:
            owed = replace(owed, token=response.seat_token, expires=_expiry(response))
            self._unrevealed[table_id][seat] = owed
            return owed
        return SeatHandle(table_id, response.seat, response.seat_token,
                          expires=_expiry(response))

    def remember(self, seat: SeatHandle) -> None:
        """Reveal ``seat``'s committed entropy when a view of its table asks for it (a seat
        this client did not join itself, e.g. from a proof kept on disk)."""
        if seat.committed and seat.entropy and seat.seat >= 0:
            self._unrevealed.setdefault(seat.table_id, {})[seat.seat] = seat

    async def reveal(self, seat: SeatHandle, seat_count: int | None = None
                     ) -> pb.RevealEntropyResponse:
        """Reveal the entropy ``seat`` committed to at JoinTable, once every seat is taken.
        Safe to retry: a repeated reveal changes nothing. First it reads the history: when
        that shows a seat of the ``seat_count`` (default: as many as the seat's view lists)
        free, it raises :class:`RevealRefused` and sends nothing, whatever the server says.
        Then it pins every seat's contribution as the table shows them (``pins``), so the
        operator cannot swap another seat's commitment once this entropy is out."""
        if seat_count is None:
            seat_count = len((await self._read_view(seat.table_id, seat.token)).seats)
        shown = await self.history(seat.table_id, seat.token)
        free = free_seats(shown.entries, max(seat_count, seat.seat + 1))
        if free:
            raise RevealRefused(seat.table_id, free)
        self.pins[(seat.table_id, seat.seat)] = contributions_digest(shown.entries)
        request = pb.RevealEntropyRequest(table_id=seat.table_id, entropy=seat.entropy)
        response: pb.RevealEntropyResponse = await self._retry(lambda: self.stub.RevealEntropy(
            request, metadata=self._md(seat.token), timeout=self.timeout))
        self._forget(seat.table_id, seat.seat)
        return response

    def _forget(self, table_id: str, seat: int) -> None:
        owed = self._unrevealed.get(table_id)
        if owed is not None:
            owed.pop(seat, None)
            if not owed:
                del self._unrevealed[table_id]

    async def reveal_owed(self, view: pb.View) -> bool:
        """Reveal every seat of this client that ``view`` lists in ``awaiting_reveal``; True
        when any was revealed (the caller's view is then out of date). Nothing is revealed
        while this client's own read of the history shows a seat of the view's table free
        (the seats stay owed). Once the table has started or ended, its seats are
        forgotten."""
        owed = self._unrevealed.get(view.table_id)
        if not owed:
            return False
        if not view.awaiting_reveal:
            if not view.waiting_for_players or view.HasField("outcome"):
                del self._unrevealed[view.table_id]  # started, or ended: nothing to reveal
            return False
        revealed = False
        for seat in view.awaiting_reveal:
            handle = owed.get(seat)
            if handle is None or (handle.commitment and
                                  handle.commitment != view.seed_commitment):
                continue  # not this client's seat, or a proof kept from another table
            try:
                await self.reveal(handle, len(view.seats))
            except RevealRefused:
                return revealed  # the server asks too early: not believed, still owed
            except grpc.aio.AioRpcError as error:
                # the round ended meanwhile (the deadline): the next view says so
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                self._forget(view.table_id, seat)
            revealed = True
        return revealed

    async def leave(self, seat: SeatHandle) -> int:
        response = await self.stub.LeaveTable(pb.LeaveTableRequest(table_id=seat.table_id),
                                              metadata=self._md(seat.token), timeout=self.timeout)
        return int(response.version)

    async def view(self, table_id: str, token: str | None = None) -> pb.View:
        """The view of the token's seat (a spectator's without one); when it asks this
        client's seats to reveal their entropy, they do, and the view is read again."""
        for _ in range(2):
            view = await self._read_view(table_id, token)
            if not await self.reveal_owed(view):
                break
        return view

    async def _read_view(self, table_id: str, token: str | None) -> pb.View:
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

    async def abort_table(self, table_id: str, note: str = "") -> int:
        """End a table now (platform API key); the version of its ``aborted`` entry. Not
        retried: a repeat after the first took effect is FAILED_PRECONDITION/TABLE_FINISHED."""
        response = await self.stub.AbortTable(pb.AbortTableRequest(table_id=table_id, note=note),
                                              metadata=self._md(), timeout=self.timeout)
        return int(response.version)

    async def abort(self, table_id: str, note: str = "") -> int:
        """The same as :meth:`abort_table`: the platform's operator ends a table now."""
        return await self.abort_table(table_id, note)

    async def watch_results(self, from_cursor: int = 0, *, resume: bool = True
                            ) -> AsyncIterator[pb.TableResult]:
        """Every finished table after ``from_cursor``, then live ones, without end (platform
        API key). A cut stream is opened again from the last cursor delivered, on whichever
        server the channel reaches. Delivery is at least once across a restart of the caller:
        keep each result's ``cursor`` in the same transaction as what it changed, and pass the
        last one kept here."""
        last = from_cursor
        failures = 0
        while True:
            call = self.stub.WatchResults(pb.WatchResultsRequest(from_cursor=last),
                                          metadata=self._md())
            try:
                async for message in call:
                    failures = 0
                    if message.result.cursor > last:
                        last = message.result.cursor
                        yield message.result
                return
            except grpc.aio.AioRpcError as error:
                failures += 1
                if not resume or error.code() not in RETRYABLE or failures > self.retries:
                    raise
                await asyncio.sleep(self.backoff * 2 ** (failures - 1))
            finally:
                call.cancel()

    def play(self, seat: SeatHandle, from_version: int = 0, *, resume: bool = True
             ) -> PlaySession:
        """A seat's Play stream, to use as ``async with client.play(seat) as session``:
        ``await session.move(move, version)`` answers as :meth:`submit` does (the same
        response, or the same error), and ``async for update in session`` gives the
        updates :meth:`watch` would. A cut stream is opened again from the last version
        received, its unanswered moves sent again with their request ids."""
        return PlaySession(self, seat, from_version, resume=resume)

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
                        if update.HasField("view"):
                            await self.reveal_owed(update.view)
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


class _StreamOver(Exception):
    """The Play stream ended (the game is over) before a move was answered on it."""


@dataclass
class _Ended:
    """The end of a session's updates: ``error`` is what the stream ended with, if any."""

    error: BaseException | None = None


class PlaySession:
    """A seat's Play stream (see :meth:`AsyncTableClient.play`). One task reads the stream;
    updates wait in order for the caller's ``async for``, and each move's future is answered
    by the result carrying its request id (after the update it led to: ``session.view`` is
    then the view after it). A refusal raises the AioRpcError SubmitMove would, with the
    same code, message and rich details (``error_info``, ``legal_moves_now`` read them)."""

    def __init__(self, client: AsyncTableClient, seat: SeatHandle, from_version: int = 0,
                 *, resume: bool = True) -> None:
        self.client = client
        self.seat = seat
        self.last = from_version
        """The version of the last update received."""
        self.view: pb.View | None = None
        """The seat's view of the last update that carried one."""
        self.resume = resume
        self._updates: asyncio.Queue[pb.WatchTableResponse | _Ended] = asyncio.Queue()
        self._pending: dict[str, tuple[pb.PlayMove, asyncio.Future[pb.SubmitMoveResponse]]] = {}
        self._outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._over = False
        self._error: BaseException | None = None

    async def __aenter__(self) -> PlaySession:
        self._task = asyncio.ensure_future(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Cancel the stream; moves not answered yet raise CancelledError."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._finish(None, cancelled=True)

    def __aiter__(self) -> PlaySession:
        return self

    async def __anext__(self) -> pb.WatchTableResponse:
        item = await self._updates.get()
        if isinstance(item, _Ended):
            self._updates.put_nowait(item)  # every later read ends the same way
            if item.error is not None:
                raise item.error
            raise StopAsyncIteration
        return item

    async def move(self, move: pb.Move, expected_version: int,
                   request_id: str | None = None) -> pb.SubmitMoveResponse:
        """Send a move on the stream and wait for its answer: SubmitMove's response, or its
        error (retried as :meth:`AsyncTableClient.submit` is, with the same request id).
        A move the stream did not answer before the game ended is sent with SubmitMove."""
        request = pb.PlayMove(move=move_request(move), expected_version=expected_version,
                              request_id=request_id or uuid.uuid4().hex)
        delay = self.client.backoff
        for attempt in range(self.client.retries + 1):
            try:
                return await self._send(request)
            except _StreamOver:
                return await self.client.submit(self.seat, move, expected_version,
                                                request.request_id)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE or attempt == self.client.retries:
                    raise
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    async def _send(self, request: pb.PlayMove) -> pb.SubmitMoveResponse:
        if self._over:
            raise self._error or _StreamOver()
        if self._task is None:
            raise RuntimeError("use the session as `async with client.play(seat) as session`")
        future: asyncio.Future[pb.SubmitMoveResponse] = (
            asyncio.get_running_loop().create_future())
        self._pending[request.request_id] = (request, future)
        self._outbox.put_nowait(pb.PlayRequest(move=request))
        try:
            return await future
        finally:
            if self._pending.get(request.request_id, (None, None))[1] is future:
                del self._pending[request.request_id]

    async def _run(self) -> None:
        failures = 0
        try:
            while True:
                # a fresh outbox per call: the open, then every move not answered yet
                outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
                outbox.put_nowait(pb.PlayRequest(open=pb.PlayOpen(
                    table_id=self.seat.table_id, from_version=self.last,
                    answers_with_updates=True)))
                for request, future in self._pending.values():
                    if not future.done():
                        outbox.put_nowait(pb.PlayRequest(move=request))
                self._outbox = outbox
                call = self.client.stub.Play(_drained(outbox),
                                             metadata=self.client._md(self.seat.token))
                try:
                    async for message in call:
                        failures = 0
                        await self._receive(message)
                    self._finish(None)
                    return
                except grpc.aio.AioRpcError as error:
                    resumable = error.code() in RETRYABLE | {grpc.StatusCode.RESOURCE_EXHAUSTED}
                    failures += 1
                    if not self.resume or not resumable or failures > self.client.retries:
                        raise
                    await asyncio.sleep(self.client.backoff * 2 ** (failures - 1))
                finally:
                    call.cancel()
                    outbox.put_nowait(None)  # its request iterator ends as well
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self._finish(error)

    async def _receive(self, message: pb.PlayResponse) -> None:
        if message.HasField("update"):
            update = message.update
            if update.version > self.last:
                self.last = update.version
                if update.HasField("view"):
                    self.view = update.view
                    await self.client.reveal_owed(update.view)
                self._updates.put_nowait(update)
            if message.HasField("answer"):  # a move's answer sent with its update
                self._answer(message.answer)
            return
        self._answer(message.result)

    def _answer(self, result: pb.PlayResult) -> None:
        future = self._pending.get(result.request_id, (None, None))[1]
        if future is None or future.done():
            return  # answered before the stream was cut, or a move this session gave up
        if result.code == 0:
            future.set_result(result.accepted)
        else:
            future.set_exception(refusal(result))

    def _finish(self, error: BaseException | None, *, cancelled: bool = False) -> None:
        """The stream is over: updates end (with ``error``), unanswered moves fail with it,
        or go by SubmitMove when the game ended first."""
        if self._over:
            return
        self._over = True
        self._error = RuntimeError("the Play session is closed") if cancelled else error
        for _, future in self._pending.values():
            if not future.done():
                if cancelled:
                    future.cancel()
                else:
                    future.set_exception(error if error is not None else _StreamOver())
        self._updates.put_nowait(_Ended(error))


async def _drained(outbox: asyncio.Queue[pb.PlayRequest | None]
                   ) -> AsyncIterator[pb.PlayRequest]:
    """A call's requests, until its end is put in the queue (``None``)."""
    while (request := await outbox.get()) is not None:
        yield request


def refusal(result: pb.PlayResult) -> grpc.aio.AioRpcError:
    """A refused Play move as the AioRpcError SubmitMove would have raised: its code, its
    message and its rich status in the trailers (where ``status_details`` reads it)."""
    code = next((c for c in grpc.StatusCode if c.value[0] == result.code),
                grpc.StatusCode.UNKNOWN)
    trailing = (grpc.aio.Metadata(("grpc-status-details-bin", result.status_details))
                if result.status_details else grpc.aio.Metadata())
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailing, result.message,
                                result.message)


def _expiry(response: pb.JoinTableResponse | pb.ReissueSeatTokenResponse) -> float | None:
    if not response.HasField("seat_token_expires"):
        return None
    return float(response.seat_token_expires.ToNanoseconds()) / 1e9


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

    def rematch(self, table_id: str) -> pb.CreateTableResponse:
        return self._run(self._client.rematch(table_id))

    def list_tables(self, variant_id: str = "", only_open: bool = False, **filters: Any
                    ) -> list[pb.TableSummary]:
        return self._run(self._client.list_tables(variant_id, only_open, **filters))

    def abort_table(self, table_id: str, note: str = "") -> int:
        return self._run(self._client.abort_table(table_id, note))

    def abort(self, table_id: str, note: str = "") -> int:
        """As :meth:`AsyncTableClient.abort`."""
        return self._run(self._client.abort_table(table_id, note))

    def join(self, table_id: str, seat: int | None = None, name: str = "",
             entropy: bytes | None = None, *, commit: bool = True, **binding: Any
             ) -> SeatHandle:
        """As :meth:`AsyncTableClient.join` (``player_id``, ``buy_in``, ``grant``)."""
        return self._run(self._client.join(table_id, seat, name, entropy, commit=commit,
                                           **binding))

    def reissue(self, table_id: str, seat: int) -> SeatHandle:
        return self._run(self._client.reissue(table_id, seat))

    def leave(self, seat: SeatHandle) -> int:
        return self._run(self._client.leave(seat))

    def remember(self, seat: SeatHandle) -> None:
        self._client.remember(seat)

    def reveal(self, seat: SeatHandle, seat_count: int | None = None
               ) -> pb.RevealEntropyResponse:
        return self._run(self._client.reveal(seat, seat_count))

    def reveal_owed(self, view: pb.View) -> bool:
        return self._run(self._client.reveal_owed(view))

    @property
    def pins(self) -> dict[tuple[str, int], str]:
        return self._client.pins

    def view(self, table_id: str, token: str | None = None) -> pb.View:
        return self._run(self._client.view(table_id, token))

    def submit(self, seat: SeatHandle, move: pb.Move, expected_version: int,
               request_id: str | None = None) -> pb.SubmitMoveResponse:
        return self._run(self._client.submit(seat, move, expected_version, request_id))

    def history(self, table_id: str, token: str | None = None, page_size: int = 0
                ) -> pb.GetHistoryResponse:
        return self._run(self._client.history(table_id, token, page_size))

    def play(self, seat: SeatHandle, from_version: int = 0, *, resume: bool = True
             ) -> SyncPlaySession:
        """As :meth:`AsyncTableClient.play`, to use as ``with client.play(seat) as session``:
        ``session.move(move, version)`` and ``for update in session``."""
        return SyncPlaySession(self, self._client.play(seat, from_version, resume=resume))

    def watch(self, table_id: str, token: str | None = None, from_version: int = 0
              ) -> Iterator[pb.WatchTableResponse]:
        return self._iterate(self._client.watch(table_id, token, from_version))

    def watch_results(self, from_cursor: int = 0, *, resume: bool = True
                      ) -> Iterator[pb.TableResult]:
        """As :meth:`AsyncTableClient.watch_results`: every finished table after
        ``from_cursor``, without end. Leaving the loop (or closing the iterator) cancels the
        call."""
        return self._iterate(self._client.watch_results(from_cursor, resume=resume))

    def _iterate(self, stream: AsyncIterator[T]) -> Iterator[T]:
        """An async stream of the private loop as a blocking iterator; closing the iterator
        closes the stream (and so cancels its call) on the loop."""
        source = stream.__aiter__()
        try:
            while True:
                try:
                    yield self._run(source.__anext__())  # type: ignore[arg-type]
                except StopAsyncIteration:
                    return
        finally:
            close = getattr(source, "aclose", None)
            if close is not None and not self._loop.is_closed() and self._loop.is_running():
                self._run(close())


class SyncPlaySession:
    """A :class:`PlaySession` driven from sync code, on its client's event-loop thread."""

    def __init__(self, client: TableClient, session: PlaySession) -> None:
        self._client = client
        self.session = session

    def __enter__(self) -> SyncPlaySession:
        self._client._run(self.session.__aenter__())
        return self

    def __exit__(self, *exc: object) -> None:
        self._client._run(self.session.close())

    def __iter__(self) -> Iterator[pb.WatchTableResponse]:
        return self._client._iterate(self.session)

    def move(self, move: pb.Move, expected_version: int, request_id: str | None = None
             ) -> pb.SubmitMoveResponse:
        return self._client._run(self.session.move(move, expected_version, request_id))

    @property
    def view(self) -> pb.View | None:
        return self.session.view
