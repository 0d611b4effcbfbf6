/** What the per-game deal checks share: the canonical shoe, the verdict of a deal, a comparer. */

import type { Chance } from "./chance.js";
import { cardText, type CardLike, type HistoryLike, sameCard } from "./history.js";

export const SUITS = ["S", "H", "D", "C"] as const;

/** The shoe in canonical order: pack by pack, suit by suit (♠ ♥ ♦ ♣), rank by rank; id = index. */
export function canonicalShoe(packs: number, ranks: string): CardLike[] {
  const shoe: CardLike[] = [];
  for (let pack = 0; pack < packs; pack += 1) {
    for (const suit of SUITS) {
      for (const rank of ranks) shoe.push({ code: `${rank}${suit}`, id: shoe.length });
    }
  }
  return shoe;
}

/** One chance step's verdict: a deal, or the draw for the first dealer. */
export interface Verdict {
  readonly step: string;
  readonly ok: boolean;
  /** What was checked (ok), or the first thing that differs (failed). */
  readonly text: string;
  /** Set when the step could not be checked at all (not ok, but nothing found to differ). */
  readonly unchecked?: true;
}

/** What a game's check gets: the history, its chance, and whether test settings stacked deal 1. */
export interface GameInput {
  readonly history: HistoryLike;
  readonly chance: Chance;
  readonly stackedFirstDeal: boolean;
}

export type GameCheck = (input: GameInput) => Promise<Verdict[]>;

/** Collects the first difference between what the history shows and what the seed derives. */
export class Differ {
  first: string | undefined;

  fail(text: string): void {
    this.first ??= text;
  }

  card(where: string, shown: CardLike | undefined, derived: CardLike | undefined): void {
    if (!sameCard(shown, derived)) this.fail(`${where}: the history shows ${cardText(shown)}, the seed derives ${cardText(derived)}`);
  }

  cards(where: string, shown: readonly CardLike[], derived: readonly CardLike[]): void {
    if (shown.length !== derived.length) {
      this.fail(`${where}: the history shows ${shown.length} cards, the seed derives ${derived.length}`);
    }
    shown.forEach((card, i) => this.card(`${where}, card ${i + 1}`, card, derived[i]));
  }

  seat(where: string, shown: number | undefined, derived: number): void {
    if (shown !== derived) this.fail(`${where}: the history names seat ${shown ?? "none"}, the rules give seat ${derived}`);
  }

  verdict(step: string, checked: string): Verdict {
    return this.first === undefined ? { step, ok: true, text: checked } : { step, ok: false, text: this.first };
  }
}

export function optionNumber(history: HistoryLike, name: string, fallback: number): number {
  const value = Number(history.options[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
