#!/usr/bin/env node
/**
 * Play one whole game against the server's bots:
 *
 *   bezique-play --server 127.0.0.1:50051 --variant highcard [--option k=v ...]
 *
 * Creates a table whose seats other than 0 are played by "random" bots, joins seat 0 and plays
 * it to the end with a first or random legal move. It plays on one Play stream (moves up,
 * updates down); with --no-play, or against a server without Play, it submits with SubmitMove
 * and waits for its turn on a WatchTable stream (with a polling fallback). A stale version
 * (ABORTED) is answered by looking at the table again.
 * Prints one JSON line at the end: {table_id, version, outcome: {winners, scores, reason}, moves}.
 */

import { Code, ConnectError } from "@connectrpc/connect";

import { eachArgument, runIfEntryPoint, UsageError, usageExit } from "./cli.js";
import { TableClient, withAmount } from "./client.js";
import type { PlaySession } from "./session.js";
import { describeError, errorReason } from "./errors.js";
import {
  ErrorReason, type Move, type VariantInfo, type View, type WatchTableResponse,
} from "./gen/bezique/v1/table_service_pb.js";

const USAGE = `usage: bezique-play --server HOST:PORT --variant ID [--option NAME=VALUE ...]
                    [--pick first|random] [--seats N] [--name NAME] [--timeout SECONDS]
                    [--no-play]`;

export interface PlayArgs {
  server: string;
  variant: string;
  options: Record<string, string>;
  pick: "first" | "random";
  seats: number;
  name: string;
  timeout: number;
  /** Submit with SubmitMove and follow WatchTable instead of the Play stream. */
  noPlay: boolean;
}

export interface PlayResult {
  table_id: string;
  version: number;
  outcome: { winners: number[]; scores: number[]; reason: string };
  moves: number;
}

export function parseArgs(argv: readonly string[]): PlayArgs {
  const args: PlayArgs = {
    server: "", variant: "", options: {}, pick: "random", seats: 0, name: "node-client",
    timeout: 300, noPlay: false,
  };
  eachArgument(argv, (name, value, argument) => {
    switch (name) {
      case "--server": args.server = value(); break;
      case "--variant": args.variant = value(); break;
      case "--option": {
        const pair = value();
        const at = pair.indexOf("=");
        if (at <= 0) throw new UsageError(`--option wants NAME=VALUE, not ${JSON.stringify(pair)}`);
        args.options[pair.slice(0, at)] = pair.slice(at + 1);
        break;
      }
      case "--pick": {
        const pick = value();
        if (pick !== "first" && pick !== "random") throw new UsageError("--pick is first or random");
        args.pick = pick;
        break;
      }
      case "--seats": args.seats = Number(value()); break;
      case "--name": args.name = value(); break;
      case "--timeout": args.timeout = Number(value()); break;
      case "--no-play": args.noPlay = true; break;
      default: throw new UsageError(`unknown argument ${JSON.stringify(argument)}`);
    }
  });
  if (!args.server) throw new UsageError("--server is required");
  if (!args.variant) throw new UsageError("--variant is required");
  if (!Number.isInteger(args.seats) || args.seats < 0) throw new UsageError("--seats wants N >= 1");
  if (!(args.timeout > 0)) throw new UsageError("--timeout wants a positive number of seconds");
  return args;
}

/**
 * How many seats the table will have: the variant's fixed count, else the value (or default)
 * of a "players"/"seats" option, else its minimum.
 */
export function seatCount(info: VariantInfo, options: Readonly<Record<string, string>>): number {
  if (info.minSeats === info.maxSeats) return info.minSeats;
  for (const spec of info.options) {
    if (spec.name === "players" || spec.name === "seats") {
      const count = Number(options[spec.name] ?? spec.defaultValue);
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
  private seen: bigint;
  private waiters: Array<() => void> = [];
  private readonly abort = new AbortController();

  constructor(client: TableClient, tableId: string, token: string, fromVersion: bigint) {
    this.seen = fromVersion;
    void this.follow(client.watchTable(tableId, token, fromVersion, this.abort.signal));
  }

  private async follow(updates: AsyncIterable<{ version: bigint }>): Promise<void> {
    try {
      for await (const update of updates) {
        if (update.version > this.seen) this.seen = update.version;
        this.wake();
      }
    } catch {
      // cancelled or cut: polling takes over
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once a version above `version` was seen, or after `pollMs` at most. */
  waitBeyond(version: bigint, pollMs: number): Promise<void> {
    if (this.seen > version) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    this.abort.abort();
  }
}

function choose(moves: readonly Move[], pick: PlayArgs["pick"]): Move {
  const index = pick === "first" ? 0 : Math.floor(Math.random() * moves.length);
  const move = moves[index];
  if (move === undefined) throw new Error("no legal move to choose from");
  const range = move.amountRange;
  if (range === undefined || pick === "first") return move;
  // an offer with a range of amounts: any allowed amount in it
  const step = range.step > 0n ? range.step : 1n;
  const count = Number((range.maximum - range.minimum) / step) + 1;
  return withAmount(move, range.minimum + step * BigInt(Math.floor(Math.random() * count)));
}

/** The seat being played: where, whose, and until when. */
interface Seat {
  readonly client: TableClient;
  readonly tableId: string;
  readonly token: string;
  readonly seat: number;
  readonly pick: PlayArgs["pick"];
  readonly deadline: number;
  readonly timeout: number;
}

/** The view at the end, and how many moves the seat made. */
interface Played {
  readonly view: View;
  readonly moves: number;
}

function checkDeadline(seat: Seat, view: View): void {
  if (Date.now() > seat.deadline) {
    throw new Error(`table ${seat.tableId} did not finish within ${seat.timeout} s `
      + `(version ${view.version}, phase ${JSON.stringify(view.phase)})`);
  }
}

function isStale(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.Aborted
    && errorReason(error) === ErrorReason.STALE_VERSION;
}

/** The next update of the session, or an Error once the seat's deadline has passed. */
async function nextUpdate(updates: AsyncIterator<WatchTableResponse>, seat: Seat, view: View
): Promise<IteratorResult<WatchTableResponse>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try { checkDeadline(seat, view); } catch (error) { reject(error); }
    }, Math.max(0, seat.deadline - Date.now()) + 1);
  });
  try {
    return await Promise.race([updates.next(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Play to the end on one Play stream: moves go up on it, and the turn comes down on it. */
async function playOnStream(seat: Seat, session: PlaySession, start: View): Promise<Played> {
  const updates = session[Symbol.asyncIterator]();
  let view = start;
  let moves = 0;
  while (view.outcome === undefined) {
    checkDeadline(seat, view);
    if (view.toMove.includes(seat.seat) && view.legalMoves.length > 0) {
      try {
        const answer = await session.move(choose(view.legalMoves, seat.pick), view.version);
        if (!answer.duplicate) moves += 1;
        if (answer.view !== undefined && answer.view.version >= view.version) view = answer.view;
        continue;
      } catch (error) {
        if (!isStale(error)) throw error;
        // someone moved first: the stream brings the table's newer state
      }
    }
    const next = await nextUpdate(updates, seat, view);
    if (next.done) {
      view = await seat.client.getView(seat.tableId, seat.token);  // the table has finished
      break;
    }
    const update = next.value.view;
    if (update !== undefined && update.version >= view.version) view = update;
  }
  return { view, moves };
}

/** Play to the end with SubmitMove, waiting for the turn on WatchTable (or by polling). */
async function playWithCalls(seat: Seat, start: View): Promise<Played> {
  const { client, tableId, token } = seat;
  let view = start;
  const watcher = new VersionWatcher(client, tableId, token, view.version);
  let moves = 0;
  try {
    while (view.outcome === undefined) {
      checkDeadline(seat, view);
      if (view.toMove.includes(seat.seat) && view.legalMoves.length > 0) {
        const move = choose(view.legalMoves, seat.pick);
        try {
          const response = await client.submitMove(tableId, token, move, view.version);
          if (!response.duplicate) moves += 1;
          view = response.view ?? await client.getView(tableId, token);
        } catch (error) {
          // Someone moved first: look again. Anything else is the caller's to see.
          if (!isStale(error)) throw error;
          view = await client.getView(tableId, token);
        }
        continue;
      }
      await watcher.waitBeyond(view.version, 1000);
      view = await client.getView(tableId, token);
    }
    return { view, moves };
  } finally {
    watcher.close();
  }
}

export async function play(args: PlayArgs): Promise<PlayResult> {
  const client = new TableClient(args.server);
  try {
    const variants = await client.listVariants();
    const info = variants.find((v) => v.id === args.variant);
    if (info === undefined) {
      const known = variants.map((v) => v.id).join(", ");
      throw new Error(`the server has no variant ${JSON.stringify(args.variant)} (it has: ${known})`);
    }
    const seats = args.seats || seatCount(info, args.options);
    const bots: Record<number, string> = {};
    for (let seat = 1; seat < seats; seat += 1) bots[seat] = "random";
    const created = await client.createTable(args.variant, { options: args.options, bots });
    const tableId = created.tableId;
    const joined = await client.joinTable(tableId, { seat: 0, name: args.name });
    const seat: Seat = {
      client, tableId, token: joined.seatToken, seat: joined.seat, pick: args.pick,
      deadline: Date.now() + args.timeout * 1000, timeout: args.timeout,
    };
    const start: View = joined.view ?? await client.getView(tableId, seat.token);
    let played: Played;
    if (args.noPlay) {
      played = await playWithCalls(seat, start);
    } else {
      const session = client.play(tableId, seat.token, start.version);
      try {
        played = await playOnStream(seat, session, start);
      } catch (error) {
        if (!(error instanceof ConnectError && error.code === Code.Unimplemented)) throw error;
        process.stderr.write("bezique-play: the server has no Play stream; "
          + "playing with SubmitMove and WatchTable\n");
        played = await playWithCalls(seat, await client.getView(tableId, seat.token));
      } finally {
        session.close();
      }
    }
    const { view, moves } = played;
    if (view.outcome === undefined) throw new Error(`table ${tableId} ended without an outcome`);
    const { winners, scores, reason } = view.outcome;
    return {
      table_id: tableId,
      version: Number(view.version),
      outcome: { winners: [...winners], scores: scores.map(Number), reason },
      moves,
    };
  } finally {
    client.close();
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  let args: PlayArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageExit("bezique-play", USAGE, error);
  }
  try {
    const result = await play(args);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`bezique-play: error: ${describeError(error)}\n`);
    return 1;
  }
}

runIfEntryPoint(import.meta.url, main);
