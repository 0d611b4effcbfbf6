/**
 * Multi-pack Bezique (bezique-2p, bezique-3p), from docs/rules/bezique.md "The deal": the lot
 * for the first dealer, each deal's shuffle and cut, the packets in play order from the first
 * leader, the turn-up, and the stock the players draw from.
 */

import { canonicalShoe, Differ, type GameCheck, type GameInput, type Verdict } from "./common.js";
import { type CardLike, detailNumber, detailString, type EventLike, placedEvents } from "./history.js";

const RANKS = "789TJQKA";
/** Trick order, low to high: the lowest lot card deals (a ten is high). */
const TRICK_ORDER = "789JQKTA";
const MAX_LOT_ROUNDS = 64;

interface Deal {
  readonly number: number;
  readonly dealer: EventLike;
  shuffle?: EventLike;
  cut?: EventLike;
  readonly packets: EventLike[];
  turnup?: EventLike;
  readonly draws: CardLike[];
  seven?: CardLike;
}

/** The events of the history sorted into the lot and the deals. */
function sortEvents(input: GameInput): { lots: EventLike[]; deals: Deal[] } {
  const lots: EventLike[] = [];
  const deals: Deal[] = [];
  let deal: Deal | undefined;
  for (const { event } of placedEvents(input.history)) {
    switch (event.kind) {
      case "lot": lots.push(event); break;
      case "dealer":
        deal = { number: detailNumber(event, "deal") ?? deals.length + 1, dealer: event, packets: [], draws: [] };
        deals.push(deal);
        break;
      case "shuffle": if (deal) deal.shuffle = event; break;
      case "cut": if (deal) deal.cut = event; break;
      case "deal": deal?.packets.push(event); break;
      case "turnup": if (deal) deal.turnup = event; break;
      case "draw": deal?.draws.push(...event.cards); break;
      case "exchange_seven": {
        const seven = event.cards.find((card) => card.code.startsWith("7"));
        if (deal && seven) deal.seven = seven;
        break;
      }
      default: break;
    }
  }
  return { lots, deals };
}

export const checkBezique: GameCheck = async (input) => {
  const { history, chance } = input;
  const players = history.variantId === "bezique-3p" ? 3 : 2;
  const shoe = canonicalShoe(players, RANKS);
  const step = history.options.direction === "clockwise" ? 1 : players - 1;
  const next = (seat: number): number => (seat + step) % players;
  const previous = (seat: number): number => (seat + players - step) % players;
  const packets = (history.options.deal_packets ?? "2-2-2-2").split("-").map(Number);
  const { lots, deals } = sortEvents(input);
  const verdicts: Verdict[] = [];

  const first = deals[0];
  if (first === undefined) return [{ step: "deal 1", ok: false, text: "the history shows no deal" }];
  if (detailString(first.dealer, "by") === "fixed") {
    const fixed = history.test?.firstDealer;
    verdicts.push(fixed === first.dealer.seat
      ? { step: "lot", ok: true, text: `first dealer seat ${fixed} fixed by test settings (no lot)` }
      : { step: "lot", ok: false, text: `the first dealer is "fixed" (seat ${first.dealer.seat ?? "none"}) without test settings naming it` });
  } else {
    verdicts.push(await checkLot(input, shoe, players, lots, first.dealer));
  }

  let previousDealer: number | undefined;
  for (const deal of deals) {
    const differ = new Differ();
    const name = `deal ${deal.number}`;
    const dealer = deal.dealer.seat ?? -1;
    if (previousDealer !== undefined) differ.seat(`the dealer (passes to the next player in play order)`, dealer, next(previousDealer));
    previousDealer = dealer;
    differ.seat(`the shuffle`, deal.shuffle?.seat, dealer);
    differ.seat(`the cut`, deal.cut?.seat, previous(dealer));
    if (deal.number === 1 && input.stackedFirstDeal) {
      verdicts.push(differ.verdict(name, "shoe stacked by test settings: not derived from the seed"));
      continue;
    }
    const shuffled = await chance.shuffle(`deal/${deal.number}`, shoe);
    const cut = await chance.below(`cut/${deal.number}`, shoe.length);
    const order = [...shuffled.slice(cut), ...shuffled.slice(0, cut)];
    let top = 0;
    let packet = 0;
    for (const size of packets) {
      let seat = next(dealer);
      for (let i = 0; i < players; i += 1) {
        const shown = deal.packets[packet];
        const where = `packet ${packet + 1}`;
        if (shown === undefined) {
          differ.fail(`${where}: missing from the history`);
        } else {
          differ.seat(where, shown.seat, seat);
          differ.cards(where, shown.cards, order.slice(top, top + size));
        }
        top += size;
        packet += 1;
        seat = next(seat);
      }
    }
    if (deal.packets.length > packet) differ.fail(`the history shows ${deal.packets.length} packets, the rules deal ${packet}`);
    const turnup = order[top];
    differ.card(`the turn-up`, deal.turnup?.cards[0], turnup);
    const stock = [...order.slice(top + 1), deal.seven ?? turnup].filter((card): card is CardLike => card !== undefined);
    if (deal.draws.length > stock.length) differ.fail(`${deal.draws.length} cards drawn from a stock of ${stock.length}`);
    deal.draws.forEach((card, i) => differ.card(`draw ${i + 1} from the stock`, card, stock[i]));
    verdicts.push(differ.verdict(name, `dealer seat ${dealer}, cut ${cut}, ${top} cards dealt, turn-up ${turnup?.code ?? "?"}, `
      + `${deal.draws.length} draws from the stock`));
  }
  return verdicts;
};

/** The draw for the first dealer: round N deals one card of the shuffle "lot/N" to each seat still in it. */
async function checkLot(input: GameInput, shoe: readonly CardLike[], players: number, shown: readonly EventLike[],
  dealer: EventLike): Promise<Verdict> {
  const differ = new Differ();
  let drawing = Array.from({ length: players }, (_, seat) => seat);
  let index = 0;
  let chosen = 0;
  for (let round = 1; round <= MAX_LOT_ROUNDS; round += 1) {
    const shuffled = await input.chance.shuffle(`lot/${round}`, shoe);
    const strengths = drawing.map((seat, i) => {
      const card = shuffled[i];
      const event = shown[index];
      const where = `lot round ${round}, seat ${seat}'s card`;
      differ.seat(where, event?.seat, seat);
      if (event !== undefined && detailString(event, "card") !== card?.code) {
        differ.fail(`${where}: the history shows ${detailString(event, "card") ?? "none"}, the seed derives ${card?.code ?? "none"}`);
      }
      index += 1;
      return TRICK_ORDER.indexOf(card?.code[0] ?? "");
    });
    const lowest = Math.min(...strengths);
    const tied = drawing.filter((_, i) => strengths[i] === lowest);
    chosen = tied[0] ?? 0;
    if (tied.length === 1) break;
    drawing = tied;
  }
  if (shown.length !== index) differ.fail(`the lot: the history shows ${shown.length} cards drawn, the seed derives ${index}`);
  differ.seat("the first dealer, by lot", dealer.seat, chosen);
  return differ.verdict("lot", `${index} cards drawn, seat ${chosen} deals first`);
}
