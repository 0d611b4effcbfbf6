#!/usr/bin/env node
/**
 * Verify a finished table's deals, independently of the Python `bezique verify`:
 *
 *   bezique-verify --server 127.0.0.1:50051 TABLE_ID
 *   bezique-verify --history history.json
 *
 * Reads the history (every page from the server, or a file holding the JSON form of a
 * GetHistoryResponse), then checks the seed against its commitment, each revealed entropy
 * against its seat's commitment and every deal against the cards the seed and the entropy
 * derive (src/fair/). Prints one line per check and a verdict; exits 0 when everything holds,
 * 1 when something differs, 2 when the game has not ended (or on a usage error), 3 when it
 * cannot check: the history could not be read (no such table, no server, no file), or its
 * variant (or chance version) is one this verifier does not know.
 */

import { readFile } from "node:fs/promises";

import { fromJson } from "@bufbuild/protobuf";

import { eachArgument, runIfEntryPoint, UsageError, usageExit } from "./cli.js";
import { TableClient } from "./client.js";
import { describeError } from "./errors.js";
import { type Report, type Verdict, verifyHistory } from "./fair/verify.js";
import { GetHistoryResponseSchema } from "./gen/bezique/v1/table_service_pb.js";
import type { HistoryLike } from "./fair/history.js";

const USAGE = `usage: bezique-verify --server HOST:PORT TABLE_ID [--token SEAT_TOKEN] [--allow-test-settings]
       bezique-verify --history FILE [--allow-test-settings]`;

/** The exit status when nothing was found to differ but the table could not be checked. */
export const CANNOT_CHECK = 3;

export interface VerifyArgs {
  server: string;
  table: string;
  history: string;
  token: string;
  allowTestSettings: boolean;
}

export function parseArgs(argv: readonly string[]): VerifyArgs {
  const args: VerifyArgs = { server: "", table: "", history: "", token: "", allowTestSettings: false };
  eachArgument(argv, (name, value, argument) => {
    switch (name) {
      case "--server": args.server = value(); break;
      case "--history": args.history = value(); break;
      case "--token": args.token = value(); break;
      case "--allow-test-settings": args.allowTestSettings = true; break;
      default:
        if (name.startsWith("-") || args.table) throw new UsageError(`unknown argument ${JSON.stringify(argument)}`);
        args.table = name;
    }
  });
  if (Boolean(args.history) === Boolean(args.server)) throw new UsageError("give --server HOST:PORT TABLE_ID or --history FILE");
  if (args.server && !args.table) throw new UsageError("which table? give its id after --server HOST:PORT");
  if (args.history && args.table) throw new UsageError("--history FILE takes no table id");
  return args;
}

async function loadHistory(args: VerifyArgs): Promise<HistoryLike> {
  if (args.history) {
    const text = await readFile(args.history, "utf8");
    return fromJson(GetHistoryResponseSchema, JSON.parse(text) as Parameters<typeof fromJson>[1]);
  }
  const client = new TableClient(args.server);
  try {
    return await client.getHistory(args.table, args.token || undefined);
  } finally {
    client.close();
  }
}

/** The report as lines: one per check, then the verdict. */
export function reportLines(tableId: string, report: Report): string[] {
  const mark = (verdict: Verdict): string => (verdict.ok ? "ok    " : verdict.unchecked ? "cannot" : "FAILED");
  const lines = report.verdicts.map((verdict) => `${mark(verdict)} ${verdict.step}: ${verdict.text}`);
  const deals = report.verdicts.filter((verdict) => verdict.step.startsWith("deal ")).length;
  if (report.status === "verified") lines.push(`verified: table ${tableId}, ${deals} deals reproduced from the seed and the seats' entropy`);
  else if (report.status === "failed") {
    const steps = report.verdicts.filter((verdict) => !verdict.ok).map((verdict) => verdict.step);
    lines.push(`failed: table ${tableId}: ${steps.join(", ")} did not verify`);
  }
  else if (report.status === "unchecked") {
    const why = report.verdicts.filter((verdict) => verdict.unchecked).map((verdict) => verdict.text);
    lines.push(`not verified: table ${tableId}: ${why.join("; ")}`);
  }
  else lines.push(`not verified: table ${tableId} has not ended, its seed is still secret`);
  return lines;
}

export async function main(argv: readonly string[]): Promise<number> {
  let args: VerifyArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usageExit("bezique-verify", USAGE, error);
  }
  let history: HistoryLike;
  try {
    history = await loadHistory(args);
  } catch (error) {
    process.stderr.write(`bezique-verify: cannot check: ${describeError(error)}\n`);
    return CANNOT_CHECK;
  }
  const report = await verifyHistory(history, { allowTestSettings: args.allowTestSettings });
  process.stdout.write(`${reportLines(history.tableId || args.table, report).join("\n")}\n`);
  return { verified: 0, failed: 1, unfinished: 2, unchecked: CANNOT_CHECK }[report.status];
}

runIfEntryPoint(import.meta.url, main);
