/**
 * The parts of a GetHistoryResponse the verifier reads, as plain structural types: the Node
 * client's and the web table's generated messages both fit them, so this module and its users
 * import no generated code and no Node-only module.
 */

export interface CardLike {
  readonly code: string;
  /** 0 where the history gives only the face (proto3 leaves a zero id out). */
  readonly id: number;
}

export interface EventLike {
  readonly kind: string;
  readonly seat?: number | undefined;
  readonly cards: readonly CardLike[];
  readonly detail?: { readonly [key: string]: unknown } | undefined;
}

export interface EntryLike {
  readonly version: bigint | number;
  readonly entryKind: string;
  readonly seat?: number | undefined;
  readonly events: readonly EventLike[];
  readonly entropy: Uint8Array;
  readonly entropyCommitment: Uint8Array;
  readonly botPolicy: string;
  /** An `ended` or `aborted` entry's seats that had not revealed their committed entropy. */
  readonly withheldSeats?: readonly number[] | undefined;
}

export interface TestSettingsLike {
  readonly seed: Uint8Array;
  readonly stackedShoe: readonly string[];
  readonly firstDealer?: number | undefined;
}

export interface HistoryLike {
  readonly tableId: string;
  readonly variantId: string;
  readonly options: { readonly [name: string]: string };
  readonly seedCommitment: string;
  readonly revealedSeed: Uint8Array;
  readonly finished: boolean;
  readonly chanceVersion: number;
  readonly entries: readonly EntryLike[];
  readonly test?: TestSettingsLike | undefined;
}

/** An event with the version of the entry that holds it. */
export interface Placed {
  readonly version: number;
  readonly event: EventLike;
}

/** Every event of the history, in log order. */
export function placedEvents(history: HistoryLike): Placed[] {
  return history.entries.flatMap((entry) => entry.events.map((event) => ({ version: Number(entry.version), event })));
}

/** A number from an event's detail (Struct numbers arrive as doubles), or undefined. */
export function detailNumber(event: EventLike, key: string): number | undefined {
  const value = event.detail?.[key];
  return typeof value === "number" ? value : undefined;
}

export function detailString(event: EventLike, key: string): string | undefined {
  const value = event.detail?.[key];
  return typeof value === "string" ? value : undefined;
}

/** A card as the verdicts print it: its face and, where known, its id. */
export function cardText(card: CardLike | undefined): string {
  if (card === undefined) return "nothing";
  return card.id ? `${card.code}#${card.id}` : card.code;
}

/**
 * Whether a card the history shows is the derived one: the same face and, where the history
 * gives an id, the same id (a face-only card has none to compare).
 */
export function sameCard(shown: CardLike | undefined, derived: CardLike | undefined): boolean {
  if (shown === undefined || derived === undefined) return shown === derived;
  return shown.code === derived.code && (shown.id === 0 || shown.id === derived.id);
}
