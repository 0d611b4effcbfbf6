"""The platform's own books: its tables and seats, each player's chips and rating, and the
results-feed cursor, all in one SQLite file.

Exactly once: the feed delivers each result at least once (again after a restart, from the
cursor last kept). A result is applied in one transaction together with the cursor that
follows it, and a table already applied is skipped, so killing the platform at any point and
starting it again never counts a table twice nor loses one.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bezique.v1 import table_service_pb2 as pb

SCHEMA = """
CREATE TABLE IF NOT EXISTS feed (
    single INTEGER PRIMARY KEY CHECK (single = 1),
    cursor INTEGER NOT NULL
);
INSERT OR IGNORE INTO feed (single, cursor) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    seats TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS applied (
    table_id TEXT PRIMARY KEY,
    cursor INTEGER NOT NULL,
    reason TEXT NOT NULL
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
"""

START_RATING = 1500.0
K_FACTOR = 32.0


@dataclass(frozen=True)
class SeatRecord:
    """Who the platform seated where, with the seat token its scripted player plays with."""

    seat: int
    player_id: str
    token: str


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
        self.db.execute("INSERT INTO tables (table_id, seats) VALUES (?, ?)", (table_id, json.dumps(
            [{"seat": s.seat, "player_id": s.player_id, "token": s.token} for s in seats])))

    def tables(self) -> dict[str, list[SeatRecord]]:
        return {table_id: [SeatRecord(int(s["seat"]), str(s["player_id"]), str(s["token"]))
                           for s in json.loads(seats)]
                for table_id, seats in self.db.execute("SELECT table_id, seats FROM tables")}

    def unsettled(self) -> list[str]:
        """The platform's tables whose result is not applied yet."""
        return [row[0] for row in self.db.execute(
            "SELECT table_id FROM tables WHERE table_id NOT IN (SELECT table_id FROM applied) "
            "ORDER BY table_id")]

    # ---------------------------------------------------------------- the feed

    @property
    def cursor(self) -> int:
        return int(self.db.execute("SELECT cursor FROM feed").fetchone()[0])

    def apply(self, result: pb.TableResult) -> bool:
        """Book one result and move the cursor past it, in one transaction. False when it was
        not booked: another platform's table, or one booked before (a redelivery)."""
        seats = self._seats_of(result.table_id)
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            booked = bool(seats) and db.execute(
                "SELECT 1 FROM applied WHERE table_id = ?", (result.table_id,)).fetchone() is None
            if booked:
                players = self._players(result, seats)
                for seat in result.seats:
                    if seat.HasField("chip_change") and seat.seat in players:
                        db.execute("INSERT INTO wallets (player_id, chips) VALUES (?, ?) "
                                   "ON CONFLICT (player_id) DO UPDATE SET chips = chips + "
                                   "excluded.chips", (players[seat.seat], seat.chip_change))
                self._rate(result, players)
                db.execute("INSERT INTO applied (table_id, cursor, reason) VALUES (?, ?, ?)",
                           (result.table_id, result.cursor, result.reason))
            db.execute("UPDATE feed SET cursor = ? WHERE cursor < ?",
                       (result.cursor, result.cursor))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return booked

    def _seats_of(self, table_id: str) -> list[SeatRecord]:
        row = self.db.execute("SELECT seats FROM tables WHERE table_id = ?",
                              (table_id,)).fetchone()
        if row is None:
            return []
        return [SeatRecord(int(s["seat"]), str(s["player_id"]), str(s["token"]))
                for s in json.loads(row[0])]

    @staticmethod
    def _players(result: pb.TableResult, seats: list[SeatRecord]) -> dict[int, str]:
        """Seat -> player: the player_id the engine kept for the seat when the join named one
        (joins by grant do), else who the platform seated there itself."""
        players = {s.seat: s.player_id for s in seats}
        for seat in result.seats:
            if seat.player_id:
                players[seat.seat] = seat.player_id
        return players

    def _rate(self, result: pb.TableResult, players: dict[int, str]) -> None:
        """Elo, pairwise between the seats: a winner beats each loser, winners draw. An
        aborted table (no winner) changes no rating and counts no game."""
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
