"""Server strings reach the terminal harmless: a display name (or any other server text) with
terminal escapes or bidi overrides is printed with them written out, never obeyed."""

from __future__ import annotations

import io
import re

import grpc
from rich.console import Console, RenderableType
from rich.text import Text

from bezique.clients.cli import describe_rpc_error
from bezique.clients.render import (
    event_text,
    history_line,
    seat_names,
    tables_table,
    variants_table,
    view_renderable,
)
from bezique.clients.replay import replay_lines
from bezique.clients.safe import cleaned, visible
from bezique.v1 import table_service_pb2 as pb

EVIL = "\x1b[2J\x1b[31mmallory\u202eevil\x9b1m\x07"
"""Clears the screen, paints red, reverses the text after it, a C1 CSI and a bell."""
SHOWN = "\\x1b[2J\\x1b[31mmallory\\u202eevil\\x9b1m\\x07"
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]")
"""Anything a terminal could obey (the newlines of the layout itself aside)."""


def printed(*renderables: RenderableType) -> str:
    """What a (colourless, so escape-free of its own) terminal receives."""
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, highlight=False)
    for renderable in renderables:
        console.print(renderable)
    return out.getvalue()


def harmless(text: str) -> None:
    assert not UNSAFE.search(text), repr(UNSAFE.search(text))
    assert SHOWN in text  # written out, so the reader still sees what the name held


def test_visible_writes_out_controls_and_bidi_but_keeps_ordinary_text() -> None:
    assert visible(EVIL) == SHOWN
    assert visible("a\nb\u2066c\u2069\u202a") == "a\\x0ab\\u2066c\\u2069\\u202a"
    for kept in ("alice", "Zoë", "Дмитрий", "שלום", "🂡 ace", "tab-less"):
        assert visible(kept) == kept
    assert visible(visible(EVIL)) == SHOWN  # idempotent: cleaning twice changes nothing


def test_cleaned_reaches_every_string_of_a_message_and_leaves_the_original() -> None:
    history = pb.GetHistoryResponse(table_id="t", variant_id=EVIL, options={EVIL: EVIL})
    entry = history.entries.add(version=2, entry_kind="joined", seat=0, display_name=EVIL)
    entry.events.add(kind=EVIL, label=EVIL).detail.update({EVIL: [EVIL, {"k": EVIL}]})
    safe = cleaned(history)
    assert safe.variant_id == SHOWN and dict(safe.options) == {SHOWN: SHOWN}
    assert safe.entries[0].display_name == SHOWN and safe.entries[0].events[0].kind == SHOWN
    assert history.entries[0].display_name == EVIL  # the caller's copy is untouched


def evil_view() -> pb.View:
    view = pb.View(table_id="t1", version=5, variant_id=EVIL, viewer_seat=0, phase=EVIL,
                   to_move=[1], seats=[pb.SeatState(seat=0, occupied=True, display_name="ann"),
                                       pb.SeatState(seat=1, occupied=True, display_name=EVIL,
                                                    bot_policy=EVIL)],
                   zones=[pb.Zone(name=EVIL, owner=1, cards=[pb.Card(code="QS", id=4)])],
                   legal_moves=[pb.Move(kind=EVIL, label=EVIL)])
    view.detail.update({"trump": "H", "dealer": 1, EVIL: EVIL})
    return view


def test_a_board_with_an_escaping_name_renders_harmless() -> None:
    text = printed(view_renderable(evil_view()))
    harmless(text)
    assert f"dealer: Seat 1 ({SHOWN})" in text and f"To move: Seat 1 ({SHOWN})" in text


def test_history_and_replay_with_an_escaping_name_render_harmless() -> None:
    history = pb.GetHistoryResponse(table_id="t2", variant_id=EVIL, options={"o": EVIL},
                                    finished=True)
    history.entries.add(version=2, entry_kind="joined", seat=0, display_name=EVIL)
    history.entries.add(version=3, entry_kind="started")
    move = history.entries.add(version=4, entry_kind="move", seat=0,
                               move=pb.Move(kind=EVIL, label=EVIL))
    move.events.add(kind=EVIL, seat=0, label=EVIL).detail.update({"why": EVIL})
    move.events.add(kind="trick", seat=0, cards=[pb.Card(code="AS", id=1)])
    history.outcome.CopyFrom(pb.Outcome(winners=[0], scores=[10], reason=EVIL))
    replay = printed(*replay_lines(history))
    harmless(replay)
    assert f"Seat 0 ({SHOWN}) sits down" in replay
    names = {0: f"Seat 0 ({visible(EVIL)})"}
    log = printed(*(history_line(entry, names) for entry in history.entries))
    harmless(log)


def test_events_listings_and_names_render_harmless() -> None:
    view = evil_view()
    names = seat_names(view.seats, 0)
    assert names[1] == f"Seat 1 ({SHOWN})"
    event = pb.Event(kind=EVIL, seat=1, label=EVIL)
    event.detail.update({EVIL: EVIL})
    variant = pb.VariantInfo(id=EVIL, title=EVIL, description=EVIL, bot_policies=[EVIL],
                             options=[pb.OptionSchema(name=EVIL, default_value=EVIL,
                                                      description=EVIL, choices=[EVIL])])
    summary = pb.TableSummary(table_id=EVIL, variant_id=EVIL, phase=EVIL,
                              seats=[pb.SeatState(seat=0, occupied=True, display_name=EVIL)])
    for renderable in (event_text(event, names), variants_table([variant]),
                       tables_table([summary]), Text(names[1])):
        harmless(printed(renderable))


def test_an_error_detail_from_the_server_is_printed_harmless() -> None:
    error = grpc.aio.AioRpcError(grpc.StatusCode.INVALID_ARGUMENT, grpc.aio.Metadata(),
                                 grpc.aio.Metadata(), details=EVIL, debug_error_string="")
    said = describe_rpc_error(error, "127.0.0.1:1")
    assert not UNSAFE.search(said) and said == f"INVALID_ARGUMENT: {SHOWN}"
