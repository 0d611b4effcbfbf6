/**
 * Cards as the page draws them: rank and suit symbol, red or black, one element per card the
 * viewer may see, and a card back with a count for the ones it may only count. A drawn card
 * carries its code and shoe id (data-code, data-card-id): both come from the view, which holds
 * only cards the viewer may see, and the tests read them to prove it.
 */

import { clean, el } from "./dom.js";
import { lang } from "./i18n.js";
import type { Card } from "./gen/bezique/v1/table_service_pb.js";

export const SUITS: Readonly<Record<string, string>> = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES: Readonly<Record<string, string>> = {
  S: "spades", H: "hearts", D: "diamonds", C: "clubs",
};
const RANK_NAMES: Readonly<Record<string, string>> = {
  "7": "seven", "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};
const SUIT_NAMES_RU: Readonly<Record<string, string>> = {
  S: "пик", H: "червей", D: "бубен", C: "треф",
};
const RANK_NAMES_RU: Readonly<Record<string, string>> = {
  "7": "семёрка", "8": "восьмёрка", "9": "девятка", T: "десятка", J: "валет", Q: "дама", K: "король", A: "туз",
};
const RANKS = "789TJQKA";
const SUIT_ORDER = "SHCD"; // black and red alternate in a sorted hand

/** Whether a suit letter is drawn red. */
export function isRed(suit: string): boolean {
  return suit === "H" || suit === "D";
}

/** "TH" -> "10♥": the rank as printed on a card and the suit symbol. */
export function cardLabel(code: string): string {
  const clear = clean(code);
  if (clear.length !== 2) return clear || "?";
  const rank = clear[0] === "T" ? "10" : clear[0]!;
  return rank + (SUITS[clear[1]!] ?? clear[1]!);
}

/** "TH" -> "ten of hearts", for screen readers and tooltips. */
export function cardName(code: string): string {
  const ru = lang() === "ru";
  const rank = (ru ? RANK_NAMES_RU : RANK_NAMES)[code[0] ?? ""];
  const suit = (ru ? SUIT_NAMES_RU : SUIT_NAMES)[code[1] ?? ""];
  return rank && suit ? (ru ? `${rank} ${suit}` : `${rank} of ${suit}`) : cardLabel(code);
}

/** A suit letter as its coloured symbol. */
export function suitNode(letter: string): HTMLElement {
  return el("span", { class: `suit ${isRed(letter) ? "red" : "black"}` }, SUITS[letter] ?? clean(letter));
}

function faceClass(code: string, extra: string): string {
  return `card ${isRed(code[1] ?? "") ? "red" : "black"}${extra ? ` ${extra}` : ""}`;
}

function faceChildren(code: string): HTMLElement[] {
  const label = cardLabel(code);
  const suit = label.slice(-1);
  return [el("span", { class: "rank" }, label.slice(0, -1)), el("span", { class: "pip" }, suit)];
}

/** A face-up card (a span), with its code and id. */
export function cardNode(card: Card, extra = ""): HTMLElement {
  return el("span", {
    class: faceClass(card.code, extra), "data-code": clean(card.code), "data-card-id": card.id,
    title: cardName(card.code),
  }, ...faceChildren(card.code));
}

/** A face-up card that is also a button (a card of the hand that can be played). */
export function cardButton(card: Card, action: () => void, extra = ""): HTMLButtonElement {
  const node = el("button", {
    type: "button", class: faceClass(card.code, `playable${extra ? ` ${extra}` : ""}`),
    "data-code": clean(card.code), "data-card-id": card.id, title: lang() === "ru" ? `сыграть: ${cardName(card.code)}` : `play the ${cardName(card.code)}`,
  }, ...faceChildren(card.code));
  node.addEventListener("click", (event) => {
    event.preventDefault();
    action();
  });
  return node;
}

/** Face-down cards: one back with how many there are (no code, no id: nothing to leak). */
export function backNode(count: number): HTMLElement {
  return el("span", { class: "card back", title: lang() === "ru" ? `рубашкой вверх: ${count}` : `${count} face-down card${count === 1 ? "" : "s"}` },
    el("span", { class: "count" }, `×${count}`));
}

/** A row of cards, and a back with the count of hidden ones. */
export function cardRow(cards: readonly Card[], hidden = 0, empty = "—"): HTMLElement {
  const row = el("span", { class: "cards" });
  for (const card of cards) row.appendChild(cardNode(card));
  if (hidden > 0) row.appendChild(backNode(hidden));
  if (cards.length === 0 && hidden === 0) row.appendChild(el("span", { class: "none" }, empty));
  return row;
}

/** Cards grouped by suit (♠ ♥ ♣ ♦, colours alternating) and by rank within a suit, then id. */
export function sortedCards(cards: readonly Card[]): Card[] {
  const key = (card: Card): [number, number, number] =>
    [SUIT_ORDER.indexOf(card.code[1] ?? ""), RANKS.indexOf(card.code[0] ?? ""), card.id];
  return [...cards].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

/**
 * The legal moves as the page numbers them: kinds in the order the variant offers them, and
 * moves of one kind in the order of their cards in the sorted hand, so key 1 plays the first
 * card shown.
 */
export function movesInHandOrder<M extends { readonly kind: string; readonly cards: readonly Card[] }>(
  moves: readonly M[],
): M[] {
  const kinds = new Map<string, number>();
  for (const move of moves) if (!kinds.has(move.kind)) kinds.set(move.kind, kinds.size);
  const place = new Map(sortedCards(moves.flatMap((move) => move.cards)).map((card, at) => [card.id, at]));
  const first = (move: M): number =>
    move.cards.reduce((low, card) => Math.min(low, place.get(card.id) ?? low), Number.MAX_SAFE_INTEGER);
  return [...moves].sort((a, b) => kinds.get(a.kind)! - kinds.get(b.kind)! || first(a) - first(b));
}

/** Whether a string is a card code ("TH"). */
export function isCardCode(value: unknown): boolean {
  return typeof value === "string" && value.length === 2 && RANKS.includes(value[0]!) && value[1]! in SUITS;
}
