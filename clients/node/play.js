#!/usr/bin/env node
'use strict';
/**
 * Play one whole game against the server's bots:
 *
 *   node play.js --server 127.0.0.1:50051 --variant highcard [--option k=v ...]
 *
 * Creates a table whose seats other than 0 are played by "random" bots, joins seat 0 and plays
 * it to the end with a first or random legal move. It waits for its turn on a WatchTable stream
 * (with a polling fallback) and answers ABORTED (a stale version) by reading the view again.
 * Prints one JSON line at the end: {table_id, version, outcome: {winners, scores, reason}, moves}.
 */

const { TableClient, grpc, statusName } = require('./client');

const USAGE = `usage: node play.js --server HOST:PORT --variant ID [--option NAME=VALUE ...]
                    [--pick first|random] [--seats N] [--name NAME] [--timeout SECONDS]`;

class UsageError extends Error {}

function parseArgs(argv) {
  const args = {
    server: '', variant: '', options: {}, pick: 'random', seats: 0, name: 'node-client',
    timeout: 300,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') throw new UsageError('');
    const eq = flag.indexOf('=');
    const [name, inline] = flag.startsWith('--') && eq > 0
      ? [flag.slice(0, eq), flag.slice(eq + 1)] : [flag, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      i += 1;
      if (i >= argv.length) throw new UsageError(`${name} needs a value`);
      return argv[i];
    };
    switch (name) {
      case '--server': args.server = value(); break;
      case '--variant': args.variant = value(); break;
      case '--option': {
        const pair = value();
        const at = pair.indexOf('=');
        if (at <= 0) throw new UsageError(`--option wants NAME=VALUE, not ${JSON.stringify(pair)}`);
        args.options[pair.slice(0, at)] = pair.slice(at + 1);
        break;
      }
      case '--pick': args.pick = value(); break;
      case '--seats': args.seats = Number(value()); break;
      case '--name': args.name = value(); break;
      case '--timeout': args.timeout = Number(value()); break;
      default: throw new UsageError(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  if (!args.server) throw new UsageError('--server is required');
  if (!args.variant) throw new UsageError('--variant is required');
  if (!['first', 'random'].includes(args.pick)) throw new UsageError('--pick is first or random');
  if (!Number.isInteger(args.seats) || args.seats < 0) throw new UsageError('--seats wants N >= 1');
  if (!(args.timeout > 0)) throw new UsageError('--timeout wants a positive number of seconds');
  return args;
}

/**
 * How many seats the table will have: the variant's fixed count, else the value (or default)
 * of a "players"/"seats" option, else its minimum.
 */
function seatCount(info, options) {
  if (info.minSeats === info.maxSeats) return info.minSeats;
  for (const spec of info.options) {
    if (spec.name === 'players' || spec.name === 'seats') {
      const text = options[spec.name] !== undefined ? options[spec.name] : spec.defaultValue;
      const count = Number(text);
      if (Number.isInteger(count) && count > 0) return count;
    }
  }
  return info.minSeats;
}

/**
 * The highest table version seen on a watch stream, and a way to wait until it passes a given
 * version. A broken stream is not fatal: waits then fall back to a poll interval.
 */
class VersionWatcher {
  constructor(client, tableId, token, fromVersion) {
    this.seen = fromVersion;
    this.waiters = [];
    this.stream = client.watchTable(tableId, token, fromVersion);
    this.stream.on('data', (update) => {
      this.seen = Math.max(this.seen, update.version);
      this._wake();
    });
    this.stream.on('error', () => this._wake());  // cancelled or cut: polling takes over
    this.stream.on('end', () => this._wake());
  }

  _wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once a version above `version` was seen, or after `pollMs` at most. */
  waitBeyond(version, pollMs) {
    if (this.seen > version) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close() {
    this.stream.cancel();
  }
}

function choose(moves, pick) {
  return pick === 'first' ? moves[0] : moves[Math.floor(Math.random() * moves.length)];
}

async function play(args) {
  const client = new TableClient(args.server);
  const deadline = Date.now() + args.timeout * 1000;
  let watcher = null;
  try {
    const variants = await client.listVariants();
    const info = variants.find((v) => v.id === args.variant);
    if (!info) {
      const known = variants.map((v) => v.id).join(', ');
      throw new Error(`the server has no variant ${JSON.stringify(args.variant)} (it has: ${known})`);
    }
    const seats = args.seats || seatCount(info, args.options);
    const bots = [];
    for (let seat = 1; seat < seats; seat += 1) bots.push({ seat, policy: 'random' });
    const created = await client.createTable(args.variant, { options: args.options, bots });
    const tableId = created.tableId;
    const joined = await client.joinTable(tableId, { seat: 0, name: args.name });
    const token = joined.seatToken;
    const mySeat = joined.seat;
    let view = joined.view;
    watcher = new VersionWatcher(client, tableId, token, view.version);
    let moves = 0;
    while (view.outcome === null) {
      if (Date.now() > deadline) {
        throw new Error(`table ${tableId} did not finish within ${args.timeout} s `
          + `(version ${view.version}, phase ${JSON.stringify(view.phase)})`);
      }
      if (view.toMove.includes(mySeat) && view.legalMoves.length > 0) {
        const move = choose(view.legalMoves, args.pick);
        try {
          const response = await client.submitMove(tableId, token, move, view.version);
          if (!response.duplicate) moves += 1;
          view = response.view;
        } catch (error) {
          if (error.code !== grpc.status.ABORTED) throw error;
          view = await client.getView(tableId, token);  // someone moved first: look again
        }
        continue;
      }
      await watcher.waitBeyond(view.version, 1000);
      view = await client.getView(tableId, token);
    }
    const { winners, scores, reason } = view.outcome;
    return { table_id: tableId, version: view.version, outcome: { winners, scores, reason }, moves };
  } finally {
    if (watcher !== null) watcher.close();
    client.close();
  }
}

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message ? `play.js: ${error.message}\n` : ''}${USAGE}\n`);
    return error.message ? 2 : 0;
  }
  try {
    const result = await play(args);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const where = error.code !== undefined && error.details !== undefined
      ? `${statusName(error.code)}: ${error.details}`
      : (error instanceof Error ? error.message : String(error));
    process.stderr.write(`play.js: error: ${where}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}

module.exports = { main, parseArgs, play, seatCount };
