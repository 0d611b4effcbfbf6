"""The short form of ``make soak``: two replicas, one PostgreSQL, one replica killed mid-run."""

from __future__ import annotations

import sys

from tests.helpers import ROOT


async def test_short_soak_loses_nothing() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    from soak import soak

    report = await soak(6.0, 6, "highcard", {"players": "4", "hand_size": "8"})
    print(report.line())
    # a floor, not a speed: a 4-seat highcard table takes 32 moves, and on a loaded 2-core
    # machine (seats now commit and reveal their entropy too) 6 s gave as few as 98 moves
    assert report.moves >= 64 and report.finished >= 2
    assert not report.problems, report.problems
    assert set(report.errors) <= {"UNAVAILABLE", "ABORTED", "DEADLINE_EXCEEDED"}
