"""The platform's own books: its tables and who sits where, each player's chips and rating,
the players flagged for withholding their entropy, and the results-feed cursor, all in one
SQLite file.

Chips: a seat's buy-in leaves the player's wallet when the platform opens the table (in the
same transaction that records the table), and comes back with the seat's chip change when
the table's result is booked. A table that ended before any deal (an abort before the start,
a reveal round that timed out) carries no chip change: the buy-ins simply come back, and no
rating changes.

Exactly once: the feed delivers each result at least once (again after a restart, from the
cursor last kept). A result is applied in one transaction together with the cursor that
follows it, and a table already applied is skipped, so killing the platform at any point and
starting it again never counts a table twice nor loses one.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import json_format

from bezique.v1 import table_service_pb2 as pb

SCHEMA = """
CREATE TABLE IF NOT EXISTS feed (
    single INTEGER PRIMARY KEY CHECK (single = 1),
    cursor INTEGER NOT NULL
);
INSERT OR IGNORE INTO feed (single, cursor) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    seats TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS applied (
    table_id TEXT PRIMARY KEY,
    cursor INTEGER NOT NULL,
    reason TEXT NOT NULL,
    dealt INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS wallets (
    player_id TEXT PRIMARY KEY,
    chips INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    player_id TEXT PRIMARY KEY,
    rating REAL NOT NULL,
    games INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS flags (
    player_id TEXT NOT NULL,
    table_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (player_id, table_id)
);
"""

START_RATING = 1500.0
K_FACTOR = 32.0


@dataclass(frozen=True)
class SeatRecord:
    """Who the platform seats where, with the chips the seat buys in for (0: none, a game
    without chips or the table's default stack)."""

    seat: int
    player_id: str
    buy_in: int = 0


@dataclass(frozen=True)
class TableRecord:
    table_id: str
    seats: list[SeatRecord]
    created: float


def ended_before_any_deal(result: pb.TableResult) -> bool:
    """A table that ended before its game started: a reveal round that timed out, or an
    abort before the start. Nobody played, so nobody won or lost anything."""
    if result.reason == "reveal_timeout":
        return True
    detail = json_format.MessageToDict(result.outcome.detail)
    return detail.get("dealt") is False or (result.reason == "aborted"
                                            and not result.outcome.scores)


class Ledger:
    """The platform's SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # ---------------------------------------------------------------- tables

    def add_table(self, table_id: str, seats: list[SeatRecord]) -> None:
        """Record a new table and take each seat's buy-in from its player's wallet, in one
        transaction."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT INTO tables (table_id, seats, created) VALUES (?, ?, ?)",
                       (table_id, json.dumps([{"seat": s.seat, "player_id": s.player_id,
                                               "buy_in": s.buy_in} for s in seats]),
                        time.time()))
            for seat in seats:
                self._credit(seat.player_id, -seat.buy_in)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def tables(self) -> dict[str, TableRecord]:
        return {row[0]: self._record(row) for row in
                self.db.execute("SELECT table_id, seats, created FROM tables")}

    @staticmethod
    def _record(row: tuple[str, str, float]) -> TableRecord:
        seats = [SeatRecord(int(s["seat"]), str(s["player_id"]), int(s.get("buy_in", 0)))
                 for s in json.loads(row[1])]
        return TableRecord(row[0], seats, float(row[2]))

    def unsettled(self) -> list[str]:
        """The platform's tables whose result is not applied yet."""
        return [row[0] for row in self.db.execute(
            "SELECT table_id FROM tables WHERE table_id NOT IN (SELECT table_id FROM applied) "
            "ORDER BY created, table_id")]

    # ---------------------------------------------------------------- the feed

    @property
    def cursor(self) -> int:
        return int(self.db.execute("SELECT cursor FROM feed").fetchone()[0])

    def apply(self, result: pb.TableResult) -> bool:
        """Book one result and move the cursor past it, in one transaction. False when it was
        not booked: another platform's table, or one booked before (a redelivery)."""
        row = self.db.execute("SELECT table_id, seats, created FROM tables WHERE table_id = ?",
                              (result.table_id,)).fetchone()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            booked = row is not None and db.execute(
                "SELECT 1 FROM applied WHERE table_id = ?", (result.table_id,)).fetchone() is None
            if booked:
                self._book(result, self._record(row))
            db.execute("UPDATE feed SET cursor = ? WHERE cursor < ?",
                       (result.cursor, result.cursor))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return booked

    def _book(self, result: pb.TableResult, table: TableRecord) -> None:
        """Chips back (buy-in plus chip change; the buy-in alone when no chips moved), the
        ratings of a game that was played and won, flags for withheld reveals."""
        players = self._players(result, table.seats)
        changes = {seat.seat: seat.chip_change for seat in result.seats
                   if seat.HasField("chip_change")}
        for seat in table.seats:
            self._credit(players[seat.seat], seat.buy_in + changes.get(seat.seat, 0))
        void = ended_before_any_deal(result)
        if not void:
            self._rate(result, players)
        withheld = json_format.MessageToDict(result.outcome.detail).get("withheld", [])
        for seat_number in withheld:
            if int(seat_number) in players:
                self.db.execute("INSERT OR IGNORE INTO flags VALUES (?, ?, ?)",
                                (players[int(seat_number)], result.table_id, result.reason))
        self.db.execute("INSERT INTO applied (table_id, cursor, reason, dealt) VALUES "
                        "(?, ?, ?, ?)", (result.table_id, result.cursor, result.reason,
                                         int(not void)))

    def _credit(self, player: str, chips: int) -> None:
        self.db.execute("INSERT INTO wallets (player_id, chips) VALUES (?, ?) ON CONFLICT "
                        "(player_id) DO UPDATE SET chips = chips + excluded.chips",
                        (player, chips))

    @staticmethod
    def _players(result: pb.TableResult, seats: list[SeatRecord]) -> dict[int, str]:
        """Seat -> player: the player_id the engine kept for the seat (from the grant it was
        joined with), else who the platform meant to seat there (a seat nobody took)."""
        players = {s.seat: s.player_id for s in seats}
        for seat in result.seats:
            if seat.player_id and seat.seat in players:
                players[seat.seat] = seat.player_id
        return players

    def _rate(self, result: pb.TableResult, players: dict[int, str]) -> None:
        """Elo, pairwise between the seats: a winner beats each loser, winners draw. A table
        without a winner (aborted) changes no rating and counts no game."""
        winners = set(result.outcome.winners)
        if not winners:
            return
        ratings = {seat: self._rating(player) for seat, player in players.items()}
        change = dict.fromkeys(players, 0.0)
        for a in players:
            for b in players:
                if a >= b:
                    continue
                score = 0.5 if (a in winners) == (b in winners) else float(a in winners)
                expected = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
                change[a] += K_FACTOR * (score - expected)
                change[b] -= K_FACTOR * (score - expected)
        for seat, player in players.items():
            self.db.execute(
                "INSERT INTO ratings (player_id, rating, games) VALUES (?, ?, 1) "
                "ON CONFLICT (player_id) DO UPDATE SET rating = ?, games = games + 1",
                (player, ratings[seat] + change[seat], ratings[seat] + change[seat]))

    def _rating(self, player: str) -> float:
        row = self.db.execute("SELECT rating FROM ratings WHERE player_id = ?",
                              (player,)).fetchone()
        return START_RATING if row is None else float(row[0])

    # ---------------------------------------------------------------- reports

    def wallets(self) -> dict[str, int]:
        return {p: int(c) for p, c in self.db.execute("SELECT player_id, chips FROM wallets")}

    def ratings(self) -> dict[str, tuple[float, int]]:
        return {p: (float(r), int(g)) for p, r, g in
                self.db.execute("SELECT player_id, rating, games FROM ratings")}

    def applied(self) -> dict[str, int]:
        return {t: int(c) for t, c in self.db.execute("SELECT table_id, cursor FROM applied")}

    def void(self) -> dict[str, str]:
        """The booked tables that ended before any deal, with their reasons."""
        return {t: r for t, r in self.db.execute(
            "SELECT table_id, reason FROM applied WHERE dealt = 0")}

    def flags(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for player, table in self.db.execute(
                "SELECT player_id, table_id FROM flags ORDER BY table_id"):
            found.setdefault(player, []).append(table)
        return found
