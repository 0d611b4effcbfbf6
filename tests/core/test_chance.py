"""The shuffle construction: deterministic, documented, unbiased enough to see, and blind to the
published hash."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from bezique.variants.chance import (
    CountingChance,
    SeededChance,
    StackedChance,
    commitment,
    stacked_shoe,
)

SEED = bytes(range(32))


def reference_below(seed: bytes, purpose: str, n: int) -> int:
    """docs/fairness.md's construction, written again from the text."""
    stream = b""
    counter = 0
    while True:
        while len(stream) < 8:
            stream += hmac.new(seed, f"{purpose}:{counter}".encode(), hashlib.sha256).digest()
            counter += 1
        value, stream = int.from_bytes(stream[:8], "big"), stream[8:]
        if value < 2**64 - 2**64 % n:
            return value % n


@pytest.mark.parametrize("seed", [SEED, bytes(range(16)), bytes(range(100))])
def test_below_follows_the_documented_construction(seed: bytes) -> None:
    chance = SeededChance(seed)
    for n in (1, 2, 3, 7, 32, 1000, 2**63 + 5):
        assert chance.below("cut/1", n) == reference_below(seed, "cut/1", n)


def test_a_shuffle_is_fisher_yates_over_one_stream() -> None:
    items = list(range(64))
    shuffled = SeededChance(SEED).shuffled("deal/1", items)
    expected = list(items)
    stream = b""
    counter = 0
    for i in range(len(expected) - 1):
        n = len(expected) - i
        while True:
            while len(stream) < 8:
                stream += hmac.new(SEED, f"deal/1:{counter}".encode(), hashlib.sha256).digest()
                counter += 1
            value, stream = int.from_bytes(stream[:8], "big"), stream[8:]
            if value < 2**64 - 2**64 % n:
                break
        j = i + value % n
        expected[i], expected[j] = expected[j], expected[i]
    assert shuffled == expected
    assert items == list(range(64)), "the input is not changed"


def test_same_seed_same_deal_other_seed_other_deal() -> None:
    deck = list(range(96))
    first = SeededChance(SEED).shuffled("deal/1", deck)
    assert first == SeededChance(SEED).shuffled("deal/1", deck)
    assert first != SeededChance(SEED).shuffled("deal/2", deck)
    assert first != SeededChance(bytes(32)).shuffled("deal/1", deck)


def test_the_commitment_does_not_predict_the_deal() -> None:
    published = bytes.fromhex(commitment(SEED))
    deck = list(range(64))
    assert SeededChance(published).shuffled("deal/1", deck) != SeededChance(SEED).shuffled(
        "deal/1", deck)
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_first_positions_are_roughly_uniform() -> None:
    counts = Counter(SeededChance(i.to_bytes(16, "big")).shuffled("deal/1", range(4))[0]
                     for i in range(4000))
    assert all(850 < counts[card] < 1150 for card in range(4)), counts


def test_short_seeds_are_refused() -> None:
    with pytest.raises(ValueError):
        SeededChance(b"short")


def test_a_stacked_shoe_replaces_only_the_first_deal() -> None:
    base = SeededChance(SEED)
    order = list(reversed(range(32)))
    stacked = stacked_shoe(base, order)
    assert stacked.shuffled("deal/1", range(32)) == order
    assert stacked.below("cut/1", 32) == 0
    assert stacked.shuffled("deal/2", range(32)) == base.shuffled("deal/2", range(32))
    with pytest.raises(ValueError):
        StackedChance(base, orders={"deal/1": [1, 1]}).shuffled("deal/1", [0, 1])


def test_a_chance_source_pickles_to_the_same_stream() -> None:
    import pickle

    chance = SeededChance(SEED)
    copy = pickle.loads(pickle.dumps(chance))
    assert copy.shuffled("deal/3", range(50)) == chance.shuffled("deal/3", range(50))


@pytest.mark.parametrize("count", [0, 1, 17, 143, 144])
def test_a_draw_is_the_front_of_the_same_shuffle(count: int) -> None:
    chance = SeededChance(SEED)
    assert chance.draw("deal/7", range(144), count) == chance.shuffled("deal/7", range(144))[:count]
    stacked = stacked_shoe(chance, list(reversed(range(144))))
    assert stacked.draw("deal/1", range(144), count) == list(reversed(range(144)))[:count]
    assert stacked.draw("deal/2", range(144), count) == chance.draw("deal/2", range(144), count)


def test_counting_chance_counts_deals() -> None:
    counting = CountingChance(SeededChance(SEED))
    counting.shuffled("deal/1", range(5))
    counting.draw("deal/2", range(5), 2)
    counting.shuffled("lot/1", range(5))
    assert counting.deals == {"deal/1", "deal/2"}
