"""tools/pgcluster.py, the README's way to a PostgreSQL for replicas, explains itself when it is
called wrongly instead of failing with a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "pgcluster.py"


@pytest.mark.parametrize("argv", [[], ["--help"], ["begin", "x"], ["start"]])
def test_a_wrong_call_prints_the_usage_and_exits_2(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, str(TOOL), *argv], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "usage: python tools/pgcluster.py start|stop DIR" in done.stderr
    assert "Traceback" not in done.stderr
