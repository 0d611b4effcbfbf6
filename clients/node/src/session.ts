/**
 * A seat's Play stream (bezique.v1.TableService.Play): its moves go up and every update the
 * table's WatchTable would send comes down, on one bidirectional HTTP/2 call. A cut stream is
 * opened again from the last version received, and the moves it had not answered are sent again
 * with their request ids, which the server applies at most once.
 */

import { randomUUID } from "node:crypto";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type CallOptions, type Client } from "@connectrpc/connect";

import { statusError } from "./errors.js";
import {
  MoveSchema,
  PlayMoveSchema,
  PlayRequestSchema,
  type Move,
  type PlayMove,
  type PlayRequest,
  type PlayResult,
  type SubmitMoveResponse,
  type TableService,
  type View,
  type WatchTableResponse,
} from "./gen/bezique/v1/table_service_pb.js";
import { AsyncQueue } from "./queue.js";

/** How a session calls, resumes and waits. */
export interface PlaySessionSettings {
  /** Call options for a stream (its token, API key), with the signal that ends it. */
  readonly callOptions: (signal: AbortSignal) => CallOptions;
  /** What the client does with each view first (reveal the entropy it owes). */
  readonly onView: (view: View) => Promise<unknown>;
  /** Open a cut stream again (default true). */
  readonly resume?: boolean;
  /** Streams opened again in a row without receiving anything before giving up (default 4). */
  readonly retries?: number;
  /** The first wait before opening again, in ms, doubled each time in a row (default 100). */
  readonly backoffMs?: number;
  /** How long a move waits for its result, in ms; 0 for ever (default 30 s, SubmitMove's). */
  readonly moveTimeoutMs?: number;
  /** Closes the session when aborted (the client closing: a cut is not resumed then). */
  readonly signal?: AbortSignal;
  /**
   * SubmitMove, for a move the stream cannot answer because it has ended with the game: its
   * answer is then the server's own (TABLE_FINISHED, or a duplicate's), not one made up here.
   */
  readonly submit?: (move: PlayMove) => Promise<SubmitMoveResponse>;
}

/** A move sent and not answered yet. */
interface Pending {
  readonly request: PlayRequest;
  readonly move: PlayMove;
  readonly requestId: string;
  readonly resolve: (answer: SubmitMoveResponse) => void;
  readonly reject: (error: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * The codes after which a stream is opened again: those the Python SDK's watch resumes on, and
 * CANCELED when the session did not cancel it (connect-node's word for a connection cut under
 * the stream).
 */
const RESUMABLE = new Set<Code>([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted,
  Code.Canceled]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class PlaySession implements AsyncIterable<WatchTableResponse> {
  private last: bigint;
  private readonly pending: Pending[] = [];
  private readonly updates = new AsyncQueue<WatchTableResponse>();
  /** What the current stream sends; undefined while no stream is open. */
  private requests: AsyncQueue<PlayRequest> | undefined;
  private readonly stop = new AbortController();
  /** Set once the session is over: why (undefined for a table that finished). */
  private over: { error: unknown } | undefined;
  private opened = 0;
  private readonly closeOnAbort = (): void => this.close();

  constructor(
    private readonly rpc: Client<typeof TableService>,
    readonly tableId: string,
    fromVersion: bigint,
    private readonly settings: PlaySessionSettings,
  ) {
    this.last = fromVersion;
    settings.signal?.addEventListener("abort", this.closeOnAbort, { once: true });
    if (settings.signal?.aborted) this.close();
    else void this.run();
  }

  /** The last table version received (the one a cut stream resumes after). */
  get version(): bigint {
    return this.last;
  }

  /** How many times the stream was opened again after a cut. */
  get resumes(): number {
    return Math.max(0, this.opened - 1);
  }

  /** Whether the session has ended (the table finished, an error, or close()). */
  get closed(): boolean {
    return this.over !== undefined;
  }

  /**
   * Send one of view.legalMoves unchanged (or made concrete by withAmount) with
   * expectedVersion = view.version. Resolves with SubmitMove's answer (`duplicate` for a
   * request id already applied); a refusal rejects with the ConnectError SubmitMove would have
   * thrown (errorReason, errorInfo work on it) and the stream goes on. A request id is made
   * unless one is given: pass the same one to retry the same attempt. Once the game has ended
   * the stream has, and the move goes by SubmitMove.
   */
  move(move: Move, expectedVersion: bigint, requestId: string = randomUUID()): Promise<SubmitMoveResponse> {
    if (!requestId) return Promise.reject(new ConnectError("a move needs a request id", Code.InvalidArgument));
    const playMove = create(PlayMoveSchema, { move: create(MoveSchema, move), expectedVersion, requestId });
    if (this.over !== undefined) return this.afterEnd(playMove);
    const request = create(PlayRequestSchema, { kind: { case: "move", value: playMove } });
    return new Promise<SubmitMoveResponse>((resolve, reject) => {
      const pending: Pending = { request, move: playMove, requestId, resolve, reject };
      const timeout = this.settings.moveTimeoutMs ?? 30_000;
      if (timeout > 0) {
        pending.timer = setTimeout(() => {
          this.forget(pending);
          reject(new ConnectError(`no result for move ${requestId} within ${timeout} ms`,
            Code.DeadlineExceeded));
        }, timeout);
      }
      this.pending.push(pending);
      this.requests?.push(request);
    });
  }

  /**
   * The updates, from the session's from_version on, each once, in order, across resumes.
   * Leaving the loop closes the session; the loop ends once a finished table has sent its
   * final state, and throws the error that ended the session otherwise.
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchTableResponse> {
    try {
      for (;;) {
        const next = await this.updates.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      this.close();
    }
  }

  /** End the session and its call; moves not answered yet reject with CANCELED. */
  close(): void {
    this.finish(new ConnectError("the Play session was closed", Code.Canceled));
  }

  /** A move once the session is over: SubmitMove's answer after the game ended, else its error. */
  private afterEnd(move: PlayMove): Promise<SubmitMoveResponse> {
    const submit = this.settings.submit;
    if (this.over?.error === undefined && submit !== undefined) return submit(move);
    return Promise.reject(this.endedError());
  }

  private endedError(): unknown {
    return this.over?.error
      ?? new ConnectError("the Play stream ended: the table has finished", Code.FailedPrecondition);
  }

  /** Every stream of the session, one after another, until it ends. */
  private async run(): Promise<void> {
    let failures = 0;
    while (this.over === undefined) {
      const received = { any: false };
      try {
        await this.stream(received);
        this.finish(undefined);
        return;
      } catch (error) {
        if (this.over !== undefined) return;
        const cut = ConnectError.from(error);
        failures = received.any ? 1 : failures + 1;
        if (!(this.settings.resume ?? true) || !RESUMABLE.has(cut.code)
            || failures > (this.settings.retries ?? 4)) {
          this.finish(cut);
          return;
        }
        await sleep((this.settings.backoffMs ?? 100) * 2 ** (failures - 1));
      }
    }
  }

  /** One stream: open it from the last version, send the moves not answered, read it out. */
  private async stream(received: { any: boolean }): Promise<void> {
    const requests = new AsyncQueue<PlayRequest>();
    const abort = new AbortController();
    const forward = (): void => abort.abort();
    this.stop.signal.addEventListener("abort", forward, { once: true });
    requests.push(create(PlayRequestSchema, {
      kind: {
        case: "open",
        value: { tableId: this.tableId, fromVersion: this.last, answersWithUpdates: true },
      },
    }));
    for (const pending of this.pending) requests.push(pending.request);
    this.requests = requests;
    this.opened += 1;
    try {
      for await (const response of this.rpc.play(requests, this.settings.callOptions(abort.signal))) {
        received.any = true;
        if (response.kind.case === "update") {
          await this.update(response.kind.value);
          if (response.answer !== undefined) this.answer(response.answer);  // sent with it
        } else if (response.kind.case === "result") this.answer(response.kind.value);
      }
    } finally {
      if (this.requests === requests) this.requests = undefined;
      requests.end();
      this.stop.signal.removeEventListener("abort", forward);
      abort.abort();
    }
  }

  private async update(update: WatchTableResponse): Promise<void> {
    if (update.version <= this.last) return;  // sent before a cut, and again after it
    this.last = update.version;
    if (update.view !== undefined) await this.settings.onView(update.view);
    this.updates.push(update);
  }

  /** Settle the first move waiting with this request id. */
  private answer(result: PlayResult): void {
    const pending = this.pending.find((entry) => entry.requestId === result.requestId);
    if (pending === undefined) return;  // timed out, or answered before a cut
    this.forget(pending);
    if (result.code !== 0) {
      pending.reject(statusError(result.code, result.message, result.statusDetails));
    } else if (result.accepted === undefined) {
      pending.reject(new ConnectError(`result ${result.requestId} holds neither an answer nor a code`,
        Code.Internal));
    } else {
      pending.resolve(result.accepted);
    }
  }

  private forget(pending: Pending): void {
    clearTimeout(pending.timer);
    const at = this.pending.indexOf(pending);
    if (at >= 0) this.pending.splice(at, 1);
  }

  /** The session is over: `error`, or undefined when the table finished. */
  private finish(error: unknown): void {
    if (this.over !== undefined) return;
    this.over = { error };
    this.settings.signal?.removeEventListener("abort", this.closeOnAbort);
    this.stop.abort();
    this.updates.end(error instanceof ConnectError && error.code === Code.Canceled ? undefined : error);
    for (const pending of this.pending.splice(0)) {
      clearTimeout(pending.timer);
      this.afterEnd(pending.move).then(pending.resolve, pending.reject);
    }
  }
}
