/**
 * The draw for the first dealer, which both games run the same way (docs/rules/): the seats
 * still in the draw, in seat order, each take a card; the lowest rank deals; tied seats draw
 * again. Where the cards come from is the game's (`LotRound`). A first dealer fixed by test
 * settings skips the lot.
 */

import { Differ, type GameInput, type Verdict } from "./common.js";
import { type CardLike, detailString, type EventLike } from "./history.js";

/** The cards the seats in `drawing` take in round `round` (from 1), in their order. */
export type LotRound = (drawing: readonly number[], round: number) => Promise<CardLike[]>;

export interface Lot {
  readonly players: number;
  /** Ranks from low to high: the lowest deals. */
  readonly order: string;
  readonly round: LotRound;
  /** After this many tied rounds the lowest tied seat deals. */
  readonly maxRounds: number;
}

/** The lot's verdict: the `lot` events and the first `dealer` event against the derived draw. */
export async function checkLot(input: GameInput, shown: readonly EventLike[], dealer: EventLike, lot: Lot): Promise<Verdict> {
  if (detailString(dealer, "by") === "fixed") {
    const fixed = input.history.test?.firstDealer;
    return fixed === dealer.seat
      ? { step: "lot", ok: true, text: `first dealer seat ${fixed} fixed by test settings (no lot)` }
      : { step: "lot", ok: false, text: `the first dealer is "fixed" (seat ${dealer.seat ?? "none"}) without test settings naming it` };
  }
  const differ = new Differ();
  let drawing = Array.from({ length: lot.players }, (_, seat) => seat);
  let drawn = 0;
  let chosen = 0;
  for (let round = 1; round <= lot.maxRounds; round += 1) {
    const cards = await lot.round(drawing, round);
    const ranks = drawing.map((seat, i) => {
      const card = cards[i];
      const event = shown[drawn];
      drawn += 1;
      const where = `lot card ${drawn} (round ${round}, seat ${seat})`;
      differ.seat(where, event?.seat, seat);
      const face = event === undefined ? undefined : detailString(event, "card");
      if (event !== undefined && face !== card?.code) {
        differ.fail(`${where}: the history shows ${face ?? "none"}, the seed derives ${card?.code ?? "none"}`);
      }
      return lot.order.indexOf(card?.code[0] ?? "");
    });
    const lowest = Math.min(...ranks);
    drawing = drawing.filter((_, i) => ranks[i] === lowest);
    chosen = drawing[0] ?? 0;
    if (drawing.length === 1) break;
  }
  if (shown.length !== drawn) differ.fail(`the history shows ${shown.length} lot cards, the seed derives ${drawn}`);
  differ.seat("the first dealer, by lot", dealer.seat, chosen);
  return differ.verdict("lot", `${drawn} cards drawn, seat ${chosen} deals first`);
}
