"""``bezique-server``: parse flags and environment, configure logging, serve.

Exit status: 0 after a clean shutdown; 2 (``USAGE_ERROR``) for a bad flag or variable; 1
(``STARTUP_ERROR``) when a valid configuration cannot start. Either mistake is one line on
stderr, never a traceback.

The server's own process runs on uvloop when it is installed (a dependency on Linux and macOS)
and with grpc core's classic TCP listener (``GRPC_EXPERIMENTS=-event_engine_listener``, unless
the operator set ``GRPC_EXPERIMENTS``): the classic listener serves a connection's reads and
writes on the thread that polls the completion queue, where the EventEngine one hands every
event to one of its own threads first. Measured with the peers' load (every seat watching, a
move = one SubmitMove and four stream messages), each cut about a tenth of the server's CPU per
move (bench/results.md, "Speed"). grpc reads the variable when it is imported, so it is set
here, before anything imports grpc; an embedding platform's process keeps its own choices.

Likewise ``GRPC_VERBOSITY=ERROR`` unless the operator set it: left unset, grpc core (1.6x and
later, logging through absl) writes its INFO lines to stderr, e.g. ``Got goaway`` each time a
client (Node's, for one) closes its connection, in among the server's own log.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from bezique.service.config import STARTUP_ERROR, parse_config
from bezique.service.logs import configure_logging
from bezique.service.startup import StartupError

GRPC_EXPERIMENTS = "-event_engine_listener"
"""grpc core experiments the server's process turns off unless the operator sets his own."""
GRPC_VERBOSITY = "ERROR"
"""grpc core's own logging unless the operator sets his own: errors only."""


def _runner() -> Callable[[Coroutine[Any, Any, None]], None]:
    """uvloop's ``run`` when installed (its loop costs less per call and per message than
    asyncio's), else ``asyncio.run``."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    configure_logging(config.log_format, config.log_level, final=True)
    os.environ.setdefault("GRPC_EXPERIMENTS", GRPC_EXPERIMENTS)
    os.environ.setdefault("GRPC_VERBOSITY", GRPC_VERBOSITY)
    from bezique.service.server import serve  # imports grpc: after the variable is set

    try:
        _runner()(serve(config))
    except StartupError as exc:
        print(f"bezique-server: error: {exc}", file=sys.stderr, flush=True)
        return STARTUP_ERROR
    except KeyboardInterrupt:  # a second Ctrl-C while shutting down
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
