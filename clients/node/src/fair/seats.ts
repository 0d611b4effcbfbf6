/**
 * The seats' entropy as the history records it (docs/fairness.md, "The seats' entropy"): who
 * held each seat when the game started, what each contributed in the clear or by
 * commit-reveal, and whether every revealed entropy opens its commitment.
 */

import { sha256, toHex } from "./chance.js";
import type { EntryLike, HistoryLike } from "./history.js";

interface Seat {
  bot: boolean;
  clear?: Uint8Array;
  commitment?: Uint8Array;
  revealed?: Uint8Array;
}

export interface Contributions {
  /** The entropy mixed into the key, by seat: the contributing seats that held the table at the start. */
  readonly entropy: Map<number, Uint8Array>;
  /** Seats that contributed by commit-reveal, and in the clear. */
  readonly committed: number[];
  readonly clear: number[];
  /** True when the table ended before any deal (a reveal timed out, or it was aborted). */
  readonly endedBeforeDeal: boolean;
  /** What is wrong with the seats' entries; empty when nothing is. */
  readonly problems: string[];
}

const SEAT_ENTRIES = new Set(["joined", "left", "revealed"]);

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export async function readContributions(history: HistoryLike): Promise<Contributions> {
  const seats = new Map<number, Seat>();
  const problems: string[] = [];
  let started = false;
  let endedBeforeDeal = false;
  // The first reveal: no seat may join or leave after it (a seat joining later could choose
  // its entropy knowing the revealed one), as the server's reducer refuses.
  let firstReveal: { version: bigint | number; seat: number } | undefined;
  for (const entry of history.entries) {
    const where = `version ${entry.version}`;
    if (started) {
      if (SEAT_ENTRIES.has(entry.entryKind)) problems.push(`${where}: a seat entry (${entry.entryKind}) after the start`);
      continue;
    }
    const seat = entry.seat ?? -1;
    if (firstReveal !== undefined && (entry.entryKind === "joined" || entry.entryKind === "left")) {
      problems.push(`${where}: seat ${seat} ${entry.entryKind} after seat ${firstReveal.seat} revealed `
        + `at version ${firstReveal.version}: a reveal before every seat is taken lets a later `
        + "seat choose its entropy knowing it");
    }
    if (entry.entryKind === "joined") {
      const joined: Seat = { bot: entry.botPolicy !== "" };
      if (entry.entropy.length) joined.clear = entry.entropy;
      if (entry.entropyCommitment.length) joined.commitment = entry.entropyCommitment;
      seats.set(seat, joined);
    } else if (entry.entryKind === "left") {
      seats.delete(seat);
    } else if (entry.entryKind === "revealed") {
      const held = seats.get(seat);
      if (held?.commitment === undefined) {
        problems.push(`${where}: seat ${seat} revealed entropy it never committed to`);
      } else if (!equal(await sha256(entry.entropy), held.commitment)) {
        problems.push(`${where}: seat ${seat}'s revealed entropy does not match its commitment `
          + `(sha256 ${toHex(await sha256(entry.entropy))}, committed ${toHex(held.commitment)})`);
      } else {
        held.revealed = entry.entropy;
      }
      firstReveal ??= { version: entry.version, seat };
    } else if (entry.entryKind === "started") {
      started = true;
    } else if (entry.entryKind === "ended" || entry.entryKind === "aborted") {
      // The seats it names as withholding are exactly those that committed and had not
      // revealed, every seat taken (an abort of a table from before it named them may name
      // none): a platform may act on this blame.
      const named = [...(entry.withheldSeats ?? [])].sort((a, b) => a - b);
      const owing = [...seats].filter(([, held]) => held.commitment !== undefined && held.revealed === undefined)
        .map(([index]) => index).sort((a, b) => a - b);
      const blamed = entry.entryKind === "ended" || named.length > 0;
      if (blamed && (named.length === 0 || named.join(",") !== owing.join(","))) {
        problems.push(`${where}: the ${entry.entryKind} entry names seats [${named.join(", ")}] as having `
          + `withheld their entropy, but the seats that owed a reveal are [${owing.join(", ")}]`);
      }
      endedBeforeDeal = true;
      break;
    }
  }
  const entropy = new Map<number, Uint8Array>();
  const committed: number[] = [];
  const clear: number[] = [];
  for (const [seat, held] of [...seats].sort(([a], [b]) => a - b)) {
    if (held.bot) continue; // bots contribute nothing: the server would choose their bytes
    if (held.commitment !== undefined) {
      if (held.revealed !== undefined) {
        entropy.set(seat, held.revealed);
        committed.push(seat);
      } else if (started) {
        problems.push(`seat ${seat} committed to entropy but the game started without its reveal`);
      }
    } else if (held.clear !== undefined) {
      entropy.set(seat, held.clear);
      clear.push(seat);
    }
  }
  return { entropy, committed, clear, endedBeforeDeal, problems };
}

/**
 * The seats 0..seatCount-1 the history does not show taken: no `joined` entry, or a `left` one
 * after it. A client reveals its seat's entropy only when there is none: whoever took a free
 * seat after the reveal could choose his entropy knowing it (a server that asks earlier, in
 * `awaiting_reveal`, is not believed). The Node client and the web table share it.
 */
export function freeSeats(entries: readonly Pick<EntryLike, "entryKind" | "seat">[],
  seatCount: number): number[] {
  const taken = new Set<number>();
  for (const entry of entries) {
    if (entry.seat === undefined) continue;
    if (entry.entryKind === "joined") taken.add(entry.seat);
    else if (entry.entryKind === "left") taken.delete(entry.seat);
  }
  return Array.from({ length: seatCount }, (_, seat) => seat).filter((seat) => !taken.has(seat));
}
