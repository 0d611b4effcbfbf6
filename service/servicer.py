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
from typing import Any, TypeVar

import grpc
import structlog
from google.protobuf import message_factory
from google.protobuf.message import DecodeError

from bezique.service import auth, terms, translate
from bezique.service.commands import Binding
from bezique.service.errors import (
    InvalidArgument,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unauthenticated,
    Unavailable,
)
from bezique.service.grants import MAX_ID_LENGTH, GrantVerifier, printable_id
from bezique.service.limits import RateLimiter, StreamCounter
from bezique.service.metrics import Metrics
from bezique.service.status import to_status
from bezique.service.store import StoreError
from bezique.service.table_manager import TableManager, Update
from bezique.v1 import table_service_pb2 as pb
from bezique.v1 import table_service_pb2_grpc as pb_grpc

log = structlog.get_logger("bezique.rpc")

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Method = Callable[["TableServicer", Req, Any], Awaitable[Resp]]
StreamMethod = Callable[["TableServicer", Req, Any], AsyncIterator[Resp]]


_CALL_METADATA: contextvars.ContextVar[tuple[object, dict[str, str]] | None] = (
    contextvars.ContextVar("bezique_call_metadata", default=None))
"""The metadata of the call this task serves (each call runs in a task of its own)."""


def _metadata(context: grpc.aio.ServicerContext[Any, Any]) -> dict[str, str]:
    """The call's metadata as a dict with lower-case keys (read once per call, then kept)."""
    cached = _CALL_METADATA.get()
    if cached is not None and cached[0] is context:
        return cached[1]
    metadata = {key.lower(): value for key, value in (context.invocation_metadata() or ())
                if isinstance(value, str)}
    _CALL_METADATA.set((context, metadata))
    return metadata


SEAT_CALLS = frozenset({"GetView", "SubmitMove", "LeaveTable", "WatchTable", "GetHistory",
                        "RevealEntropy"})
"""Calls that act for the seat of their token: only these are charged to the seat."""


def caller_of(context: grpc.aio.ServicerContext[Any, Any], manager: TableManager,
              method: str) -> str:
    """Who is calling, for per-caller limits: for a seat's own calls the seat of a token this
    server knows, else the peer's address. A made-up token earns no bucket of its own, and
    tokens minted by joining tables do not multiply a peer's budget for creating and joining
    tables."""
    token = auth.bearer_token(_metadata(context)) if method in SEAT_CALLS else None
    if token:
        hashed = auth.token_hash(token)
        if manager.repo.knows_token(hashed):
            return "seat:" + hashed
    peer = str(context.peer() or "unknown")
    host = peer.rsplit(":", 1)[0] if peer.startswith(("ipv4:", "ipv6:")) else peer
    return "peer:" + host


def _token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    metadata = _metadata(context)
    token = auth.bearer_token(metadata)
    if token is None and "authorization" in metadata:
        raise Unauthenticated("the authorization metadata must be 'Bearer <seat token>'",
                              field="authorization")
    return token


def _seat_token(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The seat token a call that acts for a seat must carry."""
    token = _token(context)
    if token is None:
        raise Unauthenticated("this call needs a seat token: metadata "
                              "'authorization: Bearer <seat token>'", field="authorization")
    return token


def _unavailable(error: StoreError) -> Unavailable:
    log.warning("store_unavailable", error=str(error))
    return Unavailable("the table store is unavailable for a moment; retry (moves are "
                       "idempotent by request_id)", reason="STORE_UNAVAILABLE")


def _failure(error: ServiceError | StoreError) -> ServiceError:
    """The service error to answer with: a store failure is UNAVAILABLE (retry)."""
    return _unavailable(error) if isinstance(error, StoreError) else error


def unary(method: Method[Req, Resp]) -> Method[Req, Resp]:
    """Map ServiceError to its status and hide unexpected errors behind INTERNAL."""

    name = method.__name__

    @functools.wraps(method)
    async def wrapper(self: TableServicer, request: Req, context: Any) -> Resp:
        start = time.perf_counter()
        code = "OK"
        try:
            self.check_rate(context, name)
            return await method(self, request, context)
        except (ServiceError, StoreError) as error:
            failure = _failure(error)
            code = failure.code
            await context.abort_with_status(to_status(failure))
        except (grpc.aio.AbortError, grpc.aio.UsageError):
            raise
        except Exception:
            code = "INTERNAL"
            log.exception("rpc_failed", method=name)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error (logged on the server)")
        finally:
            if self.metrics is not None:
                self.metrics.observe_rpc(name, code, time.perf_counter() - start)
        raise AssertionError("unreachable")

    return wrapper


def streaming(method: StreamMethod[Req, Resp]) -> StreamMethod[Req, Resp]:
    """What :func:`unary` does, for a server stream: the rate limit, errors mapped to their
    status (unexpected ones hidden behind INTERNAL), metrics; and one of the caller's stream
    slots held while the stream is open (``--max-watchers-per-caller``, every kind counted)."""

    name = method.__name__

    @functools.wraps(method)
    async def wrapper(self: TableServicer, request: Req, context: Any) -> AsyncIterator[Resp]:
        start = time.perf_counter()
        code = "OK"
        caller = caller_of(context, self.manager, "")  # streams are counted per peer
        counted = False
        gauge = self.metrics.watch_streams if self.metrics and name == "WatchTable" else None
        if gauge is not None:
            gauge.inc()
        try:
            self.check_rate(context, name)
            if not self.streams.acquire(caller):
                raise ResourceExhausted(f"at most {self.streams.limit} open watch streams per "
                                        "caller", reason="TOO_MANY_STREAMS")
            counted = True
            async for message in method(self, request, context):
                yield message
        except (ServiceError, StoreError) as error:
            failure = _failure(error)
            code = failure.code
            await context.abort_with_status(to_status(failure))
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except (grpc.aio.AbortError, grpc.aio.UsageError):
            raise
        except Exception:
            code = "INTERNAL"
            log.exception("rpc_failed", method=name)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error (logged on the server)")
        finally:
            if counted:
                self.streams.release(caller)
            if gauge is not None:
                gauge.dec()
            if self.metrics is not None:
                self.metrics.observe_rpc(name, code, time.perf_counter() - start)

    return wrapper


def _check_binding_fields(player_id: str, buy_in: int) -> None:
    """A player_id is an opaque platform id: 1 to 128 printable characters; a buy-in is a
    positive number of chips (its range is the table's, checked at the table)."""
    if player_id and not printable_id(player_id):
        raise InvalidArgument(f"player_id must be 1 to {MAX_ID_LENGTH} printable characters",
                              field="player_id")
    if buy_in < 0:
        raise InvalidArgument("buy_in must be a positive number of chips (0: the table's "
                              "default)", field="buy_in")


class TableServicer(pb_grpc.TableServiceServicer):
    def __init__(self, manager: TableManager, api_key: str = "",
                 metrics: Metrics | None = None, rate: RateLimiter | None = None,
                 streams: StreamCounter | None = None,
                 grants: GrantVerifier | None = None) -> None:
        self.manager = manager
        self.api_key = api_key
        self.metrics = metrics
        self.rate = rate or RateLimiter(0, 0)
        self.streams = streams or StreamCounter(0)
        self.grants = grants

    def check_rate(self, context: Any, method: str) -> None:
        if self.rate.rate > 0 and not self.rate.allow(caller_of(context, self.manager, method)):
            raise ResourceExhausted(
                f"rate limit: at most {self.rate.rate:g} requests a second per caller "
                f"(bursts of {self.rate.burst:g}); slow down and retry",
                reason="RATE_LIMITED")

    def _check_api_key(self, context: Any) -> None:
        if not self.api_key:
            return
        given = _metadata(context).get("x-api-key", "")
        if not given:
            raise Unauthenticated("this server requires the platform API key (x-api-key)",
                                  field="x-api-key")
        if not hmac.compare_digest(given.encode(), self.api_key.encode()):
            raise PermissionDenied("the platform API key is wrong", field="x-api-key")

    def _require_platform(self, context: Any, method: str, why: str) -> None:
        """An operator's call: refused outright on a server without an API key (``why``
        says what anybody could do otherwise), else the key must be given."""
        if not self.api_key:
            raise PermissionDenied(f"{method} needs a server started with --api-key: without "
                                   f"one {why}", field="x-api-key")
        self._check_api_key(context)

    @unary
    async def ListVariants(self, request: pb.ListVariantsRequest, context: Any
                           ) -> pb.ListVariantsResponse:
        registry = self.manager.registry
        return pb.ListVariantsResponse(variants=[
            translate.variant_info(v, registry.bot_policies(v.id), registry.origins.get(v.id))
            for v in registry.variants.values()])

    @unary
    async def CreateTable(self, request: pb.CreateTableRequest, context: Any
                          ) -> pb.CreateTableResponse:
        self._check_api_key(context)
        test: dict[str, Any] = {}
        if request.HasField("test"):
            if request.test.seed:
                test["seed"] = bytes(request.test.seed)
            if request.test.stacked_shoe:
                test["stacked_shoe"] = list(request.test.stacked_shoe)
            if request.test.HasField("first_dealer"):
                test["first_dealer"] = request.test.first_dealer
        live = await self.manager.create_table(
            request.variant_id, dict(request.options),
            [(bot.seat, bot.policy) for bot in request.bots], request.turn_seconds, test)
        return pb.CreateTableResponse(table_id=live.table_id,
                                      seed_commitment=live.record.commitment,
                                      table=translate.table_summary(live.record, live.state()))

    @unary
    async def ListTables(self, request: pb.ListTablesRequest, context: Any
                         ) -> pb.ListTablesResponse:
        if request.page_size < 0:
            raise InvalidArgument("page_size must be >= 0", field="page_size")
        if not request.page_token.isprintable() or len(request.page_token) > 64:
            raise InvalidArgument("page_token is not one this server gave",
                                  field="page_token", reason="INVALID_PAGE_TOKEN")
        size = min(request.page_size or 100, 1000)
        if len(request.player_id) > 256:
            raise InvalidArgument("player_id is longer than 256 characters", field="player_id")
        which = request.finished
        rows = await self.manager.store.list_tables(
            variant_id=request.variant_id, only_open=request.only_open, limit=size + 1,
            after=request.page_token, player_id=request.player_id,
            include_finished=which == pb.FINISHED_FILTER_ANY,
            only_finished=which == pb.FINISHED_FILTER_FINISHED)
        tables = [translate.table_summary(record, state) for record, state in rows[:size]]
        token = tables[-1].table_id if len(rows) > size else ""
        return pb.ListTablesResponse(tables=tables, next_page_token=token)

    @unary
    async def JoinTable(self, request: pb.JoinTableRequest, context: Any) -> pb.JoinTableResponse:
        seat = request.seat if request.HasField("seat") else None
        name = request.display_name
        binding = Binding()
        if request.join_grant:
            seat, name, binding = self._granted(request)
        elif request.player_id or request.buy_in:
            _check_binding_fields(request.player_id, request.buy_in)
            self._check_api_key(context)
            binding = Binding(request.player_id, request.buy_in)
        seat, token, view = await self.manager.join(request.table_id, seat, name,
                                                    bytes(request.entropy), binding,
                                                    bytes(request.entropy_commitment))
        response = pb.JoinTableResponse(seat=seat, seat_token=token,
                                        view=translate.view_to_pb(view))
        expires = view.seats[seat].token_expires
        if expires is not None:
            response.seat_token_expires.CopyFrom(translate.timestamp(expires))
        return response

    def _granted(self, request: pb.JoinTableRequest) -> tuple[int | None, str, Binding]:
        """The seat, name and binding a join grant allows; the request may repeat the grant's
        values but not ask for others."""
        if self.grants is None:
            raise Unauthenticated("this server takes no join grants (no --grant-public-key)",
                                  field="join_grant", reason="GRANT_INVALID")
        grant = self.grants.verify(request.join_grant, request.table_id)
        asked = request.seat if request.HasField("seat") else None
        clashes = ["seat"] if None not in (asked, grant.seat) and asked != grant.seat else []
        clashes += [field for field, given, granted in (
            ("player_id", request.player_id, grant.player_id),
            ("buy_in", request.buy_in, grant.buy_in),
            ("display_name", request.display_name, grant.name)) if given and given != granted]
        if clashes:
            raise PermissionDenied(f"the request's {', '.join(clashes)} differ from the join "
                                   "grant's", field=clashes[0], reason="GRANT_MISMATCH")
        seat = grant.seat if grant.seat is not None else asked
        return seat, grant.name, Binding(grant.player_id, grant.buy_in, grant.jti)

    @unary
    async def ReissueSeatToken(self, request: pb.ReissueSeatTokenRequest, context: Any
                               ) -> pb.ReissueSeatTokenResponse:
        self._require_platform(context, "ReissueSeatToken", "anybody could take any seat")
        token, expires, version = await self.manager.reissue(request.table_id, request.seat)
        response = pb.ReissueSeatTokenResponse(seat=request.seat, seat_token=token,
                                               version=version)
        if expires is not None:
            response.seat_token_expires.CopyFrom(translate.timestamp(expires))
        return response

    @unary
    async def RevealEntropy(self, request: pb.RevealEntropyRequest, context: Any
                            ) -> pb.RevealEntropyResponse:
        view = await self.manager.reveal(request.table_id, _seat_token(context),
                                         bytes(request.entropy))
        response = pb.RevealEntropyResponse(version=view.version)
        translate.view_to_pb(view, into=response.view)
        return response

    @unary
    async def LeaveTable(self, request: pb.LeaveTableRequest, context: Any
                         ) -> pb.LeaveTableResponse:
        version = await self.manager.leave(request.table_id, _seat_token(context))
        return pb.LeaveTableResponse(version=version)

    @unary
    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        result = await self.manager.get_view(request.table_id, _token(context))
        return pb.GetViewResponse(view=translate.view_to_pb(result))

    @unary
    async def SubmitMove(self, request: pb.SubmitMoveRequest, context: Any
                         ) -> pb.SubmitMoveResponse:
        if not request.HasField("move"):
            raise InvalidArgument("move is missing", field="move")
        if request.expected_version < 0:
            raise InvalidArgument("expected_version must be >= 0", field="expected_version")
        move = translate.move_from_pb(request.move)
        result = await self.manager.submit(request.table_id, _seat_token(context), move,
                                           request.expected_version, request.request_id)
        live = result.after.live
        shoe = live.variant.shoe(live.record.options)
        response = pb.SubmitMoveResponse(version=result.version, duplicate=result.duplicate)
        translate.add_events(response.events, shoe, result.version, result.events)
        translate.view_to_pb(result.after, into=response.view)
        return response

    @streaming
    async def WatchTable(self, request: pb.WatchTableRequest, context: Any
                         ) -> AsyncIterator[pb.WatchTableResponse]:
        async for update in self.manager.watch(request.table_id, _token(context),
                                               request.from_version):
            yield _render_update(update)

    @unary
    async def AbortTable(self, request: pb.AbortTableRequest, context: Any
                         ) -> pb.AbortTableResponse:
        self._require_platform(context, "AbortTable",
                               "anybody could end any table (a losing player his own)")
        version = await self.manager.abort(request.table_id, request.note)
        return pb.AbortTableResponse(version=version)

    @streaming
    async def WatchResults(self, request: pb.WatchResultsRequest, context: Any
                           ) -> AsyncIterator[pb.WatchResultsResponse]:
        self._check_api_key(context)
        async for row in self.manager.watch_results(request.from_cursor):
            yield pb.WatchResultsResponse(result=translate.table_result(row))

    @unary
    async def GetHistory(self, request: pb.GetHistoryRequest, context: Any
                         ) -> pb.GetHistoryResponse:
        page = await self.manager.history(request.table_id, _token(context), request.page_size,
                                          request.page_token)
        record = page.live.record
        shoe = page.live.variant.shoe(record.options)
        response = pb.GetHistoryResponse(
            table_id=record.table_id, variant_id=record.variant_id,
            variant_version=record.variant_version,
            options={k: terms.option_text(v) for k, v in record.options.items()},
            seed_commitment=record.commitment, finished=page.finished,
            next_page_token=page.next_page_token, chance_version=page.live.chance_version,
            turn_seconds=record.turn_seconds)
        for item in page.items:
            entry = item.entry
            message = response.entries.add(version=entry.version, entry_kind=entry.kind,
                                           time=translate.timestamp(entry.created_at))
            translate.add_events(message.events, shoe, entry.version, item.events)
            if entry.seat is not None:
                message.seat = entry.seat
                message.display_name = str(entry.payload.get(
                    "name", page.seats[entry.seat].name if entry.seat < len(page.seats) else ""))
            if entry.kind == "joined":
                message.entropy = bytes.fromhex(str(entry.payload.get("entropy", "")))
                message.bot_policy = str(entry.payload.get("bot", ""))
                if "player_id" in entry.payload or "buy_in" in entry.payload:
                    message.binding.player_id = str(entry.payload.get("player_id", ""))
                    message.binding.buy_in = int(entry.payload.get("buy_in", 0))
                message.entropy_commitment = bytes.fromhex(
                    str(entry.payload.get("entropy_commitment", "")))
            elif entry.kind == "revealed":
                message.entropy = bytes.fromhex(str(entry.payload.get("entropy", "")))
            elif entry.kind == "ended":
                message.withheld_seats.extend(int(s) for s in entry.payload.get("withheld", ()))
            elif entry.kind == "aborted":
                message.note = str(entry.payload.get("note", ""))
            if item.move is not None:
                translate.set_move(message.move, shoe, item.move)
        if page.finished:
            response.revealed_seed = record.seed
            if record.test.get("seed_fixed"):
                response.test.seed = record.seed
            response.test.stacked_shoe.extend(record.test.get("stacked_shoe", []))
            if record.test.get("first_dealer") is not None:
                response.test.first_dealer = int(record.test["first_dealer"])
            if page.outcome is not None:
                translate.set_outcome(response.outcome, page.outcome)
        return response


def _render_update(update: Update) -> pb.WatchTableResponse:
    """One watch message; shared by every watcher with the same viewer of the same entry."""
    broadcast, viewer, shoe = update.broadcast, update.viewer, update.shoe
    if broadcast is not None and viewer in broadcast.rendered:
        cached: pb.WatchTableResponse = broadcast.rendered[viewer]
        return cached
    message = pb.WatchTableResponse(version=update.version, entry_kind=update.kind)
    translate.add_events(message.events, shoe, update.version, update.events)
    if update.seat is not None:
        message.seat = update.seat
    if update.view is not None:
        translate.view_to_pb(update.view, into=message.view)
    if broadcast is not None:
        broadcast.rendered[viewer] = message
    return message


def generic_handler(servicer: TableServicer) -> grpc.GenericRpcHandler[Any, Any]:
    """The service's handlers, parsing requests here rather than in grpc: a request that is
    not valid protobuf gets INVALID_ARGUMENT naming its type, not grpc's UNKNOWN."""
    service = pb.DESCRIPTOR.services_by_name["TableService"]
    handlers = {}
    for method in service.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        response_type = message_factory.GetMessageClass(method.output_type)
        implementation = getattr(servicer, method.name)
        parse = _parser(request_type, method.name)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _streaming(implementation, parse),
                response_serializer=response_type.SerializeToString)
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(implementation, parse), response_serializer=response_type.SerializeToString)
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


def _parser(request_type: Any, name: str) -> Callable[[bytes], Any]:
    def parse(raw: bytes) -> Any:
        try:
            return request_type.FromString(raw)
        except DecodeError:
            raise InvalidArgument(f"the request is not a valid {request_type.DESCRIPTOR.full_name}"
                                  f" ({name})", field="request") from None
    return parse


def _unary(implementation: Any, parse: Callable[[bytes], Any]) -> Any:
    async def handle(raw: bytes, context: Any) -> Any:
        try:
            request = parse(raw)
        except InvalidArgument as error:
            await context.abort_with_status(to_status(error))
        return await implementation(request, context)
    return handle


def _streaming(implementation: Any, parse: Callable[[bytes], Any]) -> Any:
    async def handle(raw: bytes, context: Any) -> AsyncIterator[Any]:
        try:
            request = parse(raw)
        except InvalidArgument as error:
            await context.abort_with_status(to_status(error))
        async for response in implementation(request, context):
            yield response
    return handle
