"""High card. Each player is dealt ``hand_size`` cards from one 32-card pack. In each round
every player, in turn from the round's leader, plays one card face up; the highest rank wins
the round (of equal ranks the first played) and leads the next. Most rounds won wins; a tie
shares the win."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bezique.variants.api import (
    BaseGame,
    BaseVariant,
    Census,
    Event,
    Move,
    Options,
    OptionSpec,
    OptionType,
    Outcome,
    Pile,
    View,
    Vocabulary,
)
from bezique.variants.cards import Shoe, piquet_shoe
from bezique.variants.chance import Chance


class HighCard(BaseVariant):
    """The variant's facts. ``BaseVariant`` declares the optional abilities with their
    defaults; this game overrides only its vocabulary (and takes the defaults: logs of its own
    version only, every option set in range, no buy-ins)."""

    id = "highcard"
    version = 1
    title = "High card (example plugin)"
    vocabulary = Vocabulary(
        phases={"play": "Playing", "over": "Over"},
        events={"deal": "is dealt", "play": "plays", "round_won": "wins the round"},
        zones={"table": "On the table", "hand": "Hand", "won": "Rounds won", "stock": "Undealt"},
        moves={"play": "play this card; the highest card on the table takes the round"},
    )
    """Labels for generic clients: ListVariants sends them, so `bezique play` and
    `bezique history --replay` read this game in words rather than raw keys."""
    description = "Play one card a round; the highest card takes the round."
    min_seats = 2
    max_seats = 4
    options: tuple[OptionSpec, ...] = (
        OptionSpec("players", OptionType.INT, 2, "Number of seats.", minimum=2, maximum=4),
        OptionSpec("hand_size", OptionType.INT, 3, "Cards dealt to each player.",
                   minimum=1, maximum=8),
    )

    def seat_count(self, options: Options) -> int:
        return int(options["players"])

    def shoe(self, options: Options) -> Shoe:
        return piquet_shoe(1)

    def start(self, options: Options, chance: Chance, first_dealer: int | None = None
              ) -> tuple[HighCardGame, tuple[Event, ...]]:
        seats = self.seat_count(options)
        shoe = self.shoe(options)
        order = chance.shuffled("deal/1", list(shoe.ids))
        size = int(options["hand_size"])
        leader = 0 if first_dealer is None else (first_dealer + 1) % seats
        game = HighCardGame(shoe, seats, size, leader)
        events = []
        for seat in range(seats):
            hand = order[seat * size:(seat + 1) * size]
            game.hands[seat] = sorted(hand)
            events.append(Event("deal", seat, tuple(hand), visible_to=frozenset({seat})))
        game.stock = order[seats * size:]
        return game, tuple(events)


class HighCardGame(BaseGame):
    """One table of high card. BaseGame guards ``apply`` (game over, whose turn, legal) and
    derives every view from ``census``."""

    def __init__(self, shoe: Shoe, seats: int, hand_size: int, leader: int) -> None:
        self._shoe = shoe
        self.seats = seats
        self.rounds_left = hand_size
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.stock: list[int] = []
        self.table: list[tuple[int, int]] = []  # (seat, card) of the round in progress
        self.won: list[list[int]] = [[] for _ in range(seats)]
        self.rounds_won = [0] * seats
        self.turn = leader

    @property
    def shoe(self) -> Shoe:
        return self._shoe

    @property
    def phase(self) -> str:
        return "over" if self.rounds_left == 0 else "play"

    @property
    def to_move(self) -> tuple[int, ...]:
        return () if self.rounds_left == 0 else (self.turn,)

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if seat not in self.to_move:
            return ()
        return tuple(Move("play", (card,)) for card in self.hands[seat])

    def why_illegal(self, seat: int, move: Move) -> str:
        return "play one card of your hand"

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        card = move.cards[0]
        self.hands[seat].remove(card)
        self.table.append((seat, card))
        events = [Event("play", seat, (card,))]
        if len(self.table) < self.seats:
            self.turn = (seat + 1) % self.seats
            return tuple(events)
        winner, _ = max(self.table, key=lambda pair: (self._shoe[pair[1]].rank,
                                                       -self.table.index(pair)))
        cards = tuple(card for _, card in self.table)
        self.won[winner].extend(cards)
        self.rounds_won[winner] += 1
        self.table = []
        self.rounds_left -= 1
        self.turn = winner
        events.append(Event("round_won", winner, cards, amount=1))
        return tuple(events)

    def outcome(self) -> Outcome | None:
        if self.rounds_left:
            return None
        best = max(self.rounds_won)
        winners = tuple(s for s in range(self.seats) if self.rounds_won[s] == best)
        return Outcome(winners, tuple(self.rounds_won), "most rounds won")

    def default_move(self, seat: int) -> Move:
        return min(self.legal_moves(seat), key=lambda m: (self._shoe[m.cards[0]].rank, m.cards))

    def census(self) -> Census:
        """The whole state, with who may see each card: every view is this, seen by one."""
        piles = [Pile("table", tuple(card for _, card in self.table))]
        piles += [Pile.hand(seat, self.hands[seat]) for seat in range(self.seats)]
        piles += [Pile("won", tuple(self.won[seat]), owner=seat) for seat in range(self.seats)]
        piles.append(Pile("stock", tuple(self.stock), visible_to=frozenset()))
        return Census(tuple(piles), scores=tuple(self.rounds_won))


class HighestCardPolicy:
    """Plays its highest card: enough to beat random play most of the time."""

    name = "highest"
    description = "Always plays the highest card in hand."

    def choose(self, view: View, legal: Sequence[Move], rng: random.Random) -> Move:
        shoe = view.shoe
        if shoe is None:
            raise ValueError("the view has no shoe to rank the cards by")
        return max(legal, key=lambda move: shoe[move.cards[0]].rank)
