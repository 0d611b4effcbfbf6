/**
 * The replay of a table from its history (GetHistory, every page): the table's facts, then
 * the log entry by entry as sentences, stepped through with buttons, a slider or the arrow
 * keys, with the cards on the table at the chosen step. It shows exactly what the history
 * gives the caller: before the end other hands are counted, not shown; once the game has
 * ended the seed is revealed and every card with it, and the page checks that every deal is the
 * one the seed and the seats' entropy derive (fairness.ts).
 */

import { callOptions, describeError, heldSeat, rpc } from "./api.js";
import { cardNode, cardRow } from "./cards.js";
import { button, clean, el, replace } from "./dom.js";
import { fairnessSection } from "./fairness.js";
import type { Card, GetHistoryResponse, HistoryEntry } from "./gen/bezique/v1/table_service_pb.js";
import { learnWords, type Navigator } from "./table.js";
import { entrySentence, eventSentence, moveText, outcomeText } from "./words.js";

const TRICK_ENDS = new Set(["trick", "round_won"]);
const DEAL_STARTS = new Set(["dealer", "deal_start"]);
const MOVE_ENTRIES = new Set(["move", "bot_move", "timeout"]);

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The names of the seats as the history's joined entries give them. */
function historyNames(entries: readonly HistoryEntry[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const entry of entries) {
    if (entry.entryKind === "joined" && entry.seat !== undefined) {
      const name = clean(entry.displayName) || (entry.botPolicy ? `${clean(entry.botPolicy)} bot` : "");
      names.set(entry.seat, name ? `Seat ${entry.seat} (${name})` : `Seat ${entry.seat}`);
    }
  }
  return names;
}

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
    replace(this.root, el("div", { id: "replay", class: "replay-page" }, el("p", {}, "Reading the history…")));
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
        el("p", { class: "notice" }, `No replay: ${describeError(error)}`),
        button("Lobby", () => this.nav.go("#/"), { class: "link" })));
      return;
    }
    this.entries = entries;
    await learnWords(history.variantId);
    this.draw(history, historyNames(entries));
    document.addEventListener("keydown", this.keys);
  }

  destroy(): void {
    document.removeEventListener("keydown", this.keys);
  }

  private draw(history: GetHistoryResponse, names: Map<number, string>): void {
    const options = Object.keys(history.options).sort().map((key) => `${clean(key)}=${clean(history.options[key] ?? "")}`).join(", ");
    const facts = el("dl", { class: "facts-list" },
      el("dt", {}, "variant"), el("dd", {}, `${clean(history.variantId)} (version ${history.variantVersion})`),
      el("dt", {}, "options"), el("dd", {}, options || "defaults"),
      el("dt", {}, "seed commitment"), el("dd", {}, el("code", {}, clean(history.seedCommitment))),
      el("dt", {}, "revealed seed"), el("dd", {}, history.revealedSeed.length ? el("code", {}, hex(history.revealedSeed)) : "not yet (the game is not over)"));
    this.items = this.entries.map((entry) => this.entryItem(entry, names));
    replace(this.list, ...this.items);
    this.slider.max = String(this.entries.length);
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
    const controls = el("div", { class: "replay-controls" },
      button("Start", () => this.show(0), { title: "start (Home)", id: "replay-start" }),
      button("◀", () => this.show(this.step - 1), { title: "back (←)", id: "replay-back" }),
      this.slider,
      button("▶", () => this.show(this.step + 1), { title: "next (→)", id: "replay-next" }),
      button("End", () => this.show(this.entries.length), { title: "end (End)", id: "replay-end" }),
      " ", this.position);
    const outcome = history.outcome ? el("p", { id: "outcome", class: "outcome" }, outcomeText(history.outcome, names)) : null;
    const note = history.finished
      ? el("p", { class: "about" }, "The game is over and its seed revealed: the history shows every hand, folded ones included.")
      : el("p", { class: "about" }, "The game is not over: only what every player may see is shown.");
    replace(this.root, el("div", { id: "replay", class: "replay-page" },
      el("h1", {}, `Replay of table ${clean(history.tableId)}`), facts, note,
      fairnessSection({ ...history, entries: this.entries }), outcome, controls, this.board, this.list,
      el("footer", {}, button("Lobby", () => this.nav.go("#/"), { class: "link" }))));
    this.show(this.entries.length);
  }

  private entryItem(entry: HistoryEntry, names: Map<number, string>): HTMLElement {
    const item = el("li", { "data-version": entry.version.toString(), "data-entry": clean(entry.entryKind) });
    const head = el("span", { class: "step" }, `v${entry.version} `);
    item.append(head);
    if (entry.events.some((event) => DEAL_STARTS.has(event.kind))) item.classList.add("deal-start");
    const told = entry.events.some((event) => event.seat === entry.seat && event.kind === entry.move?.kind);
    if (MOVE_ENTRIES.has(entry.entryKind) && entry.move && entry.move.kind && (!told || entry.entryKind === "timeout")) {
      // The move in words, where its own events do not already say it (or the clock made it).
      const actor = entry.seat === undefined ? "The table" : names.get(entry.seat) ?? `Seat ${entry.seat}`;
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
    replace(this.position, `step ${this.step} of ${this.entries.length}`);
    this.drawBoard();
    this.items[this.step - 1]?.scrollIntoView({ block: "nearest" });
  }

  /** The cards of the trick (or round) in progress at this step, and the last one taken. */
  private drawBoard(): void {
    let current: Card[] = [];
    let last: Card[] = [];
    for (const entry of this.entries.slice(0, this.step)) {
      for (const event of entry.events) {
        if (DEAL_STARTS.has(event.kind)) { current = []; last = []; }
        if (event.kind === "play") current.push(...event.cards);
        if (TRICK_ENDS.has(event.kind)) { last = event.cards.length ? [...event.cards] : current; current = []; }
      }
    }
    const row = el("span", { class: "cards" });
    for (const card of current) row.append(cardNode(card));
    replace(this.board, el("div", {}, el("b", {}, "On the table: "), current.length ? row : cardRow([])),
      el("div", {}, el("b", {}, "Last trick: "), cardRow(last)));
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
