/**
 * The example plugin's high card (examples/highcard): one 32-card pack shuffled with purpose
 * "deal/1"; seat s is dealt the cards at positions s × hand_size … (s + 1) × hand_size − 1.
 */

import { canonicalShoe, Differ, type GameCheck, optionNumber } from "./common.js";
import { placedEvents } from "./history.js";

export const checkHighcard: GameCheck = async ({ history, chance, stackedFirstDeal }) => {
  const differ = new Differ();
  const size = optionNumber(history, "hand_size", 1);
  const hands = placedEvents(history).map(({ event }) => event).filter((event) => event.kind === "deal");
  if (stackedFirstDeal) return [differ.verdict("deal 1", "shoe stacked by test settings: not derived from the seed")];
  const order = await chance.shuffle("deal/1", canonicalShoe(1, "789TJQKA"));
  const players = optionNumber(history, "players", 2);
  if (hands.length !== players) differ.fail(`the history shows ${hands.length} hands dealt to ${players} players`);
  hands.forEach((hand, seat) => {
    differ.seat(`hand ${seat + 1}`, hand.seat, seat);
    differ.cards(`seat ${seat}'s hand`, hand.cards, order.slice(seat * size, (seat + 1) * size));
  });
  return [differ.verdict("deal 1", `${hands.length * size} cards dealt`)];
};
