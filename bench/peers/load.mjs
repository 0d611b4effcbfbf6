// The load for a peer server, played by the peer's own client library: every seat of every
// table is a client with its own connection, and every move is pushed to all four.
// Usage: node load.mjs bgio|colyseus HOST:PORT [HOST:API_PORT (bgio's lobby)]. Commands, one JSON object a line on stdin,
// each answered by one JSON line on stdout (the protocol of bench/peerload.py):
//   {"cmd": "prepare", "tables": K}  K more tables, all seats connected, game started
//       ("connect": false: seats joined, no client connected; boardgame.io only)
//   {"cmd": "prepare", "moves": N, "concurrency": C}  enough tables for a run of N moves
//   {"cmd": "run", "moves": N, "concurrency": C, "rate": R|null}
//       N moves, C tables in flight; closed loop, or move k due at start + k/R (open loop);
//       answers the seconds, the latency of every move (send -> the mover's own client sees
//       the server's new state) and how many sends were more than 5 ms late
//   {"cmd": "drop"}  disconnect the clients of finished tables
//   {"cmd": "quit"}
import readline from 'node:readline';
import { performance } from 'node:perf_hooks';
import { bgioTables, colyseusTables } from './clients.mjs';

const [peer, target, lobby] = process.argv.slice(2);
// ----------------------------------------------------------------------------- the loop

const pool = [];
const finished = [];
const bare = []; // tables nobody is connected to (memory only)

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

const make = peer === 'bgio'
  ? (count, connect) => bgioTables(target, lobby, count, connect)
  : (count, connect) => {
    if (!connect) throw new Error('a Colyseus room holds a game only while its clients are in');
    return colyseusTables(target, count);
  };
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
      const made = await make(count, command.connect !== false);
      if (command.connect === false) bare.push(...made);
      else pool.push(...made);
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
