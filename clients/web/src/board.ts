/**
 * The board of a view, drawn from the view alone: the header (variant, deal, dealer, trumps),
 * the seats with their scores or stacks and whose turn it is, the shared zones, the pot, the
 * variant's other details, the viewer's sorted hand. Used by the live table; nothing here
 * talks to the server, and nothing is drawn that the view does not hold.
 */

import { cardButton, cardNode, cardRow, sortedCards, suitNode } from "./cards.js";
import { clean, el, type Child } from "./dom.js";
import type { Card, View, Zone } from "./gen/bezique/v1/table_service_pb.js";
import { declared, valueText, who, words } from "./words.js";
import type { JsonObject } from "@bufbuild/protobuf";

const ZONE_TITLES: Readonly<Record<string, string>> = {
  trick: "Current trick", last_trick: "Last trick", trump: "Trump card", melds: "Melds",
  table: "On the table", stock: "Stock", hand: "Hand", "muck/folded": "Folded",
  "muck/shown": "Shown",
};
/** Detail keys the board shows in their own places rather than among the details. */
const BOARD_KEYS = new Set(["trump", "dealer", "deal", "contributions"]);

/** Plays a card: given the id of a card that a single-card move of kind "play" uses. */
export type PlayCard = (cardId: number) => void;

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

/** The header: variant, table, phase, deal, dealer, trumps, version. */
export function headerNode(view: View, names: ReadonlyMap<number, string>): HTMLElement {
  const detail = detailOf(view);
  const parts: Child[] = [
    el("span", { class: "variant" }, clean(view.variantId)),
    el("span", { class: "fact" }, `table ${clean(view.tableId)}`),
    el("span", { class: "fact phase" }, declared("phases", view.phase) ?? `phase ${clean(view.phase) || "—"}`),
  ];
  if (typeof detail["deal"] === "number") parts.push(el("span", { class: "fact" }, `deal ${detail["deal"]}`));
  if (typeof detail["dealer"] === "number") {
    parts.push(el("span", { class: "fact" }, `dealer: ${who(names, detail["dealer"])}`));
  }
  const trump = detail["trump"];
  if (typeof trump === "string" && trump.length === 1) {
    parts.push(el("span", { class: "fact trumps" }, "trumps ", suitNode(trump)));
  }
  parts.push(el("span", { class: "fact version" }, `version ${view.version}`));
  return el("div", { class: "facts" }, ...parts);
}

/** One box per seat: name, bot, score and/or stack, chips in the pot, cards held, to move. */
export function seatsNode(view: View, names: ReadonlyMap<number, string>): HTMLElement {
  const detail = detailOf(view);
  const stacks = view.seats.some((seat) => seat.stack !== 0n) || view.pot !== 0n;
  const scores = view.seats.some((seat) => seat.score !== 0n) || !stacks;
  const contributions = Array.isArray(detail["contributions"]) ? detail["contributions"] : undefined;
  const folded = Array.isArray(detail["folded"]) ? detail["folded"] : undefined;
  const list = el("ul", { id: "seats", class: "seats" });
  for (const seat of view.seats) {
    const moving = view.toMove.includes(seat.seat);
    const own = view.viewerSeat === seat.seat;
    const classes = ["seat", moving ? "to-move" : "", own ? "own" : "", seat.occupied ? "" : "free",
      folded?.[seat.seat] === true ? "folded" : ""].filter(Boolean).join(" ");
    const box = el("li", { class: classes, "data-seat": seat.seat },
      el("div", { class: "name" }, moving ? el("span", { class: "turn", title: "to move" }, "▶ ") : null,
        seat.occupied ? who(names, seat.seat) : `Seat ${seat.seat} (free)`,
        detail["dealer"] === seat.seat ? el("span", { class: "badge", title: "dealer" }, " D") : null));
    if (seat.botPolicy) box.append(el("div", { class: "bot" }, `${clean(seat.botPolicy)} bot`));
    if (scores) box.append(el("div", { class: "score" }, "score ", el("b", {}, seat.score.toString())));
    if (stacks) box.append(el("div", { class: "stack" }, "stack ", el("b", {}, seat.stack.toString())));
    const inPot = contributions?.[seat.seat];
    if (typeof inPot === "number" && inPot > 0) box.append(el("div", { class: "in-pot" }, `in the pot ${inPot}`));
    if (folded?.[seat.seat] === true) box.append(el("div", { class: "folded-note" }, "folded"));
    const held = own ? view.hand.length : seat.hiddenHandCount;
    box.append(el("div", { class: "held" }, `${held} card${held === 1 ? "" : "s"} held`));
    list.append(box);
  }
  return list;
}

function zoneTitle(zone: Zone, names: ReadonlyMap<number, string>): string {
  const title = declared("zones", zone.name) ?? ZONE_TITLES[zone.name] ?? words(zone.name).replace(/^./, (c) => c.toUpperCase());
  return zone.owner === undefined ? title : `${title} of ${who(names, zone.owner)}`;
}

/** The zones the viewer may see or count, cards the viewer's own moves can play clickable. */
export function zonesNode(view: View, names: ReadonlyMap<number, string>, play?: PlayCard): HTMLElement {
  const detail = detailOf(view);
  const playable = play ? playableCards(view) : new Set<number>();
  const grid = el("div", { id: "zones", class: "zones" });
  for (const zone of view.zones) {
    const box = el("section", { class: "zone", "data-zone": clean(zone.name), "data-owner": zone.owner ?? "" },
      el("h3", {}, zoneTitle(zone, names)));
    const seats = detail[`${zone.name}_seats`];
    if (Array.isArray(seats) && seats.length === zone.cards.length && zone.cards.length > 0) {
      const row = el("span", { class: "cards" });
      zone.cards.forEach((card, index) => {
        const seat = seats[index];
        row.append(el("span", { class: "played" }, cardNode(card),
          el("span", { class: "by" }, typeof seat === "number" ? who(names, seat) : valueText(seat ?? null))));
      });
      box.append(row);
    } else if (play && zone.owner === view.viewerSeat && zone.cards.some((card) => playable.has(card.id))) {
      const row = el("span", { class: "cards" });
      for (const card of zone.cards) {
        row.append(playable.has(card.id) ? cardButton(card, () => play(card.id)) : cardNode(card));
      }
      box.append(row);
    } else {
      box.append(cardRow(zone.cards, zone.hiddenCount));
    }
    grid.append(box);
  }
  if (view.pot !== 0n) {
    grid.append(el("section", { class: "zone pot", "data-zone": "pot" }, el("h3", {}, "Pot"),
      el("span", { class: "chips" }, view.pot.toString())));
  }
  return grid;
}

/** The variant's other public details, folded away under one line. */
export function detailsNode(view: View): HTMLElement | null {
  const detail = detailOf(view);
  const keys = Object.keys(detail).sort().filter((key) => !BOARD_KEYS.has(key) && !key.endsWith("_seats"));
  const shown = keys.filter((key) => {
    const value = detail[key];
    return !(value === null || value === false || value === "" || (Array.isArray(value) && value.length === 0));
  });
  if (shown.length === 0) return null;
  const list = el("dl", {});
  for (const key of shown) list.append(el("dt", {}, declared("details", key) ?? words(key)), el("dd", {}, valueText(detail[key])));
  return el("details", { id: "details", class: "details" }, el("summary", {}, "Table details"), list);
}

/** The viewer's hand, sorted; cards a legal move can play are buttons. */
export function handNode(view: View, play?: PlayCard): HTMLElement {
  const playable = play ? playableCards(view) : new Set<number>();
  const row = el("div", { id: "hand", class: "cards hand" });
  const cards: Card[] = sortedCards(view.hand);
  for (const card of cards) {
    row.append(play && playable.has(card.id) ? cardButton(card, () => play(card.id)) : cardNode(card));
  }
  if (cards.length === 0) row.append(el("span", { class: "none" }, "(no cards)"));
  return row;
}
