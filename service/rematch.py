"""Play again with the same seats: a new table with the variant, options, bots, turn clock and
seat rule of a finished one (``CreateTableRequest.rematch_of``).

Its id is derived from the finished table's, so every previous player asking for the rematch
of one table, on any replica, gets the same table: the store's create is the arbiter (a table id
is created once), and the caller that loses the race gets the winner's table back. Nothing is
written to the finished table's log: its end stays what it was.
"""

from __future__ import annotations

import hashlib

import structlog

from bezique.service.commands import CommandPath
from bezique.service.errors import FailedPrecondition, InvalidArgument, store_unavailable
from bezique.service.live import LiveTable
from bezique.service.repository import TableRepository
from bezique.service.store import StoreError
from bezique.terms import OPEN_JOINS, option_text
from bezique.v1 import table_service_pb2 as pb

log = structlog.get_logger("bezique.tables")


def rematch_id(table_id: str) -> str:
    """The id of the rematch of ``table_id``: 16 hex digits, like every table id."""
    return hashlib.sha256(f"bezique-rematch/{table_id}".encode()).hexdigest()[:16]


def check_rematch_request(request: pb.CreateTableRequest) -> None:
    """A rematch copies the finished table: the fields it would copy must be left unset."""
    given = [name for name, value in (
        ("variant_id", request.variant_id), ("options", request.options),
        ("bots", request.bots), ("turn_seconds", request.turn_seconds),
        ("test", request.HasField("test")), ("open_seats", request.open_seats)) if value]
    if given:
        raise InvalidArgument(f"{given[0]} must be left unset with rematch_of: the rematch "
                              "copies the finished table's", field=given[0])


async def rematch(commands: CommandPath, repo: TableRepository, table_id: str
                  ) -> tuple[LiveTable, bool]:
    """The rematch of the finished table ``table_id``, created now or earlier (``True``)."""
    async with repo.hold(table_id) as old:
        if not old.finished:
            raise FailedPrecondition(f"table {table_id} has not ended: a rematch follows the "
                                     "end", field="rematch_of")
        variant_id = old.variant.id
        options = {name: option_text(value) for name, value in old.record.options.items()}
        bots = [(seat, held.bot) for seat, held in enumerate(old.seats) if held.bot]
        turn_seconds, open_seats = old.record.turn_seconds, old.joins == OPEN_JOINS
    new_id = rematch_id(table_id)
    if await commands.store.load_table(new_id) is None:
        try:
            live = await commands.create(variant_id, options, bots, turn_seconds, None,
                                         open_seats, table_id=new_id)
            log.info("rematch_created", table_id=new_id, rematch_of=table_id)
            return live, False
        except StoreError as exc:  # another call (or replica) created it first, or a failure
            if await commands.store.load_table(new_id) is None:
                log.warning("store_create_failed", table_id=new_id, error=str(exc))
                raise store_unavailable() from exc
    async with repo.hold(new_id) as live:
        return live, True
