"""``bezique play``: a person plays a whole game against the server's bots in a terminal.

No full-screen app: the board is printed with rich whenever it is the player's turn, the bots'
moves scroll past as they come in over WatchTable, and the player answers a numbered prompt.
Without a server address, a server runs in-process (memory store) for the length of the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from bezique.clients.render import (
    NO_WORDS,
    Words,
    event_text,
    game_over,
    seat_names,
    view_renderable,
)
from bezique.clients.safe import visible
from bezique.clients.sdk import (
    AsyncTableClient,
    SeatHandle,
    amount_allowed,
    amount_range,
    with_amount,
)
from bezique.v1 import table_service_pb2 as pb

QUIT = "quit"
PASS_KEYS = "p or Enter"
POLL_SECONDS = 5.0


@dataclass
class PlaySettings:
    variant: str
    options: dict[str, str] = field(default_factory=dict)
    bot_policy: str | None = None
    server: str | None = None
    bot_delay: float = 0.3
    name: str = "you"
    turn_seconds: int = 0
    api_key: str = ""
    tls: dict[str, Any] = field(default_factory=dict)


class PlayError(Exception):
    """Something that stops the game before it starts; the message says what to change."""


def pass_number(moves: Sequence[pb.Move]) -> int | None:
    """The number (1-based) of the legal ``pass``, if there is one: it gets one key."""
    return next((n for n, move in enumerate(moves, 1) if move.kind == "pass"), None)


def parse_choice(text: str, count: int, pass_at: int | None = None) -> int | str | None:
    """The player's answer: a move number (1-based), ``QUIT``, or None when it is neither.
    When ``pass`` is legal (number ``pass_at``), ``p`` or a bare Enter chooses it: Bezique
    asks every trick winner to declare, mostly with nothing to declare, so passing must be
    one key."""
    answer = text.strip().lower()
    if answer in ("q", "quit", "exit"):
        return QUIT
    if pass_at is not None and answer in ("", "p", "pass"):
        return pass_at
    if answer.isdigit() and 1 <= int(answer) <= count:
        return int(answer)
    return None


def choose_policy(info: pb.VariantInfo, requested: str | None) -> str:
    """The requested policy (checked), else the variant's first policy that is not random."""
    if requested:
        if requested not in info.bot_policies:
            raise PlayError(f"{info.id} has no bot policy {requested!r} "
                            f"(it has: {', '.join(info.bot_policies)})")
        return requested
    better = [p for p in info.bot_policies if p != "random"]
    return better[0] if better else "random"


def seat_count(info: pb.VariantInfo, options: Mapping[str, str]) -> int:
    """How many seats the table will have: asked of the installed variant when there is one,
    else read from a ``players`` option (given or default), else the variant's minimum."""
    try:
        from bezique.variants.api import resolve_options
        from bezique.variants.registry import load_registry

        variant = load_registry().variant(info.id)
        return variant.seat_count(resolve_options(variant.options, options))
    except Exception:  # not installed here (a remote server's plugin) or options to reject
        pass
    for option in info.options:
        if option.name in ("players", "seats"):
            value = options.get(option.name, option.default_value)
            if value.isdigit():
                return int(value)
    return info.min_seats


async def read_line(read: Callable[[str], str], prompt: str) -> str:
    """``read(prompt)`` on a daemon thread, so the bots and the feed go on meanwhile and an
    interrupt does not wait for the player to press Enter."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def settle(result: str | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result or "")

    def work() -> None:
        try:
            result, error = read(prompt), None
        except BaseException as exc:  # EOFError above all; handed to the waiting coroutine
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="bezique-prompt", daemon=True).start()
    return await future


@contextlib.asynccontextmanager
async def embedded_server(bot_delay: float) -> AsyncIterator[str]:
    """A server in this process on a free local port, with a memory store."""
    from bezique.service.config import Config
    from bezique.service.logs import configure_logging
    from bezique.service.server import start_server

    configure_logging("json", "error")  # the board owns the terminal: only errors, on stderr
    running = await start_server(Config(address="127.0.0.1:0", store="memory:",
                                        bot_delay=bot_delay, clock_interval=0.25))
    try:
        yield running.address
    finally:
        await running.stop()


class Game:
    """One seat's game in progress: the latest view, the recent events, the watch feed."""

    def __init__(self, client: AsyncTableClient, seat: SeatHandle, view: pb.View,
                 console: Console, read: Callable[[str], str], embedded: bool = False,
                 words: Words = NO_WORDS) -> None:
        self.embedded = embedded
        self.words = words
        """The variant's vocabulary, from ListVariants."""
        """Whether the server lives in this program (then the table ends with it)."""
        self.client = client
        self.seat = seat
        self.view = view
        self.console = console
        self.read = read
        self.recent: deque[Text] = deque(maxlen=8)
        self.shown = 0  # the newest version whose events were printed
        self.updates: asyncio.Queue[pb.WatchTableResponse | None] = asyncio.Queue()

    @property
    def names(self) -> dict[int, str]:
        return seat_names(self.view.seats, self.seat.seat)

    async def feed(self) -> None:
        """Put every update of the table on the queue (None when the stream ends)."""
        try:
            async for update in self.client.watch(self.seat.table_id, self.seat.token, 0):
                await self.updates.put(update)
        finally:
            await self.updates.put(None)

    def take_view(self, view: pb.View) -> None:
        if view.version >= self.view.version:
            self.view = view

    def tell(self, version: int, events: list[pb.Event]) -> None:
        """Print and remember the events of one entry, once."""
        if version <= self.shown:
            return
        self.shown = version
        for event in events:
            line = event_text(event, self.names, words=self.words)
            self.recent.append(line)
            self.console.print(Text.assemble(("  · ", "dim"), line))

    def absorb(self, update: pb.WatchTableResponse) -> None:
        self.tell(update.version, list(update.events))
        if update.HasField("view"):
            self.take_view(update.view)

    def my_turn(self) -> bool:
        view = self.view
        return (not game_over(view) and self.seat.seat in view.to_move
                and bool(view.legal_moves) and self.shown >= view.version)

    async def next_update(self) -> bool:
        """Wait for the next update (polling the view now and then); False if the feed ended
        before the game did (the server ends it once the game is over)."""
        try:
            update = await asyncio.wait_for(self.updates.get(), POLL_SECONDS)
        except TimeoutError:
            self.take_view(await self.client.view(self.seat.table_id, self.seat.token))
            self.shown = max(self.shown, self.view.version)  # the feed lags: do not wait on it
            return True
        if update is None:
            return game_over(self.view)
        self.absorb(update)
        while not self.updates.empty():
            queued = self.updates.get_nowait()
            if queued is None:
                return game_over(self.view)
            self.absorb(queued)
        return True

    async def ask(self) -> int | str:
        """Show the board and read a move number (or q), re-asking on anything else."""
        pass_at = pass_number(self.view.legal_moves)
        self.console.print(view_renderable(self.view, recent=list(self.recent),
                                           pass_key=PASS_KEYS if pass_at else "",
                                           words=self.words))
        count = len(self.view.legal_moves)
        passing = f", {PASS_KEYS} to pass" if pass_at else ""
        while True:
            try:
                answer = await read_line(self.read,
                                         f"Your move (1-{count}{passing}, q to quit): ")
            except EOFError:
                return QUIT
            choice = parse_choice(answer, count, pass_at)
            if choice is not None:
                return choice
            self.console.print(f"[red]'{escape(answer.strip())}' is not a move: type a number "
                               f"from 1 to {count}{passing}, or q to quit.[/red]")

    async def ask_amount(self, move: pb.Move) -> int | None:
        """The amount for a move offered with a range (Enter: its suggested amount); None
        when the player backs out with ``b`` to choose another move."""
        span = amount_range(move)
        assert span is not None
        low, high, step = span
        steps = f" in steps of {step}" if step > 1 else ""
        while True:
            try:
                answer = (await read_line(
                    self.read, f"{move.kind.capitalize()} to how much? ({low}-{high}{steps}, "
                    f"Enter for {move.amount}, b to go back): ")).strip().lower()
            except EOFError:
                return None
            if answer in ("b", "back"):
                return None
            if not answer:
                return move.amount
            if answer.lstrip("-").isdigit() and amount_allowed(move, int(answer)):
                return int(answer)
            self.console.print(f"[red]'{escape(answer)}' is not an amount you may choose: type "
                               f"a whole number from {low} to {high}{steps}.[/red]")

    async def move(self, number: int) -> None:
        chosen = self.view.legal_moves[number - 1]
        if chosen.HasField("amount_range"):
            amount = await self.ask_amount(chosen)
            if amount is None:
                return  # back to the board: the loop asks again
            chosen = with_amount(chosen, amount)
        try:
            response = await self.client.submit(self.seat, chosen, self.view.version)
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.ABORTED,
                                    grpc.StatusCode.FAILED_PRECONDITION):
                raise
            why = escape(visible(error.details() or ""))
            self.console.print(f"[yellow]The table moved on before your move arrived ({why}); "
                               "here is the new position.[/yellow]")
            self.take_view(await self.client.view(self.seat.table_id, self.seat.token))
            return
        self.tell(response.version, list(response.events))
        self.take_view(response.view)

    async def run(self) -> int:
        feed = asyncio.get_running_loop().create_task(self.feed())
        try:
            while not (game_over(self.view) and self.shown >= self.view.version):
                if self.my_turn():
                    choice = await self.ask()
                    if choice == QUIT:
                        table = escape(visible(self.seat.table_id))
                        self.console.print(
                            f"You left table {table}; the game ends with this program (its "
                            "server ran inside it)." if self.embedded else
                            f"You left table {table}; it stays open on the server, waiting "
                            "for your seat's move.")
                        return 0
                    assert isinstance(choice, int)
                    await self.move(choice)
                elif not await self.next_update():
                    self.console.print("[red]The server closed the table's feed.[/red]")
                    return 1
            self.console.print(view_renderable(self.view, recent=list(self.recent),
                                               words=self.words))
            return 0
        finally:
            feed.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await feed


async def play_at(address: str, settings: PlaySettings, console: Console,
                  read: Callable[[str], str]) -> int:
    async with AsyncTableClient(address, api_key=settings.api_key, **settings.tls) as client:
        variants = {info.id: info for info in await client.list_variants()}
        info = variants.get(settings.variant)
        if info is None:
            raise PlayError(f"the server has no variant {settings.variant!r} "
                            f"(it has: {', '.join(sorted(variants))})")
        policy = choose_policy(info, settings.bot_policy)
        seats = seat_count(info, settings.options)
        created = await client.create_table(
            info.id, settings.options, bots={s: policy for s in range(1, seats)},
            turn_seconds=settings.turn_seconds)
        seat = await client.join(created.table_id, 0, settings.name)
        table, title = escape(visible(created.table_id)), escape(visible(info.title))
        console.print(f"Table [bold]{table}[/bold] · {title} · you are "
                      f"seat 0 against {seats - 1} {policy} bot(s) · seed commitment "
                      f"{escape(visible(created.seed_commitment[:16]))}…", soft_wrap=True)
        view = await client.view(created.table_id, seat.token)
        return await Game(client, seat, view, console, read,
                          embedded=settings.server is None, words=Words.of(info)).run()


async def play(settings: PlaySettings, console: Console,
               read: Callable[[str], str] = input) -> int:
    """Play one game; the exit code of the command."""
    if settings.server is not None:
        return await play_at(settings.server, settings, console, read)
    async with embedded_server(settings.bot_delay) as address:
        return await play_at(address, settings, console, read)
