"""tools/pgcluster.py, the README's way to a PostgreSQL for replicas and the tests' own: it
explains itself when it is called wrongly instead of failing with a traceback, and a port taken
between finding it free and binding it does not fail a start."""

from __future__ import annotations

import socket
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


def test_a_cluster_whose_free_port_was_taken_meanwhile_starts_on_another(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Between finding a free port and PostgreSQL binding it, another process (the other test
    worker's server, say) may take it: the start then finds another port instead of failing."""
    sys.path.insert(0, str(TOOL.parent))
    import pgcluster

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        taken_port = taken.getsockname()[1]
        found = iter([taken_port])
        real = pgcluster._free_port
        monkeypatch.setattr(pgcluster, "_free_port", lambda: next(found, None) or real())
        cluster = pgcluster.Cluster(pgcluster.scratch_folder())
        assert cluster.port == taken_port
        try:
            url = cluster.start()
            assert cluster.port != taken_port
            assert url == cluster.url
            assert f":{cluster.port}/" in url
            with socket.create_connection(("127.0.0.1", cluster.port), timeout=5):
                pass
            log = (cluster.data / "server.log").read_text(errors="replace")
            assert "Address already in use" in log  # the first try did meet the taken port
        finally:
            cluster.remove()
