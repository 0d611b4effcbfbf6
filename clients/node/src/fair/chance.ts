/**
 * The table's chance, as docs/fairness.md constructs it: the key from the revealed seed and
 * the seats' entropy, each purpose's HMAC-SHA256 byte stream, `below` without modulo bias and
 * the front-first Fisher–Yates shuffle. WebCrypto only (`crypto.subtle`, in Node 20 and in
 * browsers), so the web table runs the very same code as the Node verifier.
 */

const encoder = new TextEncoder();
const TWO_64 = 1n << 64n;

/** WebCrypto's key type, named without the DOM library (Node's typings have no global CryptoKey). */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** A copy on its own ArrayBuffer: what WebCrypto's typings accept. */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", own(bytes)));
}

async function hmacKey(key: Uint8Array): Promise<HmacKey> {
  return crypto.subtle.importKey("raw", own(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function hmacSha256(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(key), own(message)));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function uint16(value: number): Uint8Array {
  return new Uint8Array([(value >> 8) & 0xff, value & 0xff]);
}

/**
 * The key every chance step derives from: HMAC-SHA256(seed, "bezique/entropy/v1" || per
 * contributing seat in seat order: seat (2 bytes) || length (2 bytes) || entropy), or the seed
 * itself when no seat contributed.
 */
export async function tableKey(seed: Uint8Array, entropy: ReadonlyMap<number, Uint8Array>): Promise<Uint8Array> {
  const seats = [...entropy.keys()].sort((a, b) => a - b);
  if (seats.length === 0) return seed;
  const parts: Uint8Array[] = [encoder.encode("bezique/entropy/v1")];
  for (const seat of seats) {
    const bytes = entropy.get(seat) ?? new Uint8Array();
    parts.push(uint16(seat), uint16(bytes.length), bytes);
  }
  return hmacSha256(seed, concat(parts));
}

/**
 * One purpose's stream of big-endian unsigned 64-bit integers: the blocks
 * HMAC-SHA256(key, purpose + ":" + counter), counter = 0, 1, 2, … in decimal ASCII.
 */
class Stream {
  private block = new Uint8Array();
  private at = 0;
  private counter = 0;

  constructor(private readonly key: HmacKey, private readonly purpose: string) {}

  async next(): Promise<bigint> {
    let value = 0n;
    for (let i = 0; i < 8; i += 1) {
      if (this.at >= this.block.length) {
        const message = encoder.encode(`${this.purpose}:${this.counter}`);
        this.block = new Uint8Array(await crypto.subtle.sign("HMAC", this.key, message));
        this.counter += 1;
        this.at = 0;
      }
      value = (value << 8n) | BigInt(this.block[this.at] ?? 0);
      this.at += 1;
    }
    return value;
  }

  /** The next integer below `n` read from the stream, rejecting the biased top. */
  async below(n: number): Promise<number> {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`below(${n}): n must be a positive integer`);
    const size = BigInt(n);
    const limit = TWO_64 - (TWO_64 % size);
    for (;;) {
      const value = await this.next();
      if (value < limit) return Number(value % size);
    }
  }
}

/** The chance steps of one table, keyed by `tableKey`. */
export class Chance {
  private constructor(private readonly key: HmacKey) {}

  static async create(key: Uint8Array): Promise<Chance> {
    return new Chance(await hmacKey(key));
  }

  /** below(purpose, n): the first unbiased value of the purpose's stream, mod n. */
  async below(purpose: string, n: number): Promise<number> {
    return new Stream(this.key, purpose).below(n);
  }

  /** shuffle(purpose, items): Fisher–Yates over one stream, position 0 (the top) first. */
  async shuffle<T>(purpose: string, items: readonly T[], count: number = items.length - 1): Promise<T[]> {
    const out = [...items];
    const stream = new Stream(this.key, purpose);
    for (let i = 0; i < Math.min(count, out.length - 1); i += 1) {
      const j = i + await stream.below(out.length - i);
      const swap = out[i] as T;
      out[i] = out[j] as T;
      out[j] = swap;
    }
    return out;
  }

  /** draw(purpose, items, count): the first `count` items of that shuffle, by its first steps. */
  async draw<T>(purpose: string, items: readonly T[], count: number): Promise<T[]> {
    return (await this.shuffle(purpose, items, count)).slice(0, count);
  }
}
