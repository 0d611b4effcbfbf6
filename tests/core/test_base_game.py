"""BaseGame: the guard every ``apply`` used to repeat, and the view derived from the census."""

from __future__ import annotations

import pytest

from bezique.variants.api import (
    AmountRange,
    BaseGame,
    Census,
    Event,
    GameOverError,
    IllegalMoveError,
    Move,
    NotYourTurnError,
    Pile,
    Zone,
)
from bezique.variants.cards import Shoe, piquet_shoe

SHOE = piquet_shoe(1)


class Bids(BaseGame):
    """Seats 0 and 1 both bid at once (two seats to move) an amount from 1 to 9, or pass; seat
    2 watches. Each holds two cards, and a bid shows the bidder's first card to everyone."""

    def __init__(self, *, takes_any_pass: bool = False) -> None:
        self.hands = [[0, 1], [2, 3], [4, 5]]
        self.shown: list[int] = []
        self.bids: dict[int, int] = {}
        self.takes_any_pass = takes_any_pass

    @property
    def phase(self) -> str:
        return "bidding" if self.to_move else "over"

    @property
    def to_move(self) -> tuple[int, ...]:
        return tuple(seat for seat in (0, 1) if seat not in self.bids)

    @property
    def shoe(self) -> Shoe:
        return SHOE

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if seat not in self.to_move:
            return ()
        return (Move("pass"), Move("bid", amount=1, amount_range=AmountRange(1, 9)))

    def why_illegal(self, seat: int, move: Move) -> str | None:
        if self.takes_any_pass and move.kind == "pass":
            return None
        return super().why_illegal(seat, move)

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        self.bids[seat] = move.amount
        if move.kind == "bid":
            self.shown.append(self.hands[seat].pop(0))
        return (Event(move.kind, seat, tuple(self.shown[-1:]) if move.amount else (),
                      move.amount),)

    def census(self) -> Census:
        return Census((*(Pile.hand(seat, hand) for seat, hand in enumerate(self.hands)),
                       Pile("shown", tuple(self.shown)),
                       Pile("stock", tuple(range(6, 32)), frozenset())),
                      scores=tuple(self.bids.get(seat, 0) for seat in range(3)),
                      detail={"bids": len(self.bids)})


def test_a_legal_move_and_any_amount_in_an_offered_range_go_to_apply_legal() -> None:
    game = Bids()
    assert game.apply(0, Move("bid", amount=7)) == (Event("bid", 0, (0,), 7),)
    assert game.apply(1, Move("pass")) == (Event("pass", 1),)
    assert game.bids == {0: 7, 1: 0}


def test_refusals_name_the_reason_and_change_nothing() -> None:
    game = Bids()
    before = game.census()
    with pytest.raises(NotYourTurnError, match="it is the turn of seats 0, 1"):
        game.apply(2, Move("pass"))
    with pytest.raises(IllegalMoveError, match=r"the amount must be 1\.\.9") as caught:
        game.apply(0, Move("bid", amount=10))
    assert type(caught.value) is IllegalMoveError and caught.value.phase == "bidding"
    with pytest.raises(IllegalMoveError, match=r"not among the legal moves \(pass, bid "):
        game.apply(0, Move("fold"))
    assert game.census() == before and game.bids == {}
    game.apply(0, Move("pass"))
    with pytest.raises(NotYourTurnError, match="it is seat 1's turn"):
        game.apply(0, Move("pass"))
    game.apply(1, Move("pass"))
    with pytest.raises(GameOverError, match="the game is over"):
        game.apply(1, Move("pass"))


def test_why_illegal_may_accept_a_move_it_does_not_offer() -> None:
    game = Bids(takes_any_pass=True)
    game.apply(0, Move("pass", amount=3))
    assert game.bids == {0: 3}


def test_over_reason_is_the_game_over_message() -> None:
    class Match(Bids):
        over_reason = "the match is over"

    game = Match()
    game.apply(0, Move("pass"))
    game.apply(1, Move("pass"))
    with pytest.raises(GameOverError, match="the match is over"):
        game.apply(0, Move("pass"))


def test_the_view_is_the_census_as_each_viewer_may_see_it() -> None:
    game = Bids()
    game.apply(1, Move("bid", amount=4))
    seat0, spectator = game.view(0), game.view(None)
    assert seat0.hand == (0, 1) and spectator.hand == ()
    assert seat0.zones == (Zone("hand", 1, (), 1), Zone("hand", 2, (), 2),
                           Zone("shown", None, (2,)), Zone("stock", None, (), 26))
    assert spectator.zones[:3] == (Zone("hand", 0, (), 2), Zone("hand", 1, (), 1),
                                   Zone("hand", 2, (), 2))
    assert (seat0.phase, seat0.to_move, seat0.scores, dict(seat0.detail)) == (
        "bidding", (0,), (0, 4, 0), {"bids": 1})
    assert seat0.shoe is SHOE


def test_a_hand_hidden_even_from_its_owner_stays_a_count() -> None:
    census = Census((Pile("hand", (3, 4), frozenset(), owner=0),))
    view = census.view_for(0, "play", (0,))
    assert view.hand == () and view.zones == (Zone("hand", 0, (), 2),)


def test_a_subclass_that_leaves_out_a_part_cannot_be_made() -> None:
    class Half(BaseGame):
        phase, to_move, shoe = "play", (0,), SHOE

        def legal_moves(self, seat: int) -> tuple[Move, ...]:
            return ()

        def census(self) -> Census:
            return Census(())

    with pytest.raises(TypeError, match="apply_legal"):
        Half()  # type: ignore[abstract]


def test_a_view_is_worked_out_again_after_every_move_and_for_each_game() -> None:
    """Every view is the position now: after a move, even one that fails half-way, and
    another game's view is its own."""
    import pickle

    game = Bids()
    before = {viewer: game.view(viewer) for viewer in (0, 1, 2, None)}
    assert before[0].hand == (0, 1) and before[1].hand == (2, 3)
    game.apply(0, Move("bid", amount=4))
    after = {viewer: game.view(viewer) for viewer in (0, 1, 2, None)}
    assert after[0].hand == (1,) and after[1].hand == (2, 3)
    assert all(Zone("shown", None, (0,)) in view.zones for view in after.values())
    assert all(view.zones != before[viewer].zones for viewer, view in after.items())
    copy = pickle.loads(pickle.dumps(game))
    assert copy.view(1) == after[1]
    other = Bids()
    other.hands[1] = [7, 8]
    assert other.view(1).hand == (7, 8) and game.view(1).hand == (2, 3)

    class Fails(Bids):
        def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
            self.hands[seat].clear()
            raise RuntimeError("half-way")

    broken = Fails()
    assert broken.view(1).hand == (2, 3)
    with pytest.raises(RuntimeError):
        broken.apply(1, Move("pass"))
    assert broken.view(1).hand == ()


def test_a_seat_not_to_move_is_refused_even_when_legal_moves_ignore_the_seat() -> None:
    """The turn is checked before the legal moves, so a game whose ``legal_moves`` does not
    look at its ``seat`` still lets only the seats to move play."""

    class Careless(Bids):
        def legal_moves(self, seat: int) -> tuple[Move, ...]:
            return (Move("pass"),)

    game = Careless()
    with pytest.raises(NotYourTurnError):
        game.apply(2, Move("pass"))
    assert game.bids == {} and game.view(2).hand == (4, 5)


def test_views_of_one_position_in_any_order_are_each_the_census_as_seen_alone() -> None:
    """A zone built by one viewer of a position is shared only with viewers who see the same:
    a pile seen by two seats shows its cards to them and a count to the others, whichever
    viewer of the position comes first."""

    class Partners(Bids):
        def census(self) -> Census:
            return Census((*super().census().piles, Pile("pair", (30, 31), frozenset({0, 1}))))

    orders = ((0, 1, 2, None), (None, 2, 1, 0), (2, 0, None, 1))
    for order in orders:
        game = Partners()
        game.apply(1, Move("bid", amount=4))
        census = game.census()
        for viewer in order:
            alone = census.view_for(viewer, game.phase, game.to_move, game.shoe)
            assert game.view(viewer) == alone
            pair = alone.zone("pair")
            assert pair == (Zone("pair", None, (30, 31)) if viewer in (0, 1)
                            else Zone("pair", None, (), 2))


def test_a_view_follows_a_change_made_outside_apply() -> None:
    """Nothing of a position is kept between views (main kept the last position viewed, of
    any game, until the next ``apply``): a state changed another way (an operator's abort,
    a test, a plugin's own method) is what the next view shows, and a census with the
    game's own lists gives a view that does not change with the game."""
    game = Bids()
    assert game.view(1).hand == (2, 3)
    game.hands[1].append(9)
    assert game.view(1).hand == (2, 3, 9)
    assert game.view(None).zone("hand", 1) == Zone("hand", 1, (), 3)
    shown = game.view(0)
    game.shown.append(7)
    assert shown.zone("shown") == Zone("shown", None, ()) != game.view(0).zone("shown")
    untyped = Census((Pile("table", ([1], [2])),))  # type: ignore[arg-type]
    assert untyped.view_for(1, "x", ()).zones == (Zone("table", None, ([1], [2])),)  # type: ignore[arg-type]


def test_the_views_of_a_census_show_it_as_it_was_when_taken() -> None:
    """A census's shared views (``Census.views``, one per table version in the service) take
    each pile's cards when made: a viewer served later sees the census as it was then, though
    a plugin's pile holds the game's own list and no earlier viewer saw its cards."""
    game = Bids()
    table: list[int] = [4]
    census = Census((*game.census().piles,
                     Pile("table", table, frozenset({1}))))  # type: ignore[arg-type]
    views = census.views(game.phase, game.to_move, game.shoe)
    assert views.view_for(0).zone("table") == Zone("table", None, (), 1)
    table.append(5)
    assert views.view_for(1).zone("table") == Zone("table", None, (4,))
    assert views.view_for(2).zone("table") is views.view_for(0).zone("table")  # shared
