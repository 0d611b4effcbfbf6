/**
 * The replay of a table from its history (GetHistory, every page), from its first step: the
 * board at the chosen step (every seat's hand as the events dealt, drew and played it, the
 * trick, the last trick, the running scores or chips), the log entry by entry as sentences,
 * stepped through with controls that stay in view, a slider or the arrow keys. It shows exactly
 * what the history gives the caller: before the end other hands are counted, not shown; once
 * the game has ended the seed is revealed and every card with it, and the page checks that
 * every deal is the one the seed and the seats' entropy derive (fairness.ts).
 */

import { callOptions, describeError, heldSeat, rpc } from "./api.js";
import { cardNode, cardRow, sortedCards } from "./cards.js";
import { button, clean, el, replace } from "./dom.js";
import { fairnessSection } from "./fairness.js";
import type { Card, GetHistoryResponse, HistoryEntry } from "./gen/bezique/v1/table_service_pb.js";
import { t } from "./i18n.js";
import { dealResults, dealTable } from "./results.js";
import { learnWords, type Navigator } from "./table.js";
import { distinct, entrySentence, eventSentence, moveText, outcomeText, who } from "./words.js";

const TRICK_ENDS = new Set(["trick", "round_won"]);
const DEAL_STARTS = new Set(["dealer", "deal_start"]);
const CHIP_KINDS = new Set(["ante", "bet", "raise", "allin", "show", "call", "pot_won", "carry_over", "fold"]);
const MOVE_ENTRIES = new Set(["move", "bot_move", "timeout"]);

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The names of the seats as the history's joined entries give them. */
function historyNames(entries: readonly HistoryEntry[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const entry of entries) {
    if (entry.entryKind === "joined" && entry.seat !== undefined) {
      const name = clean(entry.displayName) || (entry.botPolicy ? t("botNamed", { bot: clean(entry.botPolicy) }) : "");
      names.set(entry.seat, name || t("seatN", { n: entry.seat + 1 }));
    }
  }
  return distinct(names);
}

/** The table at one step of the history: hands, trick, last trick, scores or chips. */
export interface Board {
  readonly hands: Map<number, Map<number, Card>>;
  current: Card[];
  last: Card[];
  readonly scores: Map<number, bigint>;
  readonly stacks: Map<number, number>;
}

/** The board after `entries`, from their events alone. */
export function boardAt(entries: readonly HistoryEntry[]): Board {
  const board: Board = { hands: new Map(), current: [], last: [], scores: new Map(), stacks: new Map() };
  const hand = (seat: number): Map<number, Card> => {
    const found = board.hands.get(seat) ?? new Map<number, Card>();
    board.hands.set(seat, found);
    return found;
  };
  for (const entry of entries) {
    for (const event of entry.events) {
      const detail = event.detail ?? {};
      if (DEAL_STARTS.has(event.kind)) { board.current = []; board.last = []; board.hands.clear(); }
      const seat = event.seat;
      if (seat !== undefined && (event.kind === "deal" || event.kind === "draw")) for (const card of event.cards) hand(seat).set(card.id, card);
      if (seat !== undefined && event.kind === "play") for (const card of event.cards) hand(seat).delete(card.id);
      if (seat !== undefined && event.kind === "exchange_seven" && event.cards.length === 2) {
        hand(seat).delete(event.cards[0]!.id);
        hand(seat).set(event.cards[1]!.id, event.cards[1]!);
      }
      if (event.kind === "play") board.current.push(...event.cards);
      if (TRICK_ENDS.has(event.kind)) { board.last = event.cards.length ? [...event.cards] : board.current; board.current = []; }
      if (seat !== undefined && typeof detail["stack"] === "number") board.stacks.set(seat, detail["stack"]);
      else if (seat !== undefined && event.amount !== 0n && !CHIP_KINDS.has(event.kind)) {
        board.scores.set(seat, (board.scores.get(seat) ?? 0n) + event.amount);
      }
      const totals = detail["scores"];
      if (event.kind === "deal_end" && Array.isArray(totals)) {
        totals.forEach((value, at) => { if (typeof value === "number") board.scores.set(at, BigInt(value)); });
      }
      const stacks = detail["stacks"];
      if (event.kind === "deal_end" && Array.isArray(stacks)) {
        stacks.forEach((value, at) => { if (typeof value === "number") board.stacks.set(at, value); });
      }
    }
  }
  return board;
}

/** The step each replay was left at in this page (a language switch draws the page again). */
const lastStep = new Map<string, number>();

export class ReplayPage {
  private step = 0;
  private entries: HistoryEntry[] = [];
  private items: HTMLElement[] = [];
  private readonly keys = (event: KeyboardEvent): void => this.onKey(event);
  private readonly slider = el("input", { type: "range", id: "replay-step", min: 0, max: 0, value: 0, "aria-label": "step" });
  private readonly position = el("span", { id: "replay-position" });
  private readonly board = el("div", { id: "replay-board", class: "replay-board" });
  private readonly list = el("ol", { id: "replay-log", class: "events replay" });

  constructor(private readonly root: HTMLElement, private readonly tableId: string, private readonly nav: Navigator) {}

  async start(): Promise<void> {
    replace(this.root, el("div", { id: "replay", class: "replay-page" }, el("p", {}, t("readingHistory"))));
    let history: GetHistoryResponse;
    const entries: HistoryEntry[] = [];
    try {
      const token = heldSeat(this.tableId)?.token;
      let pageToken = "";
      do {
        history = await rpc.getHistory({ tableId: this.tableId, pageToken, pageSize: 1000 }, callOptions(token));
        entries.push(...history.entries);
        pageToken = history.nextPageToken;
      } while (pageToken);
    } catch (error) {
      replace(this.root, el("div", { id: "replay", class: "replay-page" },
        el("p", { class: "notice" }, t("noReplay", { e: describeError(error) })),
        button(t("lobby"), () => this.nav.go("#/"), { class: "link" })));
      return;
    }
    this.entries = entries;
    const title = await learnWords(history.variantId);
    this.draw(history, historyNames(entries), title);
    document.addEventListener("keydown", this.keys);
  }

  destroy(): void {
    document.removeEventListener("keydown", this.keys);
  }

  private names = new Map<number, string>();
  private seatCount = 0;

  private draw(history: GetHistoryResponse, names: Map<number, string>, title: string): void {
    this.names = names;
    this.seatCount = Math.max(0, ...[...names.keys()].map((seat) => seat + 1));
    const options = Object.keys(history.options).sort().map((key) => `${clean(key)}=${clean(history.options[key] ?? "")}`).join(", ");
    const facts = el("details", { class: "replay-facts" }, el("summary", {}, t("details")), el("dl", { class: "facts-list" },
      el("dt", {}, t("options")), el("dd", {}, options || t("defaults")),
      el("dt", {}, t("seedCommitment")), el("dd", {}, el("code", {}, clean(history.seedCommitment))),
      el("dt", {}, t("revealedSeed")), el("dd", {}, history.revealedSeed.length ? el("code", {}, hex(history.revealedSeed)) : t("notYet"))));
    this.items = this.entries.map((entry, index) => this.entryItem(entry, names, index + 1));
    replace(this.list, ...this.items);
    this.slider.max = String(this.entries.length);
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
    const controls = el("div", { class: "replay-controls", id: "replay-controls" },
      button("«", () => this.show(1), { title: t("start"), "aria-label": t("start"), id: "replay-start" }),
      button("◀", () => this.show(this.step - 1), { title: t("back"), "aria-label": t("back"), id: "replay-back" }),
      this.slider,
      button("▶", () => this.show(this.step + 1), { title: t("next"), "aria-label": t("next"), id: "replay-next" }),
      button("»", () => this.show(this.entries.length), { title: t("end"), "aria-label": t("end"), id: "replay-end" }),
      " ", this.position);
    const outcome = history.outcome ? el("p", { id: "outcome", class: "outcome" }, outcomeText(history.outcome, names)) : null;
    const note = el("p", { class: "about" }, history.finished ? t("gameIsOver") : t("gameNotOver"));
    const deals = dealResults(this.entries.flatMap((entry) => entry.events)).filter((deal) => deal.ended);
    const results = history.outcome
      ? el("details", { id: "replay-results", class: "result" }, el("summary", {}, t("results")),
        ...deals.map((deal) => dealTable(deal, this.seatCount, names)), outcome)
      : null;
    replace(this.root, el("div", { id: "replay", class: "replay-page" },
      el("h1", {}, t("replayOf", { game: title })), note,
      fairnessSection({ ...history, entries: this.entries }), controls, this.board, results, facts,
      el("details", { class: "log", open: true }, el("summary", {}, t("whatHappened")), this.list),
      el("footer", {}, button(t("lobby"), () => this.nav.go("#/"), { class: "link" }))));
    this.show(Math.min(lastStep.get(this.tableId) ?? 1, this.entries.length));
  }

  private entryItem(entry: HistoryEntry, names: Map<number, string>, step: number): HTMLElement {
    const item = el("li", { "data-version": entry.version.toString(), "data-entry": clean(entry.entryKind) });
    const head = el("span", { class: "step" }, `${step}. `);
    item.append(head);
    if (entry.events.some((event) => DEAL_STARTS.has(event.kind))) item.classList.add("deal-start");
    const told = entry.events.some((event) => event.seat === entry.seat && event.kind === entry.move?.kind);
    if (MOVE_ENTRIES.has(entry.entryKind) && entry.move && entry.move.kind && (!told || entry.entryKind === "timeout")) {
      // The move in words, where its own events do not already say it (or the clock made it).
      const actor = who(names, entry.seat);
      item.append(el("span", { class: "move" }, `${actor}: ${moveText(entry.move)}${entry.entryKind === "timeout" ? " (time ran out)" : ""}`), " → ");
    } else if (entry.events.length === 0) {
      item.append(entrySentence(entry.entryKind, entry.seat, names));
    }
    for (const event of entry.events) item.append(eventSentence(event, names), " ");
    return item;
  }

  /** Show the log up to step `step` (0: before the first entry) and the table at that step. */
  private show(step: number): void {
    this.step = Math.max(0, Math.min(step, this.entries.length));
    this.slider.value = String(this.step);
    this.items.forEach((item, index) => {
      item.hidden = index >= this.step;
      item.classList.toggle("current", index === this.step - 1);
    });
    replace(this.position, t("step", { n: this.step, m: this.entries.length }));
    this.position.dataset["step"] = String(this.step);
    lastStep.set(this.tableId, this.step);
    this.drawBoard();
    const current = this.items[this.step - 1];
    if (current && typeof current.scrollIntoView === "function") current.scrollIntoView({ block: "nearest" });
  }

  /** The table at this step: every seat's hand and score, the trick, the last trick. */
  private drawBoard(): void {
    const board = boardAt(this.entries.slice(0, this.step));
    const chips = board.stacks.size > 0;
    const seats = Array.from({ length: this.seatCount }, (_, seat) => {
      const cards = sortedCards([...(board.hands.get(seat)?.values() ?? [])]);
      const number = chips ? board.stacks.get(seat) : board.scores.get(seat) ?? 0n;
      return el("div", { class: "replay-seat", "data-seat": seat },
        el("div", { class: "name" }, who(this.names, seat), " ",
          el("span", { class: chips ? "stack" : "score" }, `${chips ? t("stack") : t("score")} `, el("b", {}, String(number ?? "—")))),
        el("span", { class: "cards hand" }, ...cards.map((card) => cardNode(card)), cards.length ? null : "—"));
    });
    const row = el("span", { class: "cards" });
    for (const card of board.current) row.append(cardNode(card));
    replace(this.board, el("div", { class: "replay-seats" }, ...seats),
      el("div", { class: "replay-middle" },
        el("div", {}, el("b", {}, `${t("trick")}: `), board.current.length ? row : cardRow([])),
        el("div", {}, el("b", {}, `${t("lastTrick")}: `), cardRow(board.last))));
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement | null;
    if (target && target.tagName === "INPUT" && target !== this.slider) return;
    const moves: Record<string, number> = { ArrowRight: this.step + 1, ArrowLeft: this.step - 1, Home: 0, End: this.entries.length };
    const next = moves[event.key];
    if (next === undefined || target === this.slider) return;
    event.preventDefault();
    this.show(next);
  }
}
