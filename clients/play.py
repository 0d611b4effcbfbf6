"""``bezique play``: a person plays a whole game against the server's bots in a terminal.

No full-screen app: the board is printed with rich whenever it is the player's turn, fitted to
the terminal's height; the bots' moves scroll past as they come in over WatchTable, and the
player answers a numbered prompt. The player's lines are read all the time, so ``q`` (leave)
and ``h`` (help) work while the others play too.
Without a server address, a server runs in-process (memory store) for the length of the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from rich.console import Console, RenderableType
from rich.markup import escape
from rich.text import Text

from bezique.clients.i18n import count, t
from bezique.clients.render import (
    NO_WORDS,
    Words,
    detail_dict,
    event_text,
    game_over,
    seat_names,
    shown_hands,
    shown_moves,
    view_renderable,
)
from bezique.clients.safe import visible
from bezique.clients.sdk import (
    AsyncTableClient,
    PlaySession,
    SeatHandle,
    amount_allowed,
    amount_range,
    with_amount,
)
from bezique.v1 import table_service_pb2 as pb

QUIT = "quit"
PASS_KEYS = "p or Enter"  # through t() where printed
POLL_SECONDS = 5.0
AUTO_PASS_KEYS = ("a", "auto")
RESULT_EVENTS = frozenset({"deal_end", "match_end", "table_end"})
"""Event kinds that end a deal: their entry's events are the deal's result, kept on the board
until the player's next move (they would otherwise scroll past while the bots play)."""


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
    auto_pass: bool = False
    """Pass for the player when pass is his only declaration choice."""
    bot_seats: dict[int, str] = field(default_factory=dict)
    """Policies for single seats (``--bot SEAT=POLICY``), over ``bot_policy``."""


class PlayError(Exception):
    """Something that stops the game before it starts; the message says what to change."""


def pass_number(moves: Sequence[pb.Move]) -> int | None:
    """The number (1-based) of the legal ``pass``, if there is one: it gets one key."""
    return next((n for n, move in enumerate(moves, 1) if move.kind == "pass"), None)


def only_pass(moves: Sequence[pb.Move]) -> bool:
    """Whether declaring nothing is all the player can do: ``pass`` is offered and every other
    move on offer is a ``claim`` (which a player never wants made for him). Bezique asks each
    trick winner whether he declares, mostly with nothing to declare."""
    kinds = {move.kind for move in moves}
    return "pass" in kinds and kinds <= {"pass", "claim"}


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
    """The requested policy (checked), else the variant's best bot by the web table's rule
    (clients/web/src/lobby.ts, ``bestBot``), so that both play the same one: "search", else
    the deepest other search level ("-easy" last), else "heuristic", else the first policy that
    is not random."""
    if requested:
        check_policy(info, requested)
        return requested
    policies = list(info.bot_policies)
    if "search" in policies:
        return "search"

    def depth(name: str) -> int:
        found = re.search(r"\d+", name)
        return -1 if "easy" in name else int(found.group()) if found else 0

    searching = sorted((p for p in policies if "search" in p), key=depth, reverse=True)
    fallback = ([p for p in policies if "heuristic" in p]
                + [p for p in policies if p != "random"] + policies + ["random"])
    return (searching + fallback)[0]


def check_policy(info: pb.VariantInfo, policy: str) -> None:
    """A PlayError listing the policies ListVariants offers when ``policy`` is not one."""
    if policy not in info.bot_policies:
        raise PlayError(t("{variant} has no bot policy {policy!r} (it has: {policies})",
                          variant=info.id, policy=policy,
                          policies=", ".join(info.bot_policies)))


def seat_count(info: pb.VariantInfo, options: Mapping[str, str]) -> int:
    """How many seats the table will have: asked of the installed variant when there is one,
    else read from a ``players`` option (given or default), else the variant's minimum."""
    try:
        from bezique.variants.host import resolve_options
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


@contextlib.asynccontextmanager
async def embedded_server(bot_delay: float) -> AsyncIterator[str]:
    """A server in this process on a free local port, with a memory store. What keeps it
    from starting (two installed plugins claiming one variant id, unless
    ``BEZIQUE_PREFER_PLUGIN`` chooses) is a PlayError."""
    from bezique.service.config import Config
    from bezique.service.logs import configure_logging
    from bezique.service.server import start_server
    from bezique.service.startup import StartupError

    configure_logging("json", "error")  # the board owns the terminal: only errors, on stderr
    try:
        prefer = os.environ.get("BEZIQUE_PREFER_PLUGIN", "").split(",")
        running = await start_server(Config(
            address="127.0.0.1:0", store="memory:", bot_delay=bot_delay, clock_interval=0.25,
            prefer_plugin=tuple(name.strip() for name in prefer if name.strip())))
    except StartupError as exc:
        raise PlayError(t("cannot start a local server: {why}", why=exc)) from None
    try:
        yield running.address
    finally:
        await running.stop()


KEY = "key"
UPDATE = "update"
HELP_KEYS = ("h", "?", "help")
Inbox = asyncio.Queue[tuple[str, "pb.WatchTableResponse | str | None"]]


def start_reader(read: Callable[[str], str], inbox: Inbox) -> None:
    """Read the player's lines on a daemon thread for the whole game and put each on the
    inbox (None at end of input), so ``q`` and ``h`` work while others play too, and an
    interrupt does not wait for Enter. The prompts are printed by the game, not by ``read``."""
    loop = asyncio.get_running_loop()

    def put(line: str | None) -> None:
        inbox.put_nowait((KEY, line))

    def work() -> None:
        while True:
            try:
                line: str | None = read("")
            except BaseException:  # EOFError above all: the player's input is gone
                line = None
            try:
                loop.call_soon_threadsafe(put, line)
            except RuntimeError:  # the loop closed: nobody waits any more
                return
            if line is None:
                return

    threading.Thread(target=work, name="bezique-keys", daemon=True).start()


class Game:
    """One seat's game in progress: the latest view, the recent events, and one inbox where
    the updates of the seat's Play stream and the player's lines arrive in order. Moves go
    up the same stream."""

    def __init__(self, client: AsyncTableClient, seat: SeatHandle, view: pb.View,
                 console: Console, read: Callable[[str], str], embedded: bool = False,
                 words: Words = NO_WORDS, auto_pass: bool = False) -> None:
        self.embedded = embedded
        """Whether the server lives in this program (then the table ends with it)."""
        self.words = words
        """The variant's vocabulary, from ListVariants."""
        self.client = client
        self.seat = seat
        self.view = view
        self.console = console
        self.read = read
        self.recent: deque[Text] = deque(maxlen=8)
        self.shown = 0  # the newest version whose events were printed
        self.inbox: Inbox = asyncio.Queue()
        self.told_out = False  # whether the player was told he has no chips left
        self.feed_ended = False
        self.auto_pass = auto_pass
        """Whether a pass that is the only declaration is sent without asking."""
        self.result: list[Text] = []
        """The last deal's result, shown on the board until the player's next move."""
        self.hands_shown: dict[int, list[str]] = {}
        """The hands seats showed at the deal's showdown, for the board's shared zones."""
        self._session: PlaySession | None = None

    @property
    def session(self) -> PlaySession:
        """The seat's Play stream, open while :meth:`run` runs."""
        if self._session is None:
            raise RuntimeError("the game is not running")
        return self._session

    @property
    def names(self) -> dict[int, str]:
        return seat_names(self.view.seats, self.seat.seat)

    async def feed(self) -> None:
        """Put every update of the table on the inbox (None when the stream ends)."""
        try:
            async for update in self.session:
                await self.inbox.put((UPDATE, update))
        finally:
            await self.inbox.put((UPDATE, None))

    def take_view(self, view: pb.View) -> None:
        if view.version >= self.view.version:
            self.view = view

    def tell(self, version: int, events: list[pb.Event]) -> None:
        """Print and remember the events of one entry, once."""
        if version <= self.shown:
            return
        self.shown = version
        self.hands_shown = shown_hands(events, self.hands_shown)
        lines = []
        for event in events:
            line = event_text(event, self.names, words=self.words)
            lines.append(line)
            self.recent.append(line)
            self.console.print(Text.assemble(("  · ", "dim"), line))
        ends = [n for n, event in enumerate(events) if event.kind in RESULT_EVENTS]
        if ends:  # the entry's events up to the deal's end (the next deal may start in it)
            self.result = lines[: ends[-1] + 1]

    def absorb(self, update: pb.WatchTableResponse) -> None:
        self.tell(update.version, list(update.events))
        if update.HasField("view"):
            self.take_view(update.view)

    def my_turn(self) -> bool:
        view = self.view
        return (not game_over(view) and self.seat.seat in view.to_move
                and bool(view.legal_moves) and self.shown >= view.version)

    def out_of_chips(self) -> bool:
        """Whether the player's stack is empty with nothing of his in the pot, in a game of
        stacks that goes on: he can win nothing more, only watch (an all-in seat still has
        chips in the pot, so it is not out)."""
        view = self.view
        seats = {state.seat: state for state in view.seats}
        mine = seats.get(self.seat.seat)
        if mine is None or mine.stack or game_over(view) or view.waiting_for_players:
            return False
        if not any(state.stack for state in view.seats):
            return False  # a game without stacks (scores only)
        put_in = detail_dict(view.detail).get("contributions")
        if isinstance(put_in, list) and self.seat.seat < len(put_in) and put_in[self.seat.seat]:
            return False
        return self.seat.seat not in view.to_move

    async def take(self, timeout: float | None) -> tuple[str, pb.WatchTableResponse | str | None]:
        """The next item of the inbox; ``("poll", None)`` when ``timeout`` passes first."""
        try:
            return await asyncio.wait_for(self.inbox.get(), timeout)
        except TimeoutError:
            return "poll", None

    async def poll(self) -> None:
        """Read the view: the feed may lag (or have ended), and a board must not wait on it."""
        self.take_view(await self.client.view(self.seat.table_id, self.seat.token))
        self.shown = max(self.shown, self.view.version)

    def help(self) -> None:
        """What the keys do and what each move kind on offer does."""
        lines = [f"[bold]{t('Keys')}[/bold]: " + escape(t(
            "a move's number then Enter plays it; {keys} passes when pass is offered; h or ? "
            "shows this; a turns passing for you on or off; q leaves the table (at any time, "
            "also while the others play).", keys=t(PASS_KEYS)))]
        kinds = dict.fromkeys(move.kind for move in self.view.legal_moves)
        for kind in kinds:
            what = self.words.move(kind)
            if what:
                lines.append(f"[bold]{escape(kind.replace('_', ' '))}[/bold]: {escape(what)}")
        if any(move.HasField("amount_range") for move in self.view.legal_moves):
            lines.append(escape(t("A move with a range asks how much next: type any amount in "
                                  "it, Enter for the suggested one, or b to go back.")))
        lines.append(escape(t("The board: the header says the table, phase and whose turn it "
                              "is; the seats table shows each seat's score or stack; Recent "
                              "events, what just happened.")))
        self.console.print("\n".join(lines))

    def board(self, pass_at: int | None) -> RenderableType:
        """The board, with as many recent events as let it fit the terminal's height (a
        24-row terminal must show the whole board and the prompt), and without the details
        line if even that is too tall."""
        room = self.console.size.height - 1  # the prompt's line
        recent, details = list(self.recent), True
        result = self.result
        if result:  # the deal's result tells what its last events would: no need for both
            recent = [line for line in recent if all(line is not r for r in result)]
        while True:
            board = view_renderable(self.view, recent=recent,
                                    pass_key=t(PASS_KEYS) if pass_at else "", words=self.words,
                                    show_details=details, result=result,
                                    result_title=t("Deal result"), shown=self.hands_shown)
            if len(self.console.render_lines(board, pad=False)) <= room:
                return board
            if recent:
                recent = recent[1:]  # the oldest events go first (they scrolled past above)
            elif details:
                details = False  # then the details line (h and the events tell the rest)
            elif result:
                result = result[1:]  # then the result's first lines (the board has scores)
            else:
                return board

    async def ask(self) -> int | str:
        """Show the board and read a move number (or q, or h), re-asking on anything else."""
        moves = shown_moves(self.view)
        pass_at = pass_number(moves)
        if self.auto_pass and pass_at is not None and only_pass(moves):
            self.console.print(Text(t("Passed for you: nothing to declare."), style="dim"))
            return pass_at
        self.console.print(self.board(pass_at))
        number = len(moves)
        passing = t(", {keys} to pass", keys=t(PASS_KEYS)) if pass_at else ""
        prompt = t("Your move (1-{count}{passing}, h for help, q to quit): ", count=number,
                   passing=passing)
        while True:
            answer = await self.line(prompt)
            if answer is None:
                return QUIT
            if answer.strip().lower() in HELP_KEYS:
                self.help()
                continue
            if answer.strip().lower() in AUTO_PASS_KEYS:
                self.toggle_auto_pass()
                if self.auto_pass and pass_at is not None and only_pass(moves):
                    return pass_at
                continue
            choice = parse_choice(answer, number, pass_at)
            if choice is not None:
                return choice
            self.console.print(Text(t("'{answer}' is not a move: type a number from 1 to "
                                      "{count}{passing}, h for help, or q to quit.",
                                      answer=answer.strip(), count=number, passing=passing),
                                    style="red"))

    def toggle_auto_pass(self) -> None:
        """The ``a`` key: pass for the player when he has nothing to declare, or stop."""
        self.auto_pass = not self.auto_pass
        self.console.print(t("Passing for you when you have nothing to declare: {state} (a "
                             "toggles it).", state=t("on") if self.auto_pass else t("off")))

    async def line(self, prompt: str) -> str | None:
        """Print ``prompt`` and wait for the player's line (None at end of input). Updates
        that arrive meanwhile are kept and told once the answer is in."""
        self.console.print(prompt, end="", markup=False, highlight=False)
        held: list[pb.WatchTableResponse | None] = []
        try:
            while True:
                kind, item = await self.take(None)
                if kind == KEY:
                    return None if item is None else str(item)
                held.append(item if isinstance(item, pb.WatchTableResponse) else None)
        finally:
            for update in held:
                if update is None:
                    self.feed_ended = True
                else:
                    self.absorb(update)

    async def ask_amount(self, move: pb.Move, span: tuple[int, int, int]) -> int | None:
        """The amount for a move offered with the range ``span`` (Enter: its suggested
        amount); None when the player backs out with ``b`` to choose another move."""
        low, high, step = span
        steps = t(" in steps of {step}", step=step) if step > 1 else ""
        while True:
            line = await self.line(t("{kind} to how much? ({low}-{high}{steps}, Enter for "
                                     "{amount}, b to go back): ", kind=move.kind.capitalize(),
                                     low=low, high=high, steps=steps, amount=move.amount))
            if line is None:
                return None
            answer = line.strip().lower()
            if answer in ("b", "back"):
                return None
            if not answer:
                return move.amount
            if answer.lstrip("-").isdigit() and amount_allowed(move, int(answer)):
                return int(answer)
            self.console.print(Text(t("'{answer}' is not an amount you may choose: type a "
                                      "whole number from {low} to {high}{steps}.",
                                      answer=answer, low=low, high=high, steps=steps),
                                    style="red"))

    async def confirm_claim(self, move: pb.Move) -> bool:
        """A claim ends the match on the spot, won or lost: say so, with the player's score and
        the target when the view has them, and ask before sending it."""
        what = self.words.move(move.kind) or t("claim the match: it ends at once, won or "
                                               "lost, on your count")
        detail = detail_dict(self.view.detail)
        mine = next((s for s in self.view.seats if s.seat == self.seat.seat), None)
        facts = ""
        if mine is not None and isinstance(detail.get("target"), int):
            facts = t(" Your score is {score}; the target is {target}.", score=mine.score,
                      target=detail["target"])
        self.console.print(Text(t("Claim: {what}.{facts}", what=what, facts=facts),
                                style="yellow"))
        answer = await self.line(t("Claim now? (y/N): "))
        return answer is not None and answer.strip().lower() in ("y", "yes")

    async def move(self, number: int) -> None:
        chosen = shown_moves(self.view)[number - 1]
        span = amount_range(chosen)
        if span is not None:
            amount = await self.ask_amount(chosen, span)
            if amount is None:
                return  # back to the board: the loop asks again
            chosen = with_amount(chosen, amount)
        if chosen.kind == "claim" and not await self.confirm_claim(chosen):
            self.console.print(t("No claim made."))
            return
        try:
            response = await self.session.move(chosen, self.view.version)
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.ABORTED,
                                    grpc.StatusCode.FAILED_PRECONDITION):
                raise
            why = visible(error.details() or "")
            self.console.print(Text(t("The table moved on before your move arrived ({why}); "
                                      "here is the new position.", why=why), style="yellow"))
            self.take_view(await self.client.view(self.seat.table_id, self.seat.token))
            return
        self.result = []  # the next deal is under way: its board needs the room
        self.tell(response.version, list(response.events))
        self.take_view(response.view)

    def leave(self) -> None:
        table = visible(self.seat.table_id)
        if self.embedded:
            said = t("You left table {table}. Its server ran inside this program, so the "
                     "table is gone with it.", table=table)
        elif game_over(self.view):
            said = t("You left table {table}; its game is over.", table=table)
        elif self.out_of_chips():
            said = t("You left table {table}; the others play on without you.", table=table)
        elif self.view.HasField("deadline"):
            said = t("You left table {table}; it stays open on the server, and its turn clock "
                     "will move for you when it runs out.", table=table)
        else:
            said = t("You left table {table}; it stays open on the server, and it waits for "
                     "your seat's move.", table=table)
        self.console.print(said, markup=False, highlight=False)
        if not self.embedded and not game_over(self.view) and not self.out_of_chips():
            self.say_seat(table)

    def say_seat(self, table: str) -> None:
        """The seat's token and proof, as `bezique join` prints them: the only way back to a
        seat this program took (`view`, `move`, `verify` read them from the environment)."""
        self.console.print(t("To go on with `bezique view {table}` and `bezique move`, keep "
                             "your seat:", table=table), markup=False, highlight=False)
        self.console.print(f"export BEZIQUE_TOKEN={self.seat.token}", markup=False,
                           highlight=False, soft_wrap=True)
        if self.seat.entropy:
            seen = self.client.pins.get((self.seat.table_id, self.seat.seat), "")
            self.console.print(f"export BEZIQUE_PROOF={self.seat.seat}:{self.seat.entropy.hex()}"
                               f":{self.seat.commitment}" + (f":{seen}" if seen else ""),
                               markup=False, highlight=False, soft_wrap=True)

    async def wait(self) -> int | None:
        """Wait for the table while it is not the player's turn, answering q and h (and any
        other line with who is awaited); the exit code when the player leaves (q, or the end
        of his input), else None. A feed that ends early is replaced by polling the view."""
        if self.out_of_chips() and not self.told_out:
            self.told_out = True
            self.console.print(Text(t("You have no chips left: you are out of this game. The "
                                      "others play on; watch them (press Enter to go on "
                                      "watching) or type q to leave."), style="bold yellow"))
        # without the feed (it ended or broke), the view is polled more often
        kind, item = await self.take(POLL_SECONDS / 10 if self.feed_ended else POLL_SECONDS)
        if kind == "poll":
            await self.poll()
        elif kind == KEY:
            answer = None if item is None else str(item).strip().lower()
            if answer is None or answer in ("q", "quit", "exit"):
                self.leave()
                return 0
            if answer in HELP_KEYS:
                self.help()
            elif answer in AUTO_PASS_KEYS:
                self.toggle_auto_pass()
            elif answer:
                self.console.print(self.waiting_text())
        elif item is None:
            self.feed_ended = True
            if not game_over(self.view):
                await self.poll()
        elif isinstance(item, pb.WatchTableResponse):
            self.absorb(item)
        return None

    def waiting_text(self) -> str:
        """Why no move is asked for now (never "not your turn" once the game is over)."""
        view = self.view
        if game_over(view):
            return t("The game is over.")
        if view.waiting_for_players:
            return t("The table is waiting for players; h for help, q to leave.")
        if self.out_of_chips():
            return t("You are out of chips and watching; q to leave.")
        movers = ", ".join(self.names.get(s) or t("Seat {seat}", seat=s) for s in view.to_move)
        return escape(t("Waiting for {movers}; h for help, q to leave.",
                        movers=movers or t("the table")))

    async def run(self) -> int:
        async with self.client.play(self.seat) as session:
            self._session = session
            try:
                return await self._play()
            finally:
                self._session = None

    async def _play(self) -> int:
        feed = asyncio.get_running_loop().create_task(self.feed())
        start_reader(self.read, self.inbox)
        try:
            while not (game_over(self.view) and self.shown >= self.view.version):
                if self.my_turn():
                    choice = await self.ask()
                    if not isinstance(choice, int):  # QUIT, ask's only other answer
                        self.leave()
                        return 0
                    await self.move(choice)
                    continue
                code = await self.wait()
                if code is not None:
                    return code
            self.console.print(self.board(None))  # the end screen, fitted like every board
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
            raise PlayError(t("the server has no variant {variant!r} (it has: {variants})",
                              variant=settings.variant, variants=", ".join(sorted(variants))))
        policy = choose_policy(info, settings.bot_policy)
        seats = seat_count(info, settings.options)
        bots = {s: settings.bot_seats.get(s, policy) for s in range(1, seats)}
        for chosen in bots.values():
            check_policy(info, chosen)
        created = await client.create_table(info.id, settings.options, bots=bots,
                                            turn_seconds=settings.turn_seconds)
        seat = await client.join(created.table_id, 0, settings.name)
        words = Words.of(info)
        console.print(t("Table {table} · {title} · you are seat 0 against {bots} · seed "
                        "commitment {commitment}…", table=visible(created.table_id),
                        title=visible(words.title or info.title), bots=bots_text(bots),
                        commitment=visible(created.seed_commitment[:16])),
                      soft_wrap=True, markup=False, highlight=False)
        console.print(Text(t("bots on offer: {policies} (--bot POLICY to choose)",
                             policies=", ".join(info.bot_policies)), style="dim"),
                      soft_wrap=True)
        view = await client.view(created.table_id, seat.token)
        return await Game(client, seat, view, console, read, embedded=settings.server is None,
                          words=words, auto_pass=settings.auto_pass).run()


def bots_text(bots: Mapping[int, str]) -> str:
    """"2 bots (heuristic)", "1 bot (search), 1 bot (random)": the bots by policy."""
    by_policy: dict[str, int] = {}
    for policy in bots.values():
        by_policy[policy] = by_policy.get(policy, 0) + 1
    return ", ".join(f"{count(n, 'bot', 'bots')} ({policy})" for policy, n in by_policy.items())


async def play(settings: PlaySettings, console: Console,
               read: Callable[[str], str] = input) -> int:
    """Play one game; the exit code of the command."""
    if settings.server is not None:
        return await play_at(settings.server, settings, console, read)
    async with embedded_server(settings.bot_delay) as address:
        return await play_at(address, settings, console, read)
