"""The Bezique state machine, shared by 2 and 3 players.

Stages: ``play`` (a trick while the stock lasts) -> ``declare`` (the trick's winner may declare;
with ``declare_prompt=always`` he always gets this step, ``pass`` being his only move when he has
nothing to declare, so the public phase tells nothing; with ``when_possible`` it is skipped
then) -> draws -> ``play`` ... -> ``endgame`` (stock exhausted,
strict play) -> end of deal scoring -> the next deal, or ``over``.

Moves (the legal moves are the single source of truth):

* ``play`` cards=(card,): a card from the hand or, while the stock lasts, from one's melds.
* ``declare`` label=meld name, cards=the meld's card ids (sorted).
* ``exchange_seven`` / ``show_seven`` cards=(seven,): the seven of trumps (10 points).
* ``pass``: make no (further) declaration after a won trick.
* ``claim``: announce reaching the target (stock exhausted; wrong claims lose).

Every event's ``amount`` is points scored by its ``seat`` (0 for non-scoring events), so each
score is exactly the sum of the amounts of the events that scored it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from bezique.variants.api import (
    BaseGame,
    Census,
    Event,
    Move,
    NotYourTurnError,
    Outcome,
    Public,
    View,
)
from bezique.variants.bezique.deal import deal_cards, draw_lot
from bezique.variants.bezique.lookup import SEVEN, CardLookup, lookup_for
from bezique.variants.bezique.melds import (
    CLASS_NAMES,
    KINDS,
    TRIPLE_BEZIQUE,
    MeldBook,
    bezique_faces,
)
from bezique.variants.bezique.rules import PHASE_ONE_TRICKS, BeziqueRules
from bezique.variants.bezique.scoring import Reason, target_decision, wrong_claim_winners
from bezique.variants.bezique.tricks import endgame_cards, winning_index
from bezique.variants.bezique.views import census_of, public_part, view_for
from bezique.variants.cards import Shoe
from bezique.variants.chance import Chance


class Phase(StrEnum):
    """Where a table is (``View.phase``)."""

    PLAY = "play"
    """A trick while the stock lasts: any card may be played."""
    DECLARE = "declare"
    """The trick's winner may declare (or pass) before the draws."""
    ENDGAME = "endgame"
    """The stock is exhausted: follow, beat, trump; no declarations; claims."""
    OVER = "over"
    """The match is decided."""


PLAY, DECLARE, ENDGAME, OVER = Phase.PLAY, Phase.DECLARE, Phase.ENDGAME, Phase.OVER
PASS = Move("pass")
CLAIM = Move("claim")


class BeziqueGame(BaseGame):
    """One table: a match of deals until a player reaches the target. BaseGame guards
    ``apply``; the view is written here (built once per state and shared, see views.py)."""

    over_reason = "the match is over"

    def __init__(self, rules: BeziqueRules, chance: Chance) -> None:
        self.rules = rules
        self.lookup: CardLookup = lookup_for(rules.packs)
        self.chance = chance
        self.scores = [0] * rules.seats
        self.dealer = 0
        self.deal_no = 0
        self.result: Outcome | None = None
        self.stage = PLAY
        self._legal: tuple[Move, ...] | None = None
        self._public: Public | None = None
        self._reset_deal()

    def _reset_deal(self) -> None:
        seats = self.rules.seats
        self.trump = 0
        self.turnup = -1
        self.stock: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.melded: list[list[int]] = [[] for _ in range(seats)]
        self.won: list[list[int]] = [[] for _ in range(seats)]
        self.trick: list[int] = []
        self.trick_seats: list[int] = []
        self.last: tuple[int, ...] = ()
        self.last_seats: tuple[int, ...] = ()
        self.last_winner = -1
        self.last_trick_taker = -1
        self.tricks = 0
        self.leader = self.turn = 0
        self.book = MeldBook(len(self.lookup.shoe))
        self.sevens_scored: set[int] = set()
        self.known: set[int] = set()
        """Cards in hands that everyone saw go there (the turn-up drawn or exchanged)."""
        self.declared_meld = False
        self.seven_used = False
        self.bezique = bezique_faces(0, False)
        self._meld_names: list[list[str]] | None = None

    # ------------------------------------------------------------------ start and deals

    def begin(self, first_dealer: int | None) -> tuple[Event, ...]:
        """The opening chance steps: the lot (unless a test fixes the dealer), the first deal."""
        events: list[Event] = []
        if first_dealer is None:
            dealer, events = draw_lot(self.chance, self.rules.seats, self.lookup)
            how = "lot"
        else:
            if not 0 <= first_dealer < self.rules.seats:
                raise ValueError(f"first_dealer {first_dealer} is not a seat of this table")
            dealer, how = first_dealer, "fixed"
        self.dealer = dealer
        self._begin_deal(events, how)
        return tuple(events)

    def _begin_deal(self, events: list[Event], how: str) -> None:
        rules = self.rules
        self._reset_deal()
        self.deal_no += 1
        first = rules.next_seat(self.dealer)
        order = [first]
        while len(order) < rules.seats:
            order.append(rules.next_seat(order[-1]))
        events.append(Event("dealer", self.dealer, detail={"deal": self.deal_no, "by": how}))
        dealt = deal_cards(self.chance, self.deal_no, self.dealer,
                           rules.previous_seat(self.dealer), order, rules.packets, self.lookup)
        events.extend(dealt.events)
        self.hands, self.turnup, self.stock = dealt.hands, dealt.turnup, dealt.stock
        self.trump = self.lookup.suit[self.turnup]
        self.bezique = bezique_faces(self.trump, rules.trump_dependent_bezique)
        if self.lookup.rank[self.turnup] == SEVEN:
            self.sevens_scored.add(self.turnup)
            self._score(events, "turnup_seven", self.dealer, 10, (self.turnup,))
        self.leader = self.turn = first
        self.stage = PLAY

    def _score(self, events: list[Event], kind: str, seat: int, points: int,
               cards: tuple[int, ...] = (), label: str = "", **detail: Any) -> None:
        self.scores[seat] += points
        events.append(Event(kind, seat, cards, points, label, detail))

    # ------------------------------------------------------------------ protocol: facts

    @property
    def shoe(self) -> Shoe:
        return self.lookup.shoe

    @property
    def phase(self) -> str:
        return self.stage.value

    @property
    def to_move(self) -> tuple[int, ...]:
        return () if self.stage == OVER else (self.turn,)

    def outcome(self) -> Outcome | None:
        return self.result

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self, seat: int) -> tuple[Move, ...]:
        if self.stage == OVER or seat != self.turn:
            return ()
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[Move, ...]:
        seat = self.turn
        if self.stage == PLAY:
            play = self.lookup.play
            return tuple([play[c] for c in sorted(self.hands[seat] + self.melded[seat])])
        if self.stage == DECLARE:
            return tuple(self._declare_moves(seat)) or (PASS,)
        held = self.hands[seat] + self.melded[seat]  # melds are still out before the 1st lead
        cards = sorted(endgame_cards(held, self.trick, self.trump, self.lookup))
        play = self.lookup.play
        moves = [play[c] for c in cards]
        if self.rules.claims:
            moves.append(CLAIM)
        return tuple(moves)

    def _declare_moves(self, seat: int) -> list[Move]:
        """Declarations and seven moves open to the trick's winner now, then ``pass``."""
        rules, t = self.rules, self.lookup
        moves: list[Move] = []
        if not self.declared_meld and not (rules.seven_is_declaration and self.seven_used):
            for kind, cards in self.book.options(self.hands[seat], self.melded[seat],
                                                 self.trump, t, self.bezique):
                moves.append(Move("declare", cards, label=kind))
        if not self.seven_used and not (rules.seven_is_declaration and self.declared_meld):
            exchange = self.turnup >= 0 and t.rank[self.turnup] != SEVEN
            for card in sorted(self.hands[seat]):
                if (t.rank[card] == SEVEN and t.suit[card] == self.trump
                        and card not in self.sevens_scored):
                    if exchange:
                        moves.append(Move("exchange_seven", (card,)))
                    moves.append(Move("show_seven", (card,)))
        if moves:
            moves.append(PASS)
        return moves

    def default_move(self, seat: int) -> Move:
        """Section 8: pass on a declaration, else the lowest legal card (trick order, S H D C)."""
        legal = self.legal_moves(seat)
        if not legal:
            raise NotYourTurnError(seat, PASS, "no move is due from this seat", self.phase)
        if self.stage == DECLARE:
            return PASS
        key = self.lookup.low_key
        return min((m for m in legal if m.kind == "play"), key=lambda m: key[m.cards[0]])

    # ------------------------------------------------------------------ moves

    def apply_legal(self, seat: int, move: Move) -> tuple[Event, ...]:
        self._legal = self._public = None
        events: list[Event] = []
        kind = move.kind
        if kind == "play":
            self._play(seat, move.cards[0], events)
        elif kind == "declare":
            self._declare(seat, move, events)
        elif kind == "exchange_seven" or kind == "show_seven":
            self._seven(seat, move, events)
        elif kind == "pass":
            events.append(Event("pass", seat))
            self._draw_round(events)
        else:
            self._claim(seat, events)
        return tuple(events)

    def why_illegal(self, seat: int, move: Move) -> str:
        """A narrow reason for refusing ``move`` (it is known not to be legal)."""
        kinds = {m.kind for m in self.legal_moves(seat)}
        if move.kind not in kinds:
            return f"{move.kind!r} is not possible now (possible: {', '.join(sorted(kinds))})"
        if move.kind == "play" and len(move.cards) == 1 and move.amount == 0 and not move.label:
            card = move.cards[0]
            if not 0 <= card < len(self.lookup.shoe):
                return f"no card has id {card}"
            held = self.hands[seat] + self.melded[seat]
            if card not in held:
                return f"{self.lookup.code(card)} is not in your hand or melds"
            return f"{self.lookup.code(card)} breaks the duty to follow, beat or trump"
        if move.kind == "declare":
            return "not a declaration you may make now (cards, meld name or the class rule)"
        return "not a legal form of this move"

    def _play(self, seat: int, card: int, events: list[Event]) -> None:
        t, rules = self.lookup, self.rules
        if not self.trick:
            self.last = ()
            self.last_seats = ()
            self.leader = seat
            if self.stage == ENDGAME and self.tricks == PHASE_ONE_TRICKS:
                self._return_melds(events)
        self.known.discard(card)
        table = self.melded[seat]
        if card in table:
            table.remove(card)
            source = "table"
            self._meld_names = None
        else:
            self.hands[seat].remove(card)
            source = "hand"
        events.append(Event("play", seat, (card,), detail={"from": source}))
        if (self.stage == PLAY and rules.seven_scores_when_played and t.rank[card] == SEVEN
                and t.suit[card] == self.trump and card not in self.sevens_scored):
            self.sevens_scored.add(card)
            self._score(events, "seven_played", seat, 10, (card,))
        self.trick.append(card)
        self.trick_seats.append(seat)
        if len(self.trick) < rules.seats:
            self.turn = rules.next_seat(seat)
        else:
            self._end_trick(events)

    def _end_trick(self, events: list[Event]) -> None:
        rules = self.rules
        cards = tuple(self.trick)
        winner = self.trick_seats[winning_index(cards, self.trump, self.lookup)]
        self.won[winner].extend(cards)
        self.last, self.last_seats, self.last_winner = cards, tuple(self.trick_seats), winner
        self.trick, self.trick_seats = [], []
        self.tricks += 1
        events.append(Event("trick", winner, cards, detail={"seats": list(self.last_seats)}))
        self.leader = self.turn = winner
        if self.stage == PLAY:
            if not rules.last_trick_final and self.tricks == PHASE_ONE_TRICKS:
                self.last_trick_taker = winner
                self._score(events, "last_trick", winner, 10, trick=self.tricks)
            self.declared_meld = self.seven_used = False
            moves = self._declare_moves(winner)
            if moves or rules.declare_always:
                self.stage = DECLARE
                self._legal = tuple(moves) or (PASS,)
            else:
                self._draw_round(events)
        elif not self.hands[winner]:
            if rules.last_trick_final:
                self.last_trick_taker = winner
                self._score(events, "last_trick", winner, 10, trick=self.tricks)
            self._end_deal(events)

    def _declare(self, seat: int, move: Move, events: list[Event]) -> None:
        hand, table = self.hands[seat], self.melded[seat]
        for card in move.cards:
            if card in hand:
                hand.remove(card)
                table.append(card)
        kind = KINDS[move.label]
        upgrade = self.book.record(seat, move.label, move.cards)
        self._score(events, "declare", seat, kind.points, move.cards, move.label,
                    **{"class": CLASS_NAMES[kind.cls], "upgrade": upgrade})
        self.declared_meld = True
        self._meld_names = None
        if move.label == TRIPLE_BEZIQUE:
            self._finish(events, (seat,), Reason.TRIPLE_BEZIQUE)
        else:
            self._after_declaration(seat, events)

    def _after_declaration(self, seat: int, events: list[Event]) -> None:
        moves = self._declare_moves(seat)
        if moves:
            self._legal = tuple(moves)
        else:
            self._draw_round(events)

    def _seven(self, seat: int, move: Move, events: list[Event]) -> None:
        seven = move.cards[0]
        self.hands[seat].remove(seven)
        self.sevens_scored.add(seven)
        self.seven_used = True
        if move.kind == "exchange_seven":
            taken = self.turnup
            self.hands[seat].append(taken)
            self.known.add(taken)
            self.turnup = seven
            self._score(events, "exchange_seven", seat, 10, (seven, taken))
        else:
            self.melded[seat].append(seven)  # shown: it lies face up with the melds
            self._meld_names = None
            self._score(events, "show_seven", seat, 10, (seven,))
        self._after_declaration(seat, events)

    def _draw_round(self, events: list[Event]) -> None:
        """The winner, then the others in play order, each draws one card; the last card of
        the stock is the turn-up. When the stock is gone the last tricks begin."""
        rules = self.rules
        winner = self.leader
        seat = winner
        for _ in range(rules.seats):
            if self.stock:
                card = self.stock.pop()
                events.append(Event("draw", seat, (card,), visible_to=frozenset({seat})))
            else:
                card, self.turnup = self.turnup, -1
                self.known.add(card)
                events.append(Event("draw", seat, (card,), detail={"turnup": True}))
            self.hands[seat].append(card)
            seat = rules.next_seat(seat)
        self.turn = winner
        if self.stock or self.turnup >= 0:
            self.stage = PLAY
            return
        self.stage = ENDGAME
        events.append(Event("endgame", winner))

    def _return_melds(self, events: list[Event]) -> None:
        """Melds go back to the hands when the first card of the last tricks is led, so that a
        declaration made on the last trick of the stock is seen on the table first."""
        for seat in range(self.rules.seats):
            self.hands[seat].extend(self.melded[seat])
            self.melded[seat] = []
        self._meld_names = None
        events.append(Event("melds_returned", None))

    def _brisques(self, seat: int) -> int:
        points = self.lookup.points
        return sum(points[c] for c in self.won[seat])

    def _claim(self, seat: int, events: list[Event]) -> None:
        rules = self.rules
        brisques = self._brisques(seat)
        count = self.scores[seat] + brisques
        right = count >= rules.target
        events.append(Event("claim", seat, detail={"count": count, "target": rules.target,
                                                   "right": right}))
        self._score(events, "brisques", seat, brisques, count=brisques // 10)
        if right:
            self._finish(events, (seat,), Reason.CLAIM)
            return
        self._finish(events, wrong_claim_winners(self.scores, seat), Reason.WRONG_CLAIM)

    def _end_deal(self, events: list[Event]) -> None:
        rules = self.rules
        for seat in range(rules.seats):
            brisques = self._brisques(seat)
            self._score(events, "brisques", seat, brisques, count=brisques // 10)
        events.append(Event("deal_end", None, detail={"deal": self.deal_no,
                                                      "scores": list(self.scores)}))
        decision = target_decision(self.scores, rules.target, self.last_trick_taker,
                                   rules.tie_highest)
        if decision is not None:
            self._finish(events, (decision[0],), decision[1])
            return
        self.dealer = rules.next_seat(self.dealer)
        self._begin_deal(events, "rotation")

    def _finish(self, events: list[Event], winners: tuple[int, ...], reason: Reason) -> None:
        self.stage = OVER
        self.result = Outcome(winners, tuple(self.scores), reason.value, {"deals": self.deal_no})
        events.append(Event("match_end", winners[0] if len(winners) == 1 else None,
                            detail={"winners": list(winners), "reason": reason.value,
                                    "scores": list(self.scores)}))

    # ------------------------------------------------------------------ what is seen

    def view(self, viewer: int | None) -> View:
        public = self._public
        if public is None:
            public = self._public = public_part(self)
        return view_for(self, viewer, public)

    def census(self) -> Census:
        return census_of(self)

    def meld_names(self) -> list[list[str]]:
        """Per seat, the names of its declarations still whole on the table (public)."""
        names = self._meld_names
        if names is None:
            names = self._meld_names = [self.book.on_table(s, self.melded[s])
                                        for s in range(self.rules.seats)]
        return names

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_legal"] = state["_public"] = None  # caches, rebuilt on demand
        return state
