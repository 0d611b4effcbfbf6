"""The TableService servicer: translate the request, call the table manager, translate back.

No rule of any game and no storage lives here. Every ServiceError becomes a rich status; any
other exception is logged and becomes INTERNAL without leaking its text.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import hmac
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import NoReturn, TypeVar, cast

import grpc
import structlog
from google.protobuf import message_factory
from google.protobuf.message import DecodeError, Message
from grpc.aio import ServicerContext

from bezique.service import auth, play, proxies, translate
from bezique.service.commands import Binding, MoveResult
from bezique.service.errors import (
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unauthenticated,
    Unavailable,
    store_unavailable,
)
from bezique.service.grants import GrantVerifier, printable_id
from bezique.service.limits import RateLimiter, StreamCounter, address_block
from bezique.service.metrics import Metrics
from bezique.service.rematch import check_rematch_request
from bezique.service.settings import Limits
from bezique.service.status import abort, rich_status
from bezique.service.store import StoreError
from bezique.service.table_manager import TableManager, Update
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

log = structlog.get_logger("bezique.rpc")

Req = TypeVar("Req")
Resp = TypeVar("Resp")
T = TypeVar("T")
Item = TypeVar("Item")
Incoming = TypeVar("Incoming")  # a call's request, or the iterator of a two-way stream's
Method = Callable[["TableServicer", Req, ServicerContext[Req, Resp]], Awaitable[Resp]]
StreamMethod = Callable[["TableServicer", Incoming, ServicerContext[Req, Resp]],
                        AsyncIterator[Resp] | Awaitable[AsyncIterator[Resp]]]
"""A stream's messages, as a method of the servicer returns them (a coroutine returns them
once it has set the stream up: Play reads its ``open`` first)."""
StreamWriter = Callable[["TableServicer", Incoming, ServicerContext[Req, Resp]], Awaitable[None]]
"""A stream as grpc.aio serves it from a coroutine: each message passed to ``context.write``."""


_CALL_METADATA: contextvars.ContextVar[tuple[object, dict[str, str]] | None] = (
    contextvars.ContextVar("bezique_call_metadata", default=None))
"""The metadata of the call this task serves (each call runs in a task of its own)."""


_READ_METADATA = frozenset({"authorization", "x-api-key"})
"""The metadata keys the servicer reads (proxies.py reads the forwarding headers itself)."""


def _metadata(context: ServicerContext[Req, Resp]) -> dict[str, str]:
    """The call's metadata that the servicer reads (:data:`_READ_METADATA`), as a dict with
    lower-case keys: read once per call, then kept for the call's life, so only what is read
    (a stream keeps it for as long as it is open)."""
    cached = _CALL_METADATA.get()
    if cached is not None and cached[0] is context:
        return cached[1]
    metadata = {key: value for key, value in
                ((key.lower(), value) for key, value in (context.invocation_metadata() or ()))
                if key in _READ_METADATA and isinstance(value, str)}
    _CALL_METADATA.set((context, metadata))
    return metadata


SEAT_CALLS = frozenset({"GetView", "SubmitMove", "LeaveTable", "WatchTable", "GetHistory",
                        "RevealEntropy", "Play"})
"""Calls that act for the seat of their token: only these are charged to the seat."""


def caller_of(context: ServicerContext[Req, Resp], manager: TableManager,
              method: str) -> str:
    """Who is calling, for per-caller limits: for a seat's own calls the seat of a token this
    server knows, else the peer's address. A made-up token earns no bucket of its own."""
    return _seat(context, manager, method) or _peer(context)


def _seat(context: ServicerContext[Req, Resp], manager: TableManager, method: str) -> str:
    """The budget of the seat whose known token a seat's own call carries, else ''."""
    token = auth.bearer_token(_metadata(context)) if method in SEAT_CALLS else None
    if token:
        hashed = auth.token_hash(token)
        if manager.repo.knows_token(hashed):
            return "seat:" + hashed
    return ""


def _peer(context: ServicerContext[Req, Resp]) -> str:
    """The budget of the address block a call comes from (an IPv6 address's /64: one
    subscriber takes a fresh address of it at will)."""
    return "peer:" + address_block(proxies.caller_host(context))


def charged_to(context: ServicerContext[Req, Resp], manager: TableManager,
               method: str) -> tuple[str, ...]:
    """Every budget a call is charged to: its caller (see :func:`caller_of`) and, for a seat,
    its peer's address too. So tokens minted by joining seats never raise what one address
    may send in total."""
    peer = _peer(context)  # the address is worked out once a call
    seat = _seat(context, manager, method)
    return (seat, peer) if seat else (peer,)


def _token(context: ServicerContext[Req, Resp]) -> str | None:
    metadata = _metadata(context)
    token = auth.bearer_token(metadata)
    if token is None and "authorization" in metadata:
        raise Unauthenticated("the authorization metadata must be 'Bearer <seat token>'",
                              field="authorization")
    return token


def _seat_token(context: ServicerContext[Req, Resp]) -> str:
    """The seat token a call that acts for a seat must carry."""
    token = _token(context)
    if token is None:
        raise Unauthenticated("this call needs a seat token: metadata "
                              "'authorization: Bearer <seat token>'", field="authorization")
    return token


def _failure(error: ServiceError | StoreError) -> ServiceError:
    """The service error to answer with: a store failure is UNAVAILABLE (retry)."""
    if isinstance(error, StoreError):
        log.warning("store_unavailable", error=str(error))
        return store_unavailable()
    return error


async def _resuming(items: AsyncIterator[Item], first: int, position: Callable[[Item], int],
                    render: Callable[[Item], T]) -> AsyncIterator[T]:
    """A watch stream's items, each rendered by ``render``; a stream the store cuts (its
    primary lost, say) ends UNAVAILABLE and, like every stream that ends UNAVAILABLE, says
    where to resume: ``resume_from``, the ``position`` of the last item sent (``first`` before
    any). One generator for both, not one wrapping another: a waiting stream keeps a frame
    per layer."""
    last = first
    try:
        async for item in items:
            last = position(item)
            yield render(item)
            del item
    except (StoreError, Unavailable) as error:
        answer = _failure(error)
        if answer.code == "UNAVAILABLE" and "resume_from" not in answer.metadata:
            answer.metadata["resume_from"] = str(last)
        if answer is error:
            raise
        raise answer from error


async def _close(messages: object) -> None:
    """End a stream's messages now, however the stream ended: a write that failed or was
    cancelled leaves them suspended, their watcher subscribed, for as long as anything holds
    the call's traceback (the HTTP port does while it sends the end of the stream)."""
    aclose = getattr(messages, "aclose", None)
    if aclose is not None:
        await aclose()


def _answer_for(error: Exception, name: str) -> ServiceError | None:
    """The service error a failed call ends with; ``None`` for an unexpected one, which is
    logged here (with its traceback: call it while handling ``error``)."""
    if isinstance(error, ServiceError | StoreError):
        return _failure(error)
    log.exception("rpc_failed", method=name)
    return None


INTERNAL_MESSAGE = "internal error (logged on the server)"


async def _end_with(context: ServicerContext[Req, Resp], answer: ServiceError | None
                    ) -> NoReturn:
    """End the call with ``answer``'s rich status, or INTERNAL without details."""
    if answer is not None:
        await abort(context, answer)
    await context.abort(grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE)


def unary(method: Method[Req, Resp], name: str = "") -> Method[Req, Resp]:
    """Map ServiceError to its status and hide unexpected errors behind INTERNAL. ``name``:
    the RPC's, when the method's own is not (metrics, limits)."""

    name = name or method.__name__

    @functools.wraps(method)
    async def wrapper(self: TableServicer, request: Req, context: ServicerContext[Req, Resp]
                      ) -> Resp:
        start = time.perf_counter()
        code = "OK"
        try:
            self.check_rate(context, name)
            return await method(self, request, context)
        except (grpc.aio.AbortError, grpc.aio.UsageError):
            raise
        except Exception as error:
            answer = _answer_for(error, name)
            code = answer.code if answer is not None else "INTERNAL"
            await _end_with(context, answer)
        finally:
            if self.metrics is not None:
                self.metrics.observe_rpc(name, code, time.perf_counter() - start)

    return wrapper


def streaming(method: StreamMethod[Incoming, Req, Resp], name: str = ""
              ) -> StreamWriter[Incoming, Req, Resp]:
    """What :func:`unary` does, for a server stream (or Play's two-way one, whose ``request``
    is the iterator of its requests): the rate limit, errors mapped to their status
    (unexpected ones hidden behind INTERNAL), metrics; and one of the caller's stream slots
    held while the stream is open (``--max-watchers-per-caller``, every kind counted).
    ``name``: the RPC's, when the method's own is not (metrics, limits).

    The stream is served by a coroutine that passes each message of ``method`` to
    ``context.write``, as grpc.aio and the HTTP port both take it, not by async generators
    wrapping one another: a waiting stream keeps fewer frames (5 KiB less a Play table, 3 KiB
    a WatchTable one; the same CPU)."""

    name = name or method.__name__

    @functools.wraps(method)
    async def wrapper(self: TableServicer, request: Incoming,
                      context: ServicerContext[Req, Resp]) -> None:
        start = time.perf_counter()
        code = "OK"
        # What the handler reads of the call's metadata is kept only while it starts the
        # stream, not for the stream's life (a waiting stream keeps ~0.4 KB less).
        metadata_read = _CALL_METADATA.set(None)
        caller = caller_of(context, self.manager, "")  # streams are counted per peer
        counted = False
        gauge = (self.metrics.watch_streams
                 if self.metrics and name in ("WatchTable", "Play") else None)
        if gauge is not None:
            gauge.inc()
        try:
            self.check_rate(context, name)
            if not self.streams.acquire(caller):
                raise ResourceExhausted(f"at most {self.streams.limit} open watch streams per "
                                        "caller", reason="TOO_MANY_STREAMS")
            counted = True
            found = method(self, request, context)
            messages = found if isinstance(found, AsyncIterator) else await found
            del found
            _CALL_METADATA.reset(metadata_read)
            write = context.write
            try:
                async for message in messages:
                    await write(message)
                    del message  # a waiting stream keeps nothing of what it sent
            finally:
                await _close(messages)
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except (grpc.aio.AbortError, grpc.aio.UsageError):
            raise
        except grpc.aio.BaseError:
            # grpc.aio's own failure of a write (the client cancelled with a message in
            # flight, the server stopped): the call is over and grpc.aio ends it, as it did
            # when it wrote the messages itself; not the stream's failure (no INTERNAL)
            code = "CANCELLED"
            raise
        except Exception as error:
            answer = _answer_for(error, name)
            code = answer.code if answer is not None else "INTERNAL"
            await _end_with(context, answer)
        finally:
            if counted:
                self.streams.release(caller)
            if gauge is not None:
                gauge.dec()
            if self.metrics is not None:
                self.metrics.observe_rpc(name, code, time.perf_counter() - start)

    return wrapper


def _check_binding_fields(player_id: str, buy_in: int, limits: Limits) -> None:
    """A player_id is an opaque platform id: 1 to ``max_player_id`` printable characters; a
    buy-in is a positive number of chips (its range is the table's, checked at the table)."""
    if player_id and not printable_id(player_id, limits.max_player_id):
        raise InvalidArgument(f"player_id must be 1 to {limits.max_player_id} printable "
                              "characters", field="player_id")
    if buy_in < 0:
        raise InvalidArgument("buy_in must be a positive number of chips (0: the table's "
                              "default)", field="buy_in")


def _page_size(request: pb.ListTablesRequest, limits: Limits) -> int:
    """The page size a ListTables request asks for (``list_page`` when not given, at most
    ``max_list_page``), once its paging and filter fields are checked."""
    if request.page_size < 0:
        raise InvalidArgument("page_size must be >= 0", field="page_size")
    if (not request.page_token.isprintable()
            or len(request.page_token) > limits.max_page_token):
        raise InvalidArgument("page_token is not one this server gave",
                              field="page_token", reason="INVALID_PAGE_TOKEN")
    if len(request.player_id) > limits.max_player_id:
        raise InvalidArgument(f"player_id is longer than {limits.max_player_id} characters",
                              field="player_id")
    return min(request.page_size or limits.list_page, limits.max_list_page)


def _check_move_request(request: pb.SubmitMoveRequest | pb.PlayMove) -> None:
    if not request.HasField("move"):
        raise InvalidArgument("move is missing", field="move")
    if request.expected_version < 0:
        raise InvalidArgument("expected_version must be >= 0", field="expected_version")


class TableServicer(pb_grpc.TableServiceServicer):
    """Each handler checks what only the wire can get wrong, calls the table manager, and has
    ``translate`` build the answer; ``unary``/``streaming`` do the rest."""

    def __init__(self, manager: TableManager, api_key: str = "",
                 metrics: Metrics | None = None, rate: RateLimiter | None = None,
                 streams: StreamCounter | None = None,
                 grants: GrantVerifier | None = None,
                 settle_seconds: float = play.SETTLE_SECONDS) -> None:
        self.manager = manager
        self.settle_seconds = settle_seconds
        """How long a Play stream the server ends waits for its move in hand (service/play)."""
        self.api_key = api_key
        self.metrics = metrics
        self.rate = rate or RateLimiter(0, 0)
        self.streams = streams or StreamCounter(0)
        self.grants = grants

    def check_rate(self, context: ServicerContext[Req, Resp], method: str) -> None:
        if self.rate.rate > 0 and not self.rate.allow_all(charged_to(context, self.manager,
                                                                     method)):
            raise ResourceExhausted(
                f"rate limit: at most {self.rate.rate:g} requests a second per seat and per "
                f"address (bursts of {self.rate.burst:g}); slow down and retry",
                reason="RATE_LIMITED")

    def _check_api_key(self, context: ServicerContext[Req, Resp]) -> None:
        if not self.api_key:
            return
        given = _metadata(context).get("x-api-key", "")
        if not given:
            raise Unauthenticated("this server requires the platform API key (x-api-key)",
                                  field="x-api-key")
        if not hmac.compare_digest(given.encode(), self.api_key.encode()):
            raise PermissionDenied("the platform API key is wrong", field="x-api-key")

    def _require_platform(self, context: ServicerContext[Req, Resp], method: str,
                          why: str) -> None:
        """An operator's call: refused outright on a server without an API key (``why``
        says what anybody could do otherwise), else the key must be given."""
        if not self.api_key:
            raise PermissionDenied(f"{method} needs a server started with --api-key: without "
                                   f"one {why}", field="x-api-key")
        self._check_api_key(context)

    @unary
    async def ListVariants(
            self, request: pb.ListVariantsRequest,
            context: ServicerContext[pb.ListVariantsRequest, pb.ListVariantsResponse]
    ) -> pb.ListVariantsResponse:
        return translate.list_variants_response(self.manager.registry)

    @unary
    async def CreateTable(
            self, request: pb.CreateTableRequest,
            context: ServicerContext[pb.CreateTableRequest, pb.CreateTableResponse]
    ) -> pb.CreateTableResponse:
        self._check_api_key(context)
        if request.rematch_of:  # play again: the finished table's settings, a derived id
            check_rematch_request(request)
            live, existed = await self.manager.rematch(request.rematch_of)
            return translate.create_table_response(live, existed)
        live = await self.manager.create_table(
            request.variant_id, dict(request.options),
            [(bot.seat, bot.policy) for bot in request.bots], request.turn_seconds,
            translate.test_settings(request.test) if request.HasField("test") else {},
            request.open_seats)
        return translate.create_table_response(live)

    @unary
    async def ListTables(
            self, request: pb.ListTablesRequest,
            context: ServicerContext[pb.ListTablesRequest, pb.ListTablesResponse]
    ) -> pb.ListTablesResponse:
        size = _page_size(request, self.manager.settings.limits)
        which = request.finished
        rows = await self.manager.store.list_tables(
            variant_id=request.variant_id, only_open=request.only_open, limit=size + 1,
            after=request.page_token, player_id=request.player_id,
            include_finished=which == pb.FINISHED_FILTER_ANY,
            only_finished=which == pb.FINISHED_FILTER_FINISHED)
        shown = rows[:size]
        more = len(rows) > size  # one row more than the page was asked for
        return translate.list_tables_response(shown, shown[-1][0].table_id if more else "")

    @unary
    async def JoinTable(
            self, request: pb.JoinTableRequest,
            context: ServicerContext[pb.JoinTableRequest, pb.JoinTableResponse]
    ) -> pb.JoinTableResponse:
        seat = request.seat if request.HasField("seat") else None
        name = request.display_name
        binding = Binding()
        if request.join_grant:
            seat, name, binding = self._granted(request, seat)
        elif request.player_id or request.buy_in:
            _check_binding_fields(request.player_id, request.buy_in,
                                  self.manager.settings.limits)
            self._check_api_key(context)
            binding = Binding(request.player_id, request.buy_in, vouched=True)
        elif self.api_key and "x-api-key" in _metadata(context):
            self._check_api_key(context)  # the platform's own join, with no binding
            binding = Binding(vouched=True)
        seat, token, view = await self.manager.join(request.table_id, seat, name,
                                                    bytes(request.entropy), binding,
                                                    bytes(request.entropy_commitment),
                                                    self._churner(context))
        return translate.join_table_response(seat, token, view)

    def _churner(self, context: ServicerContext[Req, Resp]) -> tuple[str, ...]:
        """Whose seat churn budget a join or leave uses, besides its seat's player: the
        address block it comes from, unless it came with the platform's API key (a platform
        seats its many players from one address)."""
        if self.api_key and "x-api-key" in _metadata(context):
            self._check_api_key(context)
            return ()
        return (_peer(context),)

    def _granted(self, request: pb.JoinTableRequest, asked: int | None
                 ) -> tuple[int | None, str, Binding]:
        """The seat, name and binding a join grant allows; the request (asking for seat
        ``asked``) may repeat the grant's values but not ask for others."""
        if self.grants is None:
            raise Unauthenticated("this server takes no join grants (no --grant-public-key)",
                                  field="join_grant", reason="GRANT_INVALID")
        grant = self.grants.verify(request.join_grant, request.table_id)
        clashes = ["seat"] if None not in (asked, grant.seat) and asked != grant.seat else []
        clashes += [field for field, given, granted in (
            ("player_id", request.player_id, grant.player_id),
            ("buy_in", request.buy_in, grant.buy_in),
            ("display_name", request.display_name, grant.name)) if given and given != granted]
        if clashes:
            raise PermissionDenied(f"the request's {', '.join(clashes)} differ from the join "
                                   "grant's", field=clashes[0], reason="GRANT_MISMATCH")
        seat = grant.seat if grant.seat is not None else asked
        return seat, grant.name, Binding(grant.player_id, grant.buy_in, grant.jti, vouched=True)

    @unary
    async def ReissueSeatToken(
            self, request: pb.ReissueSeatTokenRequest,
            context: ServicerContext[pb.ReissueSeatTokenRequest, pb.ReissueSeatTokenResponse]
    ) -> pb.ReissueSeatTokenResponse:
        self._require_platform(context, "ReissueSeatToken", "anybody could take any seat")
        token, expires, version = await self.manager.reissue(request.table_id, request.seat)
        return translate.reissue_seat_token_response(request.seat, token, expires, version)

    @unary
    async def RevealEntropy(
            self, request: pb.RevealEntropyRequest,
            context: ServicerContext[pb.RevealEntropyRequest, pb.RevealEntropyResponse]
    ) -> pb.RevealEntropyResponse:
        view = await self.manager.reveal(request.table_id, _seat_token(context),
                                         bytes(request.entropy))
        return translate.reveal_entropy_response(view)

    @unary
    async def LeaveTable(
            self, request: pb.LeaveTableRequest,
            context: ServicerContext[pb.LeaveTableRequest, pb.LeaveTableResponse]
    ) -> pb.LeaveTableResponse:
        version = await self.manager.leave(request.table_id, _seat_token(context),
                                           self._churner(context))
        return translate.leave_table_response(version)

    @unary
    async def GetView(
            self, request: pb.GetViewRequest,
            context: ServicerContext[pb.GetViewRequest, pb.GetViewResponse]
    ) -> pb.GetViewResponse:
        view = await self.manager.get_view(request.table_id, _token(context))
        return translate.get_view_response(view)

    @unary
    async def SubmitMove(
            self, request: pb.SubmitMoveRequest,
            context: ServicerContext[pb.SubmitMoveRequest, pb.SubmitMoveResponse]
    ) -> pb.SubmitMoveResponse:
        result = await self._submit(request.table_id, _seat_token(context), request)
        return translate.submit_move_response(result)

    async def _submit_move_wire(
            self, request: pb.SubmitMoveRequest,
            context: ServicerContext[pb.SubmitMoveRequest, bytes]) -> bytes:
        result = await self._submit(request.table_id, _seat_token(context), request)
        return translate.submit_move_wire(result)

    submit_move_wire = unary(_submit_move_wire, "SubmitMove")
    """SubmitMove as grpc serves it: the answer's bytes (``translate.submit_move_wire``: the
    view's bytes, rendered once, appended) sent as they are (:data:`WIRE_UNARY`)."""

    async def _submit(self, table_id: str, token: str,
                      request: pb.SubmitMoveRequest | pb.PlayMove) -> MoveResult:
        """A move, sent by SubmitMove or on a Play stream."""
        _check_move_request(request)
        return await self.manager.submit(table_id, token, translate.move_from_pb(request.move),
                                         request.expected_version, request.request_id)

    @streaming
    def WatchTable(
            self, request: pb.WatchTableRequest,
            context: ServicerContext[pb.WatchTableRequest, pb.WatchTableResponse]
    ) -> AsyncIterator[pb.WatchTableResponse]:
        """The messages, for the HTTP API (which may send JSON); grpc sends the bytes."""
        return self._updates(request.table_id, _token(context), request.from_version,
                             translate.watch_table_response)

    def _updates(self, table_id: str, token: str | None, from_version: int,
                 render: Callable[[Update], T]) -> AsyncIterator[T]:
        """The one update loop of WatchTable and Play: every update the caller may see after
        ``from_version``, each rendered by ``render``."""
        return _resuming(self.manager.watch(table_id, token, from_version), from_version,
                         _version, render)

    @streaming
    async def Play(
            self, request: AsyncIterator[pb.PlayRequest],
            context: ServicerContext[pb.PlayRequest, bytes]
    ) -> AsyncIterator[bytes]:
        """WatchTable's updates and, for each move sent up, SubmitMove's answer (see
        service/play.py), once the stream's ``open`` is read. The stream's messages go out
        serialized: an update is wrapped, not copied."""
        token = _seat_token(context)
        opened = await play.opening(request)
        answer = functools.partial(self._play_move, context, opened.table_id, token)
        updates = self._updates(opened.table_id, token, opened.from_version, _play_update)
        return play.play(request, updates, answer, opened.from_version,
                         answers_with_updates=opened.answers_with_updates,
                         settle_within=self.settle_seconds)

    async def _play_move(self, context: ServicerContext[pb.PlayRequest, bytes], table_id: str,
                         token: str, move: pb.PlayMove) -> play.Answered:
        """One move of a Play stream, charged and answered as SubmitMove would be; a refusal
        is its answer (the stream goes on)."""
        start = time.perf_counter()
        code = "OK"
        try:
            self.check_rate(context, "SubmitMove")
            result = await self._submit(table_id, token, move)
        except Exception as error:
            answer = _answer_for(error, "Play")
            if answer is None:
                code = "INTERNAL"
                return play.Answered(translate.play_refused(
                    move.request_id, grpc.StatusCode.INTERNAL.value[0], INTERNAL_MESSAGE, b""), 0)
            code = answer.code
            status = rich_status(answer)
            return play.Answered(translate.play_refused(
                move.request_id, status.code, status.message, status.SerializeToString()), 0)
        finally:
            if self.metrics is not None:
                self.metrics.observe_rpc("Play.move", code, time.perf_counter() - start)
        return play.Answered(*translate.play_accepted(move.request_id, result))

    def _watch_table_wire(
            self, request: pb.WatchTableRequest,
            context: ServicerContext[pb.WatchTableRequest, bytes]) -> AsyncIterator[bytes]:
        token = _token(context)
        _CALL_METADATA.set(None)  # read: an open stream keeps no copy of its metadata
        return self._updates(request.table_id, token, request.from_version,
                             translate.watch_update_wire)

    watch_table_wire = streaming(_watch_table_wire, "WatchTable")
    """WatchTable as grpc serves it: each update's bytes, serialised once per audience
    (``translate.watch_update_wire``) and sent as they are (:data:`WIRE_STREAMS`)."""

    @unary
    async def AbortTable(
            self, request: pb.AbortTableRequest,
            context: ServicerContext[pb.AbortTableRequest, pb.AbortTableResponse]
    ) -> pb.AbortTableResponse:
        self._require_platform(context, "AbortTable",
                               "anybody could end any table (a losing player his own)")
        version = await self.manager.abort(request.table_id, request.note)
        return translate.abort_table_response(version)

    @streaming
    def WatchResults(
            self, request: pb.WatchResultsRequest,
            context: ServicerContext[pb.WatchResultsRequest, pb.WatchResultsResponse]
    ) -> AsyncIterator[pb.WatchResultsResponse]:
        self._check_api_key(context)
        return _resuming(self.manager.watch_results(request.from_cursor), request.from_cursor,
                         lambda row: row.cursor, translate.watch_results_response)

    @unary
    async def GetHistory(
            self, request: pb.GetHistoryRequest,
            context: ServicerContext[pb.GetHistoryRequest, pb.GetHistoryResponse]
    ) -> pb.GetHistoryResponse:
        page = await self.manager.history(request.table_id, _token(context), request.page_size,
                                          request.page_token)
        return translate.get_history_response(page)


def _version(update: Update) -> int:
    return update.version


def _play_update(update: Update) -> tuple[int, bytes]:
    """A Play stream's update: the bytes WatchTable sends (built once per audience), wrapped."""
    return translate.play_update_bytes(update.version, translate.watch_update_wire(update))


Handler = Callable[[Message, ServicerContext[Message, Message]], Awaitable[Message]]
StreamHandler = Callable[[Message, ServicerContext[Message, Message]], Awaitable[None]]
BidiHandler = Callable[[AsyncIterator[Message], ServicerContext[Message, Message | bytes]],
                      Awaitable[None]]
Parse = Callable[[bytes], Message]

WIRE_STREAMS = {"WatchTable": "watch_table_wire"}
"""Server streams grpc serves from a method yielding serialised messages (sent as they are)."""
WIRE_UNARY = {"SubmitMove": "submit_move_wire"}
"""Unary methods grpc serves from a method returning its serialised answer."""


def generic_handler(servicer: TableServicer) -> grpc.GenericRpcHandler[bytes, Message]:
    """The service's handlers, parsing requests here rather than in grpc: a request that is
    not valid protobuf gets INVALID_ARGUMENT naming its type, not grpc's UNKNOWN."""
    service = pb.DESCRIPTOR.services_by_name["TableService"]
    handlers = {}
    for method in service.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        response_type = message_factory.GetMessageClass(method.output_type)
        implementation = getattr(servicer, method.name)
        parse = _parser(request_type, method.name)
        if method.client_streaming:
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(
                _bidi(implementation, parse), response_serializer=_serialized)
        elif method.name in WIRE_STREAMS:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _streaming(getattr(servicer, WIRE_STREAMS[method.name]), parse),
                response_serializer=_serialized)
        elif method.name in WIRE_UNARY:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(getattr(servicer, WIRE_UNARY[method.name]), parse),
                response_serializer=_serialized)
        elif method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _streaming(implementation, parse),
                response_serializer=response_type.SerializeToString)
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(implementation, parse), response_serializer=response_type.SerializeToString)
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


def _parser(request_type: type[Message], name: str) -> Parse:
    def parse(raw: bytes) -> Message:
        try:
            return request_type.FromString(raw)
        except DecodeError:
            raise InvalidArgument(f"the request is not a valid {request_type.DESCRIPTOR.full_name}"
                                  f" ({name})", field="request") from None
    return parse


def _unary(implementation: Handler, parse: Parse
           ) -> Callable[[bytes, ServicerContext[Message, Message]], Awaitable[Message]]:
    """grpc's handler for one unary method: it parses the raw request itself. The context is
    typed with the parsed request type (a call with one request never reads it from there)."""
    async def handle(raw: bytes, context: ServicerContext[Message, Message]) -> Message:
        try:
            request = parse(raw)
        except InvalidArgument as error:
            await abort(context, error)
        return await implementation(request, context)
    return handle


def _streaming(implementation: StreamHandler, parse: Parse
               ) -> Callable[[bytes, ServicerContext[Message, Message]], Awaitable[None]]:
    """What :func:`_unary` does, for a server stream. A coroutine, as the implementation is
    (:func:`streaming`): grpc.aio sends what it passes to ``context.write``."""
    async def handle(raw: bytes, context: ServicerContext[Message, Message]) -> None:
        try:
            request = parse(raw)
        except InvalidArgument as error:
            await abort(context, error)
        await implementation(request, context)
    return handle


def _bidi(implementation: BidiHandler, parse: Parse
          ) -> Callable[[AsyncIterator[bytes], ServicerContext[Message, Message | bytes]],
                        Awaitable[None]]:
    """What :func:`_streaming` does, for a two-way stream: each request is parsed as it is
    read (one that is not valid protobuf ends the stream with INVALID_ARGUMENT)."""
    async def handle(raw: AsyncIterator[bytes],
                     context: ServicerContext[Message, Message | bytes]) -> None:
        await implementation(_Requests(context, parse), context)
    return handle


class _Requests:
    """A two-way stream's requests, each read with ``context.read`` and parsed (no generator
    kept waiting over grpc.aio's request iterator)."""

    __slots__ = ("context", "parse")

    def __init__(self, context: ServicerContext[Message, Message | bytes], parse: Parse
                 ) -> None:
        self.context = context
        self.parse = parse

    def __aiter__(self) -> _Requests:
        return self

    async def __anext__(self) -> Message:
        raw = await self.context.read()
        if raw is grpc.aio.EOF:  # type: ignore[attr-defined]  # missing from the stubs
            raise StopAsyncIteration
        return self.parse(cast(bytes, raw))


def _serialized(response: Message | bytes) -> bytes:
    """A two-way stream's message: its handler may hand it over serialized already."""
    return response if isinstance(response, bytes) else response.SerializeToString()
