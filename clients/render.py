"""Rich rendering of the wire records: cards, moves, events, views, variants and tables.

Everything here is generic over the View message: a variant's specifics arrive as zone names
and ``detail`` keys, which are shown as they come (a few well-known ones get a nicer label).
Every function that takes a wire message prints it :func:`~clients.safe.cleaned` (no control or
bidi characters from the server reach the terminal).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format, struct_pb2
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bezique.clients.i18n import entry_kind_name, kind_name, language, t
from bezique.clients.safe import cleaned, visible
from bezique.terms import SUIT_SYMBOLS, amount_range_text, card_label, whole_numbers
from bezique.v1 import table_service_pb2 as pb

SUITS = SUIT_SYMBOLS
RED_SUITS = frozenset("HD")
FOLDED_LABEL = "folded (revealed at the end)"  # through t() where printed
"""Said of a hand that folded, shown because the game ended: the revealed seed makes every
deal derivable, so the history shows it (rules/quart-bezique.md, docs/fairness.md)."""
END_NOTE = ("The game is over and its seed revealed, so every deal can be recomputed: the "
            "history shows every hand, folded ones included.")


@dataclass(frozen=True)
class Words:
    """A variant's vocabulary (``VariantInfo.vocabulary``) as the renderers use it: each
    lookup falls back to the raw key with underscores as spaces, so a variant that declares no
    words still reads, only less well."""

    phases: Mapping[str, str] = field(default_factory=dict)
    events: Mapping[str, str] = field(default_factory=dict)
    zones: Mapping[str, str] = field(default_factory=dict)
    details: Mapping[str, str] = field(default_factory=dict)
    moves: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    title: str = ""
    description: str = ""
    options: Mapping[str, str] = field(default_factory=dict)
    outcomes: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, info: pb.VariantInfo | None, lang: str | None = None) -> Words:
        """The words a ListVariants entry declares (every string made safe to print), in the
        chosen language when the server has them in it (``VariantInfo.translations``), each
        key it lacks taken from the variant's own vocabulary."""
        if info is None or not info.HasField("vocabulary"):
            return NO_WORDS
        parts = [cleaned(info.vocabulary)]
        translated = translation(info, lang or language())
        if translated is not None:
            parts.append(cleaned(translated))
        maps: dict[str, dict[str, str]] = {}
        for name in ("phases", "events", "zones", "details", "moves", "labels", "options",
                     "outcomes"):
            maps[name] = {}
            for vocabulary in parts:
                if name in vocabulary.DESCRIPTOR.fields_by_name:
                    maps[name].update(getattr(vocabulary, name))
        said = {name: next((str(getattr(v, name, "")) for v in reversed(parts)
                            if getattr(v, name, "")), "") for name in ("title", "description")}
        return cls(maps["phases"], maps["events"], maps["zones"], maps["details"],
                   maps["moves"], maps["labels"], said["title"] or cleaned(info).title,
                   said["description"] or cleaned(info).description, maps["options"],
                   maps["outcomes"])

    def phase(self, name: str) -> str:
        return self.phases.get(name) or name.replace("_", " ") or "-"

    def event(self, kind: str) -> str:
        return self.events.get(kind) or kind.replace("_", " ")

    def zone(self, name: str) -> str:
        return self.zones.get(name) or name.replace("/", " ").replace("_", " ").capitalize()

    def detail(self, key: str) -> str:
        return self.details.get(key) or key.replace("_", " ")

    def move(self, kind: str) -> str:
        """What a move kind does, or "" when the variant does not say."""
        return self.moves.get(kind, "")

    def label(self, name: str) -> str:
        """A named choice (a meld, a combination) in words, else as it comes."""
        return self.labels.get(name) or name.replace("_", " ")


NO_WORDS = Words()


def translation(info: pb.VariantInfo, lang: str) -> Any:
    """The variant's vocabulary in ``lang`` (``VariantInfo.translations``), or None: none in
    that language, the variant's own is in it, or a server (or generated code) without
    translations."""
    if "translations" not in info.DESCRIPTOR.fields_by_name:
        return None
    own = getattr(info.vocabulary, "language", "") or "en"
    if lang == own:
        return None
    found = getattr(info, "translations", {})  # not in this client's stubs until merged
    return found.get(lang)


# Detail keys the board shows in its own places rather than in the "details" line.
BOARD_KEYS = frozenset({"trump", "dealer", "deal", "contributions"})


# ------------------------------------------------------------------------------- values


def detail_dict(message: struct_pb2.Struct) -> dict[str, Any]:
    """A ``google.protobuf.Struct`` as a plain dict (numbers as ints where whole)."""
    found: dict[str, Any] = whole_numbers(json_format.MessageToDict(message))
    return found


def value_text(value: Any, limit: int = 48, labels: Mapping[str, str] | None = None) -> str:
    """A detail value, short and for people: lists joined (an empty one as "-", a list of
    lists as its parts separated by "; "), a record by its ``name`` (and ``points``), names
    with underscores as spaces (or in the variant's ``labels``), suit letters and card codes as
    symbols, long ones cut."""
    value = whole_numbers(value)
    labels = labels or {}
    if isinstance(value, bool):
        text = t("yes") if value else t("no")
    elif isinstance(value, list):
        if not value:
            text = "-"
        elif all(isinstance(v, list) for v in value):
            text = "; ".join(value_text(v, limit, labels) for v in value)
        else:
            text = ", ".join(value_text(v, limit, labels) for v in value)
    elif isinstance(value, dict):
        if isinstance(value.get("name"), str):
            text = labels.get(value["name"]) or value["name"].replace("_", " ")
            if isinstance(value.get("points"), int):
                text += f" {value['points']}"
        else:
            text = ", ".join(f"{str(k).replace('_', ' ')} {value_text(v, limit, labels)}"
                             for k, v in sorted(value.items()))
    elif value is None:
        text = "-"
    elif isinstance(value, str) and len(value) == 2 and value[0] in "789TJQKA" \
            and value[1] in SUITS:
        text = card_label(value)
    elif isinstance(value, str) and len(value) == 1 and value in SUITS:
        text = SUITS[value]
    elif isinstance(value, str):
        text = labels.get(value) or value.replace("_", " ")
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ordered_details(detail: Mapping[str, Any], words: Words = NO_WORDS
                    ) -> list[tuple[str, Any]]:
    """A detail's items in a stable order, by key (a Struct's keys, and a vocabulary's map on
    the wire, come in no fixed order)."""
    return [(key, detail[key]) for key in sorted(detail)]


# ------------------------------------------------------------------------------- cards


def card_text(code: str) -> Text:
    style = "bold red" if code[-1:] in RED_SUITS else "bold default"
    return Text(card_label(code), style=style)


def cards_text(cards: Iterable[pb.Card], hidden: int = 0) -> Text:
    """Cards separated by spaces, and ``[n hidden]`` for the ones the viewer may only count."""
    parts = [card_text(card.code) for card in cards]
    if hidden:
        parts.append(Text(t("[{hidden} hidden]", hidden=hidden), style="dim"))
    return Text(" ").join(parts)


def sorted_cards(cards: Iterable[pb.Card]) -> list[pb.Card]:
    """Cards grouped by suit (♠ ♥ ♣ ♦, colours alternating) and by rank within a suit."""
    order = "SHCD"
    ranks = "789TJQKA"

    def key(card: pb.Card) -> tuple[int, int, int]:
        code = card.code
        return (order.find(code[-1:]), ranks.find(code[:1]), card.id)

    return sorted(cards, key=key)


def suit_text(letter: str) -> Text:
    symbol = SUITS.get(letter, letter)
    return Text(symbol, style="bold red" if letter in RED_SUITS else "bold default")


# ------------------------------------------------------------------------------- names


def seat_names(seats: Iterable[pb.SeatState], viewer: int | None = None) -> dict[int, str]:
    """``{seat: "Seat 1 (alice)"}``; the viewer's own seat is "Seat 0 (you)"."""
    names: dict[int, str] = {}
    for state in seats:
        if viewer is not None and state.seat == viewer:
            names[state.seat] = t("Seat {seat} (you)", seat=state.seat)
        elif state.display_name:
            names[state.seat] = t("Seat {seat} ({name})", seat=state.seat,
                                  name=visible(bot_name(state)))
        else:
            names[state.seat] = t("Seat {seat}", seat=state.seat)
    return names


def bot_name(state: pb.SeatState) -> str:
    """A seat's display name, with the server's label of a bot seat ("heuristic bot") in the
    reader's language; a name someone chose stays as it is."""
    if state.bot_policy and state.display_name == f"{state.bot_policy} bot":
        return t("{policy} bot", policy=state.bot_policy)
    return state.display_name


def who(names: Mapping[int, str], seat: int | None) -> str:
    if seat is None:
        return t("Table")
    return names.get(seat) or t("Seat {seat}", seat=seat)


# ------------------------------------------------------------------------------- moves, events


def move_text(move: pb.Move, *, with_kind: bool = True, words: Words = NO_WORDS) -> Text:
    """A move as offered: the server's text of it (``Move.text``, the variant's words), its
    kind in bold and its cards in their colours; without that text (a server older than it, a
    move this client made) the client's own: kind, label, cards and amount. Without
    ``with_kind``, the kind is left out (a line of many moves of one kind names it once). In
    another language than English the client's own, in that language (the server's text is
    English)."""
    move = cleaned(move)
    if move.text and language() == "en":
        return _server_text(move, with_kind)
    text = Text(kind_name(move.kind) if with_kind else "", style="bold")
    if move.label:
        text.append(" " + words.label(move.label), style="cyan")
    if move.cards:
        text.append(" ")
        text.append_text(cards_text(move.cards))
    if move.HasField("amount_range"):
        span = move.amount_range
        said = amount_range_text(span.minimum, span.maximum, span.step)
        if language() != "en":
            said = t("to any amount from {low} to {high}", low=span.minimum, high=span.maximum)
            if span.step > 1:
                said += t(" in steps of {step}", step=span.step)
        text.append(" " + said, style="yellow")
    elif move.amount:
        text.append(f" {move.amount}", style="yellow")
    return text if with_kind else text[1:]


def _server_text(move: pb.Move, with_kind: bool) -> Text:
    """``Move.text`` styled: its leading kind bold (or left out), its cards in colour."""
    said, kind = move.text, move.kind.replace("_", " ")
    text = Text()
    if said == kind or said.startswith(kind + " "):
        if with_kind:
            text.append(kind, style="bold")
        said = said[len(kind):].lstrip(" ")
    codes = {card_label(card.code): card.code for card in move.cards}
    for word in said.split(" "):
        if text:
            text.append(" ")
        if word in codes:
            text.append_text(card_text(codes[word]))
        else:
            text.append(word)
    return text


def event_text(event: pb.Event, names: Mapping[int, str], *, folded: bool = False,
               words: Words = NO_WORDS) -> Text:
    """One event as a line: who, what, which cards, how much, and its public details; with
    ``folded``, the dealt hand is labelled :data:`FOLDED_LABEL`."""
    event = cleaned(event)
    seat = event.seat if event.HasField("seat") else None
    label = words.event(event.kind)
    in_label = "{amount}" in label  # the variant puts the amount in its own sentence
    if in_label:
        label = label.replace("{amount}", str(event.amount))
    if seat is None:  # a table-wide event: its label is the sentence ("The deal ends")
        text = Text(label[:1].upper() + label[1:], style="magenta")
    else:
        text = Text(f"{who(names, seat)} {label}", style="green")
    if event.label:
        text.append(" " + words.label(event.label), style="cyan")
    if event.cards or event.hidden_count:
        text.append(" ")
        text.append_text(cards_text(event.cards, event.hidden_count))
    if folded:
        text.append(f" — {t(FOLDED_LABEL)}", style="yellow")
    if event.amount and not in_label:
        text.append(f" ({event.amount:+d})" if event.amount > 0 else f" ({event.amount})",
                    style="yellow")
    detail = detail_dict(event.detail)
    if detail:
        reason = reason_words(detail, words)
        shown = ", ".join(
            f"{words.detail(k)}: "
            f"{reason if k == 'reason' and reason else value_text(v, 24, words.labels)}"
            for k, v in ordered_details(detail, words))
        text.append(f"  {shown}", style="dim")
    return text


def reason_words(detail: Mapping[str, Any], words: Words) -> str:
    """A ``reason`` detail (an event's, a deal's end) that is an outcome the vocabulary words
    (Quart's ``table_end`` says "1 deals played"), in those words; "" otherwise."""
    reason = detail.get("reason")
    if not isinstance(reason, str):
        return ""
    key = outcome_key(words.outcomes, reason, detail)
    return _filled(words.outcomes[key], detail, value_text) if key in words.outcomes else ""


def _filled(sentence: str, detail: Mapping[str, Any], show: Any = str) -> str:
    """``sentence`` with its ``{key}`` names replaced by ``show`` of the detail's values (a name
    the detail lacks stays as it is)."""
    return re.sub(r"\{(\w+)\}", lambda found: show(detail[found.group(1)])
                  if found.group(1) in detail else found.group(0), sentence)


def outcome_key(outcomes: Mapping[str, str], reason: str, detail: Mapping[str, Any]) -> str:
    """The vocabulary's key of ``reason``: itself, or the key naming detail keys in braces that
    gives the reason once they are filled in (``"{deals} deals played"`` for ``"1 deals
    played"``), as the variant kit's ``outcome_key`` finds it; the reason when none does."""
    if reason in outcomes:
        return reason
    return next((key for key in outcomes if "{" in key and _filled(key, detail) == reason),
                reason)


def outcome_reason(outcome: pb.Outcome, words: Words = NO_WORDS) -> str:
    """How the table ended, in the variant's words (``Vocabulary.outcomes``, by the stable
    detail ``end`` when the variant sets one, else by the reason), its ``{key}`` names filled
    from the outcome's details; the reason as it comes when the variant has no words."""
    detail = detail_dict(outcome.detail)
    end = detail.get("end")
    said = (words.outcomes.get(end) if isinstance(end, str) else None) \
        or words.outcomes.get(outcome_key(words.outcomes, outcome.reason, detail))
    if not said:
        return outcome.reason.replace("_", " ")
    return _filled(said, detail, value_text)


def outcome_text(outcome: pb.Outcome, names: Mapping[int, str],
                 words: Words = NO_WORDS) -> Text:
    outcome = cleaned(outcome)
    winners = [who(names, seat) for seat in outcome.winners]
    if not winners:
        head = t("nobody wins")
    elif len(winners) == 1:
        head = t("{who} wins", who=winners[0])
    else:
        head = t("{who} share the win", who=t(" and ").join(winners))
    text = Text(t("Game over: ") + head, style="bold")
    if outcome.scores:
        scores = ", ".join(f"{who(names, i)} {score}" for i, score in enumerate(outcome.scores))
        text.append(t(" · final: {scores}", scores=scores))
    if outcome.reason:
        text.append(f" · {outcome_reason(outcome, words)}", style="dim")
    return text


# ------------------------------------------------------------------------------- the board


def game_over(view: pb.View) -> bool:
    """Whether this view shows the end of the game: an outcome, and nobody left to move (a
    view that has an outcome but still someone to move is taken as not yet final)."""
    return view.HasField("outcome") and not view.to_move


def _deadline_text(view: pb.View, now: dt.datetime | None) -> str:
    if not view.HasField("deadline"):
        return ""
    deadline = view.deadline.ToDatetime(tzinfo=dt.UTC)
    left = (deadline - (now or dt.datetime.now(dt.UTC))).total_seconds()
    return "⏱ " + t("{seconds}s left", seconds=max(0, round(left)))


def header_text(view: pb.View, names: Mapping[int, str], now: dt.datetime | None = None,
                words: Words = NO_WORDS) -> Text:
    detail = detail_dict(view.detail)
    text = Text(t("Table {table}", table=view.table_id), style="bold")
    text.append(f" · {words.title or view.variant_id} · {words.phase(view.phase)} · "
                + t("version {version}", version=view.version))
    if "deal" in detail:
        text.append(" · " + t("deal {deal}", deal=value_text(detail["deal"])))
    if isinstance(detail.get("dealer"), int):
        text.append(" · " + t("dealer: {who}", who=who(names, detail["dealer"])))
    if isinstance(detail.get("trump"), str) and detail["trump"] in SUITS:
        text.append(" · " + t("trumps "))
        text.append_text(suit_text(detail["trump"]))
    if view.awaiting_reveal:
        seats = ", ".join(who(names, s) for s in view.awaiting_reveal)
        text.append("\n" + t("Waiting for {seats} to reveal their committed entropy.",
                             seats=seats), style="yellow")
        clock = _deadline_text(view, now)
        if clock:
            text.append(f"  {clock}", style="bold red")
    elif view.HasField("outcome") and view.waiting_for_players:
        withheld = [who(names, int(s)) for s in detail_dict(view.outcome.detail).get(
            "withheld", ()) if isinstance(s, int | float)]
        text.append("\n" + t("The table ended before any deal: {seats} did not reveal in time. "
                             "Start a new table.", seats=", ".join(withheld) or t("a seat")),
                    style="bold red")
    elif view.waiting_for_players:
        text.append("\n" + t("Waiting for players to fill the table."), style="yellow")
    elif view.to_move:
        movers = ", ".join(who(names, s) for s in view.to_move)
        text.append("\n" + t("To move: {movers}", movers=movers), style="bold yellow")
        clock = _deadline_text(view, now)
        if clock:
            text.append(f"  {clock}", style="bold red")
    return text


def seats_table(view: pb.View, names: Mapping[int, str]) -> Table:
    detail = detail_dict(view.detail)
    stacks = any(state.stack for state in view.seats) or view.pot > 0
    scores = any(state.score for state in view.seats) or not stacks
    contributions = detail.get("contributions")
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("")
    table.add_column(t("Seat"))
    table.add_column(t("Player"))
    if scores:
        table.add_column(t("Score"), justify="right")
    if stacks:
        table.add_column(t("Stack"), justify="right")
    if isinstance(contributions, list):
        table.add_column(t("In pot"), justify="right")
    table.add_column(t("Cards held"), justify="right")
    for state in view.seats:
        row = ["▶" if state.seat in view.to_move else "", str(state.seat),
               names.get(state.seat, "") if state.occupied else t("(free)")]
        if state.bot_policy and state.bot_policy not in row[2]:
            row[2] += " · " + t("{policy} bot", policy=state.bot_policy)
        if scores:
            row.append(str(state.score))
        if stacks:
            row.append(str(state.stack))
        if isinstance(contributions, list):
            value = contributions[state.seat] if state.seat < len(contributions) else ""
            row.append(value_text(value))
        own = view.HasField("viewer_seat") and view.viewer_seat == state.seat
        row.append(str(len(view.hand)) if own else str(state.hidden_hand_count))
        table.add_row(*(Text(cell) for cell in row))
    return table


SHOWN_STARTS = frozenset({"dealer", "deal_start"})
"""Event kinds that start a deal: the hands shown at the last showdown are no longer on it."""


def shown_hands(events: Iterable[pb.Event], shown: Mapping[int, Sequence[str]] | None = None
                ) -> dict[int, list[str]]:
    """The hands seats have shown (seat -> card codes), ``shown`` brought up to date with
    ``events``: a ``reveal`` event names the seat and its ``hand`` (Quart's showdown), a new
    deal clears them. The board attributes a shared zone's cards to their seats with it."""
    found = {seat: list(codes) for seat, codes in (shown or {}).items()}
    for event in events:
        if event.kind in SHOWN_STARTS:
            found = {}
        elif event.kind == "reveal" and event.HasField("seat"):
            hand = detail_dict(event.detail).get("hand")
            if isinstance(hand, list) and all(isinstance(code, str) for code in hand):
                found[event.seat] = [visible(code) for code in hand]
    return found


def _owners(cards: Sequence[pb.Card], shown: Mapping[int, Sequence[str]]
            ) -> dict[int, list[pb.Card]] | None:
    """``cards`` grouped by the seat that showed each (in seat order), or None when some card
    was not shown by any seat (the zone is then drawn as one heap)."""
    left = {seat: list(codes) for seat, codes in shown.items()}
    grouped: dict[int, list[pb.Card]] = {}
    for card in cards:
        seat = next((s for s in sorted(left) if card.code in left[s]), None)
        if seat is None:
            return None
        left[seat].remove(card.code)
        grouped.setdefault(seat, []).append(card)
    return dict(sorted(grouped.items()))


def zone_text(zone: pb.Zone, names: Mapping[int, str], detail: Mapping[str, Any],
              words: Words = NO_WORDS, shown: Mapping[int, Sequence[str]] | None = None
              ) -> Text:
    """One zone on one line; a shared zone whose cards seats showed (``shown``, from
    :func:`shown_hands`) as each seat's cards after its name."""
    title = words.zone(zone.name)
    if zone.HasField("owner"):
        title = t("{title} of {who}", title=title, who=who(names, zone.owner))
    text = Text(f"{title}: ", style="bold")
    seats = detail.get(f"{zone.name}_seats")
    owners = _owners(zone.cards, shown) if shown and zone.cards and \
        not zone.HasField("owner") else None
    if owners:
        text.append_text(Text("; ").join(
            Text(f"{who(names, seat)}: ", style="dim").append_text(cards_text(cards, 0))
            for seat, cards in owners.items()))
        if zone.hidden_count:
            text.append(" ").append_text(cards_text([], zone.hidden_count))
    elif isinstance(seats, list) and len(seats) == len(zone.cards) and zone.cards:
        parts = []
        for card, seat in zip(zone.cards, seats, strict=True):
            part = card_text(card.code)
            part.append(f" ({who(names, seat) if isinstance(seat, int) else seat})",
                        style="dim")
            parts.append(part)
        text.append_text(Text(", ").join(parts))
    elif zone.cards or zone.hidden_count:
        text.append_text(cards_text(zone.cards, zone.hidden_count))
    else:
        text.append("-", style="dim")
    return text


def details_text(detail: Mapping[str, Any], words: Words = NO_WORDS, seats: int = 0
                 ) -> Text | None:
    """The view's other details on one line; a list with one value per seat (``seats``) is
    left out: the seats table is where per-seat facts are read, and the line must stay short
    for a 24-row terminal."""
    shown = [f"{words.detail(key)}: {value_text(value, labels=words.labels)}"
             for key, value in ordered_details(detail, words)
             if key not in BOARD_KEYS and not key.endswith("_seats") and key != "seats"
             and value not in (None, False, [], {}, "")
             and not (seats and isinstance(value, list) and len(value) == seats)]
    return Text(" · ".join(shown), style="dim") if shown else None


CARD_ORDER = ("SHCD", "789TJQKA")
"""Suit order (♠ ♥ ♣ ♦, colours alternating) and rank order, as the hand is sorted."""


def _card_key(card: pb.Card) -> tuple[int, int]:
    return CARD_ORDER[0].find(card.code[-1:]), CARD_ORDER[1].find(card.code[:1])


def own_zone_cards(view: pb.View) -> dict[int, str]:
    """Card id -> name of the viewer's own zone it lies in (melds on the table, say): a move
    using such a card is told apart from one with the same card from the hand."""
    if not view.HasField("viewer_seat"):
        return {}
    return {card.id: zone.name for zone in view.zones
            if zone.HasField("owner") and zone.owner == view.viewer_seat
            and zone.name != "hand" for card in zone.cards}


def shown_moves(view: pb.View) -> list[pb.Move]:
    """The legal moves as the player sees and numbers them: kinds in the order the variant
    offers them, card moves in the hand's order (suit, then rank), and a move that looks the
    same as one before (an identical card of another pack, from the same place) left out:
    either is the same move for the player."""
    kinds: dict[str, int] = {}
    for move in view.legal_moves:
        kinds.setdefault(move.kind, len(kinds))
    placed = own_zone_cards(view)
    seen: set[tuple[object, ...]] = set()
    shown: list[pb.Move] = []
    for move in view.legal_moves:
        look = (move.kind, move.label, move.amount,
                tuple(sorted((card.code, placed.get(card.id, "")) for card in move.cards)))
        if look in seen:
            continue
        seen.add(look)
        shown.append(move)

    def key(move: pb.Move) -> tuple[object, ...]:
        return (kinds[move.kind], move.label, sorted(_card_key(c) for c in move.cards),
                move.amount)

    return sorted(shown, key=key)


def _move_line(move: pb.Move, placed: Mapping[int, str], words: Words, *,
               with_kind: bool = True) -> Text:
    text = move_text(move, with_kind=with_kind, words=words)
    from_zone = [card for card in move.cards if card.id in placed]
    if from_zone:
        where = words.zone(placed[from_zone[0].id]).lower()
        text.append(" " + t("(from your {where})", where=where), style="dim")
    return text


COMPACT_KIND = 4
"""A kind with more moves than this is shown on one line ("play: 1 A♠  2 10♥ ..."), so a
13-card hand does not push the board past a 24-row terminal."""


def legal_moves_text(moves: Sequence[pb.Move], pass_key: str = "",
                     words: Words = NO_WORDS, placed: Mapping[int, str] | None = None
                     ) -> Text:
    """The moves numbered from 1 in the order given (see :func:`shown_moves`). A kind with
    few moves gets a line each, and the first says what the kind does when the variant's
    vocabulary explains it; a kind with many shares one line. With ``pass_key``, the ``pass``
    move says its shortcut."""
    placed = placed or {}
    counts: dict[str, int] = {}
    for move in moves:
        counts[move.kind] = counts.get(move.kind, 0) + 1
    explained: set[str] = set()
    lines: list[Text] = []
    compact: dict[str, Text] = {}
    for number, move in enumerate(moves, 1):
        if counts[move.kind] > COMPACT_KIND:
            line = compact.get(move.kind)
            if line is None:
                line = compact[move.kind] = Text(f"  {kind_name(move.kind)}:", style="bold")
                lines.append(line)
            line.append(f"  {number}", style="bold cyan")
            line.append(" ")
            line.append_text(_move_line(move, placed, words, with_kind=False))
            continue
        line = Text(f"{number:>3}. ", style="bold cyan")
        line.append_text(_move_line(move, placed, words))
        if pass_key and move.kind == "pass":
            line.append(f"  ({pass_key})", style="bold yellow")
        if move.kind not in explained and words.move(move.kind):
            explained.add(move.kind)  # once per kind: the first such move says what it does
            line.append(f"  — {words.move(move.kind)}", style="dim")
        lines.append(line)
    return Text("\n").join(lines)


def view_renderable(view: pb.View, *, recent: Sequence[Text] = (), show_moves: bool = True,
                    now: dt.datetime | None = None, pass_key: str = "",
                    words: Words = NO_WORDS, show_details: bool = True,
                    result: Sequence[Text] = (), result_title: str = "",
                    shown: Mapping[int, Sequence[str]] | None = None) -> RenderableType:
    """The whole board as the viewer may see it, with its legal moves numbered from 1 (and,
    with ``pass_key``, the key that passes shown next to ``pass``); ``result``, the lines of
    the last deal's result, is shown in its own box (``result_title``); ``shown``, the hands
    seats have shown (:func:`shown_hands`), puts shown cards under their seats' names."""
    view = cleaned(view)
    viewer = view.viewer_seat if view.HasField("viewer_seat") else None
    names = seat_names(view.seats, viewer)
    detail = detail_dict(view.detail)
    parts: list[RenderableType] = [header_text(view, names, now, words),
                                   seats_table(view, names)]
    zones = Text("\n").join(zone_text(zone, names, detail, words, shown)
                       for zone in view.zones)
    if view.pot:
        zones.append(("\n" if zones else "") + t("Pot: {pot}", pot=view.pot),
                     style="bold yellow")
    if zones:
        parts.append(zones)
    extra = details_text(detail, words, len(view.seats)) if show_details else None
    if extra is not None:
        parts.append(extra)
    if result:
        parts.append(Panel(Text("\n").join(result), title=result_title, title_align="left",
                           border_style="green"))
    if recent:
        parts.append(Panel(Text("\n").join(recent), title=t("Recent events"),
                           title_align="left", border_style="dim"))
    if viewer is not None:
        hand = Text(t("Your hand: "), style="bold")
        held = (cards_text(sorted_cards(view.hand)) if view.hand
                else Text(t("(empty)"), style="dim"))
        hand.append_text(held)
        parts.append(hand)
    if game_over(view):
        parts.append(outcome_text(view.outcome, names, words))
    elif show_moves and view.legal_moves:
        parts.append(Text(t("Your legal moves:"), style="bold"))
        parts.append(legal_moves_text(shown_moves(view), pass_key, words,
                                      own_zone_cards(view)))
    return Panel(Group(*parts), title=view.variant_id, title_align="left")


# ------------------------------------------------------------------------------- listings


def option_range(option: pb.OptionSchema) -> str:
    if option.choices:
        return " | ".join(option.choices)
    if option.type == pb.OPTION_TYPE_BOOL:
        return "true | false"
    low = str(option.minimum) if option.HasField("minimum") else ""
    high = str(option.maximum) if option.HasField("maximum") else ""
    span = f"{low}..{high}" if low or high else "any integer"
    return span + (" or none" if option.nullable else "")


def _indented(text: Text, indent: int) -> Padding:
    """``text`` with every line, the wrapped ones too, ``indent`` columns in: a narrow
    terminal wraps a description under itself, not under the names at the left edge."""
    return Padding(text, (0, 0, 0, indent), expand=False)


def variants_table(variants: Sequence[pb.VariantInfo]) -> Group:
    """One block per variant: id, title, seats, bot policies, then one line per option (name,
    default, allowed values) with its meaning below it; wrapped lines keep their indent."""
    blocks: list[RenderableType] = []
    for info in variants:
        words = Words.of(info)
        info = cleaned(info)
        seats = (str(info.min_seats) if info.min_seats == info.max_seats
                 else f"{info.min_seats}-{info.max_seats}")
        head = Text(info.id, style="bold cyan")
        head.append(f"  {words.title or info.title} · " + t("seats {seats}", seats=seats)
                    + " · " + t("version {version}", version=info.version))
        lines: list[RenderableType] = [head, _indented(Text(t(
            "bot policies: {policies}", policies=", ".join(info.bot_policies) or "-")), 2)]
        description = words.description or info.description
        if description:
            lines.append(_indented(Text(description, style="dim"), 2))
        for option in info.options:
            line = Text("-o ")
            line.append(f"{option.name}={option.default_value}", style="bold")
            line.append(f"  ({option_range(option)})", style="yellow")
            lines.append(_indented(line, 4))
            meaning = words.options.get(option.name) or option.description
            if meaning:
                lines.append(_indented(Text(meaning, style="dim"), 7))
        blocks.append(Group(*lines, Text("")))
    return Group(*blocks)


def _seat_label(state: pb.SeatState) -> str:
    if not state.occupied:
        return "-"
    name = bot_name(state) or f"seat {state.seat}"
    if state.bot_policy and state.bot_policy not in name:
        name += " (" + t("{policy} bot", policy=state.bot_policy) + ")"
    return name


def tables_table(tables: Sequence[pb.TableSummary]) -> Table:
    """One row per table, within 80 columns: no vertical rules, ids never cut, one seat a
    line (a long name folds in its column rather than pushing the others off)."""
    table = Table(title=t("{count} table(s)", count=len(tables)), title_justify="left",
                  box=None, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold")
    table.add_column(t("table"), no_wrap=True)
    table.add_column(t("variant"), no_wrap=True)
    table.add_column(t("phase"), overflow="fold")
    table.add_column(t("version"), justify="right", no_wrap=True)
    table.add_column(t("seats"), overflow="fold", min_width=12)
    table.add_column(t("free"), justify="right", no_wrap=True)
    table.add_column(t("clock"), justify="right", no_wrap=True)
    for summary in map(cleaned, tables):
        seats = "\n".join(_seat_label(s) for s in summary.seats)
        clock = f"{summary.turn_seconds}s" if summary.turn_seconds else "-"
        phase = summary.phase + (f" ({t('finished')})" if summary.finished else "")
        cells = (summary.table_id, summary.variant_id, phase, str(summary.version), seats,
                 str(summary.free_seats), clock)
        table.add_row(*(Text(cell) for cell in cells))
    return table


def history_line(entry: pb.HistoryEntry, names: Mapping[int, str],
                 folded: Collection[int] = ()) -> Text:
    """One log entry on one line: version, kind, seat, the move and what it caused; the
    events at the positions ``folded`` are dealt hands that later folded."""
    entry = cleaned(entry)
    seat = entry.seat if entry.HasField("seat") else None
    text = Text(f"v{entry.version:<4} ", style="dim")
    text.append(f"{entry_kind_name(entry.entry_kind):<9}", style="bold")
    if seat is not None:
        text.append(f" {who(names, seat)}")
    if entry.HasField("move") and entry.move.kind:
        text.append(": ")
        text.append_text(move_text(entry.move))
    if entry.note:  # an operator's AbortTable note
        text.append(" " + t("note: {note}", note=entry.note), style="italic")
    if entry.events:
        text.append(" → ", style="dim")
        text.append_text(Text("; ").join(event_text(e, names, folded=i in folded)
                                         for i, e in enumerate(entry.events)))
    return text
