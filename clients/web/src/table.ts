/**
 * A live table: the board of the caller's view, its legal moves, the turn clock, and the
 * events as sentences, kept current by WatchTable. A seat plays with its token (from
 * sessionStorage, so a reload keeps the seat); a spectator's page sends no token and so only
 * ever receives, and draws, what every player may see.
 *
 * Keys: 1-9 and 0 choose the numbered moves, p or Enter passes when passing is legal, the
 * arrow keys move between the playable cards and the moves, ? shows the keys.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";

import {
  callOptions, describeError, dropSeat, errorReason, isCancel, joinTable, listVariants, playerName,
  rememberName, requestId, revealEntropy, rpc, type SeatHold,
} from "./api.js";
import { detailsNode, handNode, headerNode, seatsNode, zonesNode } from "./board.js";
import { movesInHandOrder } from "./cards.js";
import { button, clean, el, replace } from "./dom.js";
import {
  MoveSchema, type Event, type Move, type View, type WatchTableResponse,
} from "./gen/bezique/v1/table_service_pb.js";
import {
  amountRange, declared, entrySentence, eventSentence, moveLabel, outcomeText, seatNames, useVocabulary, who,
} from "./words.js";

/** Entries of the log shown when a page opens (the recent past, so a reload keeps context). */
const BACKLOG = 40n;
/** Sentences kept in the events list. */
const MAX_LINES = 300;

/** Moves the page to another route (`#/...`), also when it is the route shown now. */
export interface Navigator {
  go(hash: string): void;
}

/** Use the words `variantId` declares (VariantInfo.vocabulary), else the page's own. */
export async function learnWords(variantId: string | undefined): Promise<void> {
  useVocabulary(undefined);
  try {
    useVocabulary((await listVariants()).find((info) => info.id === variantId));
  } catch {
    // the page's own words will do
  }
}

/** The reveal round in words: "Waiting for seats 0 (you), 1 (bob) to reveal their entropy…". */
export function revealText(awaiting: readonly number[], names: ReadonlyMap<number, string>, viewer?: number): string {
  const listed = awaiting.map((seat) => who(names, seat).replace(/^Seat /, "")).join(", ");
  const mine = viewer !== undefined && awaiting.includes(viewer) ? " Your page reveals your seat's by itself." : "";
  return `Waiting for seat${awaiting.length === 1 ? "" : "s"} ${listed} to reveal ${awaiting.length === 1 ? "its" : "their"} `
    + `entropy: the game starts when every seat has.${mine}`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class TablePage {
  private view: View | undefined;
  private readonly stop = new AbortController();
  private readonly logged = new Set<bigint>();
  private busy = false;
  /** The seat's reveal: "" not yet, "sending", "done"; failures counted for the retries. */
  private reveal: "" | "sending" | "done" = "";
  private revealFailures = 0;
  private clockTimer: number | undefined;
  private readonly keys = (event: KeyboardEvent): void => this.onKey(event);

  private readonly head = el("header", { id: "table-head", class: "table-head" });
  private readonly status = el("div", { id: "status", class: "status", role: "status" });
  private readonly clock = el("div", { id: "clock", class: "clock", "aria-live": "off" });
  private readonly seats = el("div", { class: "seats-box" });
  private readonly zones = el("div", { class: "zones-box" });
  private readonly details = el("div", { class: "details-box" });
  private readonly handBox = el("section", { id: "hand-box", class: "hand-box" });
  private readonly moves = el("section", { id: "moves", class: "moves", "aria-label": "your moves" });
  private readonly notice = el("div", { id: "notice", class: "notice", role: "alert" });
  private readonly outcome = el("div", { id: "outcome", class: "outcome" });
  private readonly events = el("ol", { id: "events", class: "events", "aria-live": "polite" });
  private readonly help = el("div", { id: "help", class: "help", hidden: true },
    "Keys: 1–9 and 0 choose a numbered move · p or Enter passes · ← → move between cards and moves · ? hides this.");

  constructor(
    private readonly root: HTMLElement,
    private readonly tableId: string,
    private readonly hold: SeatHold | undefined,
    private readonly nav: Navigator,
  ) {}

  /** Draw the page, read the view, and follow the table until the page is left. */
  async start(): Promise<void> {
    const mode = this.hold ? "seat" : "spectator";
    replace(this.root, el("div", { id: "table", class: `table ${mode}`, "data-mode": mode },
      this.head, this.status, this.clock, this.notice, this.seats, this.zones, this.details,
      this.handBox, this.moves, this.outcome,
      el("section", { class: "log" }, el("h2", {}, "What happened"), this.events),
      el("footer", {}, button("Lobby", () => this.nav.go("#/"), { class: "link" }), " ",
        button("Keys (?)", () => this.toggleHelp(), { class: "link" }), this.help)));
    document.addEventListener("keydown", this.keys);
    this.clockTimer = window.setInterval(() => this.tick(), 250);
    try {
      const { view } = await rpc.getView({ tableId: this.tableId }, callOptions(this.hold?.token));
      await learnWords(view?.variantId);
      this.take(view);
    } catch (error) {
      if (this.hold && this.lostSeat(error)) return;
      this.say(`This table cannot be shown: ${describeError(error)}`);
      return;
    }
    void this.follow();
  }

  /** Leave the page: the watch stream ends, the clock and the keys stop. */
  destroy(): void {
    this.stop.abort();
    window.clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.keys);
  }

  private get token(): string | undefined {
    return this.hold?.token;
  }

  private names(): Map<number, string> {
    return seatNames(this.view?.seats ?? [], this.view?.viewerSeat);
  }

  /** A token that holds no seat here (the table forgot it, or it was given up): watch instead. */
  private lostSeat(error: unknown): boolean {
    const reason = errorReason(error);
    if (reason !== "PERMISSION_DENIED" && reason !== "SEAT_RELEASED" && reason !== "UNAUTHENTICATED") return false;
    dropSeat(this.tableId);
    this.destroy();
    this.nav.go(`#/watch/${encodeURIComponent(this.tableId)}`);
    return true;
  }

  /** Follow the table: the recent log, then every update; on a cut, refresh and resume. */
  private async follow(): Promise<void> {
    const first = this.view?.version ?? 0n;
    let from = first > BACKLOG ? first - BACKLOG : 0n;
    let failures = 0;
    while (!this.stop.signal.aborted) {
      try {
        const stream = rpc.watchTable({ tableId: this.tableId, fromVersion: from },
          callOptions(this.token, this.stop.signal, false));
        for await (const update of stream) {
          failures = 0;
          this.absorb(update);
          from = update.version;
        }
        if (this.view?.outcome !== undefined) return; // a finished table's stream ends: done
      } catch (error) {
        if (this.stop.signal.aborted || isCancel(error)) return;
        if (this.hold && this.lostSeat(error)) return;
        failures += 1;
        this.say(`Connection lost (${describeError(error)}); reconnecting…`);
      }
      await sleep(Math.min(5000, 200 * 2 ** Math.min(failures, 5)));
      if (this.stop.signal.aborted) return;
      try {
        const { view } = await rpc.getView({ tableId: this.tableId }, callOptions(this.token));
        this.take(view);
        this.say("");
      } catch {
        // still away: the next round tries again
      }
    }
  }

  /** One update of the stream: its sentences into the log, its view onto the board. */
  private absorb(update: WatchTableResponse): void {
    if (update.view) this.take(update.view, false);
    this.log(update.version, update.entryKind, update.seat, update.events);
    this.render();
  }

  /** A newer view replaces the shown one (an older one, arriving late, is ignored). */
  private take(view: View | undefined, render = true): void {
    if (view === undefined) return;
    if (this.view !== undefined && view.version < this.view.version) return;
    this.view = view;
    this.revealIfOwed(view);
    if (render) this.render();
  }

  /**
   * When the view lists this tab's seat in awaiting_reveal, reveal the entropy it committed to
   * (after a reload too: the secret is in sessionStorage), once the page's own read of the
   * history shows every seat taken (revealEntropy). A failed or refused reveal is tried again, a
   * few times, a little later; a repeat of one that did arrive changes nothing.
   */
  private revealIfOwed(view: View): void {
    const hold = this.hold;
    if (hold?.secret === undefined || this.reveal !== "" || view.outcome !== undefined
      || !view.awaitingReveal.includes(hold.seat)) return;
    this.reveal = "sending";
    revealEntropy(hold, view.seats.length).then((after) => {
      this.reveal = "done";
      this.take(after);
    }, async (error: unknown) => {
      if (this.lostSeat(error)) return;
      this.revealFailures += 1;
      this.say(`Could not reveal this seat's entropy: ${describeError(error)}`);
      if (this.revealFailures >= 3 || this.stop.signal.aborted) return;
      await sleep(1000 * this.revealFailures);
      this.reveal = "";
      if (this.view) this.revealIfOwed(this.view);
    });
  }

  /** The sentences of one log entry, once per version. */
  private log(version: bigint, kind: string, seat: number | undefined, events: readonly Event[]): void {
    if (this.logged.has(version)) return;
    this.logged.add(version);
    const names = this.names();
    const item = el("li", { "data-version": version.toString(), "data-entry": clean(kind) });
    if (kind === "timeout" || events.length === 0) item.append(el("span", { class: "sentence" }, entrySentence(kind, seat, names)));
    for (const event of events) item.append(eventSentence(event, names), " ");
    // In version order, also when a move's answer arrives before the stream's earlier entries.
    const later = Array.from(this.events.children).find((node) => BigInt((node as HTMLElement).dataset["version"] ?? "0") > version);
    this.events.insertBefore(item, later ?? null);
    while (this.events.childElementCount > MAX_LINES) this.events.firstElementChild?.remove();
    this.events.scrollTop = this.events.scrollHeight;
  }

  private say(text: string): void {
    replace(this.notice, text);
    this.notice.hidden = text === "";
  }

  private myTurn(): boolean {
    const view = this.view;
    return view !== undefined && view.viewerSeat !== undefined && view.toMove.includes(view.viewerSeat)
      && view.legalMoves.length > 0 && view.outcome === undefined;
  }

  private render(): void {
    const view = this.view;
    if (view === undefined) return;
    const names = this.names();
    const play = this.myTurn() && !this.busy ? (id: number) => this.playCard(id) : undefined;
    replace(this.head, headerNode(view, names));
    replace(this.seats, seatsNode(view, names));
    replace(this.zones, zonesNode(view, names, play));
    replace(this.details, detailsNode(view));
    if (view.viewerSeat !== undefined) {
      replace(this.handBox, el("h2", {}, "Your hand"), handNode(view, play));
    } else {
      replace(this.handBox, el("p", { class: "spectating" }, "You are watching: no hand is shown."));
    }
    this.renderStatus(view, names);
    this.renderMoves(view);
    replace(this.outcome, view.outcome ? el("p", {}, outcomeText(view.outcome, names), " ",
      el("a", { href: `#/replay/${encodeURIComponent(this.tableId)}`, id: "replay-link" }, "Replay this table")) : null);
    this.tick();
  }

  private renderStatus(view: View, names: ReadonlyMap<number, string>): void {
    let text: string;
    const free = view.seats.filter((seat) => !seat.occupied).length;
    if (view.outcome) text = view.outcome.reason === "reveal_timeout" || view.outcome.reason === "aborted" ? "The table has ended." : "Game over.";
    else if (view.awaitingReveal.length) text = revealText(view.awaitingReveal, names, view.viewerSeat);
    else if (view.waitingForPlayers) text = `Waiting for players: ${free} free seat${free === 1 ? "" : "s"}.`;
    else if (this.myTurn() && this.busy) text = "Sending your move…";
    else if (this.myTurn()) text = "Your turn: click a card or a move (or press its number).";
    else if (view.toMove.length) text = `Waiting for ${view.toMove.map((seat) => who(names, seat)).join(", ")}…`;
    else text = "…";
    const parts = [el("span", { class: "text" }, text)];
    if (view.waitingForPlayers && this.hold && view.awaitingReveal.length === 0) {
      parts.push(el("span", { class: "share" }, " Others join from the lobby or at this page's address. "),
        button("Leave the table", () => void this.leave(), { id: "leave" }));
    }
    if (view.waitingForPlayers && !this.hold && free > 0 && view.awaitingReveal.length === 0) parts.push(this.joinForm());
    replace(this.status, ...parts);
    this.status.dataset["turn"] = this.myTurn() && !this.busy ? "mine" : "";
  }

  /** For a visitor of a table with a free seat: a name and a button to take the seat. */
  private joinForm(): HTMLElement {
    const name = el("input", { type: "text", id: "join-name", maxlength: 64, placeholder: "your name", value: playerName() });
    const form = el("form", { class: "join" }, " ", name, " ", el("button", { type: "submit", id: "join" }, "Take a seat"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      rememberName(name.value);
      joinTable(this.tableId, name.value.trim()).then(
        () => { this.destroy(); this.nav.go(`#/table/${encodeURIComponent(this.tableId)}`); },
        (error: unknown) => this.say(`Could not join: ${describeError(error)}`));
    });
    return form;
  }

  private async leave(): Promise<void> {
    try {
      await rpc.leaveTable({ tableId: this.tableId }, callOptions(this.token));
      dropSeat(this.tableId);
      this.destroy();
      this.nav.go("#/");
    } catch (error) {
      this.say(`Could not leave: ${describeError(error)}`);
    }
  }

  /** The legal moves, numbered; a move with an amount range gets a number input. */
  private renderMoves(view: View): void {
    if (!this.myTurn()) {
      replace(this.moves);
      this.moves.hidden = true;
      return;
    }
    this.moves.hidden = false;
    const list = el("ol", { class: "move-list" });
    movesInHandOrder(view.legalMoves).forEach((move, index) => {
      const key = index < 9 ? String(index + 1) : index === 9 ? "0" : "";
      const range = amountRange(move);
      const attributes = { class: `move kind-${clean(move.kind)}`, "data-index": index, "data-kind": clean(move.kind),
        disabled: this.busy, "aria-keyshortcuts": key || undefined, title: declared("moves", move.kind) };
      const keyBadge = el("kbd", {}, key || "·");
      if (range === undefined) {
        const hint = move.kind === "pass" ? el("span", { class: "hint" }, " (p)") : null;
        list.append(el("li", {}, button([keyBadge, " ", ...moveLabel(move), hint], () => void this.submit(move), attributes)));
        return;
      }
      const start = move.amount >= range.min && move.amount <= range.max ? move.amount : range.min;
      const input = el("input", { type: "number", class: "amount-input", "data-index": index, min: range.min.toString(),
        max: range.max.toString(), step: range.step.toString(), value: start.toString(), disabled: this.busy,
        "aria-label": `amount, ${range.min} to ${range.max}` });
      // Any whole number goes to the server, which has the last word on the range: one outside
      // it comes back refused, with the range, and the page shows that answer.
      const send = (): void => {
        const amount = this.readAmount(input.value);
        if (amount === undefined) {
          this.say(`Type a whole number of chips, from ${range.min} to ${range.max}${range.step > 1n ? ` in steps of ${range.step}` : ""}.`);
          return;
        }
        void this.submit(move, amount);
      };
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") { event.preventDefault(); send(); }
      });
      list.append(el("li", { class: "ranged" }, button([keyBadge, " ", ...moveLabel(move)], send, attributes), " ", input,
        el("span", { class: "range" }, ` ${range.min}–${range.max}`)));
    });
    replace(this.moves, el("h2", {}, "Your moves"), list);
  }

  /** A typed amount as a whole number (at most 18 digits, so it fits an int64), else undefined. */
  private readAmount(text: string): bigint | undefined {
    return /^\s*\d{1,18}\s*$/.test(text) ? BigInt(text.trim()) : undefined;
  }

  private playCard(cardId: number): void {
    const move = this.view?.legalMoves.find((m) => m.kind === "play" && m.cards.length === 1 && m.cards[0]!.id === cardId);
    if (move) void this.submit(move);
  }

  /** Submit one of the legal moves as offered (an amount chosen in its range). */
  private async submit(move: Move, amount?: bigint): Promise<void> {
    const view = this.view;
    if (this.busy || view === undefined || this.hold === undefined) return;
    this.busy = true;
    this.say("");
    this.render();
    const chosen = create(MoveSchema, { ...move, amount: amount ?? move.amount });
    const id = requestId();
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const answer = await rpc.submitMove(
            { tableId: this.tableId, move: chosen, expectedVersion: view.version, requestId: id },
            callOptions(this.token));
          this.take(answer.view, false);
          this.log(answer.version, "move", view.viewerSeat, answer.events);
          break;
        } catch (error) {
          // The same request id again is safe: the server applies a move at most once.
          if (error instanceof ConnectError && error.code === Code.Unavailable && attempt < 3) {
            await sleep(300 * attempt);
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      if (this.hold && this.lostSeat(error)) return;
      const stale = error instanceof ConnectError && error.code === Code.Aborted;
      this.say(stale ? "The table moved on: look again and choose again." : `That move failed: ${describeError(error)}`);
      try {
        this.take((await rpc.getView({ tableId: this.tableId }, callOptions(this.token))).view, false);
      } catch {
        // the watch stream brings the view back
      }
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** The turn clock: seconds left for the seat(s) to move, counting down. */
  private tick(): void {
    const view = this.view;
    const deadline = view?.deadline;
    const revealing = view !== undefined && view.awaitingReveal.length > 0;
    if (view === undefined || deadline === undefined || view.outcome !== undefined || (view.toMove.length === 0 && !revealing)) {
      replace(this.clock);
      this.clock.hidden = true;
      return;
    }
    const ends = Number(deadline.seconds) * 1000 + Math.floor(deadline.nanos / 1e6);
    const left = Math.max(0, Math.ceil((ends - Date.now()) / 1000));
    const movers = revealing ? "reveal" : view.toMove.map((seat) => who(this.names(), seat)).join(", ");
    this.clock.hidden = false;
    this.clock.classList.toggle("urgent", left <= 10);
    replace(this.clock, `⏱ ${movers}: ${left} s left`);
    this.clock.dataset["left"] = String(left);
  }

  private toggleHelp(): void {
    this.help.hidden = !this.help.hidden;
  }

  private focusables(): HTMLElement[] {
    return Array.from(this.root.querySelectorAll<HTMLElement>("button.card.playable, button.move:not([disabled])"));
  }

  private onKey(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    if (event.key === "?") {
      this.toggleHelp();
      event.preventDefault();
      return;
    }
    const view = this.view;
    if (view === undefined || !this.myTurn() || this.busy) return;
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      const items = this.focusables();
      if (items.length === 0) return;
      const at = items.indexOf(document.activeElement as HTMLElement);
      const next = at < 0 ? 0 : (at + (event.key === "ArrowRight" ? 1 : items.length - 1)) % items.length;
      items[next]!.focus();
      event.preventDefault();
      return;
    }
    const onButton = target?.tagName === "BUTTON";
    const passAt = view.legalMoves.findIndex((move) => move.kind === "pass");
    if ((event.key === "p" || (event.key === "Enter" && !onButton)) && passAt >= 0) {
      event.preventDefault();
      void this.submit(view.legalMoves[passAt]!);
      return;
    }
    if (/^[0-9]$/.test(event.key)) {
      const index = event.key === "0" ? 9 : Number(event.key) - 1;
      const move = movesInHandOrder(view.legalMoves)[index];
      if (move === undefined) return;
      event.preventDefault();
      if (amountRange(move) !== undefined) {
        this.moves.querySelector<HTMLInputElement>(`input.amount-input[data-index="${index}"]`)?.focus();
      } else {
        void this.submit(move);
      }
    }
  }
}
