"""``bezique-server``: parse flags and environment, configure logging, serve."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from service.config import parse_config
from service.logs import configure_logging
from service.server import serve


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    configure_logging(config.log_format, config.log_level, final=True)
    asyncio.run(serve(config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
