/**
 * The page's connection to the server that served it: the generated TableService client over
 * connect-web, on the page's own origin (the server serves the page and the protocol on one
 * HTTP port). Connect with the binary format by default; `?protocol=connect-json` or
 * `?protocol=grpc-web` in the page's address picks another of the protocols the server speaks.
 *
 * A seat's token lives in localStorage, per table: a reload, a closed tab or a restarted
 * browser keep the seat; a resume code carries it to another device.
 */

import { Code, ConnectError, createClient, type CallOptions, type Client } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

import { freeSeats } from "../../node/src/fair/seats.js";
import { TableService, type HistoryEntry, type VariantInfo, type View } from "./gen/bezique/v1/table_service_pb.js";

export type Protocol = "connect" | "connect-json" | "grpc-web";

/** The protocol asked for in the page's query string (`?protocol=`), else Connect binary. */
export function pageProtocol(): Protocol {
  const asked = new URLSearchParams(window.location.search).get("protocol");
  return asked === "grpc-web" || asked === "connect-json" ? asked : "connect";
}

function makeClient(protocol: Protocol): Client<typeof TableService> {
  const baseUrl = window.location.origin;
  const transport = protocol === "grpc-web"
    ? createGrpcWebTransport({ baseUrl })
    : createConnectTransport({ baseUrl, useBinaryFormat: protocol === "connect" });
  return createClient(TableService, transport);
}

/** The generated client for this page. */
export const rpc: Client<typeof TableService> = makeClient(pageProtocol());

let variants: Promise<VariantInfo[]> | undefined;

/** The server's variants, asked once per page load (a failure is asked again next time). */
export function listVariants(): Promise<VariantInfo[]> {
  variants ??= rpc.listVariants({}, callOptions()).then((answer) => answer.variants, (error: unknown) => {
    variants = undefined;
    throw error;
  });
  return variants;
}

/** Call options: the seat's token as a bearer credential, a deadline for unary calls. */
export function callOptions(token?: string, signal?: AbortSignal, unary = true): CallOptions {
  return {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal,
    timeoutMs: unary ? 15_000 : undefined,
  };
}

/**
 * A seat held in this browser: the table, the seat number, its token, and (hex) the secret
 * entropy whose sha256 it sent at JoinTable, kept until the seat has revealed it
 * (RevealEntropy); also what the lobby's "My tables" lists (the game, when it was taken,
 * whether the game has ended).
 */
export interface SeatHold {
  readonly tableId: string;
  readonly seat: number;
  readonly token: string;
  readonly secret?: string;
  readonly variantId?: string;
  readonly since?: number;
  readonly finished?: boolean;
}

const SEAT_KEY = "bezique.seat.";
const NAME_KEY = "bezique.name";

function parseHold(tableId: string, raw: string | null): SeatHold | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    if (typeof parsed["seat"] !== "number" || typeof parsed["token"] !== "string") return undefined;
    const secret = typeof parsed["secret"] === "string" && /^[0-9a-f]{64}$/.test(parsed["secret"]) ? parsed["secret"] : undefined;
    return {
      tableId, seat: parsed["seat"], token: parsed["token"], secret,
      variantId: typeof parsed["variantId"] === "string" ? parsed["variantId"] : undefined,
      since: typeof parsed["since"] === "number" ? parsed["since"] : undefined,
      finished: parsed["finished"] === true,
    };
  } catch {
    return undefined; // a malformed entry: no seat
  }
}

/**
 * The seat this browser holds at `tableId`, if any. localStorage: a closed tab, a restarted
 * browser keep the seat (sessionStorage, where earlier pages kept it, is read too).
 */
export function heldSeat(tableId: string): SeatHold | undefined {
  try {
    return parseHold(tableId, window.localStorage.getItem(SEAT_KEY + tableId))
      ?? parseHold(tableId, window.sessionStorage.getItem(SEAT_KEY + tableId));
  } catch {
    return undefined; // storage refused
  }
}

export function holdSeat(hold: SeatHold): void {
  const { tableId, ...kept } = hold;
  window.localStorage.setItem(SEAT_KEY + tableId, JSON.stringify({ ...kept, since: hold.since ?? Date.now() }));
}

/** Note in the seat's record that its game has ended (the lobby lists it as finished). */
export function markFinished(tableId: string): void {
  const hold = heldSeat(tableId);
  if (hold && !hold.finished) holdSeat({ ...hold, finished: true });
}

export function dropSeat(tableId: string): void {
  window.localStorage.removeItem(SEAT_KEY + tableId);
  window.sessionStorage.removeItem(SEAT_KEY + tableId);
}

/** Every seat this browser holds, the newest first. */
export function heldSeats(): SeatHold[] {
  const holds: SeatHold[] = [];
  try {
    for (let index = 0; index < window.localStorage.length; index += 1) {
      const key = window.localStorage.key(index);
      if (!key?.startsWith(SEAT_KEY)) continue;
      const hold = parseHold(key.slice(SEAT_KEY.length), window.localStorage.getItem(key));
      if (hold) holds.push(hold);
    }
  } catch {
    // storage refused: none
  }
  return holds.sort((a, b) => (b.since ?? 0) - (a.since ?? 0));
}

const RESUME_PREFIX = "bz1.";

/**
 * A seat as a resume code: everything the seat's page keeps (table, seat, token, secret), so
 * that another device can take the seat back. It is as secret as the token itself.
 */
export function resumeCode(hold: SeatHold): string {
  const text = JSON.stringify({ t: hold.tableId, s: hold.seat, k: hold.token, e: hold.secret, v: hold.variantId });
  const bytes = new TextEncoder().encode(text);
  const base64 = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return RESUME_PREFIX + base64;
}

/** The seat a resume code holds, or undefined for anything else. */
export function readResumeCode(code: string): SeatHold | undefined {
  const trimmed = code.trim().replace(/^.*#\/resume\//, ""); // the link form too
  if (!trimmed.startsWith(RESUME_PREFIX)) return undefined;
  try {
    const base64 = trimmed.slice(RESUME_PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    const text = new TextDecoder().decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)));
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const tableId = parsed["t"];
    if (typeof tableId !== "string" || !/^[\w-]{1,64}$/.test(tableId)) return undefined;
    return parseHold(tableId, JSON.stringify({ seat: parsed["s"], token: parsed["k"], secret: parsed["e"], variantId: parsed["v"] }));
  } catch {
    return undefined;
  }
}

/** The player's name, remembered for the next table. */
export function playerName(): string {
  try {
    return window.localStorage.getItem(NAME_KEY) ?? "";
  } catch {
    return "";
  }
}

export function rememberName(name: string): void {
  try {
    window.localStorage.setItem(NAME_KEY, name);
  } catch {
    // private mode: not remembered
  }
}

/** 32 random bytes: the seat's contribution to the table's randomness (JoinTable.entropy). */
export function freshEntropy(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(32));
}

/** A unique request id (hex), also on pages that are not a secure context. */
export function requestId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function unhex(text: string): Uint8Array {
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/**
 * Take a seat and remember it in this tab. The seat commits to its entropy: only sha256 of 32
 * fresh random bytes goes to the server now, the bytes stay in localStorage until the table
 * asks for them (View.awaiting_reveal, see revealEntropy), so that no seat, nor the operator,
 * can choose its entropy after seeing another's. A page that is not a secure context has no
 * crypto.subtle: it sends the entropy in the clear, as clients did before commit-reveal.
 */
export async function joinTable(tableId: string, name: string, seat?: number, variantId?: string): Promise<SeatHold> {
  const entropy = freshEntropy();
  const subtle = window.isSecureContext ? crypto.subtle : undefined;
  const commitment = subtle ? new Uint8Array(await subtle.digest("SHA-256", entropy)) : undefined;
  const answer = await rpc.joinTable(commitment
    ? { tableId, seat, displayName: name, entropyCommitment: commitment }
    : { tableId, seat, displayName: name, entropy }, callOptions());
  const hold = { tableId, seat: answer.seat, token: answer.seatToken, secret: commitment ? hex(entropy) : undefined, variantId };
  holdSeat(hold);
  return hold;
}

/** The page will not reveal: its own read of the table's history shows these seats free. */
export class RevealRefused extends Error {
  constructor(readonly free: readonly number[]) {
    super(`the table's history shows seat${free.length > 1 ? "s" : ""} ${free.join(", ")} free, `
      + "so this seat keeps its entropy secret (a seat reveals only once every seat is taken)");
    this.name = "RevealRefused";
  }
}

/** Every page of a table's history entries. */
async function historyEntries(tableId: string, token: string): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  let pageToken = "";
  do {
    const page = await rpc.getHistory({ tableId, pageToken, pageSize: 1000 }, callOptions(token));
    entries.push(...page.entries);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return entries;
}

/**
 * Reveal the entropy `hold` committed to, once every seat of the table's `seatCount` is taken:
 * first the page reads the history itself and, when it shows a seat free, throws RevealRefused
 * and sends nothing, whatever the server's view said (whoever took that seat next could choose
 * his entropy knowing this one). Safe to repeat: the server takes the same reveal again without
 * a change, so an unavailable server is asked again (three tries); the caller's view after the
 * reveal is the answer.
 */
export async function revealEntropy(hold: SeatHold, seatCount: number): Promise<View | undefined> {
  if (hold.secret === undefined) return undefined;
  const free = freeSeats(await historyEntries(hold.tableId, hold.token), Math.max(seatCount, hold.seat + 1));
  if (free.length > 0) throw new RevealRefused(free);
  for (let attempt = 1; ; attempt += 1) {
    try {
      const answer = await rpc.revealEntropy({ tableId: hold.tableId, entropy: unhex(hold.secret) }, callOptions(hold.token));
      return answer.view;
    } catch (error) {
      if (!(error instanceof ConnectError && error.code === Code.Unavailable) || attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
}

/** The ErrorInfo reason of a failed call ("STALE_VERSION"), or "" (google.rpc.ErrorInfo field 1). */
export function errorReason(error: unknown): string {
  const connectError = ConnectError.from(error);
  for (const detail of connectError.details) {
    if ("desc" in detail || detail.type !== "google.rpc.ErrorInfo") continue;
    const reader = new BinaryReader(detail.value);
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (field === 1 && wireType === WireType.LengthDelimited) return reader.string();
      reader.skip(wireType);
    }
  }
  return "";
}

/** A failed call in one line for people: the server's message and reason. */
export function describeError(error: unknown): string {
  if (error instanceof ConnectError) {
    const reason = errorReason(error);
    const code = Code[error.code] ?? "error";
    return `${error.rawMessage || code}${reason ? ` (${reason})` : ` (${code})`}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Whether an error only says the call was cancelled by us (a page left, a stream stopped). */
export function isCancel(error: unknown): boolean {
  return error instanceof ConnectError ? error.code === Code.Canceled
    : error instanceof DOMException && error.name === "AbortError";
}
