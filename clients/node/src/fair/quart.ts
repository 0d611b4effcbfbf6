/**
 * Quart-Bezique and trump Quart-Bezique, from docs/rules/quart-bezique.md "Cards, seats,
 * chance": the lot (one purpose per card drawn), and each deal's four cards a seat, one at a
 * time clockwise from the dealer's left to the seats that paid the ante, then the trump card.
 */

import { canonicalShoe, Differ, type GameCheck, type GameInput, type Verdict } from "./common.js";
import { type CardLike, detailNumber, type EventLike, placedEvents } from "./history.js";
import { checkLot } from "./lot.js";

const RANKS = "9TJQKA";
const PACKS = 6;
const HAND = 4;
const MAX_LOT_ROUNDS = 1000;

interface Deal {
  readonly start: EventLike;
  readonly antes: number[];
  readonly hands: EventLike[];
  trump?: EventLike;
}

function sortEvents(input: GameInput): { lots: EventLike[]; dealer?: EventLike; deals: Deal[] } {
  const lots: EventLike[] = [];
  const deals: Deal[] = [];
  let dealer: EventLike | undefined;
  let deal: Deal | undefined;
  for (const { event } of placedEvents(input.history)) {
    switch (event.kind) {
      case "lot": lots.push(event); break;
      case "dealer": dealer ??= event; break;
      case "deal_start":
        deal = { start: event, antes: [], hands: [] };
        deals.push(deal);
        break;
      case "ante": if (deal && event.seat !== undefined) deal.antes.push(event.seat); break;
      case "deal": deal?.hands.push(event); break;
      case "trump": if (deal) deal.trump = event; break;
      default: break;
    }
  }
  return dealer === undefined ? { lots, deals } : { lots, dealer, deals };
}

export const checkQuart: GameCheck = async (input) => {
  const { history, chance } = input;
  const players = Number(history.options.players ?? "4");
  const trumpVariant = history.variantId === "trump-quart-bezique";
  const shoe = canonicalShoe(PACKS, RANKS);
  const { lots, dealer, deals } = sortEvents(input);
  const verdicts: Verdict[] = [];
  if (dealer === undefined) return [{ step: "lot", ok: false, text: "the history shows no first dealer" }];
  // draw k (over every round) picks among the cards of the unshuffled shoe not drawn yet
  const left = [...shoe];
  let draw = 0;
  const round = async (drawing: readonly number[]): Promise<CardLike[]> => {
    const cards: CardLike[] = [];
    for (let i = 0; i < drawing.length; i += 1) {
      draw += 1;
      cards.push(...left.splice(await chance.below(`lot/${draw}`, left.length), 1));
    }
    return cards;
  };
  verdicts.push(await checkLot(input, lots, dealer, { players, order: RANKS, round, maxRounds: MAX_LOT_ROUNDS }));

  let previousDealer: number | undefined;
  for (const [index, deal] of deals.entries()) {
    const number = detailNumber(deal.start, "deal") ?? index + 1;
    const name = `deal ${number}`;
    const differ = new Differ();
    const dealt = deal.antes;
    const dealerSeat = deal.start.seat ?? -1;
    // clockwise from the dealer's left: seat numbers rising from the dealer's, round the table
    const clockwise = (seat: number): number => (seat - dealerSeat - 1 + players) % players;
    const order = [...dealt].sort((a, b) => clockwise(a) - clockwise(b));
    if (index === 0) differ.seat(`the dealer`, dealerSeat, dealer.seat ?? -1);
    if (previousDealer !== undefined) {
      const after = (seat: number): number => (seat - previousDealer! - 1 + players) % players;
      const expected = [...dealt].sort((a, b) => after(a) - after(b))[0] ?? -1;
      differ.seat(`the dealer (the next seat clockwise that pays the ante)`, dealerSeat, expected);
    }
    previousDealer = dealerSeat;
    if (order.at(-1) !== dealerSeat) differ.fail(`dealer seat ${dealerSeat} did not pay the ante`);
    if (number === 1 && input.stackedFirstDeal) {
      verdicts.push(differ.verdict(name, "shoe stacked by test settings: not derived from the seed"));
      continue;
    }
    const count = HAND * order.length + (trumpVariant ? 1 : 0);
    const top = await chance.draw(`deal/${number}`, shoe, count);
    order.forEach((seat, i) => {
      const shown = deal.hands[i];
      const where = `seat ${seat}'s hand`;
      if (shown === undefined) {
        differ.fail(`${where}: missing from the history`);
        return;
      }
      differ.seat(`hand ${i + 1}`, shown.seat, seat);
      const derived = Array.from({ length: HAND }, (_, round) => top[round * order.length + i])
        .filter((card): card is CardLike => card !== undefined);
      differ.cards(where, shown.cards, derived);
    });
    if (deal.hands.length !== order.length) differ.fail(`the history shows ${deal.hands.length} hands dealt, ${order.length} seats paid the ante`);
    if (trumpVariant) differ.card(`the trump card`, deal.trump?.cards[0], top[HAND * order.length]);
    else if (deal.trump !== undefined) differ.fail(`a trump card in a game without trumps`);
    verdicts.push(differ.verdict(name, `dealer seat ${dealerSeat}, ${HAND * order.length} cards dealt to seats ${order.join(", ")}`
      + (trumpVariant ? `, trump card ${top[HAND * order.length]?.code ?? "?"}` : "")));
  }
  if (deals.length === 0) verdicts.push({ step: "deal 1", ok: false, text: "the history shows no deal" });
  return verdicts;
};
