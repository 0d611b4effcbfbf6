"""Words the host adds to every variant's vocabulary: the outcome reasons the server itself
gives a table (an operator's abort, an abandoned table, a seat that never revealed), in every
language the built-in variants speak, so a client finds each reason in the variant's words."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from bezique.variants.api import ABORTED, Vocabulary

ABANDONED = "abandoned"
"""``Outcome.reason`` of a table the server ended because nobody moved and no seat was
connected for its abandon window (stakes returned as for an abort)."""

REVEAL_TIMEOUT = "reveal_timeout"
"""``Outcome.reason`` of a table that ended before any deal: a seat did not reveal its
committed entropy in time."""

HOST_WORDS: Mapping[str, Vocabulary] = MappingProxyType({
    "en": Vocabulary(language="en", outcomes={
        ABORTED: "aborted by the operator: stakes returned",
        ABANDONED: "abandoned: nobody played for too long, stakes returned",
        REVEAL_TIMEOUT: "ended before the deal: a seat did not reveal its entropy in time"}),
    "ru": Vocabulary(language="ru", outcomes={
        ABORTED: "прервана оператором: ставки возвращены",
        ABANDONED: "заброшена: слишком долго никто не ходил, ставки возвращены",
        REVEAL_TIMEOUT: "окончена до сдачи: игрок вовремя не раскрыл свою энтропию"}),
})
"""The host's words by language tag (merged under a variant's own, which win)."""
