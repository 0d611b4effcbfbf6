/**
 * The result of each deal and of the game, from the table's events: for Bezique the points of
 * each seat by meld, the seven of trumps, brisques and the last trick; for Quart each seat's
 * shown hand and its combination, and the chips won. Used by the table's result screen and the
 * replay; it reads events only, so it shows what the caller's history holds.
 */

import { cardRow } from "./cards.js";
import { el, type Child } from "./dom.js";
import type { Event } from "./gen/bezique/v1/table_service_pb.js";
import { t, type Key } from "./i18n.js";
import { combinationsText, label, who } from "./words.js";

const DEAL_STARTS = new Set(["dealer", "deal_start"]);

/** One deal's result: points per seat by what earned them, shown hands, totals after it. */
export interface DealResult {
  deal: number;
  readonly melds: Map<number, string[]>;
  readonly points: Map<Key, Map<number, bigint>>;
  readonly shown: Map<number, { codes: string[]; text: string; points: bigint }>;
  totals?: number[];
  ended: boolean;
}

const POINT_ROWS: Readonly<Record<string, Key>> = {
  declare: "meldsRow", exchange_seven: "sevenRow", show_seven: "sevenRow", brisques: "brisquesRow",
  last_trick: "lastTrickRow", pot_won: "chipsRow",
};

function fresh(deal: number): DealResult {
  return { deal, melds: new Map(), points: new Map(), shown: new Map(), ended: false };
}

function numbers(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "number") ? value as number[] : undefined;
}

/** The deals of a run of events, in order (the last may still be under way). */
export function dealResults(events: readonly Event[]): DealResult[] {
  const deals: DealResult[] = [];
  let current: DealResult | undefined;
  for (const event of events) {
    const detail = event.detail ?? {};
    if (DEAL_STARTS.has(event.kind) && (current === undefined || current.ended)) {
      const number = typeof detail["deal"] === "number" ? detail["deal"] : deals.length + 1;
      current = fresh(number);
      deals.push(current);
      continue;
    }
    if (current === undefined) continue;
    const row = POINT_ROWS[event.kind];
    if (row !== undefined && event.seat !== undefined && event.amount !== 0n) {
      const byRow = current.points.get(row) ?? new Map<number, bigint>();
      byRow.set(event.seat, (byRow.get(event.seat) ?? 0n) + event.amount);
      current.points.set(row, byRow);
    }
    if (event.kind === "declare" && event.seat !== undefined && event.label) {
      current.melds.set(event.seat, [...(current.melds.get(event.seat) ?? []), `${label(event.label)} ${event.amount}`]);
    }
    if (event.kind === "reveal" && event.seat !== undefined && Array.isArray(detail["hand"])) {
      current.shown.set(event.seat, {
        codes: detail["hand"].filter((code): code is string => typeof code === "string"),
        text: combinationsText(detail["combinations"]), points: event.amount,
      });
    }
    if (event.kind === "deal_end") {
      current.totals = numbers(detail["scores"]) ?? numbers(detail["stacks"]);
      current.ended = true;
    }
  }
  return deals;
}

/** A deal's result as a table: a row per kind of points, a column per seat. */
export function dealTable(result: DealResult, seats: number, names: ReadonlyMap<number, string>): HTMLElement {
  const head = el("tr", {}, el("th", {}, ""), ...Array.from({ length: seats }, (_, seat) => el("th", { "data-seat": seat }, who(names, seat))));
  const rows: HTMLElement[] = [];
  const cell = (value: Child, seat: number): HTMLElement => el("td", { "data-seat": seat }, value);
  if (result.melds.size > 0) {
    rows.push(el("tr", { class: "melds" }, el("th", {}, t("meldsRow")),
      ...Array.from({ length: seats }, (_, seat) => cell((result.melds.get(seat) ?? []).join(", ") || "—", seat))));
  }
  for (const key of ["sevenRow", "brisquesRow", "lastTrickRow", "chipsRow"] as const) {
    const byRow = result.points.get(key);
    if (byRow === undefined) continue;
    rows.push(el("tr", { class: key }, el("th", {}, t(key)),
      ...Array.from({ length: seats }, (_, seat) => cell(byRow.get(seat)?.toString() ?? "—", seat))));
  }
  if (result.shown.size > 0) {
    rows.push(el("tr", { class: "shown" }, el("th", {}, t("handRow")),
      ...Array.from({ length: seats }, (_, seat) => {
        const hand = result.shown.get(seat);
        return cell(hand ? cardRow(hand.codes.map((code) => ({ code, id: -1 }) as never)) : "—", seat);
      })));
    rows.push(el("tr", { class: "combination" }, el("th", {}, t("combination")),
      ...Array.from({ length: seats }, (_, seat) => {
        const hand = result.shown.get(seat);
        return cell(hand ? `${hand.text} (${hand.points})` : "—", seat);
      })));
  }
  if (result.totals !== undefined) {
    rows.push(el("tr", { class: "total" }, el("th", {}, t("totalRow")),
      ...Array.from({ length: seats }, (_, seat) => cell(el("b", {}, String(result.totals?.[seat] ?? "—")), seat))));
  }
  return el("table", { class: "result-table", "data-deal": result.deal },
    el("caption", {}, t("dealResult", { n: result.deal })), el("thead", {}, head), el("tbody", {}, ...rows));
}
