// A Colyseus server with the highcard game as a room, on 127.0.0.1.
// Usage: node colyseus-server.mjs PORT. Prints "listening on 127.0.0.1:PORT".
// Hands are fields visible only through the owner's StateView; patches are sent right after
// each move (patchRate null + broadcastPatch: a turn-based room has nothing to send between).
import { Room, Server } from '@colyseus/core';
import { WebSocketTransport } from '@colyseus/ws-transport';
import { ArraySchema, StateView, schema } from '@colyseus/schema';

const SEATS = 4;
const HAND = 8;
const rank = (card) => card % 8;

const Player = schema({
  sessionId: 'string',
  hand: { array: 'uint8', view: true },
  count: 'uint8',
  won: 'uint8',
}, 'Player');

const TableState = schema({
  players: [Player],
  table: ['uint8'],
  tableSeats: ['uint8'],
  turn: 'uint8',
  roundsLeft: 'uint8',
  started: 'boolean',
  version: 'uint32',
}, 'TableState');

function shuffled() {
  const deck = [...Array(32).keys()];
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

class HighCardRoom extends Room {
  maxClients = SEATS;

  onCreate() {
    this.patchRate = null;
    const state = new TableState();
    const deck = shuffled();
    for (let p = 0; p < SEATS; p += 1) {
      const player = new Player();
      player.sessionId = '';
      player.hand = new ArraySchema(...deck.slice(p * HAND, (p + 1) * HAND).sort((a, b) => a - b));
      player.count = HAND;
      player.won = 0;
      state.players.push(player);
    }
    state.turn = 0;
    state.roundsLeft = HAND;
    state.started = false;
    state.version = 0;
    this.state = state;
    this.seatOf = new Map();
    this.onMessage('play', (client, card) => this.play(client, card));
  }

  onJoin(client) {
    const seat = this.seatOf.size;
    this.seatOf.set(client.sessionId, seat);
    const player = this.state.players[seat];
    player.sessionId = client.sessionId;
    client.view = new StateView();
    client.view.add(player);
    if (this.seatOf.size === SEATS) {
      this.state.started = true;
      this.state.version += 1;
    }
    this.broadcastPatch();
  }

  play(client, card) {
    const seat = this.seatOf.get(client.sessionId);
    const state = this.state;
    if (!state.started || state.roundsLeft === 0 || seat !== state.turn) return;
    const player = state.players[seat];
    const at = player.hand.indexOf(card);
    if (typeof card !== 'number' || at < 0) return;
    player.hand.splice(at, 1);
    player.count -= 1;
    state.table.push(card);
    state.tableSeats.push(seat);
    state.version += 1;
    if (state.table.length < SEATS) {
      state.turn = (seat + 1) % SEATS;
    } else {
      let best = 0;
      for (let i = 1; i < state.table.length; i += 1) {
        if (rank(state.table[i]) > rank(state.table[best])) best = i;
      }
      const winner = state.tableSeats[best];
      state.players[winner].won += 1;
      state.table.clear();
      state.tableSeats.clear();
      state.roundsLeft -= 1;
      state.turn = winner;
    }
    this.broadcastPatch();
  }
}

const port = Number(process.argv[2]);
const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define('highcard', HighCardRoom);
await server.listen(port, '127.0.0.1');
console.log(`listening on 127.0.0.1:${port}`);
