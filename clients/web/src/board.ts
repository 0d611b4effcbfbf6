/**
 * The board of a view as a card table, drawn from the view alone (and the shown hands the
 * page heard of): a header line (the game, the deal, the target, trumps), the seats around a
 * felt (opponents across, the viewer at the bottom) each with name, score or chips, whose turn,
 * card backs with a count for a hidden hand and the seat's melds and shown cards under it; in
 * the middle the stock, the trump card, the trick (each card by the seat that played it,
 * animated in from that seat), the last trick and the pot; the viewer's sorted hand. Nothing
 * here talks to the server, and nothing is drawn that the view does not hold.
 */

import { backNode, cardButton, cardNode, cardRow, sortedCards, suitNode } from "./cards.js";
import { clean, el, type Child } from "./dom.js";
import type { Card, View, Zone } from "./gen/bezique/v1/table_service_pb.js";
import { t } from "./i18n.js";
import type { JsonObject } from "@bufbuild/protobuf";
import { declared, label, who } from "./words.js";

/** Plays a card: given the id of a card that a single-card move of kind "play" uses. */
export type PlayCard = (cardId: number) => void;

/** A hand a seat showed in this deal (Quart's showdown): its cards and combinations. */
export interface Shown {
  readonly codes: readonly string[];
  readonly points: number;
  readonly combinations: string;
}

/** The card ids a click can play: the cards of the legal single-card "play" moves. */
export function playableCards(view: View): Set<number> {
  const ids = new Set<number>();
  for (const move of view.legalMoves) {
    if (move.kind === "play" && move.cards.length === 1) ids.add(move.cards[0]!.id);
  }
  return ids;
}

function detailOf(view: View): JsonObject {
  return view.detail ?? {};
}

/** The header: the game, the deal, the target, trumps, the dealer. */
export function headerNode(view: View, names: ReadonlyMap<number, string>, title: string): HTMLElement {
  const detail = detailOf(view);
  const parts: Child[] = [el("span", { class: "variant" }, title)];
  const phase = declared("phases", view.phase);
  if (phase) parts.push(el("span", { class: "fact phase" }, phase));
  if (typeof detail["deal"] === "number") parts.push(el("span", { class: "fact deal" }, t("deal", { n: detail["deal"] })));
  if (typeof detail["target"] === "number") parts.push(el("span", { class: "fact target" }, t("target", { n: detail["target"] })));
  const trump = detail["trump"];
  if (typeof trump === "string" && trump.length === 1) {
    parts.push(el("span", { class: "fact trumps" }, `${t("trumps")} `, suitNode(trump)));
  }
  if (typeof detail["dealer"] === "number") {
    parts.push(el("span", { class: "fact dealer" }, `${t("dealer")}: ${who(names, detail["dealer"])}`));
  }
  return el("div", { class: "facts" }, ...parts);
}

/** The order the seats sit in around the felt, starting after the viewer (or seat 0). */
function aroundFrom(view: View): number[] {
  const count = view.seats.length;
  const first = view.viewerSeat ?? 0;
  return Array.from({ length: count }, (_, index) => (first + index) % count);
}

/** Where a seat sits: bottom (the viewer), else top, left or right. */
export function placeOf(view: View, seat: number): "bottom" | "top" | "left" | "right" {
  const order = aroundFrom(view);
  const at = order.indexOf(seat);
  if (view.viewerSeat !== undefined && at === 0) return "bottom";
  const others = order.length - (view.viewerSeat !== undefined ? 1 : 0);
  const index = view.viewerSeat !== undefined ? at - 1 : at;
  if (others <= 1) return "top";
  if (index === 0) return "left";
  if (index === others - 1) return "right";
  return "top";
}

/** One seat: name, bot, score and/or chips, to move, the hidden hand, its melds and shown cards. */
function seatNode(view: View, seat: number, names: ReadonlyMap<number, string>, shown: ReadonlyMap<number, Shown>): HTMLElement {
  const detail = detailOf(view);
  const state = view.seats[seat]!;
  const stacks = view.seats.some((s) => s.stack !== 0n) || view.pot !== 0n;
  const scores = view.seats.some((s) => s.score !== 0n) || !stacks;
  const contributions = Array.isArray(detail["contributions"]) ? detail["contributions"] : undefined;
  const folded = Array.isArray(detail["folded"]) ? detail["folded"] : undefined;
  const moving = view.toMove.includes(seat) && view.outcome === undefined;
  const own = view.viewerSeat === seat;
  const place = placeOf(view, seat);
  const classes = ["seat", `at-${place}`, moving ? "to-move" : "", own ? "own" : "", state.occupied ? "" : "free",
    folded?.[seat] === true ? "folded" : ""].filter(Boolean).join(" ");
  const box = el("div", { class: classes, "data-seat": seat, "data-place": place },
    el("div", { class: "name" }, moving ? el("span", { class: "turn", title: t("toMove") }, "▶ ") : null,
      el("span", { class: "who" }, who(names, seat)),
      detail["dealer"] === seat ? el("span", { class: "badge dealer", title: t("dealer") }, t("dealerBadge")) : null));
  const line = el("div", { class: "numbers" });
  if (scores) line.append(el("span", { class: "score" }, `${t("score")} `, el("b", {}, state.score.toString())));
  if (stacks) line.append(el("span", { class: "stack" }, `${t("stack")} `, el("b", {}, state.stack.toString())));
  const inPot = contributions?.[seat];
  if (typeof inPot === "number" && inPot > 0) line.append(el("span", { class: "in-pot" }, t("inPot", { n: inPot })));
  if (folded?.[seat] === true) line.append(el("span", { class: "folded-note" }, t("folded")));
  box.append(line);
  if (!own && state.hiddenHandCount > 0) {
    box.append(el("div", { class: "hidden-hand", "data-count": state.hiddenHandCount,
      title: t("cardsHeld", { n: state.hiddenHandCount }) }, backNode(state.hiddenHandCount)));
  }
  for (const zone of view.zones) {
    if (zone.owner !== seat || zone.name === "hand") continue;
    if (zone.cards.length === 0 && zone.hiddenCount === 0) continue;
    box.append(el("div", { class: "seat-zone", "data-zone": clean(zone.name), "data-owner": seat },
      el("span", { class: "zone-title" }, zoneTitle(zone)), " ", cardRow(zone.cards, zone.hiddenCount)));
  }
  const melds = Array.isArray(detail["melds"]) ? detail["melds"][seat] : undefined;
  if (Array.isArray(melds) && melds.length > 0) {
    box.append(el("div", { class: "meld-names" }, melds.map((name) => (typeof name === "string" ? label(name) : "")).join(", ")));
  }
  const hand = shown.get(seat);
  if (hand !== undefined) {
    box.append(el("div", { class: "seat-zone shown", "data-zone": "shown", "data-owner": seat },
      el("span", { class: "zone-title" }, t("shown")), " ",
      el("span", { class: "cards" }, ...hand.codes.map((code) => cardNode({ code, id: -1 } as Card))),
      el("div", { class: "combination" }, `${hand.combinations} (${hand.points})`)));
  }
  return box;
}

function zoneTitle(zone: Zone): string {
  const fallback: Readonly<Record<string, string>> = {
    melds: t("melds"), trick: t("trick"), last_trick: t("lastTrick"), trump: t("trumpCard"), stock: t("stock"),
    "muck/shown": t("shown"),
  };
  return declared("zones", zone.name) ?? fallback[zone.name] ?? label(zone.name);
}

/** Cards already drawn in the trick: a card new there slides in from its seat, once. */
const inTrick = new Set<number>();

/** The middle of the felt: the stock, the trump card, the trick, the last trick, the pot. */
function middleNode(view: View, names: ReadonlyMap<number, string>): HTMLElement {
  const detail = detailOf(view);
  const middle = el("div", { id: "zones", class: "middle" });
  const zone = (name: string): Zone | undefined => view.zones.find((z) => z.name === name && z.owner === undefined);
  const stock = zone("stock");
  const trump = zone("trump");
  const pile = el("div", { class: "pile" });
  if (stock !== undefined || (trump !== undefined && detail["stock_exhausted"] === false)) {
    const count = stock?.hiddenCount ?? 0;
    pile.append(el("div", { class: "zone stock", "data-zone": "stock" },
      el("span", { class: "card back", title: t("stock") }, count > 0 ? el("span", { class: "count" }, `${count}`) : null),
      el("div", { class: "zone-title" }, count > 0 ? `${t("stock")} · ${t("stockCount", { n: count })}` : t("stock"))));
  }
  if (trump !== undefined) {
    pile.append(el("div", { class: "zone trump", "data-zone": "trump" }, cardRow(trump.cards, trump.hiddenCount),
      el("div", { class: "zone-title" }, t("trumpCard"))));
  }
  if (pile.childElementCount > 0) middle.append(pile);
  const trick = zone("trick");
  const seats = detail["trick_seats"];
  const shownNow = new Set<number>();
  const trickBox = el("div", { class: "zone trick", "data-zone": "trick" });
  (trick?.cards ?? []).forEach((card, index) => {
    const seat = Array.isArray(seats) ? seats[index] : undefined;
    const from = typeof seat === "number" ? placeOf(view, seat) : "top";
    const fresh = !inTrick.has(card.id);
    shownNow.add(card.id);
    trickBox.append(el("span", { class: `played from-${from}${fresh ? " arriving" : ""}` }, cardNode(card),
      el("span", { class: "by" }, typeof seat === "number" ? who(names, seat) : "")));
  });
  inTrick.clear();
  for (const id of shownNow) inTrick.add(id);
  middle.append(trickBox);
  const last = zone("last_trick");
  if (last !== undefined && last.cards.length > 0) {
    middle.append(el("div", { class: "zone last-trick", "data-zone": "last_trick" },
      el("div", { class: "zone-title" }, zoneTitle(last)), cardRow(last.cards)));
  }
  for (const other of view.zones) {
    if (other.owner !== undefined || ["stock", "trump", "trick", "last_trick", "muck/shown"].includes(other.name)) continue;
    if (other.cards.length === 0 && other.hiddenCount === 0) continue;
    middle.append(el("div", { class: "zone", "data-zone": clean(other.name) },
      el("div", { class: "zone-title" }, zoneTitle(other)), cardRow(other.cards, other.hiddenCount)));
  }
  if (view.pot !== 0n) {
    middle.append(el("div", { class: "zone pot", "data-zone": "pot" }, el("div", { class: "zone-title" }, t("pot")),
      el("span", { class: "chips" }, view.pot.toString())));
  }
  return middle;
}

/** The felt: the seats around the middle, the viewer's seat at the bottom. */
export function feltNode(view: View, names: ReadonlyMap<number, string>, shown: ReadonlyMap<number, Shown>): HTMLElement {
  const felt = el("div", { id: "seats", class: "felt seats", "data-seats": view.seats.length });
  const places = { top: el("div", { class: "side top" }), left: el("div", { class: "side left" }),
    right: el("div", { class: "side right" }), bottom: el("div", { class: "side bottom" }) };
  for (const seat of aroundFrom(view)) places[placeOf(view, seat)].append(seatNode(view, seat, names, shown));
  felt.append(places.top, places.left, middleNode(view, names), places.right, places.bottom);
  return felt;
}

/** The viewer's hand, sorted; cards a legal move can play are buttons. */
export function handNode(view: View, play?: PlayCard): HTMLElement {
  const playable = play ? playableCards(view) : new Set<number>();
  const row = el("div", { id: "hand", class: "cards hand" });
  const cards: Card[] = sortedCards(view.hand);
  for (const card of cards) {
    row.append(play && playable.has(card.id) ? cardButton(card, () => play(card.id)) : cardNode(card));
  }
  if (cards.length === 0) row.append(el("span", { class: "none" }, "—"));
  return row;
}

