"""The short form of ``make soak``: two replicas, one PostgreSQL, one replica killed mid-run."""

from __future__ import annotations

import sys

from tests.conftest import ROOT


async def test_short_soak_loses_nothing() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    from soak import soak

    report = await soak(6.0, 6, "highcard", {"players": "4", "hand_size": "8"})
    print(report.line())
    assert report.moves > 100 and report.finished > 5
    assert not report.problems, report.problems
    assert set(report.errors) <= {"UNAVAILABLE", "ABORTED", "DEADLINE_EXCEEDED"}
