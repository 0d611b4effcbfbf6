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
    this.allSeen = null;
  }

  update(seat, st) {
    this.latest[seat] = st;
    if (this.allSeen && this.latest.every((s) => s !== null)) {
      const resolve = this.allSeen;
      this.allSeen = null;
      resolve();
    }
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

  /** Resolves once every seat's client has had a state from the server. */
  synced() {
    if (this.latest.every((s) => s !== null)) return Promise.resolve();
    return new Promise((resolve) => { this.allSeen = resolve; });
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
    // Every seat joins before any client connects: a connecting client makes the server read
    // the match's metadata and write it back (marked connected) a moment later, and with
    // FlatFile a seat that joined in between lost its credentials to that write; its client
    // was then refused its sync (silently) and its table stopped at that seat's first turn:
    // the hang of `python -m bench --only peers` (2026-11-30; 19 of 64 tables in a repro).
    const credentials = [];
    for (let seat = 0; seat < SEATS; seat += 1) {
      const { playerCredentials } = await post(`/games/highcard/${matchID}/join`,
        { playerID: String(seat), playerName: `p${seat}` });
      credentials.push(playerCredentials);
    }
    for (let seat = 0; seat < SEATS && connect; seat += 1) { // bare: nobody connects
      const client = Client({
        game: HighCard, numPlayers: SEATS, matchID, playerID: String(seat),
        credentials: credentials[seat], debug: false,
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
    // Ready when all four clients have their first state, not only the first mover's: the
    // server takes a client off the match while it answers its sync and puts it back after,
    // so a move pushed in between would not reach it (with FlatFile the sync waits for the
    // disk; in memory it answers at once).
    if (connect) await table.synced();
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
