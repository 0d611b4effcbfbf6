// The 4-player highcard game as a boardgame.io game: 32 cards (ids 0..31, rank = id % 8),
// 8 to each seat; each round every seat plays one card, the highest rank wins (of equal ranks
// the first played) and leads the next. The server runs every move (client: false), checks
// the card is in the mover's hand, and hides the other hands (playerView).
import { createRequire } from 'node:module';

const { INVALID_MOVE } = createRequire(import.meta.url)('boardgame.io/core');
export const SEATS = 4;
export const HAND = 8;

const rank = (card) => card % 8;

function play({ G, playerID }, card) {
  const hand = G.hands[playerID];
  const at = hand.indexOf(card);
  if (at < 0 || G.roundsLeft === 0) return INVALID_MOVE;
  hand.splice(at, 1);
  G.table.push([Number(playerID), card]);
  G.version += 1;
  if (G.table.length < SEATS) {
    G.next = (Number(playerID) + 1) % SEATS;
    return undefined;
  }
  let best = 0;
  for (let i = 1; i < G.table.length; i += 1) {
    if (rank(G.table[i][1]) > rank(G.table[best][1])) best = i;
  }
  const winner = G.table[best][0];
  G.roundsWon[winner] += 1;
  G.table = [];
  G.roundsLeft -= 1;
  G.next = winner;
  return undefined;
}

export const HighCard = {
  name: 'highcard',
  minPlayers: SEATS,
  maxPlayers: SEATS,
  setup: ({ ctx, random }) => {
    const deck = random.Shuffle([...Array(32).keys()]);
    const hands = {};
    for (let p = 0; p < ctx.numPlayers; p += 1) {
      hands[String(p)] = deck.slice(p * HAND, (p + 1) * HAND).sort((a, b) => a - b);
    }
    return {
      hands, table: [], roundsWon: Array(ctx.numPlayers).fill(0), roundsLeft: HAND,
      next: 0, version: 0,
    };
  },
  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: { first: () => 0, next: ({ G }) => G.next },
  },
  moves: { play: { move: play, client: false } },
  endIf: ({ G }) => (G.roundsLeft === 0 ? { roundsWon: G.roundsWon } : undefined),
  playerView: ({ G, playerID }) => {
    const counts = Object.keys(G.hands).map((p) => G.hands[p].length);
    const { hands, ...rest } = G;
    return { ...rest, hand: playerID != null && hands[playerID] ? hands[playerID] : [], counts };
  },
};
