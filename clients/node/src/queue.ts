/**
 * An unbounded first-in first-out queue read as an async iterator: what a bidirectional call
 * sends (pushed as the caller makes moves) and what a Play session has received but the caller
 * has not read yet. One reader; push never waits.
 */

export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private reader: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }
    | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;

  /** Add an item; nothing once the queue has ended. */
  push(item: T): void {
    if (this.ended) return;
    const reader = this.reader;
    if (reader !== undefined) {
      this.reader = undefined;
      reader.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** No more items: the reader gets those queued, then the end (or `error`, thrown). */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (error !== undefined) this.failure = { error };
    const reader = this.reader;
    this.reader = undefined;
    if (reader === undefined) return;
    if (this.failure !== undefined) reader.reject(this.failure.error);
    else reader.resolve({ value: undefined, done: true });
  }

  get isEnded(): boolean {
    return this.ended;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false });
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (this.reader !== undefined) return Promise.reject(new Error("an AsyncQueue has one reader"));
    return new Promise((resolve, reject) => { this.reader = { resolve, reject }; });
  }

  /** The reader leaves (a loop over the queue ended early): the queue ends, what is left is dropped. */
  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** The reader gives up with `error` (as a generator would): the queue ends and drops the rest. */
  throw(error?: unknown): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.end();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
