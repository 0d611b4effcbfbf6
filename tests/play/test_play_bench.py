"""The peers benchmark's Play subject: this engine with every seat on a Play stream, its
moves going up it, measured beside the unary subject of the same store."""

from __future__ import annotations

import math

from bench import peerbench


def test_peers_plays_this_engine_over_play_beside_the_unary_subject() -> None:
    section = peerbench.run(peerbench.PeersConfig(
        moves=96, reps=1, concurrency=4, open_seconds=0.3, open_reps=1, warmup_moves=32,
        idle_tables=20, settle_seconds=0.2, subjects=("memory", "memory-play")))
    playing = section.figures["memory-play"]
    for key in ("rate", "open_p99", "per_table"):
        assert math.isfinite(playing[key]) and playing[key] > 0, key
    assert math.isnan(playing["per_table_bare"])  # the same as the unary subject's
    assert any(note.startswith("memory-play / memory") for note in section.notes)
    assert "over Play" in section.render()
