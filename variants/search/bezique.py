"""What a Bezique seat knows, and the full games consistent with it (the search's samples).

From the seat's view and its record (the current deal's events as it saw them) it works out
where every card it has seen is: its own hand, the melds on the table, the cards played, the
turn-up, the cards everyone saw go into a hand (the turn-up drawn or exchanged, the melds taken
back for the last tricks); every other card is in an opponent's hand or the stock. Once the
stock is gone, each card an opponent played tells what he did not hold: a card that, held
with the one he played, would have made that card illegal (the duty to follow, beat and trump,
asked of the rules' own ``endgame_cards``). A sample deals the unseen cards to the opponents'
hands and the stock at random within those bounds and builds a :class:`BeziqueGame` in that
state, which the search then plays with the game's own ``legal_moves`` and ``apply``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from bezique.variants.api import Event, Game, Move, SeatRecord, View
from bezique.variants.bezique.game import DECLARE, ENDGAME, OVER, BeziqueGame, Phase
from bezique.variants.bezique.lookup import ACE, JACK, KING, QUEEN, SEVEN, SUIT_LETTERS, lookup_for
from bezique.variants.bezique.melds import KINDS, MeldBook, bezique_faces
from bezique.variants.bezique.rules import BeziqueRules
from bezique.variants.bezique.tricks import beats, endgame_cards, winning_index
from bezique.variants.bezique.variant import BeziqueVariant
from bezique.variants.search.chance import RolloutChance

SCORE_SCALE = 250.0
"""Points of lead that count as a clear advantage (the rewards' scale)."""
WIN_SHARE = 0.8
"""The part of a reward that is winning the match, when a playout ends it."""
EXPLORE = 0.1
"""How often a playout plays a random card rather than the habitual one."""
SAMPLE_TRIES = 32
"""Attempts to deal the unseen cards within the voids before dealing them freely."""


def current_deal(events: Sequence[Event]) -> Sequence[Event]:
    """The events of the deal being played: from its last ``dealer`` event on."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].kind == "dealer":
            return events[index:]
    return events


class BeziqueKnowledge:
    """One seat's knowledge of the position (built once per decision); :meth:`sample` draws
    a full game from it."""

    def __init__(self, variant: BeziqueVariant, view: View, record: SeatRecord) -> None:
        if view.viewer is None:
            raise ValueError("a bot searches from a seat's view")
        self.seat = seat = view.viewer
        self.rules: BeziqueRules = variant.table_rules(record.options)
        rules, t = self.rules, lookup_for(variant.seats)
        self.t = t
        seats = rules.seats
        detail = view.detail
        self.trump = SUIT_LETTERS.index(str(detail["trump"]))
        self.deal_no = int(detail["deal"])
        self.dealer = int(detail["dealer"])
        self.leader = int(detail["leader"])
        self.stage = Phase(view.phase)
        self.turn = view.to_move[0]
        self.scores = list(view.scores)
        self.hand = list(view.hand)
        melds = [view.zone("melds", s) for s in range(seats)]
        self.melded = [list(zone.cards) if zone else [] for zone in melds]
        trump_zone = view.zone("trump")
        self.turnup = trump_zone.cards[0] if trump_zone and trump_zone.cards else -1
        trick = view.zone("trick")
        self.trick = list(trick.cards) if trick else []
        self.trick_seats = [int(s) for s in detail.get("trick_seats", ())]
        last = view.zone("last_trick")
        self.last = tuple(last.cards) if last else ()
        self.last_seats = tuple(int(s) for s in detail.get("last_trick_seats", ()))
        winner = detail.get("last_trick_winner")
        self.last_winner = -1 if winner is None else int(winner)
        counts = {zone.owner: zone.hidden for zone in view.zones if zone.name == "hand"}
        self.hand_counts = [len(self.hand) if s == seat else int(counts.get(s, 0))
                            for s in range(seats)]
        self._read(current_deal(record.events))
        self._unseen()

    # ------------------------------------------------------------------ reading the record

    def _read(self, events: Sequence[Event]) -> None:
        """Where the deal's events put the cards the seat saw, and what the endgame's plays
        showed (each opponent's play with the trick as it lay, for the voids)."""
        seats = self.rules.seats
        self.played: set[int] = set()
        self.won: list[list[int]] = [[] for _ in range(seats)]
        table: list[list[int]] = [[] for _ in range(seats)]
        self.known: list[set[int]] = [set() for _ in range(seats)]
        self.declarations: list[tuple[int, str, tuple[int, ...]]] = []
        self.sevens: set[int] = set()
        self.last_trick_taker = -1
        self.tricks = 0
        self.declared_meld = self.seven_used = False
        constraints: list[tuple[int, tuple[int, ...], int]] = []
        trick: list[int] = []
        endgame = False
        for event in events:
            kind, seat, cards = event.kind, event.seat, event.cards
            if kind == "play" and seat is not None and cards:
                card = cards[0]
                if endgame and seat != self.seat and trick:
                    constraints.append((seat, tuple(trick), card))
                if card in table[seat]:
                    table[seat].remove(card)
                self.known[seat].discard(card)
                self.played.add(card)
                trick.append(card)
            elif kind == "trick" and seat is not None:
                self.won[seat].extend(cards)
                self.tricks += 1
                trick = []
                self.declared_meld = self.seven_used = False
            elif kind == "declare" and seat is not None:
                table[seat].extend(c for c in cards if c not in table[seat])
                self.known[seat].difference_update(cards)
                self.declarations.append((seat, event.label, tuple(cards)))
                self.declared_meld = True
            elif kind in ("exchange_seven", "show_seven") and seat is not None and cards:
                self.sevens.add(cards[0])
                self.seven_used = True
                if kind == "show_seven":
                    table[seat].append(cards[0])
                elif len(cards) > 1:
                    self.known[seat].add(cards[1])
            elif kind in ("turnup_seven", "seven_played") and cards:
                self.sevens.add(cards[0])
            elif kind == "draw" and seat is not None and cards and event.detail.get("turnup"):
                self.known[seat].add(cards[0])
            elif kind == "melds_returned":
                for s in range(seats):
                    self.known[s].update(table[s])
                    table[s] = []
            elif kind == "last_trick" and seat is not None:
                self.last_trick_taker = seat
            elif kind == "endgame":
                endgame = True
        self.known[self.seat] = set()
        self.forbidden: list[set[int]] = [set() for _ in range(seats)]
        self._constraints = constraints

    def _unseen(self) -> None:
        """The cards the seat has not seen where they are, and the voids that bound them."""
        seen = set(self.hand) | self.played
        for s in range(self.rules.seats):
            seen.update(self.melded[s])
            seen.update(self.known[s])
        if self.turnup >= 0:
            seen.add(self.turnup)
        self.pool = sorted(c for c in range(len(self.t.shoe)) if c not in seen)
        self.hidden = [0 if s == self.seat else max(0, self.hand_counts[s] - len(self.known[s]))
                       for s in range(self.rules.seats)]
        self.stock_size = max(0, len(self.pool) - sum(self.hidden))
        t, trump = self.t, self.trump
        for seat, trick, card in self._constraints:
            for other in self.pool:
                if card not in endgame_cards((card, other), trick, trump, t):
                    self.forbidden[seat].add(other)
        self.book = MeldBook(len(t.shoe))
        for seat, label, cards in self.declarations:
            self.book.record(seat, label, cards)
        self.keep = keep_values(t, self.trump, self.rules.trump_dependent_bezique)
        self.lead_key = self._lead_key
        scores, points = self.scores, t.points
        self.values = [scores[s] + sum(points[c] for c in self.won[s])
                       for s in range(self.rules.seats)]

    def _lead_key(self, move: Move) -> tuple[int, int]:
        """The last tricks' lead: an ace (not a trump one) first, else the cheapest card."""
        card, t = move.cards[0], self.t
        if t.rank[card] == ACE and t.suit[card] != self.trump:
            return (-1, card)
        return (self.keep[card], card)

    # ------------------------------------------------------------------ samples

    def deal_unseen(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """The opponents' hidden cards and the stock (top last), drawn within the voids."""
        seats = self.rules.seats
        cards = list(self.pool)
        for attempt in range(SAMPLE_TRIES + 1):
            rng.shuffle(cards)
            hands: list[list[int]] = [[] for _ in range(seats)]
            need = list(self.hidden)
            stock: list[int] = []
            stock_need = self.stock_size
            free = attempt == SAMPLE_TRIES  # the voids cannot be met: deal freely
            ok = True
            for card in cards:
                options = [s for s in range(seats) if need[s]
                           and (free or card not in self.forbidden[s])]
                total = sum(need[s] for s in options) + stock_need
                if total == 0:
                    ok = False
                    break
                pick = rng.randrange(total)
                for s in options:
                    if pick < need[s]:
                        hands[s].append(card)
                        need[s] -= 1
                        break
                    pick -= need[s]
                else:
                    stock.append(card)
                    stock_need -= 1
            if ok:
                return hands, stock
        raise AssertionError("unreachable: the last attempt deals freely")

    def sample(self, rng: random.Random) -> BeziqueGame:
        """A full game in this position, the unseen cards dealt at random (within the voids)."""
        hands, stock = self.deal_unseen(rng)
        seats = self.rules.seats
        for s in range(seats):
            if s == self.seat:
                hands[s] = list(self.hand)
            else:
                hands[s].extend(sorted(self.known[s]))
        game: BeziqueGame = BeziqueGame.__new__(BeziqueGame)
        state: dict[str, Any] = game.__dict__
        book = MeldBook.__new__(MeldBook)
        source = self.book
        book.kinds, book.cards = list(source.kinds), list(source.cards)
        book.owners, book.superseded = list(source.owners), list(source.superseded)
        book.used = [list(used) for used in source.used]
        state.update(
            rules=self.rules, lookup=self.t, chance=RolloutChance(rng),
            scores=list(self.scores), dealer=self.dealer, deal_no=self.deal_no, result=None,
            stage=self.stage, _legal=None, _public=None, trump=self.trump,
            turnup=self.turnup, stock=stock, hands=hands,
            melded=[list(m) for m in self.melded], won=[list(w) for w in self.won],
            trick=list(self.trick), trick_seats=list(self.trick_seats), last=self.last,
            last_seats=self.last_seats, last_winner=self.last_winner,
            last_trick_taker=self.last_trick_taker, tricks=self.tricks, leader=self.leader,
            turn=self.turn, book=book, sevens_scored=set(self.sevens),
            known=set().union(*self.known), declared_meld=self.declared_meld,
            seven_used=self.seven_used,
            bezique=bezique_faces(self.trump, self.rules.trump_dependent_bezique),
            _meld_names=None)
        return game

    def clone(self, game: Game) -> Game:
        """A copy of a sampled game to play on: its piles and meld book copied."""
        assert isinstance(game, BeziqueGame)
        copy: BeziqueGame = BeziqueGame.__new__(BeziqueGame)
        state = copy.__dict__
        state.update(game.__dict__)
        book = MeldBook.__new__(MeldBook)
        source = game.book
        book.kinds, book.cards = list(source.kinds), list(source.cards)
        book.owners, book.superseded = list(source.owners), list(source.superseded)
        book.used = [list(used) for used in source.used]
        state.update(scores=list(game.scores), stock=list(game.stock),
                     hands=[list(h) for h in game.hands], melded=[list(m) for m in game.melded],
                     won=[list(w) for w in game.won], trick=list(game.trick),
                     trick_seats=list(game.trick_seats), book=book,
                     sevens_scored=set(game.sevens_scored), known=set(game.known),
                     _legal=None, _public=None, _meld_names=None)
        return copy

    # ------------------------------------------------------------------ the search's hooks

    def moves(self, game: Game, seat: int) -> Sequence[Move]:
        """Every legal move but a claim (only the seat itself, at the root, weighs one), one
        of each kind of twin (see :func:`distinct`)."""
        assert isinstance(game, BeziqueGame)
        legal = game.legal_moves(seat)
        if legal and legal[-1].kind == "claim":
            legal = legal[:-1] or legal
        return distinct(legal, game.melded[seat], self.t)

    def rollout_move(self, game: Game, seat: int, rng: random.Random) -> Move:
        """The heuristic's habits, cheaply: declare the best meld (else a seven, else pass);
        lead the card least worth keeping; take a trick when it is worth what it costs, else
        throw the cheapest card; once the stock is gone lead aces and win cheaply; never
        claim. Now and then a random card, so the playouts differ."""
        assert isinstance(game, BeziqueGame)
        legal = game.legal_moves(seat)
        stage = game.stage
        if stage == DECLARE:
            best, points = legal[-1], 0
            for move in legal:
                if move.kind == "declare":
                    value = KINDS[move.label].points
                    if value > points:
                        best, points = move, value
                elif points == 0 and move.kind != "pass":
                    best, points = move, 1
            return best
        count = len(legal)
        if stage == ENDGAME and legal[-1].kind == "claim":
            count -= 1
        if rng.random() < EXPLORE:
            return legal[rng.randrange(count)]
        keep, trick, t, trump = self.keep, game.trick, self.t, game.trump
        if not trick:
            if stage == ENDGAME:
                return min(legal[:count], key=self.lead_key)
            return min(legal[:count], key=lambda m: keep[m.cards[0]])
        winner = trick[winning_index(trick, trump, t)]
        winning = [m for m in legal[:count] if beats(m.cards[0], winner, trump, t)]
        if winning:
            if stage == ENDGAME:
                return min(winning, key=lambda m: t.strength[m.cards[0]])
            best = min(winning, key=lambda m: keep[m.cards[0]])
            stake = 0
            for card in trick:
                stake += t.points[card]
            if keep[best.cards[0]] <= 12 + stake:
                return best
            losing = [m for m in legal[:count] if m not in winning]
            if losing:
                return min(losing, key=lambda m: keep[m.cards[0]])
            return best
        return min(legal[:count], key=lambda m: keep[m.cards[0]])

    def done(self, game: Game) -> bool:
        assert isinstance(game, BeziqueGame)
        return game.stage == OVER or game.deal_no != self.deal_no

    def rewards(self, game: Game) -> list[float]:
        """Per seat: the lead gained over the others (points and brisques taken), squashed
        into [0, 1] (by ``x / sqrt(1 + x²)``: exactly rounded everywhere, unlike ``tanh``);
        winning the match, when the playout ends it, counts most."""
        assert isinstance(game, BeziqueGame)
        seats, points = self.rules.seats, self.t.points
        now = [game.scores[s] + sum(points[c] for c in game.won[s]) for s in range(seats)]
        gains = [now[s] - self.values[s] for s in range(seats)]
        total = sum(gains)
        result = []
        for s in range(seats):
            lead = gains[s] - (total - gains[s]) / (seats - 1)
            scaled = lead / SCORE_SCALE
            reward = 0.5 + 0.5 * scaled / math.sqrt(1.0 + scaled * scaled)
            if game.result is not None:
                winners = game.result.winners
                won = 1.0 / len(winners) if s in winners else 0.0
                reward = WIN_SHARE * won + (1 - WIN_SHARE) * reward
            result.append(reward)
        return result


def keep_values(t: Any, trump: int, trump_dependent: bool) -> list[int]:
    """How much each card is worth keeping while the stock lasts, with no look at the rest of
    the hand (the playouts' cheap cousin of the heuristic's ``keep_value``): its trick
    strength and points, more for trumps, the seven of trumps, the bezique cards and the
    ranks that make fours and marriages."""
    queen, jack = bezique_faces(trump, trump_dependent)
    values = []
    for card in range(len(t.shoe)):
        rank, suit = t.rank[card], t.suit[card]
        value = t.strength[card] + t.points[card]
        if suit == trump:
            value += 8 + (12 if rank == SEVEN else 0)
        if (rank, suit) in (queen, jack):
            value += 12
        if rank in (KING, QUEEN):
            value += 6
        if rank in (ACE, KING, QUEEN, JACK):
            value += 4
        values.append(value)
    return values


def distinct(legal: Sequence[Move], table: Sequence[int], t: Any) -> list[Move]:
    """``legal`` without twins: of two moves that differ only in which copy of the same card
    they play or declare (the packs' identical cards, all from the hand, or all from the
    table), the first. The search then shares its samples between fewer moves."""
    seen: set[tuple[object, ...]] = set()
    kept = []
    codes = t.codes
    for move in legal:
        key = (move.kind, move.label, *sorted((codes[c], c in table) for c in move.cards))
        if key not in seen:
            seen.add(key)
            kept.append(move)
    return kept
