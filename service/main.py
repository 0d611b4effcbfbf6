"""``bezique-server``: parse flags and environment, configure logging, serve.

Exit status: 0 after a clean shutdown; 2 (``USAGE_ERROR``) for a bad flag or variable; 1
(``STARTUP_ERROR``) when a valid configuration cannot start. Either mistake is one line on
stderr, never a traceback.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from bezique.service.config import STARTUP_ERROR, parse_config
from bezique.service.logs import configure_logging
from bezique.service.server import serve
from bezique.service.startup import StartupError


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    configure_logging(config.log_format, config.log_level, final=True)
    try:
        asyncio.run(serve(config))
    except StartupError as exc:
        print(f"bezique-server: error: {exc}", file=sys.stderr, flush=True)
        return STARTUP_ERROR
    except KeyboardInterrupt:  # a second Ctrl-C while shutting down
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
