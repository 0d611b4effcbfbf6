/**
 * Multi-pack Bezique (bezique-2p, bezique-3p), from docs/rules/bezique.md "The deal": the lot
 * for the first dealer, each deal's shuffle and cut, the packets in play order from the first
 * leader, the turn-up, and the stock the players draw from.
 */

import { canonicalShoe, Differ, type GameCheck, type GameInput, type Verdict } from "./common.js";
import { type CardLike, detailNumber, type EventLike, placedEvents } from "./history.js";
import { checkLot } from "./lot.js";

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
  // round N: the seats still in the draw take the top cards of the shuffle "lot/N"
  const round = async (drawing: readonly number[], number: number): Promise<CardLike[]> =>
    (await chance.shuffle(`lot/${number}`, shoe)).slice(0, drawing.length);
  verdicts.push(await checkLot(input, lots, first.dealer, { players, order: TRICK_ORDER, round, maxRounds: MAX_LOT_ROUNDS }));

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
