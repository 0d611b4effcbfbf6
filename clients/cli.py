"""``bezique``: the command-line client of the table service.

Every subcommand is one or two SDK calls and a rich rendering. Errors from the server are
printed as one clear line (its status and message, and the legal moves for a refused move),
never as a traceback. Exit codes: 0 done, 1 the server or the check said no, 2 a usage error
or a game that cannot be verified yet, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import grpc
from rich.console import Console
from rich.text import Text

from bezique.clients import render
from bezique.clients.i18n import count, entry_kind_name, language_of, set_language, t
from bezique.clients.safe import visible
from bezique.clients.sdk import AsyncTableClient, SeatHandle, error_reason, legal_moves_now
from bezique.clients.sdk import with_amount as sdk_with_amount
from bezique.terms import EntryKind
from bezique.v1 import table_service_pb2 as pb

DEFAULT_PORT = 50051
"""The port ``bezique-server`` (and ``make run``) listens on unless told otherwise."""
DEFAULT_SERVER = f"127.0.0.1:{DEFAULT_PORT}"
SERVER_VARIABLE = "BEZIQUE_SERVER"
"""The server's address, read by the server (where it listens) and its clients alike."""
OLD_SERVER_VARIABLE = "BEZIQUE_ADDRESS"
"""Deprecated: the server's own name for it; the command line reads it after BEZIQUE_SERVER."""
Handler = Callable[[argparse.Namespace, Console], Coroutine[Any, Any, int]]


class CliError(Exception):
    """A problem with what was asked, explained; ``code`` is the exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------------------- plumbing


def tls_of(args: argparse.Namespace) -> dict[str, Any]:
    """The SDK's make_channel arguments from --tls, --tls-ca, --tls-cert and --tls-key."""
    tls: dict[str, Any] = {}
    for flag, key in (("tls_ca", "root_certificates"), ("tls_cert", "certificate_chain"),
                      ("tls_key", "private_key")):
        path = getattr(args, flag)
        if path:
            try:
                tls[key] = Path(path).read_bytes()
            except OSError as exc:
                raise CliError(f"--{flag.replace('_', '-')}: cannot read {path}: "
                               f"{exc.strerror}") from exc
    if args.tls:
        tls["tls"] = True
    return tls


def client_of(args: argparse.Namespace) -> AsyncTableClient:
    return AsyncTableClient(server_of(args), api_key=args.api_key, retries=2, **tls_of(args))


def server_from_env() -> str:
    """BEZIQUE_SERVER, else the deprecated BEZIQUE_ADDRESS, else ""."""
    return os.environ.get(SERVER_VARIABLE) or os.environ.get(OLD_SERVER_VARIABLE) or ""


def server_of(args: argparse.Namespace) -> str:
    return with_port(str(args.server or server_from_env() or DEFAULT_SERVER))


def with_port(target: str) -> str:
    """``target`` with the server's default port when it names none: gRPC would otherwise try
    443, where no bezique server listens by default. A target with a scheme (``dns:``,
    ``unix:``, ``ipv6:``) is left as it is."""
    if "://" in target or target.split(":", 1)[0] in ("dns", "unix", "unix-abstract", "ipv4",
                                                       "ipv6", "vsock"):
        return target
    if target.startswith("["):
        return target if "]:" in target else f"{target}:{DEFAULT_PORT}"
    if target.count(":") > 1:  # a bare IPv6 address
        return f"[{target}]:{DEFAULT_PORT}"
    return target if ":" in target else f"{target}:{DEFAULT_PORT}"


def note_port(args: argparse.Namespace, errors: Console) -> None:
    """Say on stderr when the target got the default port (the output stays the command's)."""
    given = str(getattr(args, "server", None) or server_from_env() or "")
    if given and with_port(given) != given:
        errors.print(t("no port given: using {target} (the server's default port)",
                       target=with_port(given)), markup=False, soft_wrap=True)


def seat_of(args: argparse.Namespace, table_id: str) -> SeatHandle:
    if not args.token:
        raise CliError(t("this command needs your seat token: pass --token or set "
                         "BEZIQUE_TOKEN (printed by `bezique join`)"))
    return SeatHandle(table_id, -1, args.token)


def parse_proof(text: str) -> tuple[int, bytes, str, str]:
    """SEAT:ENTROPY_HEX:COMMITMENT[:SEEN], as `bezique join` prints it in BEZIQUE_PROOF (and
    `view`, `move` or `watch` again, with SEEN, once they revealed the seat's entropy)."""
    parts = text.split(":")
    try:
        if len(parts) not in (3, 4):
            raise ValueError(text)
        seen = parts[3] if len(parts) == 4 else ""
        return int(parts[0]), bytes.fromhex(parts[1]), parts[2], seen
    except ValueError:
        raise CliError(t("--proof is SEAT:ENTROPY_HEX:COMMITMENT[:SEEN], as `bezique join` (or "
                         "the command that revealed) printed it")) from None


def remember_proof(client: AsyncTableClient, args: argparse.Namespace, table_id: str) -> None:
    """Let the client reveal the seat's committed entropy (kept in the proof) when the table
    asks: only with the seat's own token, and only at the table whose seed commitment the
    proof names (the SDK checks it against the view)."""
    if not (args.token and getattr(args, "proof", "")):
        return
    seat, entropy, commitment, _ = parse_proof(args.proof)
    client.remember(SeatHandle(table_id, seat, args.token, entropy, commitment, committed=True))


def say_pinned(console: Console, client: AsyncTableClient, args: argparse.Namespace,
               table_id: str) -> None:
    """After this command revealed the seat's entropy: the proof to keep from now on, with
    the digest of every seat's contribution the seat saw before it revealed."""
    if not getattr(args, "proof", ""):
        return
    seat, entropy, commitment, _ = parse_proof(args.proof)
    seen = client.pins.get((table_id, seat))
    if seen:
        say(console, t("revealed your entropy; keep this proof for `bezique verify`:"))
        say(console, f"export BEZIQUE_PROOF={seat}:{entropy.hex()}:{commitment}:{seen}")


def pairs(values: Sequence[str] | None, what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in values or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise CliError(t("{what} {item!r} is not of the form NAME=VALUE", what=what,
                             item=item))
        found[name.strip()] = value.strip()
    return found


def describe_rpc_error(error: grpc.RpcError, server: str) -> str:
    """One readable paragraph for a failed call: status, message, and the useful details."""
    code = error.code() if isinstance(error, grpc.aio.AioRpcError | grpc.Call) else None
    details = error.details() if isinstance(error, grpc.aio.AioRpcError | grpc.Call) else ""
    details = visible(details or "")
    if is_http_port(details):
        return t("{server} is the HTTP port (Connect/gRPC-Web, for browsers); the gRPC port is "
                 "the server's --address (default {default})", server=server,
                 default=DEFAULT_SERVER)
    store_down = error_reason(error) == pb.ERROR_REASON_STORE_UNAVAILABLE
    if code == grpc.StatusCode.UNAVAILABLE and store_down:  # the server answered: not "start one"
        return t("the server at {server} answers, but its table store is unavailable for a "
                 "moment (a database failover, or the database down): try again shortly",
                 server=server)
    if code == grpc.StatusCode.UNAVAILABLE:
        return t("cannot reach a bezique server at {server} ({details}); start one with "
                 "`bezique-server` or point --server / BEZIQUE_SERVER at it", server=server,
                 details=details)
    lines = [f"{code.name if code else 'ERROR'}: {details}"]
    legal = legal_moves_now(error)
    if legal:
        lines.append(t("legal moves now: {moves}", moves="; ".join(map(visible, legal))))
    return "\n".join(lines)


HTTP_SIGNS = ("http1.x server", "Failed parsing HTTP/2")
"""What gRPC says when the port answers HTTP/1.1 (the server's Connect and gRPC-Web port)."""


def is_http_port(details: str) -> bool:
    return any(sign.lower() in details.lower() for sign in HTTP_SIGNS)


def token_hint(args: argparse.Namespace, error: grpc.RpcError) -> str:
    """A hint when a seat token from the environment is refused: BEZIQUE_TOKEN is often left
    over from another table."""
    code = error.code() if isinstance(error, grpc.aio.AioRpcError | grpc.Call) else None
    token = getattr(args, "token", "")
    if code != grpc.StatusCode.PERMISSION_DENIED or not token:
        return ""
    if token != os.environ.get("BEZIQUE_TOKEN"):
        return t("hint: the --token given holds no seat at this table; `bezique join` prints "
                 "the token of the seat it takes")
    table = getattr(args, "table", "") or t("this table")
    return t("hint: the token comes from BEZIQUE_TOKEN, which may be left over from another "
             "table: pass --token with your seat's token for {table}, or `unset BEZIQUE_TOKEN` "
             "to look on as a spectator", table=table)


def say(console: Console, text: str) -> None:
    """A plain line that is never wrapped (ids and tokens must stay whole); it may hold
    server strings, so it is printed :func:`~clients.safe.visible`."""
    console.print(visible(text), soft_wrap=True, markup=False, highlight=False)


# ------------------------------------------------------------------------------- commands


async def cmd_variants(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        console.print(render.variants_table(await client.list_variants()))
    return 0


async def cmd_tables(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        tables = await client.list_tables(args.variant or "", args.open)
    console.print(render.tables_table(tables))
    return 0


async def cmd_create(args: argparse.Namespace, console: Console) -> int:
    options = pairs(args.option, "option")
    bots: dict[int, str] = {}
    for seat, policy in pairs(args.bot, "bot").items():
        if not seat.isdigit():
            raise CliError(t("--bot {seat}={policy}: the seat must be a number", seat=seat,
                             policy=policy))
        bots[int(seat)] = policy
    test: dict[str, Any] = {}
    if args.test_seed:
        try:
            test["seed"] = bytes.fromhex(args.test_seed)
        except ValueError as exc:
            raise CliError("--test-seed must be hexadecimal") from exc
    if args.stacked_shoe:
        test["stacked_shoe"] = args.stacked_shoe.replace(",", " ").split()
    if args.first_dealer is not None:
        test["first_dealer"] = args.first_dealer
    async with client_of(args) as client:
        if bots:
            await check_policies(client, args.variant, bots)
        created = await client.create_table(args.variant, options, bots=bots,
                                            turn_seconds=args.turn_seconds,
                                            open_seats=args.open_seats, **test)
    say_created(console, created)
    return 0


async def cmd_rematch(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        created = await client.rematch(args.table)
    if created.existed:
        say(console, t("another player asked first: this is the same rematch"))
    say_created(console, created)
    return 0


def say_created(console: Console, created: pb.CreateTableResponse) -> None:
    """What `create` and `rematch` print: the table, its seed commitment and how to join."""
    say(console, t("table: {table}", table=created.table_id))
    say(console, t("seed commitment: {commitment}", commitment=created.seed_commitment))
    say(console, t("free seats: {count}", count=created.table.free_seats) + join_hint(created))


async def check_policies(client: AsyncTableClient, variant: str, bots: dict[int, str]) -> None:
    """Refuse a policy the variant does not offer, listing the ones ListVariants names (a
    plugin or a newer server may offer more than this client knows of)."""
    found = [info for info in await client.list_variants() if info.id == variant]
    if not found:
        return  # the server says it better (with the variants it has)
    offered = list(found[0].bot_policies)
    for seat, policy in bots.items():
        if policy not in offered:
            raise CliError(t("--bot {seat}={policy}: {variant} has no bot policy {policy!r} "
                             "(it has: {policies})", seat=seat, policy=policy,
                             variant=variant, policies=", ".join(offered)))


def join_hint(created: pb.CreateTableResponse) -> str:
    """How the free seats of a new table are taken: a bare `bezique join` is refused at a
    table that takes joins only from the platform."""
    if not created.table.free_seats:
        return ""
    if created.platform_joins:
        return t("  (joins need a join grant or the platform API key)")
    return t("  (join with: bezique join {table})", table=created.table_id)


async def cmd_join(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        seat = await client.join(args.table, args.seat, args.name or "",
                                 player_id=args.player_id or "", buy_in=args.buy_in or 0,
                                 grant=args.grant or "")
        view = await client.view(args.table, seat.token)
    say(console, t("seat: {seat}", seat=seat.seat))
    say(console, t("token: {token}", token=seat.token))
    if seat.expires is not None:
        say(console, t("token expires: {when}", when=_when(seat.expires)))
    say(console, f"export BEZIQUE_TOKEN={seat.token}")
    # What `bezique verify` needs to hold the server to the game this seat took part in; with
    # commit-reveal it also holds the seat's entropy, secret until the table asks for it, and
    # once revealed the digest of the contributions the seat saw before revealing.
    seen = client.pins.get((args.table, seat.seat), "")
    say(console, f"export BEZIQUE_PROOF={seat.seat}:{seat.entropy.hex()}:{seat.commitment}"
                 + (f":{seen}" if seen else ""))
    if seat.committed and view.waiting_for_players and not view.HasField("outcome"):
        say(console, t("your entropy stays secret until every seat is taken; then `bezique "
                       "view`, `move`, `watch` or `play` with BEZIQUE_PROOF set reveal it (keep "
                       "BEZIQUE_PROOF private until then)"))
    return 0


def _seats(seats: Sequence[int]) -> str:
    """"seat 0" or "seats 0, 1": the verdict names one seat or several."""
    return (t("seat ") if len(seats) == 1 else t("seats ")) + ", ".join(map(str, seats))


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


async def cmd_reissue(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        seat = await client.reissue(args.table, args.seat)
    say(console, t("seat: {seat}", seat=seat.seat))
    say(console, t("token: {token}", token=seat.token))
    if seat.expires is not None:
        say(console, t("token expires: {when}", when=_when(seat.expires)))
    say(console, f"export BEZIQUE_TOKEN={seat.token}")
    return 0


async def cmd_abort(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        version = await client.abort(args.table, args.note or "")
    say(console, f"aborted table {args.table} at version {version}")
    return 0


def result_line(result: pb.TableResult) -> str:
    """One finished table of the results feed, on one line: cursor, table, variant, reason,
    then each seat (player, name, score, chip change)."""
    seats = []
    for seat in result.seats:
        who = seat.player_id or (seat.bot_policy and f"bot:{seat.bot_policy}") or "-"
        text = f"{seat.seat}={who}"
        if seat.display_name:
            text += f" ({seat.display_name})"
        text += f" score {seat.score}"
        if seat.HasField("chip_change"):
            text += f" chips {seat.chip_change:+d}"
        seats.append(text)
    winners = ",".join(map(str, result.outcome.winners)) or "none"
    return (f"cursor {result.cursor}  table {result.table_id}  {result.variant_id} "
            f"v{result.variant_version}  {result.reason}  winners {winners}  "
            + "; ".join(seats))


async def cmd_results(args: argparse.Namespace, console: Console) -> int:
    """The results feed from a cursor: what it holds now (the stream is idle for ``--wait``
    seconds), or with ``--follow`` every table as it ends, until interrupted."""
    from google.protobuf import json_format

    last = args.from_cursor
    async with client_of(args) as client:
        stream = client.watch_results(args.from_cursor).__aiter__()
        try:
            while True:
                try:
                    if args.follow:
                        result = await stream.__anext__()
                    else:
                        result = await asyncio.wait_for(stream.__anext__(), args.wait)
                except (StopAsyncIteration, TimeoutError):
                    break
                last = result.cursor
                if args.json:
                    say(console, json_format.MessageToJson(result, indent=None))
                else:
                    say(console, result_line(result))
                console.file.flush()  # a follower reads each line as the table ends
        finally:
            await stream.aclose()  # type: ignore[attr-defined]
    if not args.json:
        say(console, f"resume with: bezique results --from-cursor {last}")
    return 0


async def words_of(client: AsyncTableClient, variant_id: str) -> render.Words:
    """The vocabulary the server's ListVariants gives for ``variant_id`` (none if unknown)."""
    found = [info for info in await client.list_variants() if info.id == variant_id]
    return render.Words.of(found[0] if found else None)


async def cmd_view(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        remember_proof(client, args, args.table)
        view = await client.view(args.table, args.token or None)
        say_pinned(console, client, args, args.table)
        words = await words_of(client, view.variant_id)
    console.print(render.view_renderable(view, words=words))
    return 0


def no_moves_reason(view: pb.View) -> str:
    """Why a view offers no move: the end, the wait for players, a spectator's view, or
    someone else's turn (never "not your turn" to a game that is over)."""
    if view.HasField("outcome"):
        return t("the game is over")
    if view.awaiting_reveal:
        seats = ", ".join(str(seat) for seat in view.awaiting_reveal)
        return t("the table waits for seat(s) {seats} to reveal their entropy (each player's "
                 "view, move or watch with --proof, or BEZIQUE_PROOF set, reveals it)",
                 seats=seats)
    if view.waiting_for_players:
        return t("the table is waiting for players")
    if not view.HasField("viewer_seat"):
        return t("this is a spectator's view (pass --token to act for your seat)")
    names = render.seat_names(view.seats, view.viewer_seat)
    movers = ", ".join(render.who(names, s) for s in view.to_move)
    return t("it is not your turn (to move: {movers}); `bezique move --wait SECONDS` waits "
             "for it", movers=movers or t("nobody"))


def resolve_cards(given: Sequence[str], kind: str, view: pb.View) -> list[int]:
    """Card ids from ids or codes; a code is matched against the legal moves of that kind,
    then the hand (with two packs, the same code names two cards)."""
    codes = [c.upper() for c in given]
    for move in view.legal_moves:
        if move.kind == kind and sorted(c.code for c in move.cards) == sorted(codes):
            return [card.id for card in move.cards]
    pool = list(view.hand) + [c for m in view.legal_moves for c in m.cards]
    ids: list[int] = []
    for token in given:
        if token.isdigit():
            ids.append(int(token))
            continue
        match = next((c.id for c in pool if c.code == token.upper() and c.id not in ids), None)
        if match is None:
            raise CliError(t("card {card!r} is not in your hand or your legal moves",
                             card=token))
        ids.append(match)
    return ids


async def cmd_move(args: argparse.Namespace, console: Console) -> int:
    if (args.index is None) == (args.kind is None):
        raise CliError(t("give either the number of a legal move or --kind (with --card, "
                         "--amount, --label)"))
    seat = seat_of(args, args.table)
    async with client_of(args) as client:
        remember_proof(client, args, args.table)
        view = await client.view(args.table, seat.token)
        if args.wait:
            view = await wait_for_turn(client, args, seat, view)
        say_pinned(console, client, args, args.table)
        if args.index is not None:
            moves = render.shown_moves(view)
            number = len(moves)
            if not 1 <= args.index <= number:
                offered = f"1..{number}" if number else t("none: {why}",
                                                          why=no_moves_reason(view))
                raise CliError(t("no legal move {index} at version {version} (the view offers "
                                 "{offered})", index=args.index, version=view.version,
                                 offered=offered))
            move = moves[args.index - 1]
            if args.amount is not None:
                try:
                    move = sdk_with_amount(move, args.amount)
                except ValueError as exc:
                    raise CliError(f"move {args.index}: {exc}") from None
        else:
            move = pb.Move(kind=args.kind, amount=args.amount or 0, label=args.label or "",
                           cards=[pb.Card(id=i)
                                  for i in resolve_cards(args.card or [], args.kind, view)])
        version = args.expected_version if args.expected_version is not None else view.version
        response = await client.submit(seat, move, version, uuid.uuid4().hex)
        words = await words_of(client, view.variant_id)
    names = render.seat_names(response.view.seats,
                              response.view.viewer_seat
                              if response.view.HasField("viewer_seat") else None)
    line = Text(t("move accepted at version {version}: ", version=response.version))
    line.append_text(render.move_text(move, words=words))
    console.print(line)
    for event in response.events:
        console.print(Text("  · ").append_text(render.event_text(event, names, words=words)))
    return 0


def my_turn(view: pb.View) -> bool:
    """Whether the view offers the seat a move now, or never will (the game ended)."""
    return bool(view.legal_moves) or view.HasField("outcome")


async def wait_for_turn(client: AsyncTableClient, args: argparse.Namespace, seat: SeatHandle,
                        view: pb.View) -> pb.View:
    """The seat's view once it may move (or the game ended), following the table's updates
    for at most ``--wait`` seconds; a CliError saying why when the turn did not come."""
    if my_turn(view):
        return view

    async def follow() -> pb.View:
        latest = view
        async for update in client.watch(args.table, seat.token, view.version):
            if update.HasField("view") and update.view.version >= latest.version:
                latest = update.view
                if my_turn(latest):
                    return latest
        return await client.view(args.table, seat.token)

    try:
        return await asyncio.wait_for(follow(), args.wait)
    except TimeoutError:
        latest = await client.view(args.table, seat.token)
        if my_turn(latest):
            return latest
        raise CliError(t("your turn did not come within {seconds} s ({why})",
                         seconds=f"{args.wait:g}", why=no_moves_reason(latest)),
                       code=1) from None


async def cmd_watch(args: argparse.Namespace, console: Console) -> int:
    async with client_of(args) as client:
        remember_proof(client, args, args.table)
        view = await client.view(args.table, args.token or None)
        say_pinned(console, client, args, args.table)
        viewer = view.viewer_seat if view.HasField("viewer_seat") else None
        names = render.seat_names(view.seats, viewer)
        words = await words_of(client, view.variant_id)
        async for update in client.watch(args.table, args.token or None, args.from_version):
            if update.HasField("view"):
                names = render.seat_names(update.view.seats, viewer)
            kind = entry_kind_name(visible(update.entry_kind))
            line = Text(f"v{update.version:<4} {kind:<9}", style="bold")
            if update.HasField("seat"):
                line.append(f" {render.who(names, update.seat)}")
            console.print(line)
            for event in update.events:
                console.print(Text("      · ").append_text(
                    render.event_text(event, names, words=words)))
            if update.HasField("view") and render.game_over(update.view):
                console.print(render.outcome_text(update.view.outcome, names, words))
                return 0
    return 0


async def cmd_history(args: argparse.Namespace, console: Console) -> int:
    from bezique.clients.replay import folded_deals, replay_lines

    async with client_of(args) as client:
        history = await client.history(args.table, args.token or None)
        words = await words_of(client, history.variant_id)
    if args.replay:
        for line in replay_lines(history, words):
            console.print(line)
        return 0
    names: dict[int, str] = {}
    folded = folded_deals(history)
    if folded:
        say(console, t(render.END_NOTE))
    for number, entry in enumerate(history.entries):
        if entry.entry_kind == EntryKind.JOINED and entry.HasField("seat"):
            names[entry.seat] = t("Seat {seat} ({name})", seat=entry.seat,
                                  name=visible(entry.display_name))
        mine = {index for at, index in folded if at == number}
        console.print(render.history_line(entry, names, mine), soft_wrap=True)
    return 0


async def cmd_verify(args: argparse.Namespace, console: Console) -> int:
    from bezique.clients.verify import NotFinishedError, OwnSeat, VerificationError, verify_history

    async with client_of(args) as client:
        history = await client.history(args.table, args.token or None)
    own = OwnSeat(*parse_proof(args.proof)) if args.proof else None
    try:
        result = verify_history(history, allow_test_settings=args.allow_test_settings,
                                seat=own)
    except NotFinishedError as exc:
        raise CliError(str(exc), code=2) from exc
    except VerificationError as exc:
        console.print(Text(t("VERIFICATION FAILED"), style="bold red").append(
            t(" for table {table}:", table=visible(history.table_id))), highlight=False)
        say(console, f"  {exc}")
        return 1
    if result.test_settings:
        console.print(Text(t("WARNING: TEST SETTINGS ({settings}): this table's deals were "
                             "chosen by its creator, not drawn",
                             settings=", ".join(result.test_settings)), style="bold yellow"),
                      highlight=False)
    say(console, t("seed commitment {commitment} matches the revealed seed",
                   commitment=history.seed_commitment))
    if result.ended:
        say(console, t("verified: the table ended before any deal ({why}): seats {seats} did "
                       "not reveal the entropy they committed to; every reveal that came "
                       "matches its commitment", why=result.ended,
                       seats=", ".join(map(str, result.withheld))))
        return 0
    say(console, t("verified: {deals}, {moves} ({bots} by bots, {timeouts} on the clock)",
                   deals=count(result.deals, "deal", "deals"),
                   moves=count(result.moves, "move", "moves"), bots=result.bot_moves,
                   timeouts=result.timeouts))
    if result.aborted:
        say(console, t("aborted by the operator: the settlement is the variant's, recomputed"))
    if own is not None:
        say(console, t("your seat {seat}: the commitment you were shown and the entropy you "
                       "sent are the ones the deals came from", seat=own.seat)
                     + (t("; every seat's contribution is the one you saw before you revealed")
                        if own.seen else ""))
    clear = [seat for seat in result.contributors if seat not in result.committed]
    if result.committed:
        say(console, t("fair against the operator: {seats} contributed entropy by "
                       "commit-reveal (each fixed before any was revealed; every reveal "
                       "matches its commitment)", seats=_seats(result.committed)))
    if clear:
        say(console, (t("also ") if result.committed else t(
            "fair against the operator only if one of these is honest and joined after every "
            "other seat: ")) + t("{seats} contributed entropy in the clear (public from their "
                                 "join)", seats=_seats(clear)))
    if not result.contributors:
        say(console, t("not checkable against the operator: no seat contributed entropy, so "
                       "the operator alone chose the seed"))
    return 0


async def cmd_play(args: argparse.Namespace, console: Console) -> int:
    from bezique.clients.play import PlayError, PlaySettings, play

    explicit = args.server or server_from_env()
    policy, seats = play_bots(args.bot or [])
    settings = PlaySettings(
        variant=args.variant, options=pairs(args.option, "option"),
        bot_policy=policy or args.bot_policy, bot_seats=seats,
        server=with_port(explicit) if explicit else None, bot_delay=args.bot_delay,
        name=args.name, turn_seconds=args.turn_seconds, api_key=args.api_key,
        tls=tls_of(args), auto_pass=args.auto_pass)
    try:
        return await play(settings, console)
    except PlayError as exc:
        raise CliError(str(exc), code=2) from exc


def play_bots(given: Sequence[str]) -> tuple[str | None, dict[int, str]]:
    """``play --bot``'s values as ``create --bot`` reads them (SEAT=POLICY), or a bare POLICY
    for every bot seat: the policy for all, and the seats given one."""
    every: str | None = None
    seats: dict[int, str] = {}
    for item in given:
        seat, sep, policy = item.partition("=")
        if not sep:
            every = item.strip()
        elif seat.strip().isdigit() and policy.strip():
            seats[int(seat)] = policy.strip()
        else:
            raise CliError(t("--bot {item}: give SEAT=POLICY, or POLICY for every bot seat",
                             item=item))
    return every, seats


async def cmd_new_variant(args: argparse.Namespace, console: Console) -> int:
    from bezique.clients.scaffold import ScaffoldError, names_of, write_package

    try:
        folder, written = write_package(args.name, Path(args.directory) if args.directory
                                        else None)
    except ScaffoldError as exc:
        raise CliError(str(exc)) from exc
    names = names_of(args.name)
    for path in written:
        say(console, f"wrote {path}")
    say(console, f"next: cd {folder} && pip install -e '.[test]' && pytest && "
                 f"mypy --strict {names.module} tests  (in an environment with bezique-engine "
                 "installed: it is not on a package index yet)")
    return 0


# ------------------------------------------------------------------------------- parsing


def add_connection(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """The connection flags; on subcommands they default to SUPPRESS so that a flag given
    before the subcommand is not overwritten by the subcommand's default."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress else value

    group = parser.add_argument_group("connection")
    group.add_argument("--server", default=default(None), metavar="HOST[:PORT]",
                       help=f"the server (env {SERVER_VARIABLE}, the one the server listens "
                            f"on too; {OLD_SERVER_VARIABLE}, deprecated, still read; default "
                            f"{DEFAULT_SERVER}; no port: {DEFAULT_PORT}; for play: none given "
                            "runs a server in-process)")
    group.add_argument("--lang", default=default(None), choices=("en", "ru"),
                       help="the language of what is printed (default: from LC_ALL, "
                            "LC_MESSAGES or LANG; ru* is Russian)")
    group.add_argument("--token", default=default(os.environ.get("BEZIQUE_TOKEN", "")),
                       help="your seat token for seat calls (env BEZIQUE_TOKEN)")
    group.add_argument("--api-key", default=default(os.environ.get("BEZIQUE_API_KEY", "")),
                       help="the platform API key, if the server wants one (env "
                            "BEZIQUE_API_KEY)")
    group.add_argument("--tls", action="store_true", default=default(False),
                       help="use TLS with the system's root certificates")
    group.add_argument("--tls-ca", default=default(""), metavar="PEM",
                       help="CA bundle to check the server's certificate (implies TLS)")
    group.add_argument("--tls-cert", default=default(""), metavar="PEM",
                       help="client certificate chain for mutual TLS")
    group.add_argument("--tls-key", default=default(""), metavar="PEM",
                       help="client private key for mutual TLS")


COMMANDS: dict[str, tuple[Handler, str]] = {
    "variants": (cmd_variants, "list the installed variants, their options and bots"),
    "tables": (cmd_tables, "list the tables that are not finished"),
    "create": (cmd_create, "create a table (prints its id and seed commitment)"),
    "rematch": (cmd_rematch, "play again: a new table like a finished one (its variant, "
                             "options, bots and clock), the same for every player who asks"),
    "join": (cmd_join, "take a seat (prints the seat token)"),
    "reissue": (cmd_reissue, "platform: a new token for a seat, revoking the old one"),
    "abort": (cmd_abort, "platform: end a table now (reason aborted, stakes back)"),
    "results": (cmd_results, "platform: the results feed, every finished table from a "
                             "cursor"),
    "view": (cmd_view, "show a table as your seat (or a spectator) sees it"),
    "move": (cmd_move, "make a move: the number of a legal move, or --kind ..."),
    "watch": (cmd_watch, "print every update of a table until the game ends"),
    "history": (cmd_history, "print a table's log (--replay: trick by trick)"),
    "verify": (cmd_verify, "check a finished game's shuffles against its seed commitment"),
    "play": (cmd_play, "play a whole game against bots in this terminal"),
    "new-variant": (cmd_new_variant, "write a variant plugin package to start from (no "
                                     "server needed)"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bezique", description="Play and inspect card "
                                     "tables on a bezique server.")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {distribution_version()}")
    add_connection(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = {}
    for name, (handler, summary) in COMMANDS.items():
        command = sub.add_parser(name, help=summary, description=summary)
        command.set_defaults(handler=handler)
        add_connection(command, suppress=True)
        commands[name] = command
    commands["tables"].add_argument("--variant", help="only tables of this variant")
    commands["tables"].add_argument("--open", action="store_true",
                                    help="only tables with a free seat")
    for name in ("create", "play"):
        commands[name].add_argument("variant", metavar="VARIANT")
        commands[name].add_argument("-o", "--option", action="append", metavar="NAME=VALUE",
                                    help="an option of the variant (see `bezique variants`)")
        commands[name].add_argument("--turn-seconds", type=int, default=0,
                                    help="seconds a seat has to move (0: no clock)")
    create = commands["create"]
    create.add_argument("--bot", action="append", metavar="SEAT=POLICY",
                        help="seat SEAT is played by the server's bot POLICY (any policy "
                             "`bezique variants` lists)")
    create.add_argument("--test-seed", metavar="HEX", help="test mode: fix the secret seed")
    create.add_argument("--stacked-shoe", metavar="CODES",
                        help="test mode: the first deal's shoe, top card first")
    create.add_argument("--first-dealer", type=int, help="test mode: fix the first dealer")
    create.add_argument("--open-seats", action="store_true",
                        help="anyone may join, without a join grant or the API key (a server "
                             "with --grant-public-key otherwise takes only those; never a "
                             "table with buy-ins)")
    join = commands["join"]
    join.add_argument("table", metavar="TABLE")
    join.add_argument("--seat", type=int, help="the seat to take (default: the first free)")
    join.add_argument("--name", help="your display name")
    join.add_argument("--player-id", help="platform: the player the seat is bound to (needs "
                                          "--api-key)")
    join.add_argument("--buy-in", type=int, help="platform: the seat's starting stack, chips "
                                                 "(betting variants; needs --api-key)")
    join.add_argument("--grant", default=os.environ.get("BEZIQUE_GRANT", ""),
                      help="a join grant the platform signed (env BEZIQUE_GRANT), in place "
                           "of the API key")
    reissue = commands["reissue"]
    reissue.add_argument("table", metavar="TABLE")
    reissue.add_argument("seat", type=int, metavar="SEAT", help="the seat, from 0")
    abort = commands["abort"]
    abort.add_argument("table", metavar="TABLE")
    abort.add_argument("--note", help="why, for the record (kept in the log; up to 200 "
                                      "characters)")
    results = commands["results"]
    results.add_argument("--from-cursor", type=int, default=0, metavar="N",
                         help="start after the result with cursor N (default 0: the first)")
    results.add_argument("--follow", action="store_true",
                         help="keep printing tables as they end, until interrupted")
    results.add_argument("--wait", type=float, default=1.0, metavar="SECONDS",
                         help="without --follow: stop once no result came for this long")
    results.add_argument("--json", action="store_true",
                         help="one TableResult a line, as protobuf JSON")
    for name in ("view", "move", "watch", "history", "verify", "rematch"):
        commands[name].add_argument("table", metavar="TABLE")
    for name in ("view", "move", "watch"):
        commands[name].add_argument(
            "--proof", default=os.environ.get("BEZIQUE_PROOF", ""),
            metavar="SEAT:ENTROPY:COMMIT[:SEEN]",
            help="what `bezique join` printed for your seat (env BEZIQUE_PROOF): its secret "
                 "entropy is revealed when the table asks (every seat taken)")
    move = commands["move"]
    move.add_argument("index", nargs="?", type=int, metavar="INDEX",
                      help="the number of a legal move as `bezique view` lists it")
    move.add_argument("--kind", help="the move's kind (play, declare, pass, raise, ...)")
    move.add_argument("--card", action="append", metavar="CODE_OR_ID",
                      help="a card of the move, by code (AS, TH) or id")
    move.add_argument("--amount", type=int,
                      help="chips, for betting moves: with INDEX, any amount in the range the "
                           "move offers (a quart-bezique raise to any level in range)")
    move.add_argument("--label", help="a named choice, e.g. royal_marriage")
    move.add_argument("--expected-version", type=int,
                      help="the version the move is for (default: the current one)")
    move.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                      help="wait up to SECONDS for your turn (a bot may still be thinking), "
                           "then move; the number is of the moves offered then")
    commands["watch"].add_argument("--from", dest="from_version", type=int, default=0,
                                   metavar="N", help="start after version N (default 0)")
    commands["verify"].add_argument(
        "--proof", default=os.environ.get("BEZIQUE_PROOF", ""),
        metavar="SEAT:ENTROPY:COMMIT[:SEEN]",
        help="what `bezique join` printed for your seat (env BEZIQUE_PROOF): the history must "
             "hold the entropy you sent and the commitment you were shown")
    commands["verify"].add_argument("--allow-test-settings", action="store_true",
                                    help="check a table created with test settings (a fixed "
                                         "seed, a stacked shoe or dealer) instead of failing")
    commands["history"].add_argument("--replay", action="store_true",
                                     help="tell the game deal by deal, trick by trick")
    play = commands["play"]
    play.add_argument("--bot", action="append", metavar="POLICY|SEAT=POLICY",
                      help="the bots' policy, for every bot seat or (as with create) one seat; "
                           "any policy `bezique variants` lists (default: the one the web "
                           "table's Play now plays: search, where the variant has it)")
    play.add_argument("--bot-policy", help="the same as --bot POLICY")
    play.add_argument("--auto-pass", action="store_true",
                      help="pass for you when pass is your only declaration (Bezique: a trick "
                           "won with nothing to declare); the key a toggles it in the game")
    play.add_argument("--bot-delay", type=float, default=0.3,
                      help="seconds a bot waits before it moves (in-process server only)")
    play.add_argument("--name", default=os.environ.get("USER", "you"),
                      help="your display name")
    new_variant = commands["new-variant"]
    new_variant.add_argument("name", metavar="NAME",
                             help="the variant id, e.g. spades (the package: bezique-spades)")
    new_variant.add_argument("--directory", metavar="DIR",
                             help="where to write it (default: ./bezique-NAME; must be empty)")
    translate_help(parser)
    return parser


def translate_help(parser: argparse.ArgumentParser) -> None:
    """The parser's description and every flag's and command's help in the chosen language
    (the catalogue keys them by their English text, so they are written once, above)."""
    if parser.description:
        parser.description = t(parser.description)
    for group in parser._action_groups:
        group.title = t(group.title) if group.title else group.title
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = t(choice.help) if choice.help else choice.help
            for command in dict.fromkeys(action.choices.values()):
                translate_help(command)
        elif action.help and action.help != argparse.SUPPRESS:
            action.help = t(action.help)


def lang_given(argv: Sequence[str]) -> str | None:
    """The value of ``--lang`` in ``argv`` before parsing, so that ``--help`` is in it too."""
    for number, item in enumerate(argv):
        if item.startswith("--lang="):
            return item.partition("=")[2]
        if item == "--lang" and number + 1 < len(argv):
            return argv[number + 1]
    return None


def distribution_version() -> str:
    """The installed engine's version (the CLI ships in its distribution)."""
    try:
        return metadata.version("bezique-engine")
    except metadata.PackageNotFoundError:
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    set_language(language_of(os.environ, lang_given(given)))
    args = build_parser().parse_args(given)
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    if args.command != "play" or args.server or server_from_env():
        note_port(args, errors)
    try:
        code: int = asyncio.run(args.handler(args, console))
        return code
    except KeyboardInterrupt:
        errors.print(t("interrupted"))
        return 130
    except CliError as exc:
        errors.print(f"bezique {args.command}: {visible(str(exc))}", markup=False,
                     soft_wrap=True)
        return exc.code
    except grpc.RpcError as exc:
        errors.print(f"bezique {args.command}: {describe_rpc_error(exc, server_of(args))}",
                     markup=False, soft_wrap=True)
        hint = token_hint(args, exc)
        if hint:
            errors.print(hint, markup=False, soft_wrap=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
