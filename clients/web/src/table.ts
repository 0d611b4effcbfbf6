/**
 * A live table: the felt of the caller's view, its legal moves, the turn clock, the result of
 * each deal and of the game, and the events as sentences, kept current by WatchTable. A seat
 * plays with its token (from localStorage, so a reload or a closed tab keeps the seat, and a
 * resume code carries it to another device); a spectator's page sends no token and so only
 * ever receives, and draws, what every player may see.
 *
 * Keys: 1-9 and 0 choose the numbered moves, p or Enter passes when passing is legal, the
 * arrow keys move between the playable cards and the moves, ? shows the keys (no key hints on
 * a touch screen).
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";

import {
  callOptions, describeError, dropSeat, errorReason, heldSeat, isCancel, joinTable, listVariants, markFinished,
  playerName, rememberName, requestId, resumeCode, revealEntropy, rpc, type SeatHold,
} from "./api.js";
import { feltNode, handNode, headerNode, type Shown } from "./board.js";
import { movesInHandOrder } from "./cards.js";
import { button, el, replace, clean } from "./dom.js";
import {
  MoveSchema, type Event, type Move, type View, type WatchTableResponse,
} from "./gen/bezique/v1/table_service_pb.js";
import { t, touchFirst } from "./i18n.js";
import { dealResults, dealTable } from "./results.js";
import { copyBox, playAgain, settingAutoPass, setAutoPass } from "./seat.js";
import {
  amountRange, declared, entrySentence, eventSentence, moveLabel, outcomeText, seatNames, useVocabulary,
  variantTitle, who,
} from "./words.js";

/** Entries of the log shown when a page opens (the recent past, so a reload keeps context). */
const BACKLOG = 40n;
/** Sentences kept in the events list. */
const MAX_LINES = 300;

/** Moves the page to another route (`#/...`), also when it is the route shown now. */
export interface Navigator {
  go(hash: string): void;
}

/**
 * Use the words `variantId` declares (VariantInfo.vocabulary, in the page's language), else
 * the page's own; the variant's title in the page's language.
 */
export async function learnWords(variantId: string | undefined): Promise<string> {
  useVocabulary(undefined);
  try {
    const info = (await listVariants()).find((variant) => variant.id === variantId);
    useVocabulary(info);
    return info ? variantTitle(info) : clean(variantId ?? "");
  } catch {
    return clean(variantId ?? ""); // the page's own words will do
  }
}

/** The reveal round in words: "Waiting for ann, bob to reveal their entropy…". */
export function revealText(awaiting: readonly number[], names: ReadonlyMap<number, string>): string {
  return t("revealWaiting", { who: awaiting.map((seat) => who(names, seat)).join(", ") });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class TablePage {
  private view: View | undefined;
  private title = "";
  private readonly stop = new AbortController();
  private readonly logged = new Set<bigint>();
  /** Every event the page has seen, in version order: the deals' results and shown hands. */
  private readonly seen = new Map<bigint, Event[]>();
  private busy = false;
  /** The version the page last passed at by itself (the auto-pass setting), once per version. */
  private autoPassedAt = -1n;
  /** The seat's reveal: "" not yet, "sending", "done"; failures counted for the retries. */
  private reveal: "" | "sending" | "done" = "";
  private revealFailures = 0;
  private clockTimer: number | undefined;
  private resultShownFor = "";
  private readonly keys = (event: KeyboardEvent): void => this.onKey(event);
  private readonly touch = touchFirst();

  private readonly tableNode = el("div", { id: "table", class: "table", "data-version": "0" });
  private readonly head = el("header", { id: "table-head", class: "table-head" });
  private readonly status = el("div", { id: "status", class: "status", role: "status" });
  private readonly clock = el("div", { id: "clock", class: "clock", "aria-live": "off" });
  private readonly felt = el("div", { class: "felt-box" });
  private readonly handBox = el("section", { id: "hand-box", class: "hand-box" });
  private readonly moves = el("section", { id: "moves", class: "moves", "aria-label": t("yourMoves") });
  private readonly notice = el("div", { id: "notice", class: "notice", role: "alert" });
  private readonly outcome = el("div", { id: "outcome", class: "outcome" });
  private readonly result = el("section", { id: "result", class: "result", hidden: true });
  private readonly dealResult = el("section", { id: "deal-result", class: "result deal", hidden: true });
  private readonly extras = el("section", { id: "seat-extras", class: "extras" });
  private readonly events = el("ol", { id: "events", class: "events", "aria-live": "polite" });
  private readonly help = el("div", { id: "help", class: "help", hidden: true }, t("keysHelp"));

  constructor(
    private readonly root: HTMLElement,
    private readonly tableId: string,
    private readonly hold: SeatHold | undefined,
    private readonly nav: Navigator,
  ) {}

  /** Draw the page, read the view, and follow the table until the page is left. */
  async start(): Promise<void> {
    const mode = this.hold ? "seat" : "spectator";
    this.tableNode.dataset["mode"] = mode;
    this.tableNode.classList.add(mode);
    replace(this.tableNode, this.head, this.status, this.clock, this.notice, this.felt,
      this.handBox, this.moves, this.result, this.dealResult, this.extras,
      el("details", { class: "log" }, el("summary", {}, t("whatHappened")), this.events),
      el("footer", {}, button(t("lobby"), () => this.nav.go("#/"), { class: "link", id: "to-lobby" }),
        this.touch ? null : button(t("keysLink"), () => this.toggleHelp(), { class: "link" }), this.help));
    replace(this.root, this.tableNode);
    document.addEventListener("keydown", this.keys);
    this.clockTimer = window.setInterval(() => this.tick(), 250);
    try {
      const { view } = await rpc.getView({ tableId: this.tableId }, callOptions(this.hold?.token));
      this.title = await learnWords(view?.variantId);
      this.take(view);
    } catch (error) {
      if (this.hold && this.lostSeat(error)) return;
      this.say(t("cannotShow", { e: describeError(error) }));
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
        this.say(t("connectionLost", { e: describeError(error) }));
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
   * (after a reload too: the secret is in localStorage), once the page's own read of the
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
      this.say(t("revealFailed", { e: describeError(error) }));
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
    this.seen.set(version, [...events]);
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

  /** The events seen so far, in version order. */
  private seenEvents(): Event[] {
    return [...this.seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([, events]) => events);
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

  /**
   * The hands shown at the last showdown (Quart), by seat, while the view still shows them (its
   * "muck/shown" zone) or their deal goes on: each under its seat rather than in one heap.
   */
  private shownHands(): Map<number, Shown> {
    const shown = new Map<number, Shown>();
    const deals = dealResults(this.seenEvents()).filter((deal) => deal.shown.size > 0);
    const last = deals[deals.length - 1];
    const heap = this.view?.zones.some((zone) => zone.name === "muck/shown" && zone.cards.length > 0) ?? false;
    if (last === undefined || (last.ended && !heap)) return shown;
    for (const [seat, hand] of last.shown) shown.set(seat, { codes: hand.codes, points: Number(hand.points), combinations: hand.text });
    return shown;
  }

  private render(): void {
    const view = this.view;
    if (view === undefined) return;
    this.tableNode.dataset["version"] = view.version.toString();
    const names = this.names();
    const play = this.myTurn() && !this.busy ? (id: number) => this.playCard(id) : undefined;
    replace(this.head, headerNode(view, names, this.title));
    replace(this.felt, feltNode(view, names, this.shownHands()));
    if (view.viewerSeat !== undefined) {
      replace(this.handBox, el("h2", {}, t("yourHand")), handNode(view, play));
    } else {
      replace(this.handBox, el("p", { class: "spectating" }, t("watching")));
    }
    this.renderStatus(view, names);
    this.renderMoves(view);
    replace(this.outcome, view.outcome ? el("p", {}, outcomeText(view.outcome, names)) : null);
    this.renderDealResult(view, names);
    this.renderExtras(view);
    if (view.outcome !== undefined) this.showResult(view);
    this.tick();
    this.autoPass(view);
  }

  /** The last finished deal's result while the game goes on (the game's shows at the end). */
  private renderDealResult(view: View, names: ReadonlyMap<number, string>): void {
    const deals = dealResults(this.seenEvents()).filter((deal) => deal.ended);
    const last = deals[deals.length - 1];
    if (view.outcome !== undefined || last === undefined) {
      this.dealResult.hidden = true;
      return;
    }
    this.dealResult.hidden = false;
    replace(this.dealResult, dealTable(last, view.seats.length, names));
  }

  /** Under the table: the resume code (a seat's), the invite link (a table with a free seat). */
  private renderExtras(view: View): void {
    const parts: HTMLElement[] = [];
    const free = view.seats.some((seat) => !seat.occupied);
    if (free && view.outcome === undefined) {
      const link = `${window.location.origin}${window.location.pathname}#/table/${encodeURIComponent(this.tableId)}`;
      parts.push(el("div", { id: "invite", class: "invite" }, el("h2", {}, t("inviteLink")), copyBox(link, "invite-link")));
    }
    if (this.hold && view.outcome === undefined) {
      const code = resumeCode(heldSeat(this.tableId) ?? this.hold);
      const link = `${window.location.origin}${window.location.pathname}#/resume/${code}`;
      parts.push(el("details", { id: "resume", class: "resume" }, el("summary", {}, t("resumeShow")),
        el("p", { class: "secret" }, t("resumeSecret")),
        el("label", {}, t("resumeCode"), " ", copyBox(code, "resume-code")),
        button(t("copyLink"), () => void navigator.clipboard?.writeText(link), { id: "resume-link", class: "link" })));
    }
    if (this.hold && view.variantId.startsWith("bezique") && view.outcome === undefined) {
      const box = el("input", { type: "checkbox", id: "auto-pass", checked: settingAutoPass() });
      box.addEventListener("change", () => {
        setAutoPass(box.checked);
        if (this.view) this.autoPass(this.view);
      });
      parts.push(el("label", { class: "setting" }, box, " ", t("autoPass")));
    }
    // Kept while it is the same (a focused input or an open folder survives the updates).
    const key = parts.map((part) => part.id || part.className).join(",");
    if (this.extras.dataset["key"] !== key) {
      this.extras.dataset["key"] = key;
      replace(this.extras, ...parts);
    }
  }

  /**
   * The setting "pass for me when I have nothing to declare": when the only legal move of a
   * declaration prompt is to pass, the page sends it (once per version); the server's prompt
   * stays as the rules say.
   */
  private autoPass(view: View): void {
    if (!settingAutoPass() || !this.myTurn() || this.busy || this.autoPassedAt === view.version) return;
    const only = view.legalMoves.length === 1 ? view.legalMoves[0] : undefined;
    if (only?.kind !== "pass" || view.detail?.["declaration_pending"] !== true) return;
    this.autoPassedAt = view.version;
    this.say(t("autoPassed"));
    void this.submit(only, undefined, true);
  }

  /** The game's result: every deal's table, the outcome, Play again and the replay. */
  private showResult(view: View): void {
    if (this.resultShownFor === view.version.toString()) return;
    this.resultShownFor = view.version.toString();
    markFinished(this.tableId);
    this.result.hidden = false;
    const names = this.names();
    const actions = el("div", { class: "actions" },
      this.hold ? button(t("playAgain"), () => void this.again(), { id: "play-again", class: "primary" }) : null,
      el("a", { href: `#/replay/${encodeURIComponent(this.tableId)}`, id: "replay-link", class: "button" }, t("replayLink")),
      button(t("lobby"), () => this.nav.go("#/"), { class: "link" }));
    replace(this.result, el("h2", {}, t("results")), this.outcome, actions);
    rpc.getHistory({ tableId: this.tableId, pageSize: 1000 }, callOptions(this.token)).then((history) => {
      const deals = dealResults(history.entries.flatMap((entry) => entry.events)).filter((deal) => deal.ended || deal.points.size > 0);
      const tables = deals.map((deal) => dealTable(deal, view.seats.length, names));
      this.result.insertBefore(el("div", { class: "deals" }, ...tables.reverse()), actions);
    }, () => undefined);
  }

  private async again(): Promise<void> {
    try {
      const next = await playAgain(this.tableId, this.hold, this.view);
      this.destroy();
      this.nav.go(`#/table/${encodeURIComponent(next)}`);
    } catch (error) {
      this.say(t("createFailed", { e: describeError(error) }));
    }
  }

  private renderStatus(view: View, names: ReadonlyMap<number, string>): void {
    let text: string;
    const free = view.seats.filter((seat) => !seat.occupied).length;
    if (view.outcome) text = view.outcome.reason === "reveal_timeout" || view.outcome.reason === "aborted" ? t("tableEnded") : t("gameOver");
    else if (view.awaitingReveal.length) text = revealText(view.awaitingReveal, names);
    else if (view.waitingForPlayers) text = t("waitingPlayers", { n: free });
    else if (this.myTurn() && this.busy) text = t("sending");
    else if (this.myTurn()) text = this.touch ? t("yourTurn") : t("yourTurnKeys");
    else if (view.toMove.length) text = t("waitingFor", { who: view.toMove.map((seat) => who(names, seat)).join(", ") });
    else text = "…";
    const parts = [el("span", { class: "text" }, text)];
    if (view.waitingForPlayers && this.hold && view.awaitingReveal.length === 0) {
      parts.push(el("span", { class: "share" }, ` ${t("shareHint")} `),
        button(t("leave"), () => void this.leave(), { id: "leave" }));
    }
    if (view.waitingForPlayers && !this.hold && free > 0 && view.awaitingReveal.length === 0) parts.push(this.joinForm());
    const turn = this.myTurn() && !this.busy ? "mine" : "";
    // The join form keeps what is typed into it: the status is redrawn only when it changes.
    const key = `${text}|${turn}|${parts.length}`;
    if (this.status.dataset["key"] !== key) {
      this.status.dataset["key"] = key;
      replace(this.status, ...parts);
    }
    this.status.dataset["turn"] = turn;
  }

  /** For a visitor of a table with a free seat: a name and a button to take the seat. */
  private joinForm(): HTMLElement {
    const name = el("input", { type: "text", id: "join-name", maxlength: 64, placeholder: t("namePlaceholder"), value: playerName() });
    const form = el("form", { class: "join" }, " ", name, " ", el("button", { type: "submit", id: "join" }, t("takeSeat")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      rememberName(name.value);
      joinTable(this.tableId, name.value.trim(), undefined, this.view?.variantId).then(
        () => { this.destroy(); this.nav.go(`#/table/${encodeURIComponent(this.tableId)}`); },
        (error: unknown) => this.say(t("joinFailed", { e: describeError(error) })));
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
      this.say(t("leaveFailed", { e: describeError(error) }));
    }
  }

  /** The legal moves, numbered; a move with an amount range gets a number input and presets. */
  private renderMoves(view: View): void {
    if (!this.myTurn()) {
      replace(this.moves);
      this.moves.hidden = true;
      return;
    }
    this.moves.hidden = false;
    const list = el("ol", { class: "move-list" });
    movesInHandOrder(view.legalMoves).forEach((move, index) => {
      const key = this.touch ? "" : index < 9 ? String(index + 1) : index === 9 ? "0" : "";
      const range = amountRange(move);
      const attributes = { class: `move kind-${clean(move.kind)}`, "data-index": index, "data-kind": clean(move.kind),
        disabled: this.busy, "aria-keyshortcuts": key || undefined, title: declared("moves", move.kind) };
      const keyBadge = key ? el("kbd", {}, key) : null;
      if (range === undefined) {
        const hint = move.kind === "pass" && !this.touch ? el("span", { class: "hint" }, " (p)") : null;
        list.append(el("li", {}, button([keyBadge, " ", ...moveLabel(move), hint], () => void this.submit(move), attributes)));
        return;
      }
      const start = move.amount >= range.min && move.amount <= range.max ? move.amount : range.min;
      const input = el("input", { type: "number", class: "amount-input", "data-index": index, min: range.min.toString(),
        max: range.max.toString(), step: range.step.toString(), value: start.toString(), disabled: this.busy,
        "aria-label": t("amountLabel", { a: range.min, b: range.max }) });
      // Any whole number goes to the server, which has the last word on the range: one outside
      // it comes back refused, with the range, and the page shows that answer.
      const send = (): void => {
        const amount = this.readAmount(input.value);
        if (amount === undefined) {
          this.say(t("typeAmount", { a: range.min, b: range.max }));
          return;
        }
        void this.submit(move, amount);
      };
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") { event.preventDefault(); send(); }
      });
      const presets = el("span", { class: "presets" }, ...raisePresets(view, range).map(([name, amount]) =>
        button(name, () => { input.value = amount.toString(); }, { class: "preset", "data-amount": amount.toString(), disabled: this.busy })));
      list.append(el("li", { class: "ranged" }, button([keyBadge, " ", ...moveLabel(move)], send, attributes), " ", input,
        el("span", { class: "range" }, ` ${range.min}–${range.max}`), " ", presets));
    });
    const toCall = view.detail?.["to_call"];
    const call = typeof toCall === "number"
      ? el("p", { id: "to-call", class: "to-call" }, toCall > 0 ? t("toCall", { n: toCall }) : t("nothingToCall")) : null;
    replace(this.moves, el("h2", {}, t("yourMoves")), call, list);
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
  private async submit(move: Move, amount?: bigint, quiet = false): Promise<void> {
    const view = this.view;
    if (this.busy || view === undefined || this.hold === undefined) return;
    this.busy = true;
    if (!quiet) this.say("");
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
      this.say(stale ? t("movedOn") : t("moveFailed", { e: describeError(error) }));
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
    const movers = revealing ? t("revealing") : view.toMove.map((seat) => who(this.names(), seat)).join(", ");
    this.clock.hidden = false;
    this.clock.classList.toggle("urgent", left <= 10);
    replace(this.clock, `⏱ ${t("timeLeft", { who: movers, n: left })}`);
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

/**
 * The raise presets of a ranged move: the minimum, the pot (the pot after calling, capped at
 * what the seat may put in) and all in (the range's top), each once.
 */
export function raisePresets(view: View, range: { min: bigint; max: bigint }): [string, bigint][] {
  const toCall = typeof view.detail?.["to_call"] === "number" ? BigInt(view.detail["to_call"]) : 0n;
  const level = typeof view.detail?.["level"] === "number" ? BigInt(view.detail["level"]) : 0n;
  const potSized = level + view.pot + toCall;
  const pot = potSized < range.min ? range.min : potSized > range.max ? range.max : potSized;
  const presets: [string, bigint][] = [[t("presetMin"), range.min]];
  if (pot !== range.min && pot !== range.max) presets.push([t("presetPot"), pot]);
  presets.push([t("presetAll"), range.max]);
  return presets;
}
