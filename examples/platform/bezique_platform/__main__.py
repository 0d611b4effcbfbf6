"""``python -m bezique_platform``: the example platform against a bezique server.

``keys --home DIR`` makes the platform's grant key pair in its folder (once) and prints the
public key's path, for ``bezique-server --grant-public-key``; ``run --home DIR ...`` plays;
``lobby`` opens one practice table anyone may join without a grant, and prints its id.
``run`` and ``lobby`` take the server's address and the platform API key as flags, or from
BEZIQUE_SERVER and BEZIQUE_API_KEY like the ``bezique`` command line; a call the server refuses
ends the command with one line naming the status, not a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

import grpc

from bezique.clients.sdk import AsyncTableClient
from bezique_platform.grants import ensure_key
from bezique_platform.ledger import Ledger
from bezique_platform.platform import Plan, open_lobby_table, run

LEDGER_FILE = "ledger.sqlite"


def main() -> None:
    parser = argparse.ArgumentParser(prog="bezique_platform", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    keys = commands.add_parser("keys", help="make the grant key pair; print the public key")
    play = commands.add_parser("run", help="open tables, seat players, book the results")
    lobby = commands.add_parser("lobby", help="open a practice table to anyone (no grant)")
    for command in (keys, play):
        command.add_argument("--home", default="platform",
                             help="the platform's folder: its ledger and its grant key")
    for command in (play, lobby):
        command.add_argument("--server",
                             default=os.environ.get("BEZIQUE_SERVER", "127.0.0.1:50051"),
                             help="the engine's address (env BEZIQUE_SERVER)")
        command.add_argument("--api-key", default=os.environ.get("BEZIQUE_API_KEY", ""),
                             help="the platform API key of the server (env BEZIQUE_API_KEY)")
    play.add_argument("--tables", type=int, default=4, help="tables to play in all")
    play.add_argument("--players", default="alice,bob,carol",
                      help="the platform's players, comma-separated, taken two a table")
    play.add_argument("--variant", default="quart-bezique")
    play.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                      help="a table option (repeatable), e.g. deals=2")
    play.add_argument("--buy-in", type=int, default=0,
                      help="chips each seat buys in for (betting variants; 0: the default)")
    play.add_argument("--apply-delay", type=float, default=0.0,
                      help="seconds spent on each result before it is booked")
    play.add_argument("--fill-seconds", type=float, default=30.0,
                      help="abort a table whose seats are not all taken this long after its "
                           "grants went out")
    play.add_argument("--grant-seconds", type=float, default=60.0,
                      help="how long a join grant is valid")
    play.add_argument("--no-show", action="append", default=[], metavar="PLAYER",
                      help="a player who never uses the grants (repeatable)")
    play.add_argument("--withhold", action="append", default=[], metavar="PLAYER",
                      help="a player who never reveals its entropy (repeatable)")
    play.add_argument("--think", type=float, default=0.0,
                      help="seconds each scripted player takes over a move")
    args = parser.parse_args()
    try:
        perform(args)
    except grpc.RpcError as error:
        sys.exit(f"bezique_platform {args.command}: {refusal(error, args.server)}")


def refusal(error: grpc.RpcError, server: str) -> str:
    """One line for a call the server refused (or could not be reached for), with the fix
    for the usual cause: the platform API key."""
    code = error.code() if isinstance(error, grpc.Call | grpc.aio.AioRpcError) else None
    details = error.details() if isinstance(error, grpc.Call | grpc.aio.AioRpcError) else ""
    line = f"{code.name if code else 'ERROR'} from {server}: {details or error}"
    if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        line += " (give the server's key with --api-key or BEZIQUE_API_KEY)"
    return line


def perform(args: argparse.Namespace) -> None:
    """Run the chosen command."""
    if args.command == "lobby":
        print(asyncio.run(lobby_table(args.server, args.api_key)))
        return
    home = Path(args.home)
    if args.command == "keys":
        print(ensure_key(home))
        return
    options = dict(item.split("=", 1) for item in args.option)
    plan = Plan(args.tables, args.players.split(","), args.variant, options, args.buy_in,
                args.apply_delay, args.fill_seconds, args.grant_seconds,
                frozenset(args.no_show), frozenset(args.withhold), args.think)
    ensure_key(home)
    ledger = Ledger(home / LEDGER_FILE)
    try:
        asyncio.run(run(args.server, args.api_key, home, ledger, plan))
        print(json.dumps({"booked": len(ledger.applied()), "wallets": ledger.wallets(),
                          "ratings": ledger.ratings(), "void": ledger.void(),
                          "flags": ledger.flags()}, sort_keys=True))
    finally:
        ledger.close()


async def lobby_table(address: str, api_key: str) -> str:
    """A practice table anyone may join (see ``open_lobby_table``): its id."""
    async with AsyncTableClient(address, api_key=api_key, retries=8) as client:
        return await open_lobby_table(client)


if __name__ == "__main__":
    main()
