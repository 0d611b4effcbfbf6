"""The golden playthroughs replay to the very same transcripts."""

from __future__ import annotations

import pytest

from tests.bezique.golden import DEALS, Deal, parse, path_of, transcript


@pytest.mark.parametrize("deal", DEALS, ids=lambda d: d.name)
def test_golden_transcript_replays_identically(deal: Deal) -> None:
    text = path_of(deal).read_text()
    codes, moves = parse(text)
    assert len(moves) > 60 and "deal_end" in text and "last_trick" in text
    again = transcript(deal, codes, moves)
    assert again == text, ("the engine no longer replays this golden deal; if the rules "
                           "changed on purpose, bump the variant version and run "
                           "`python -m tests.bezique.golden --regenerate`")
