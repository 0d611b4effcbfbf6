// The peers' clients: a table as its four seats see it, made with boardgame.io's client or the
// Colyseus SDK. Every seat is a client with its own connection; the server pushes each move to
// all four. Used by load.mjs (the benchmark's load) and check.mjs (is it the same game?).
import { createRequire } from 'node:module';

export const SEATS = 4;

/** One table as its four clients see it: the newest state each seat has seen. */
export class Table {
  constructor() {
    this.latest = new Array(SEATS).fill(null);
    this.clients = [];
    this.waiter = null;
    this.ack = null;
  }

  update(seat, st) {
    this.latest[seat] = st;
    if (this.ack && st.version > this.ack.version && seat === this.ack.seat) {
      const { resolve } = this.ack;
      this.ack = null;
      resolve();
    }
    if (this.waiter) {
      const found = this.ready();
      if (found !== undefined) {
        const resolve = this.waiter;
        this.waiter = null;
        resolve(found);
      }
    }
  }

  /** The seat whose own client knows it is to move at the newest version (null: over). */
  ready() {
    let newest = -1;
    for (const st of this.latest) if (st && st.version > newest) newest = st.version;
    for (let seat = 0; seat < SEATS; seat += 1) {
      const st = this.latest[seat];
      if (!st || st.version !== newest) continue;
      if (st.over) return null;
      if (st.myTurn) return seat;
    }
    return undefined;
  }

  turn() {
    const found = this.ready();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => { this.waiter = resolve; });
  }

  /** Play a random card of the mover's hand; resolves when the mover sees the new state. */
  play(seat) {
    const st = this.latest[seat];
    const card = st.hand[Math.floor(Math.random() * st.hand.length)];
    const done = new Promise((resolve) => { this.ack = { seat, version: st.version, resolve }; });
    this.send(seat, card);
    return done;
  }

  movesLeft() {
    let left = 0;
    for (const st of this.latest) if (st) left += st.hand.length;
    return left;
  }
}

// ----------------------------------------------------------------------------- boardgame.io

export async function bgioTables(target, lobby, count, connect = true) {
  const require = createRequire(import.meta.url);
  const { Client } = require('boardgame.io/client');
  const { SocketIO } = require('boardgame.io/multiplayer');
  const { HighCard } = await import('./highcard-bgio.mjs');
  const base = `http://${target}`;
  const post = async (path, body) => {
    const response = await fetch(`http://${lobby || target}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    return response.json();
  };
  const one = async () => {
    const { matchID } = await post('/games/highcard/create', { numPlayers: SEATS });
    const table = new Table();
    for (let seat = 0; seat < SEATS; seat += 1) {
      const { playerCredentials } = await post(`/games/highcard/${matchID}/join`,
        { playerID: String(seat), playerName: `p${seat}` });
      if (!connect) continue; // a bare table: joined through the lobby, nobody connected
      const client = Client({
        game: HighCard, numPlayers: SEATS, matchID, playerID: String(seat),
        credentials: playerCredentials, debug: false,
        multiplayer: SocketIO({ server: base }),
      });
      client.subscribe((state) => {
        if (!state || !state.G) return;
        table.update(seat, {
          version: state.G.version,
          myTurn: !state.ctx.gameover && state.ctx.currentPlayer === String(seat),
          over: Boolean(state.ctx.gameover),
          hand: state.G.hand,
          othersVisible: state.G.hands !== undefined,
        });
      });
      client.start();
      table.clients.push(client);
    }
    table.send = (seat, card) => table.clients[seat].moves.play(card);
    table.close = () => { for (const c of table.clients) c.stop(); };
    if (connect) await table.turn();
    return table;
  };
  return inBatches(count, one);
}

// ----------------------------------------------------------------------------- Colyseus

export async function colyseusTables(target, count) {
  const { Client } = await import('@colyseus/sdk');
  const client = new Client(`ws://${target}`);
  const one = async () => {
    const table = new Table();
    const watch = (room) => {
      const seat = table.clients.length;
      table.clients.push(room);
      let mine = -1;
      room.onStateChange((state) => {
        if (mine < 0) {
          mine = state.players.findIndex((p) => p.sessionId === room.sessionId);
          if (mine < 0) return;
          if (mine !== seat) throw new Error(`seat ${mine} joined as ${seat}`);
        }
        const me = state.players[mine];
        table.update(seat, {
          version: state.version,
          myTurn: state.started && state.roundsLeft > 0 && state.turn === mine,
          over: state.roundsLeft === 0,
          hand: me.hand ? [...me.hand] : [],
          othersVisible: state.players.some((p, i) => i !== mine && p.hand && p.hand.length > 0),
        });
      });
    };
    const first = await client.create('highcard');
    watch(first);
    for (let seat = 1; seat < SEATS; seat += 1) watch(await client.joinById(first.roomId));
    table.send = (seat, card) => table.clients[seat].send('play', card);
    table.close = () => { for (const r of table.clients) r.leave(true); };
    await table.turn();
    return table;
  };
  return inBatches(count, one);
}

export async function inBatches(count, one, width = 16) {
  const made = [];
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left -= 1;
      made.push(await one());
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  return made;
}
