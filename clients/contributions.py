"""What a seat checks and pins before it reveals its entropy: that the history shows every seat
taken, and a digest of every seat's contribution as the table showed them when the reveal
round opened (a commitment, entropy sent in the clear, or nothing).

Without it, an operator who writes the log could, after the honest reveals, rewrite another
seat's commitment (a puppet's) and open it to whatever deals best; the history would still be
consistent. A seat that kept this digest holds him to the contributions it saw
(``bezique verify --proof``). Pure over history entries, so the SDK and the verifier share it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from bezique.terms import EntryKind
from bezique.v1 import table_service_pb2 as pb

LABEL = b"bezique/contributions/v1"
NONE, CLEAR, COMMITTED = 0, 1, 2
"""How a seat contributed: nothing (or a bot), entropy in the clear, a commitment."""


def contributions_digest(entries: Iterable[pb.HistoryEntry]) -> str:
    """sha256, hex, over the seats' contributions as they stand when the reveal round opens:
    the ``joined`` and ``left`` entries before the first ``revealed`` or ``started`` one. Each
    seat in order: seat (2 bytes) || kind (1 byte) || length (2 bytes) || the commitment or the
    entropy (nothing for a seat that contributed none)."""
    seats: dict[int, tuple[int, bytes]] = {}
    for entry in entries:
        if entry.entry_kind in (EntryKind.REVEALED, EntryKind.STARTED, EntryKind.ENDED):
            break
        if entry.entry_kind == EntryKind.JOINED and entry.HasField("seat"):
            if entry.entropy_commitment:
                seats[entry.seat] = (COMMITTED, bytes(entry.entropy_commitment))
            elif entry.entropy:
                seats[entry.seat] = (CLEAR, bytes(entry.entropy))
            else:
                seats[entry.seat] = (NONE, b"")
        elif entry.entry_kind == EntryKind.LEFT and entry.HasField("seat"):
            seats.pop(entry.seat, None)
    digest = hashlib.sha256(LABEL)
    for seat in sorted(seats):
        kind, data = seats[seat]
        digest.update(seat.to_bytes(2, "big") + bytes([kind]) + len(data).to_bytes(2, "big")
                      + data)
    return digest.hexdigest()


def free_seats(entries: Iterable[pb.HistoryEntry], seat_count: int) -> list[int]:
    """The seats ``0..seat_count-1`` that the history does not show taken: no ``joined``
    entry, or a ``left`` one after it. A seat reveals its entropy only when this is empty: a
    seat still free could be taken after the reveal by someone who chose his entropy knowing
    it (a server that says otherwise in ``awaiting_reveal`` is not believed)."""
    taken: set[int] = set()
    for entry in entries:
        if entry.entry_kind == EntryKind.JOINED and entry.HasField("seat"):
            taken.add(entry.seat)
        elif entry.entry_kind == EntryKind.LEFT and entry.HasField("seat"):
            taken.discard(entry.seat)
    return sorted(set(range(seat_count)) - taken)
