"""Who wins the match (spec section 6), as pure functions of the scores."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum


class Reason(StrEnum):
    """Why a match ended (``Outcome.reason``)."""

    TARGET = "target"
    """Only one player reached the target at the end of a deal."""
    TARGET_LAST_TRICK = "target_last_trick"
    """Several reached it; the one who took the last trick wins."""
    TARGET_HIGHEST = "target_highest"
    """Several reached it, none of them took the last trick: the highest score wins."""
    TRIPLE_BEZIQUE = "triple_bezique"
    """A triple bezique (3 players) wins at once."""
    CLAIM = "claim"
    """A right claim wins at once."""
    WRONG_CLAIM = "wrong_claim"
    """A wrong claim loses at once; the best of the others win."""


def target_decision(scores: Sequence[int], target: int, last_trick_taker: int,
                    tie_highest: bool) -> tuple[int, Reason] | None:
    """The winner and the reason at the end of a deal, or ``None`` to play another deal.

    One player at or above the target wins. Several: the one who took the last trick; if none
    of them did (3 players), the highest score when ``tie_highest`` (equal highest: another
    deal), else always another deal.
    """
    reached = [seat for seat, score in enumerate(scores) if score >= target]
    if len(reached) == 1:
        return reached[0], Reason.TARGET
    if not reached:
        return None
    if last_trick_taker in reached:
        return last_trick_taker, Reason.TARGET_LAST_TRICK
    best = max(scores[seat] for seat in reached)
    top = [seat for seat in reached if scores[seat] == best]
    if tie_highest and len(top) == 1:
        return top[0], Reason.TARGET_HIGHEST
    return None


def wrong_claim_winners(scores: Sequence[int], claimant: int) -> tuple[int, ...]:
    """After a wrong claim the claimant loses; the other player(s) with the best score win."""
    others = [seat for seat in range(len(scores)) if seat != claimant]
    best = max(scores[seat] for seat in others)
    return tuple(seat for seat in others if scores[seat] == best)
