"""A game told from its history: deal by deal, trick by trick (or round by round), with the
declarations and scores as they happened.

Generic over variants: plays are gathered until an event that closes a trick or round
(``trick``, ``round_won``), a new deal starts at ``dealer``/``deal_start``, and every other
event is told on its own line under the trick it follows. Only what the caller may see is
shown: before the game ends, other hands stay hidden (counted). Once it has ended the seed is
revealed and with it every deal, so the history shows every hand, folded ones included: those are
labelled :data:`~clients.render.FOLDED_LABEL` so nobody mistakes them for hands that were shown
at the table. Every server string is shown :func:`~clients.safe.cleaned`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rich.text import Text

from bezique.clients.render import (
    END_NOTE,
    NO_WORDS,
    Words,
    card_text,
    cards_text,
    detail_dict,
    event_text,
    outcome_text,
    value_text,
    who,
)
from bezique.clients.safe import cleaned
from bezique.terms import EntryKind
from bezique.v1 import table_service_pb2 as pb

DEAL_STARTS = frozenset({"dealer", "deal_start"})
FOLDS = frozenset({"fold"})
TRICK_ENDS = frozenset({"trick", "round_won"})
DEAL_ENDS = frozenset({"deal_end"})
GAME_ENDS = frozenset({"match_end", "table_end"})
QUIET = frozenset({"shuffle", "cut"})


@dataclass
class _Story:
    """What the teller remembers between events."""

    names: dict[int, str] = field(default_factory=dict)
    words: Words = NO_WORDS
    deal: int = 0
    tricks: int = 0
    plays: list[tuple[int | None, pb.Card]] = field(default_factory=list)
    draws: list[Text] = field(default_factory=list)


def replay_lines(history: pb.GetHistoryResponse, words: Words = NO_WORDS) -> Iterator[Text]:
    """The narrative, one rich Text per line, in the variant's ``words``."""
    history = cleaned(history)
    story = _Story(words=words)
    folded = folded_deals(history)
    options = ", ".join(f"{k}={v}" for k, v in sorted(history.options.items()))
    head = Text(f"Table {history.table_id}: {history.variant_id}", style="bold")
    if options:
        head.append(f" ({options})", style="dim")
    yield head
    if folded:
        yield Text(END_NOTE, style="yellow")
    for number, entry in enumerate(history.entries):
        seat = entry.seat if entry.HasField("seat") else None
        if entry.entry_kind == EntryKind.JOINED and seat is not None:
            story.names[seat] = f"Seat {seat} ({entry.display_name})" if entry.display_name \
                else f"Seat {seat}"
            yield Text(f"{story.names[seat]} sits down")
        elif entry.entry_kind == EntryKind.LEFT and seat is not None:
            yield Text(f"{who(story.names, seat)} leaves")
        elif entry.entry_kind == EntryKind.TOKEN_REISSUED and seat is not None:
            yield Text(f"{who(story.names, seat)} gets a new seat token", style="dim")
        elif entry.entry_kind == EntryKind.STARTED:
            yield Text("The game starts", style="bold")
        if entry.entry_kind == EntryKind.TIMEOUT:
            yield Text(f"  {who(story.names, seat)}'s turn clock ran out", style="red")
        for index, event in enumerate(entry.events):
            yield from _tell(story, event, (number, index) in folded)
    yield from _flush_draws(story)
    if history.finished and history.HasField("outcome"):
        yield outcome_text(history.outcome, story.names, story.words)
    elif not history.finished:
        yield Text("(the game is still going)", style="dim")


def folded_deals(history: pb.GetHistoryResponse) -> set[tuple[int, int]]:
    """The ``(entry, event)`` positions of the ``deal`` events that show a hand which then
    folded, when the game has ended (the revealed seed shows every deal). Before the end a
    folded hand is seen only by its owner, and nothing needs saying."""
    if not history.finished:
        return set()
    found: set[tuple[int, int]] = set()
    dealt: dict[int, tuple[int, int]] = {}  # seat -> where its hand of this deal was shown
    for number, entry in enumerate(history.entries):
        for index, event in enumerate(entry.events):
            seat = event.seat if event.HasField("seat") else None
            if event.kind in DEAL_STARTS:
                dealt = {}
            elif event.kind == "deal" and event.cards and seat is not None:
                dealt[seat] = (number, index)
            elif event.kind in FOLDS and seat in dealt:
                found.add(dealt[seat])
    return found


def _flush_draws(story: _Story) -> Iterator[Text]:
    if story.draws:
        yield Text("    draws: ", style="dim").append_text(Text(", ").join(story.draws))
        story.draws = []


def _tell(story: _Story, event: pb.Event, folded: bool = False) -> Iterator[Text]:
    seat = event.seat if event.HasField("seat") else None
    detail = detail_dict(event.detail)
    if event.kind in DEAL_STARTS:
        yield from _flush_draws(story)
        number = detail.get("deal")
        if isinstance(number, int) and number != story.deal:
            story.deal, story.tricks = number, 0
            yield Text(f"── Deal {number} ── dealer: {who(story.names, seat)}",
                       style="bold magenta")
        elif number is None:
            story.deal, story.tricks = story.deal + 1, 0
            yield Text(f"── Deal {story.deal} ── dealer: {who(story.names, seat)}",
                       style="bold magenta")
        return
    if event.kind == "play":
        yield from _flush_draws(story)
        story.plays.extend((seat, card) for card in event.cards)
        return
    if event.kind == "draw":
        text = Text(f"{who(story.names, seat)} ")
        text.append_text(cards_text(event.cards, event.hidden_count))
        if detail.get("turnup"):
            text.append(" (the turn-up)", style="dim")
        story.draws.append(text)
        return
    if event.kind in TRICK_ENDS:
        yield _trick_line(story, event, seat)
        return
    if event.kind in QUIET:
        return
    yield from _flush_draws(story)
    if event.kind in DEAL_ENDS:
        yield _scores_line(f"Deal {value_text(detail.get('deal', story.deal))} ends", detail,
                           story)
    elif event.kind in GAME_ENDS:
        yield _scores_line("The game ends", detail, story)
    else:
        yield Text("    ").append_text(event_text(event, story.names, folded=folded,
                                                  words=story.words))


def _trick_line(story: _Story, event: pb.Event, seat: int | None) -> Text:
    story.tricks += 1
    noun = "Trick" if event.kind == "trick" else "Round"
    text = Text(f"  {noun} {story.tricks}: ", style="bold")
    plays = story.plays or [(None, card) for card in event.cards]
    parts = []
    for player, card in plays:
        part = card_text(card.code)
        if player is not None:
            part.append(f" {who(story.names, player)}", style="dim")
        parts.append(part)
    text.append_text(Text(", ").join(parts))
    text.append(f" → {who(story.names, seat)}", style="green")
    if event.amount:
        text.append(f" ({event.amount:+d})", style="yellow")
    story.plays = []
    return text


def _scores_line(title: str, detail: dict[str, object], story: _Story) -> Text:
    text = Text(title, style="bold")
    for key in ("scores", "stacks"):
        values = detail.get(key)
        if isinstance(values, list):
            shown = ", ".join(f"{who(story.names, i)} {value_text(v)}"
                              for i, v in enumerate(values))
            text.append(f" · {story.words.detail(key)}: {shown}")
    winners = detail.get("winners")
    if isinstance(winners, list) and winners:
        text.append(" · winners: " + ", ".join(who(story.names, w) for w in winners
                                                if isinstance(w, int)))
    reason = detail.get("reason")
    if isinstance(reason, str):
        text.append(f" · {reason.replace('_', ' ')}", style="dim")
    return text
