"""``python -m bezique_platform``: run the example platform against a bezique server."""

from __future__ import annotations

import argparse
import asyncio
import json

from bezique_platform.ledger import Ledger
from bezique_platform.platform import Plan, run


def main() -> None:
    parser = argparse.ArgumentParser(prog="bezique_platform", description=__doc__)
    parser.add_argument("--server", default="127.0.0.1:50051", help="the engine's address")
    parser.add_argument("--api-key", default="", help="the platform API key of the server")
    parser.add_argument("--ledger", default="platform.sqlite", help="the platform's SQLite file")
    parser.add_argument("--tables", type=int, default=4, help="tables to play in all")
    parser.add_argument("--players", default="alice,bob,carol",
                        help="the platform's players, comma-separated")
    parser.add_argument("--variant", default="quart-bezique")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a table option (repeatable), e.g. deals=2")
    parser.add_argument("--apply-delay", type=float, default=0.0,
                        help="seconds spent on each result before it is booked")
    args = parser.parse_args()
    options = dict(item.split("=", 1) for item in args.option)
    plan = Plan(args.tables, args.players.split(","), args.variant, options, args.apply_delay)
    ledger = Ledger(args.ledger)
    try:
        asyncio.run(run(args.server, args.api_key, ledger, plan))
        print(json.dumps({"booked": len(ledger.applied()), "wallets": ledger.wallets(),
                          "ratings": ledger.ratings()}, sort_keys=True))
    finally:
        ledger.close()


if __name__ == "__main__":
    main()
