// The load for a peer server, played by the peer's own client library: every seat of every
// table is a client with its own connection, and every move is pushed to all four.
// Usage: node load.mjs bgio|colyseus HOST:PORT [HOST:API_PORT (bgio's lobby)]. Commands, one JSON object a line on stdin,
// each answered by one JSON line on stdout (the protocol of bench/peerload.py):
//   {"cmd": "prepare", "tables": K}  K more tables, all seats connected, game started
//   {"cmd": "prepare", "moves": N, "concurrency": C}  enough tables for a run of N moves
//   {"cmd": "run", "moves": N, "concurrency": C, "rate": R|null}
//       N moves, C tables in flight; closed loop, or move k due at start + k/R (open loop);
//       answers the seconds, the latency of every move (send -> the mover's own client sees
//       the server's new state) and how many sends were more than 5 ms late
//   {"cmd": "drop"}  disconnect the clients of finished tables
//   {"cmd": "quit"}
import { createRequire } from 'node:module';
import readline from 'node:readline';
import { performance } from 'node:perf_hooks';

const [peer, target, lobby] = process.argv.slice(2);
const SEATS = 4;

/** One table as its four clients see it: the newest state each seat has seen. */
class Table {
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

async function bgioTables(count) {
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
        });
      });
      client.start();
      table.clients.push(client);
    }
    table.send = (seat, card) => table.clients[seat].moves.play(card);
    table.close = () => { for (const c of table.clients) c.stop(); };
    await table.turn();
    return table;
  };
  return inBatches(count, one);
}

// ----------------------------------------------------------------------------- Colyseus

async function colyseusTables(count) {
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

async function inBatches(count, one, width = 16) {
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

// ----------------------------------------------------------------------------- the loop

const pool = [];
const finished = [];

async function run({ moves, concurrency, rate }) {
  let issued = 0;
  let late = 0;
  const latencies = [];
  const start = performance.now();
  const worker = async () => {
    let table = null;
    for (;;) {
      if (table === null) {
        if (pool.length === 0) throw new Error('the pool of tables ran dry: prepare more');
        table = pool.shift();
      }
      const seat = await table.turn();
      if (seat === null) {
        finished.push(table);
        table = null;
        continue;
      }
      if (issued >= moves) {
        pool.unshift(table);
        return;
      }
      const slot = issued;
      issued += 1;
      if (rate) {
        const wait = start + (slot * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((resolve) => { setTimeout(resolve, wait); });
        else if (wait < -5) late += 1;
      }
      const sent = performance.now();
      await table.play(seat);
      latencies.push((performance.now() - sent) / 1000);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { moves: latencies.length, seconds: (performance.now() - start) / 1000, latencies, late };
}

const make = peer === 'bgio' ? bgioTables : colyseusTables;
const lines = readline.createInterface({ input: process.stdin });
const answer = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  try {
    if (command.cmd === 'prepare') {
      const t0 = performance.now();
      let count = command.tables;
      if (count === undefined) {
        const want = command.moves + command.concurrency * 32;
        const have = pool.reduce((sum, table) => sum + table.movesLeft(), 0);
        count = Math.max(0, Math.ceil((want - have) / 32));
      }
      pool.push(...await make(count));
      answer({ ok: true, tables: pool.length, seconds: (performance.now() - t0) / 1000 });
    } else if (command.cmd === 'run') {
      answer({ ok: true, ...await run(command) });
    } else if (command.cmd === 'drop') {
      for (const table of finished.splice(0)) table.close();
      await new Promise((resolve) => { setTimeout(resolve, 300); });
      answer({ ok: true, tables: pool.length });
    } else if (command.cmd === 'quit') {
      answer({ ok: true });
      break;
    } else {
      answer({ ok: false, error: `unknown command ${command.cmd}` });
    }
  } catch (error) {
    answer({ ok: false, error: String(error && error.stack ? error.stack : error) });
  }
}
process.exit(0);
