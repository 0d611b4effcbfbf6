from __future__ import annotations

import pickle

import pytest

from bezique.variants.cards import (
    SHORT_RANKS,
    Rank,
    Shoe,
    Suit,
    parse_code,
    piquet_shoe,
    shoe_of,
    short_shoe,
)
from bezique.variants.quart.evaluator import evaluator_for


def test_shoes_have_the_right_cards() -> None:
    assert len(piquet_shoe(1)) == 32 and len(piquet_shoe(2)) == 64 and len(piquet_shoe(3)) == 96
    assert len(short_shoe(6)) == 144
    assert {c.rank for c in short_shoe(1).cards} == {Rank.NINE, Rank.TEN, Rank.JACK,
                                                     Rank.QUEEN, Rank.KING, Rank.ACE}
    shoe = piquet_shoe(2)
    assert [shoe[i].id for i in shoe.ids] == list(shoe.ids)
    assert shoe.ids_of(Rank.QUEEN, Suit.SPADES) == (5, 37)
    assert piquet_shoe(2) is shoe, "shoes are shared"


def test_a_shoe_is_a_value_and_pickles_as_the_shared_shoe() -> None:
    """Per-shoe tables are keyed by the shoe's make-up, never by ``id``: a pickled game gets the
    shared shoe back, and a shoe built apart (say, from an older snapshot) finds the same
    entries."""
    shoe = short_shoe(6)
    assert pickle.loads(pickle.dumps(shoe)) is shoe
    apart = Shoe(SHORT_RANKS, 6)
    assert apart is not shoe and apart == shoe and hash(apart) == hash(shoe)
    assert apart != short_shoe(3) and apart != piquet_shoe(2) and apart != "shoe"
    assert evaluator_for(apart) is evaluator_for(shoe)
    odd = Shoe(SHORT_RANKS[1:], 2)  # a make-up no built-in game plays: a shoe of its own
    assert pickle.loads(pickle.dumps(odd)) == odd and shoe_of(SHORT_RANKS[1:], 2) == odd


class _AsBefore:
    """Pickles as a shoe did before shoes pickled as their make-up (older snapshots)."""

    def __init__(self, shoe: Shoe) -> None:
        self.shoe = shoe

    def __reduce__(self) -> tuple[object, ...]:
        slots = {name: getattr(self.shoe, name) for name in ("_by_face", "cards", "packs",
                                                              "ranks")}
        return (object.__new__, (Shoe,), (None, slots))


def test_a_shoe_from_an_older_snapshot_finds_the_caches() -> None:
    shoe = short_shoe(6)
    old = pickle.loads(pickle.dumps(_AsBefore(shoe)))
    assert isinstance(old, Shoe) and old is not shoe
    assert old == shoe and hash(old) == hash(shoe)
    assert evaluator_for(old) is evaluator_for(shoe)


def test_codes() -> None:
    shoe = piquet_shoe(1)
    assert shoe.codes(range(8)) == ["7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]
    assert parse_code("10h") == (Rank.TEN, Suit.HEARTS) == parse_code("TH")
    for bad in ("", "1S", "QX", "QSS"):
        with pytest.raises(ValueError):
            parse_code(bad)


def test_a_stacked_order_must_be_exactly_the_shoe() -> None:
    shoe = piquet_shoe(2)
    codes = shoe.codes(shoe.ids)
    backwards = shoe.order_from_codes(codes[::-1])
    assert shoe.codes(backwards) == codes[::-1] and sorted(backwards) == list(shoe.ids)
    identical = shoe.order_from_codes(["QS", *codes[:5], *codes[6:37], *codes[38:], "QS"])
    assert identical[0] == 5 and identical[-1] == 37
    with pytest.raises(ValueError, match="64 cards"):
        shoe.order_from_codes(codes[:-1])
    with pytest.raises(ValueError, match="more often"):
        shoe.order_from_codes(["AS", *codes[1:]])
    with pytest.raises(ValueError, match="card 3"):
        shoe.order_from_codes([*codes[:3], "ZZ", *codes[4:]])
