"""structlog set-up: JSON lines in production, a readable console on a terminal.

Cards never appear in log lines: the table manager logs ids of tables, seats, versions and
request ids, never views, moves' cards or events.
"""

from __future__ import annotations

import logging
import sys

import structlog


class _StderrNow:
    """Writes to whatever ``sys.stderr`` is at the moment of writing (tests swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(fmt: str = "auto", level: str = "info", *, final: bool = False) -> None:
    """Configure structlog for the process. ``final`` (the server's own process): each
    module's logger is built once, on first use, so a call below the level costs next to
    nothing; otherwise every call rebuilds its logger (a few microseconds), so that a later
    configuration (a test raising the level, say) applies to every module's logger."""
    use_console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer() if use_console else structlog.processors.JSONRenderer())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(_StderrNow()),  # type: ignore[arg-type]
        cache_logger_on_first_use=final,
    )
