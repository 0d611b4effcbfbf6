/**
 * Quart-Bezique and trump Quart-Bezique, from docs/rules/quart-bezique.md "Cards, seats,
 * chance": the lot (one purpose per card drawn), and each deal's four cards a seat, one at a
 * time clockwise from the dealer's left to the seats that paid the ante, then the trump card.
 */

import { canonicalShoe, Differ, type GameCheck, type GameInput, type Verdict } from "./common.js";
import { type CardLike, detailNumber, detailString, type EventLike, placedEvents } from "./history.js";

const RANKS = "9TJQKA";
const PACKS = 6;
const HAND = 4;
const MAX_LOT_DRAWS = 1000;

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
  if (detailString(dealer, "by") === "fixed") {
    const fixed = history.test?.firstDealer;
    verdicts.push(fixed === dealer.seat
      ? { step: "lot", ok: true, text: `first dealer seat ${fixed} fixed by test settings (no lot)` }
      : { step: "lot", ok: false, text: `the first dealer is "fixed" (seat ${dealer.seat ?? "none"}) without test settings naming it` });
  } else {
    verdicts.push(await checkLot(input, shoe, players, lots, dealer));
  }

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

/** The lot: draw k ("lot/k") picks uniformly among the cards not yet drawn; the lowest rank deals. */
async function checkLot(input: GameInput, shoe: readonly CardLike[], players: number, shown: readonly EventLike[],
  dealer: EventLike): Promise<Verdict> {
  const differ = new Differ();
  const left = [...shoe];
  let drawing = Array.from({ length: players }, (_, seat) => seat);
  let draw = 0;
  let chosen = 0;
  while (draw < MAX_LOT_DRAWS) {
    const ranks: number[] = [];
    for (const seat of drawing) {
      draw += 1;
      const [card] = left.splice(await input.chance.below(`lot/${draw}`, left.length), 1);
      const event = shown[draw - 1];
      const where = `lot draw ${draw}, seat ${seat}'s card`;
      differ.seat(where, event?.seat, seat);
      if (event !== undefined && detailString(event, "card") !== card?.code) {
        differ.fail(`${where}: the history shows ${detailString(event, "card") ?? "none"}, the seed derives ${card?.code ?? "none"}`);
      }
      ranks.push(RANKS.indexOf(card?.code[0] ?? ""));
    }
    const lowest = Math.min(...ranks);
    const tied = drawing.filter((_, i) => ranks[i] === lowest);
    chosen = tied[0] ?? 0;
    if (tied.length === 1) break;
    drawing = tied;
  }
  if (shown.length !== draw) differ.fail(`the lot: the history shows ${shown.length} cards drawn, the seed derives ${draw}`);
  differ.seat("the first dealer, by lot", dealer.seat, chosen);
  return differ.verdict("lot", `${draw} cards drawn, seat ${chosen} deals first`);
}
