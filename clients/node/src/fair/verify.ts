/**
 * Verify a finished table's deals from its history alone, by the construction of
 * docs/fairness.md: the revealed seed against its published commitment, each revealed entropy
 * against its seat's commitment, then every deal (and the lot for the first dealer) derived
 * from the key and compared card by card with what the history shows dealt.
 *
 * An independent second verifier beside Python's `bezique verify`: it checks the deals, not the
 * moves (it does not replay the rules or the bots).
 */

import { Chance, sha256, tableKey, toHex } from "./chance.js";
import type { GameCheck, Verdict } from "./common.js";
import { checkBezique } from "./bezique.js";
import { checkHighcard } from "./highcard.js";
import type { HistoryLike } from "./history.js";
import { checkQuart } from "./quart.js";
import { readContributions } from "./seats.js";

export type { Verdict } from "./common.js";
export type * from "./history.js";

/** The games whose deals this verifier knows, by variant id. */
export const DEAL_CHECKS: Readonly<Record<string, GameCheck>> = {
  "bezique-2p": checkBezique,
  "bezique-3p": checkBezique,
  "quart-bezique": checkQuart,
  "trump-quart-bezique": checkQuart,
  highcard: checkHighcard,
};

export interface Report {
  /**
   * "verified", "failed", "unfinished" (the seed is still secret: nothing to check yet), or
   * "unchecked" (nothing differs, but the deals could not be checked: a variant or a chance
   * version this verifier does not know).
   */
  readonly status: "verified" | "failed" | "unfinished" | "unchecked";
  /** Each check in order: the seed, the seats, the lot and every deal. */
  readonly verdicts: Verdict[];
  /** Which seats contributed entropy, and how. */
  readonly committed: number[];
  readonly clear: number[];
}

export interface VerifyOptions {
  /** Check a table created with test settings anyway (its verdict says so). */
  readonly allowTestSettings?: boolean;
}

function testSettings(history: HistoryLike): string[] {
  const test = history.test;
  if (test === undefined) return [];
  return [
    ...(test.seed.length ? ["a fixed seed"] : []),
    ...(test.stackedShoe.length ? ["a stacked first shoe"] : []),
    ...(test.firstDealer !== undefined ? [`a fixed first dealer (seat ${test.firstDealer})`] : []),
  ];
}

export async function verifyHistory(history: HistoryLike, options: VerifyOptions = {}): Promise<Report> {
  const verdicts: Verdict[] = [];
  const finish = (committed: number[] = [], clear: number[] = []): Report => ({
    status: verdicts.some((verdict) => !verdict.ok && !verdict.unchecked) ? "failed"
      : verdicts.some((verdict) => verdict.unchecked) ? "unchecked" : "verified",
    verdicts, committed, clear,
  });
  if (!history.finished || history.revealedSeed.length === 0) {
    return { status: "unfinished", verdicts: [{ step: "seed", ok: false, text: "the game has not ended: its seed is still secret" }], committed: [], clear: [] };
  }
  const digest = toHex(await sha256(history.revealedSeed));
  verdicts.push(digest === history.seedCommitment.toLowerCase()
    ? { step: "seed", ok: true, text: `sha256(revealed seed) is the commitment ${history.seedCommitment}` }
    : { step: "seed", ok: false, text: `sha256(revealed seed) is ${digest}, the commitment is ${history.seedCommitment}` });
  const settings = testSettings(history);
  if (settings.length) {
    verdicts.push(options.allowTestSettings
      ? { step: "test settings", ok: true, text: `CREATED WITH TEST SETTINGS (${settings.join(", ")}): checked anyway` }
      : { step: "test settings", ok: false, text: `created with test settings (${settings.join(", ")}); allow them to check anyway` });
  }
  const seats = await readContributions(history);
  verdicts.push(seats.problems.length
    ? { step: "seats", ok: false, text: seats.problems.join("; ") }
    : { step: "seats", ok: true, text: seatsText(seats.committed, seats.clear) });
  if (seats.endedBeforeDeal) {
    verdicts.push({ step: "deals", ok: true, text: "the table ended before any deal" });
    return finish(seats.committed, seats.clear);
  }
  const check = DEAL_CHECKS[history.variantId];
  if (check === undefined) {
    verdicts.push({ step: "deals", ok: false, unchecked: true, text: `cannot verify deals of variant ${JSON.stringify(history.variantId)} (the TypeScript verifier knows: ${Object.keys(DEAL_CHECKS).join(", ")}); \`bezique verify\` replays any installed variant` });
    return finish(seats.committed, seats.clear);
  }
  let entropy = seats.entropy;
  if (history.chanceVersion === 0) {
    entropy = new Map(); // a table from before the seats' entropy was mixed in
  } else if (history.chanceVersion !== 2) {
    verdicts.push({ step: "deals", ok: false, unchecked: true, text: `cannot verify deals of chance_version ${history.chanceVersion} (this verifier knows 0 and 2)` });
    return finish(seats.committed, seats.clear);
  }
  const chance = await Chance.create(await tableKey(history.revealedSeed, entropy));
  const stackedFirstDeal = (history.test?.stackedShoe.length ?? 0) > 0;
  verdicts.push(...await check({ history, chance, stackedFirstDeal }));
  return finish(seats.committed, seats.clear);
}

function seatsText(committed: readonly number[], clear: readonly number[]): string {
  const parts: string[] = [];
  if (committed.length) parts.push(`${seatList(committed)} contributed entropy by commit-reveal (each reveal matches its commitment)`);
  if (clear.length) parts.push(`${seatList(clear)} contributed entropy in the clear`);
  return parts.length ? parts.join("; ") : "no seat contributed entropy: the key is the seed";
}

/** "seat 0", "seats 0, 2". */
function seatList(seats: readonly number[]): string {
  return `${seats.length === 1 ? "seat" : "seats"} ${seats.join(", ")}`;
}
