/**
 * A typed client for bezique.v1.TableService over gRPC (HTTP/2), built on @connectrpc/connect
 * and the code protoc-gen-es generates from proto/. Messages are the generated types: field
 * names in camelCase, int64 as bigint, google.protobuf.Struct as a plain JSON object, unset
 * message fields as undefined. A seat's calls carry its token as metadata
 * `authorization: Bearer <token>`; a call without a token is a spectator's.
 */

import { createHash, randomBytes, randomUUID } from "node:crypto";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type CallOptions, type Client } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import {
  BotSeatSchema,
  MoveSchema,
  TableService,
  type CreateTableResponse,
  type GetHistoryResponse,
  type HistoryEntry,
  type JoinTableResponse,
  type ReissueSeatTokenResponse,
  type Move,
  type RevealEntropyResponse,
  type SubmitMoveResponse,
  type TableResult,
  type TableSummary,
  type VariantInfo,
  type View,
  type WatchTableResponse,
} from "./gen/bezique/v1/table_service_pb.js";
import { freeSeats } from "./fair/seats.js";
import { PlaySession } from "./session.js";

/**
 * Whether `amount` may be submitted with the offered `move`: its exact amount, or, for a move
 * offered with an `amountRange` (a quart-bezique raise "to any sum"), any amount in the range.
 */
export function amountAllowed(move: Move, amount: bigint): boolean {
  const range = move.amountRange;
  if (range === undefined) return amount === move.amount;
  const step = range.step > 0n ? range.step : 1n;
  return range.minimum <= amount && amount <= range.maximum && (amount - range.minimum) % step === 0n;
}

/**
 * The offered `move` with `amount` in its range, ready for submitMove; a RangeError naming
 * the range (before any call) for an amount the offer does not allow.
 */
export function withAmount(move: Move, amount: bigint): Move {
  if (!amountAllowed(move, amount)) {
    const range = move.amountRange;
    const allowed = range === undefined ? `${move.amount}` : `${range.minimum} to ${range.maximum}`
      + (range.step > 1n ? ` in steps of ${range.step}` : "");
    throw new RangeError(`${move.kind} takes an amount of ${allowed}, not ${amount}`);
  }
  return create(MoveSchema, { kind: move.kind, cards: move.cards, amount, label: move.label });
}

/** An option value as a caller writes it; it travels as a string ("none" for null). */
export type OptionValue = string | number | bigint | boolean | null;

export interface ClientSettings {
  /** `http://host:port` (plaintext) or `https://host:port` (TLS); `host:port` means http. */
  readonly target: string;
  /** The platform API key, sent as `x-api-key` (CreateTable needs it if the server has one). */
  readonly apiKey?: string;
  /** Deadline of each unary call in milliseconds; 0 for none. Default 30 s. */
  readonly timeoutMs?: number;
}

export interface CreateTableOptions {
  readonly options?: Readonly<Record<string, OptionValue>>;
  /** Seat -> bot policy, e.g. `{ 1: "random" }`. */
  readonly bots?: Readonly<Record<number, string>>;
  readonly turnSeconds?: number;
  /**
   * Let anyone join, where the server would take joins only with a join grant or the API key
   * (a server with a grant key). Never allowed at a table that takes buy-ins.
   */
  readonly openSeats?: boolean;
}

/** The text form of an option value: "true"/"false", "none" for null, decimal numbers. */
export function optionText(value: OptionValue | undefined): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

/**
 * What joinTable answers, and what the seat keeps: the entropy it contributes and whether it
 * sent only its sha256 (`committed`): then the entropy stays secret until every seat is taken,
 * and the client reveals it by itself (see revealOwed).
 */
export type JoinedSeat = JoinTableResponse & {
  readonly entropy: Uint8Array;
  readonly committed: boolean;
  readonly tableId: string;
};

/**
 * The digest a seat pins before it reveals: every seat's contribution (a commitment, entropy in
 * the clear, or nothing) as the log shows it when the reveal round opens, the `joined` and
 * `left` entries before the first `revealed`, `started` or `ended` one (docs/fairness.md).
 */
export function contributionsDigest(entries: readonly HistoryEntry[]): string {
  const seats = new Map<number, [number, Uint8Array]>();
  for (const entry of entries) {
    const kind = entry.entryKind;
    if (kind === "revealed" || kind === "started" || kind === "ended") break;
    if (entry.seat === undefined) continue;
    if (kind === "joined") {
      if (entry.entropyCommitment.length > 0) seats.set(entry.seat, [2, entry.entropyCommitment]);
      else if (entry.entropy.length > 0) seats.set(entry.seat, [1, entry.entropy]);
      else seats.set(entry.seat, [0, new Uint8Array()]);
    } else if (kind === "left") {
      seats.delete(entry.seat);
    }
  }
  const hash = createHash("sha256").update("bezique/contributions/v1");
  for (const seat of [...seats.keys()].sort((a, b) => a - b)) {
    const [kind, data] = seats.get(seat) ?? [0, new Uint8Array()];
    const head = Buffer.alloc(5);
    head.writeUInt16BE(seat, 0);
    head.writeUInt8(kind, 2);
    head.writeUInt16BE(data.length, 3);
    hash.update(head).update(data);
  }
  return hash.digest("hex");
}

export { freeSeats };

/** The client will not reveal: its own read of the table's history shows these seats free. */
export class RevealRefusedError extends Error {
  constructor(readonly tableId: string, readonly free: readonly number[]) {
    super(`table ${tableId}: seats ${JSON.stringify(free)} are free in its history; a seat `
      + "reveals its entropy only once every seat is taken");
    this.name = "RevealRefusedError";
  }
}

function baseUrl(target: string): string {
  return /^https?:\/\//.test(target) ? target : `http://${target}`;
}

export class TableClient {
  /** The generated client, for calls this wrapper does not cover. */
  readonly rpc: Client<typeof TableService>;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly session: Http2SessionManager;
  /** Aborted by close(): ends the Play sessions, which would otherwise reconnect. */
  private readonly closing = new AbortController();
  /** table id -> seat -> [token, entropy]: seats that committed and have not revealed yet. */
  private readonly unrevealed = new Map<string, Map<number, [string, Uint8Array]>>();
  /**
   * `${tableId}/${seat}` -> the contributions digest the seat saw before it revealed: keep it
   * to hold the server to it afterwards (`bezique verify --proof`).
   */
  readonly pins = new Map<string, string>();

  constructor(settings: ClientSettings | string) {
    const resolved: ClientSettings = typeof settings === "string" ? { target: settings } : settings;
    const url = baseUrl(resolved.target);
    this.session = new Http2SessionManager(url);
    const transport = createGrpcTransport({ baseUrl: url, sessionManager: this.session });
    this.rpc = createClient(TableService, transport);
    this.apiKey = resolved.apiKey ?? "";
    this.timeoutMs = resolved.timeoutMs ?? 30_000;
  }

  /**
   * Close the connection, every call still open on it and every Play session. A program that is done should call
   * it: an open HTTP/2 connection keeps Node.js running (for as long as its idle timeout).
   */
  close(): void {
    this.closing.abort();
    this.session.abort();
  }

  /** Call options: the token as a bearer credential, the API key, the deadline. */
  private options(token?: string, signal?: AbortSignal, unary = true): CallOptions {
    const headers: Record<string, string> = {};
    if (token) headers["authorization"] = `Bearer ${token}`;
    if (this.apiKey) headers["x-api-key"] = this.apiKey;
    return {
      headers,
      signal,
      timeoutMs: unary && this.timeoutMs > 0 ? this.timeoutMs : undefined,
    };
  }

  /** The installed variants, with option schemas and bot policies. */
  async listVariants(): Promise<VariantInfo[]> {
    return (await this.rpc.listVariants({}, this.options())).variants;
  }

  /** A new table of `variantId`; the caller holds no seat yet (see joinTable). */
  createTable(variantId: string, settings: CreateTableOptions = {}): Promise<CreateTableResponse> {
    const options: Record<string, string> = {};
    for (const [name, value] of Object.entries(settings.options ?? {})) {
      options[name] = optionText(value);
    }
    const bots = Object.entries(settings.bots ?? {}).map(([seat, policy]) =>
      create(BotSeatSchema, { seat: Number(seat), policy }));
    return this.rpc.createTable(
      { variantId, options, bots, turnSeconds: settings.turnSeconds ?? 0,
        openSeats: settings.openSeats ?? false }, this.options());
  }

  /** Tables that are not finished, every page. */
  async listTables(filter: { variantId?: string; onlyOpen?: boolean } = {}): Promise<TableSummary[]> {
    const tables: TableSummary[] = [];
    let pageToken = "";
    do {
      const page = await this.rpc.listTables({ ...filter, pageToken }, this.options());
      tables.push(...page.tables);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return tables;
  }

  /**
   * Take a seat (the given one, or the first free): the token is in the answer, once. The seat
   * contributes `entropy` to every deal of the table: 32 fresh random bytes unless given (a
   * platform may pass its player's own; an empty array contributes none).
   *
   * With `commit` (the default) only its sha256 is sent now, and the client reveals the entropy
   * itself when a view of the table asks for it (every seat taken). `commit: false` sends it in
   * the clear, as older clients did: then the table is fair against the operator only if an
   * honest seat joins after every seat the operator controls.
   */
  async joinTable(
    tableId: string,
    settings: {
      seat?: number;
      name?: string;
      entropy?: Uint8Array;
      /** Send only sha256 of the entropy now and reveal it once every seat is taken (default). */
      commit?: boolean;
      /** Platform (API key): the player the seat is bound to. */
      playerId?: string;
      /** Platform (API key): the seat's starting stack, chips (betting variants). */
      buyIn?: bigint;
      /** A join grant the platform signed, in place of the API key. */
      grant?: string;
    } = {},
  ): Promise<JoinedSeat> {
    const entropy = settings.entropy ?? new Uint8Array(randomBytes(32));
    const committed = (settings.commit ?? true) && entropy.length > 0;
    const answer = await this.rpc.joinTable(
      {
        tableId,
        seat: settings.seat,
        displayName: settings.name ?? "",
        entropy: committed ? new Uint8Array() : entropy,
        entropyCommitment: committed
          ? new Uint8Array(createHash("sha256").update(entropy).digest()) : new Uint8Array(),
        playerId: settings.playerId ?? "",
        buyIn: settings.buyIn ?? 0n,
        joinGrant: settings.grant ?? "",
      },
      this.options(),
    );
    if (committed) {
      const owed = this.unrevealed.get(tableId) ?? new Map<number, [string, Uint8Array]>();
      owed.set(answer.seat, [answer.seatToken, entropy]);
      this.unrevealed.set(tableId, owed);
      if (answer.view !== undefined) await this.revealOwed(answer.view);
    }
    return Object.assign(answer, { entropy, committed, tableId });
  }

  /**
   * Reveal the entropy a seat committed to at joinTable, once every seat is taken. Safe to
   * repeat: a reveal already made changes nothing. First the history is read: when it shows a
   * seat of the table free (of `seatCount`; default: as many as the seat's view lists), this
   * throws RevealRefusedError and sends nothing, whatever the server says. Then every seat's
   * contribution, as the table shows it, is pinned (`pins`), so the operator cannot swap another
   * seat's commitment once this entropy is out.
   */
  async revealEntropy(tableId: string, token: string, entropy: Uint8Array,
    seatCount?: number): Promise<RevealEntropyResponse> {
    let count = seatCount;
    if (count === undefined) {
      const { view } = await this.rpc.getView({ tableId }, this.options(token));
      count = Math.max(view?.seats.length ?? 0, (view?.viewerSeat ?? -1) + 1);
    }
    const shown = await this.getHistory(tableId, token);
    const free = freeSeats(shown.entries, count);
    if (free.length > 0) throw new RevealRefusedError(tableId, free);
    const answer = await this.rpc.revealEntropy({ tableId, entropy }, this.options(token));
    const seat = answer.view?.viewerSeat;
    if (seat !== undefined) this.pins.set(`${tableId}/${seat}`, contributionsDigest(shown.entries));
    return answer;
  }

  /**
   * Reveal every seat of this client that `view.awaitingReveal` lists; true when any was (the
   * view is then out of date). Nothing is revealed while this client's own read of the history
   * shows a seat of the view's table free (the seats stay owed). Seats of a table that started
   * or ended are forgotten.
   */
  async revealOwed(view: View): Promise<boolean> {
    const owed = this.unrevealed.get(view.tableId);
    if (owed === undefined) return false;
    if (view.awaitingReveal.length === 0) {
      if (!view.waitingForPlayers || view.outcome !== undefined) this.unrevealed.delete(view.tableId);
      return false;
    }
    let revealed = false;
    for (const seat of view.awaitingReveal) {
      const held = owed.get(seat);
      if (held === undefined) continue;
      try {
        await this.revealEntropy(view.tableId, held[0], held[1], Math.max(view.seats.length, seat + 1));
      } catch (error) {
        if (error instanceof RevealRefusedError) return revealed;  // asked too early: still owed
        // the round ended meanwhile (its deadline): the next view says so
        if (!(error instanceof ConnectError && error.code === Code.FailedPrecondition)) throw error;
      }
      owed.delete(seat);
      revealed = true;
    }
    if (owed.size === 0) this.unrevealed.delete(view.tableId);
    return revealed;
  }

  /** Platform (API key): a new token for a seat; the old one stops working at once. */
  async reissueSeatToken(tableId: string, seat: number): Promise<ReissueSeatTokenResponse> {
    const answer = await this.rpc.reissueSeatToken({ tableId, seat }, this.options());
    const owed = this.unrevealed.get(tableId)?.get(seat);
    if (owed !== undefined) {
      // a reveal this client still owes for the seat is made with the new token
      this.unrevealed.get(tableId)?.set(seat, [answer.seatToken, owed[1]]);
    }
    return answer;
  }

  /** Give the token's seat back before the game starts; resolves to the log version. */
  async leaveTable(tableId: string, token: string): Promise<bigint> {
    return (await this.rpc.leaveTable({ tableId }, this.options(token))).version;
  }

  /**
   * The view of the token's seat (a spectator's without a token); when it asks this client's
   * seats to reveal their entropy, they do, and the view is read again.
   */
  async getView(tableId: string, token?: string): Promise<View> {
    for (let attempt = 0; ; attempt += 1) {
      const { view } = await this.rpc.getView({ tableId }, this.options(token));
      if (view === undefined) throw new Error("GetView answered without a view");
      if (attempt > 0 || !(await this.revealOwed(view))) return view;
    }
  }

  /**
   * Submit one of view.legalMoves unchanged (or, for one offered with an amount range, made
   * concrete by withAmount) with expectedVersion = view.version. A request id is made unless
   * one is given: pass the same one to retry the same attempt.
   */
  submitMove(tableId: string, token: string, move: Move, expectedVersion: bigint,
             requestId: string = randomUUID()): Promise<SubmitMoveResponse> {
    return this.rpc.submitMove(
      { tableId, move: create(MoveSchema, move), expectedVersion, requestId }, this.options(token));
  }

  /**
   * Every update after `fromVersion`, then live ones. Leaving the loop, or aborting `signal`,
   * ends the call. The stream ends by itself once a finished table has sent its final state.
   */
  async *watchTable(tableId: string, token: string | undefined, fromVersion: bigint = 0n,
                    signal?: AbortSignal): AsyncGenerator<WatchTableResponse> {
    // Our own controller, so that leaving the loop early (break, return, throw) cancels the
    // call: connect-node keeps the HTTP/2 stream, and with it the process, alive otherwise.
    const stop = new AbortController();
    const forward = (): void => stop.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    try {
      for await (const update of this.rpc.watchTable(
        { tableId, fromVersion }, this.options(token, stop.signal, false))) {
        if (update.view !== undefined) await this.revealOwed(update.view);
        yield update;
      }
    } finally {
      signal?.removeEventListener("abort", forward);
      stop.abort();
    }
  }

  /**
   * A seat's Play stream: moves with `session.move(move, expectedVersion)` (resolves with
   * SubmitMove's answer, rejects with SubmitMove's error), and every update after `fromVersion`
   * with `for await (const update of session)`, as watchTable sends them. A cut stream is opened
   * again from the last version received (`resume: false` to end the session instead), and the
   * moves it had not answered are sent again under their request ids. Leaving the loop, or
   * `session.close()`, ends the call. Needs a server with Play (else the first move and the loop
   * end with UNIMPLEMENTED: use submitMove and watchTable there).
   */
  play(tableId: string, token: string, fromVersion: bigint = 0n,
       settings: { resume?: boolean; retries?: number; backoffMs?: number } = {}): PlaySession {
    return new PlaySession(this.rpc, tableId, fromVersion, {
      ...settings,
      callOptions: (signal) => this.options(token, signal, false),
      onView: (view) => this.revealOwed(view),
      moveTimeoutMs: this.timeoutMs,
      signal: this.closing.signal,
      submit: (move) => this.submitMove(tableId, token, move.move ?? create(MoveSchema),
        move.expectedVersion, move.requestId),
    });
  }

  /**
   * Platform (API key): every finished table after `fromCursor`, in the order their ends were
   * committed, then each new one as it ends; the stream does not end by itself. Leaving the
   * loop, or aborting `signal`, ends the call. Delivery is at least once across a restart: keep
   * each result's `cursor` in the same transaction as what the result changed, and pass the
   * last one kept here.
   */
  async *watchResults(fromCursor: bigint = 0n, signal?: AbortSignal): AsyncGenerator<TableResult> {
    // as in watchTable: our own controller, so that leaving the loop early cancels the call
    const stop = new AbortController();
    const forward = (): void => stop.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener("abort", forward, { once: true });
    try {
      for await (const message of this.rpc.watchResults(
        { fromCursor }, this.options(undefined, stop.signal, false))) {
        if (message.result !== undefined) yield message.result;
      }
    } finally {
      signal?.removeEventListener("abort", forward);
      stop.abort();
    }
  }

  /**
   * Platform (API key): end a table now, with the reason "aborted" (Quart-Bezique gives the
   * current deal's stakes back); `note` (up to 200 characters) stays in the log. Resolves to
   * the version of the `aborted` entry. Not to be retried blindly: a second abort is
   * FailedPrecondition (TABLE_FINISHED).
   */
  async abortTable(tableId: string, note = ""): Promise<bigint> {
    return (await this.rpc.abortTable({ tableId, note }, this.options())).version;
  }

  /** The log as the caller may see it, every page; the facts of the last page. */
  async getHistory(tableId: string, token?: string): Promise<GetHistoryResponse & { entries: HistoryEntry[] }> {
    const entries: HistoryEntry[] = [];
    let pageToken = "";
    let page: GetHistoryResponse;
    do {
      page = await this.rpc.getHistory({ tableId, pageToken }, this.options(token));
      entries.push(...page.entries);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return { ...page, entries };
  }
}
