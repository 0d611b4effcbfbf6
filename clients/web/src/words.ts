/**
 * What the page says: seats by name, moves as button labels, events as sentences, the
 * outcome, detail values. Generic over variants (as clients/render.py is for the terminal): a
 * variant's specifics arrive as kinds, labels and detail keys; the well-known ones get words,
 * the others are shown as they come. Every server string goes through clean() into text nodes.
 */

import { cardLabel, cardNode, cardRow, isCardCode, SUITS } from "./cards.js";
import { clean, el, fragment, type Child } from "./dom.js";
import type { Card, Event, Move, Outcome, SeatState } from "./gen/bezique/v1/table_service_pb.js";
import type { JsonValue } from "@bufbuild/protobuf";

const VERBS: Readonly<Record<string, string>> = {
  play: "plays", trick: "takes the trick", round_won: "wins the round", deal: "is dealt",
  draw: "draws", declare: "declares", pass: "passes", dealer: "deals", fold: "folds",
  call: "calls", raise: "raises to", bet: "calls", check: "checks", ante: "antes",
  claim: "claims the match", lot: "draws for the deal", shuffle: "shuffles", cut: "cuts",
  pot_won: "wins from the pot", reveal: "shows", sit_out: "sits the deal out",
  exchange_seven: "exchanges the seven of trumps", show_seven: "shows the seven of trumps",
  turnup: "turns up the trump card", trump: "turns up trumps", allin: "goes all in with",
  show: "calls and shows with", deal_start: "starts a deal", deal_end: "ends the deal",
  match_end: "ends the match", table_end: "closes the table", carry_over: "carries the pot over:",
  brisques: "counts brisques", last_trick: "takes the last trick",
};

/** Event kinds whose amount is chips, not points. */
const CHIP_KINDS = new Set(["ante", "bet", "raise", "allin", "show", "call", "pot_won", "carry_over"]);

const MOVE_WORDS: Readonly<Record<string, string>> = {
  play: "Play", declare: "Declare", pass: "Pass", claim: "Claim the match",
  exchange_seven: "Exchange the seven", show_seven: "Show the seven", bet: "Call",
  raise: "Raise to", allin: "All in", fold: "Fold", show: "Call and show",
};

/** Detail keys that an event sentence says in words (others go to its tooltip). */
const SAID_KEYS = new Set(["points", "combinations", "has_combination", "reason"]);

/** A variant's own words (VariantInfo.vocabulary, in servers that send it); maps may be empty. */
export interface Vocabulary {
  readonly phases: Readonly<Record<string, string>>;
  readonly events: Readonly<Record<string, string>>;
  readonly zones: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, string>>;
  readonly moves: Readonly<Record<string, string>>;
}

const NO_WORDS: Vocabulary = { phases: {}, events: {}, zones: {}, details: {}, moves: {} };
let vocabulary: Vocabulary = NO_WORDS;

function stringMap(value: unknown): Record<string, string> {
  const map: Record<string, string> = {};
  if (value === null || typeof value !== "object") return map;
  for (const [key, text] of Object.entries(value)) if (typeof text === "string" && text) map[key] = clean(text);
  return map;
}

/**
 * Use the words `info` declares for its variant (VariantInfo.vocabulary), where the server
 * sends them; read without the generated field names, so that the page also builds against a
 * protocol from before them (and then uses its own words). Undefined: only the page's words.
 */
export function useVocabulary(info: object | undefined): void {
  const declared = (info as { vocabulary?: Record<string, unknown> } | undefined)?.vocabulary;
  vocabulary = declared === undefined ? NO_WORDS : {
    phases: stringMap(declared["phases"]), events: stringMap(declared["events"]),
    zones: stringMap(declared["zones"]), details: stringMap(declared["details"]),
    moves: stringMap(declared["moves"]),
  };
}

/** The variant's label of a phase, zone or detail key, if it declares one. */
export function declared(kind: "phases" | "zones" | "details" | "moves", name: string): string | undefined {
  return vocabulary[kind][name];
}

/** "royal_marriage" -> "royal marriage". */
export function words(name: string): string {
  return clean(name).replace(/[_/]/g, " ").trim();
}

/** Names of the seats: "Seat 0 (you)", "Seat 1 (bob)", "Seat 2". */
export function seatNames(seats: readonly SeatState[], viewer?: number): Map<number, string> {
  const names = new Map<number, string>();
  for (const state of seats) {
    if (viewer !== undefined && state.seat === viewer) names.set(state.seat, `Seat ${state.seat} (you)`);
    else if (state.displayName) names.set(state.seat, `Seat ${state.seat} (${clean(state.displayName)})`);
    else names.set(state.seat, `Seat ${state.seat}`);
  }
  return names;
}

export function who(names: ReadonlyMap<number, string>, seat: number | undefined): string {
  if (seat === undefined) return "The table";
  return names.get(seat) ?? `Seat ${seat}`;
}

/** A detail value in words: cards as symbols, suits as symbols, lists joined. */
export function valueText(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    if (isCardCode(value)) return cardLabel(value);
    if (value.length === 1 && value in SUITS) return SUITS[value]!;
    return clean(value);
  }
  if (Array.isArray(value)) return `[${value.map(valueText).join(", ")}]`;
  return `{${Object.keys(value).sort().map((key) => `${words(key)}: ${valueText(value[key])}`).join(", ")}}`;
}

/** The amounts a move may carry: any from `min` to `max`, in steps of `step` from `min`. */
export interface AmountRange {
  readonly min: bigint;
  readonly max: bigint;
  readonly step: bigint;
}

/**
 * The amount range of a move, if the server offers one (Move.amount_range: minimum, maximum,
 * step, in servers that have it): the player may choose any amount in it. Read without the
 * generated field names, so that the page also builds against a protocol from before them
 * (and then shows the offered amounts as they are).
 */
export function amountRange(move: Move): AmountRange | undefined {
  type Range = { minimum?: unknown; maximum?: unknown; step?: unknown };
  const range = (move as unknown as { amountRange?: Range }).amountRange;
  if (range === undefined || typeof range.minimum !== "bigint" || typeof range.maximum !== "bigint") return undefined;
  if (range.maximum <= range.minimum) return undefined;
  const step = typeof range.step === "bigint" && range.step > 0n ? range.step : 1n;
  return { min: range.minimum, max: range.maximum, step };
}

/**
 * The server's text of a legal move (Move.text: the variant's words, the one text of a move
 * every client shows), cleaned; "" from a server older than it (the page then writes the move
 * itself). Read without the generated field name, as amountRange is.
 */
export function serverText(move: Move): string {
  const text = (move as unknown as { text?: unknown }).text;
  return typeof text === "string" ? clean(text).trim() : "";
}

/** The server's text as a button label: its leading kind marked, its cards as cards. */
function saidLabel(move: Move, said: string): Child[] {
  const parts: Child[] = [];
  const kind = move.kind.replace(/_/g, " ");
  let rest = said;
  if (rest === kind || rest.startsWith(`${kind} `)) {
    parts.push(el("span", { class: "kind" }, kind));
    rest = rest.slice(kind.length).trimStart();
  }
  const byLabel = new Map<string, Card[]>();
  for (const card of move.cards) {
    const label = cardLabel(card.code);
    byLabel.set(label, [...(byLabel.get(label) ?? []), card]);
  }
  for (const word of rest.split(" ").filter((part) => part !== "")) {
    if (parts.length > 0) parts.push(" ");
    const card = byLabel.get(word)?.shift();
    parts.push(card === undefined ? word : cardNode(card));
  }
  return parts;
}

/**
 * A move as a button label: the server's text of it ("play 10♥", "declare royal marriage K♠
 * Q♠"), or without one the page's own words ("Play 10♥", "Raise to 40").
 */
export function moveLabel(move: Move): Child[] {
  const said = serverText(move);
  if (said !== "") return saidLabel(move, said);
  const parts: Child[] = [el("span", { class: "kind" }, MOVE_WORDS[move.kind] ?? words(move.kind))];
  if (move.label) parts.push(" ", el("span", { class: "label" }, words(move.label)));
  if (move.cards.length > 0) parts.push(" ", cardRow(move.cards));
  if (move.amount !== 0n && amountRange(move) === undefined) {
    parts.push(" ", el("span", { class: "amount" }, move.amount.toString()));
  }
  return parts;
}

/** A move in plain text, for the replay's lines and titles: the server's, else the page's. */
export function moveText(move: Move): string {
  const said = serverText(move);
  if (said !== "") return said;
  const parts = [MOVE_WORDS[move.kind] ?? words(move.kind)];
  if (move.label) parts.push(words(move.label));
  if (move.cards.length) parts.push(move.cards.map((card) => cardLabel(card.code)).join(" "));
  if (move.amount !== 0n) parts.push(move.amount.toString());
  return parts.join(" ");
}

function combinationsText(value: JsonValue | undefined): string {
  if (!Array.isArray(value) || value.length === 0) return "no combination";
  return value.map((item) => {
    if (item !== null && typeof item === "object" && !Array.isArray(item)) {
      const name = typeof item["name"] === "string" ? words(item["name"]) : valueText(item);
      return typeof item["points"] === "number" ? `${name} ${item["points"]}` : name;
    }
    return valueText(item);
  }).join(", ");
}

/** One event as a sentence: who, what, which cards, how much, and the words of its details. */
export function eventSentence(event: Event, names: ReadonlyMap<number, string>): HTMLElement {
  const line = el("span", { class: "sentence", "data-kind": clean(event.kind) });
  // A variant's sentence may hold the amount ("wins {amount} from the pot"); for a table-wide
  // event (no seat) it is the whole sentence ("the deal ends").
  const own = vocabulary.events[event.kind];
  const amountSaid = own?.includes("{amount}") ?? false;
  const verb = own?.replaceAll("{amount}", event.amount.toString()) ?? VERBS[event.kind] ?? words(event.kind);
  const pieces: Child[] = [];
  if (event.seat === undefined && own !== undefined) {
    pieces.push(el("span", { class: "what house" }, verb.charAt(0).toUpperCase() + verb.slice(1)));
  } else {
    pieces.push(el("span", { class: event.seat === undefined ? "who house" : "who" }, who(names, event.seat)), ` ${verb}`);
  }
  if (event.label) pieces.push(" ", el("span", { class: "label" }, words(event.label)));
  if (event.cards.length > 0 || event.hiddenCount > 0) pieces.push(" ", cardRow(event.cards, event.hiddenCount));
  const detail = event.detail ?? {};
  if (event.amount !== 0n && !("points" in detail) && !amountSaid) {
    if (CHIP_KINDS.has(event.kind)) pieces.push(` ${event.amount} chips`);
    else pieces.push(` (${event.amount > 0n ? "+" : ""}${event.amount})`);
  }
  if ("points" in detail) {
    pieces.push(` — ${valueText(detail["points"])} points, ${combinationsText(detail["combinations"])}`);
  }
  if (typeof detail["reason"] === "string") pieces.push(` (${words(detail["reason"])})`);
  line.append(fragment(...pieces, "."));
  const rest = Object.keys(detail).sort().filter((key) => !SAID_KEYS.has(key));
  if (rest.length > 0) line.title = rest.map((key) => `${declared("details", key) ?? words(key)}: ${valueText(detail[key])}`).join(" · ");
  return line;
}

/** A log entry without events of its own (a seat joined, left, ...) as a sentence. */
export function entrySentence(kind: string, seat: number | undefined, names: ReadonlyMap<number, string>): string {
  const actor = who(names, seat);
  switch (kind) {
    case "created": return "The table is created.";
    case "joined": return `${actor} takes a seat.`;
    case "left": return `${actor} leaves the table.`;
    case "timeout": return `${actor} ran out of time: the default move is made.`;
    default: return `${actor}: ${words(kind)}.`;
  }
}

/** The outcome in one line: who wins, the final scores, the reason. */
export function outcomeText(outcome: Outcome, names: ReadonlyMap<number, string>): string {
  const final = outcome.scores.length
    ? ` · final: ${outcome.scores.map((score, seat) => `${who(names, seat)} ${score}`).join(", ")}` : "";
  if (outcome.reason === "reveal_timeout") {
    const withheld = outcome.detail?.["withheld"];
    const seats = Array.isArray(withheld) ? withheld.filter((seat): seat is number => typeof seat === "number") : [];
    const late = seats.length ? seats.map((seat) => who(names, seat)).join(", ") : "a seat";
    return `No game: ${late} did not reveal ${seats.length > 1 ? "their" : "its"} entropy in time, `
      + "so the table ended before any deal. Start a new table to play.";
  }
  if (outcome.reason === "aborted") {
    return `Table aborted: the table was ended before the game finished; nothing more is played${final}.`;
  }
  const winners = outcome.winners.map((seat) => who(names, seat));
  let head = "nobody wins";
  if (winners.length === 1) head = `${winners[0]} wins`;
  else if (winners.length > 1) head = `${winners.join(" and ")} share the win`;
  let text = `Game over: ${head}`;
  if (outcome.scores.length) {
    text += ` · final: ${outcome.scores.map((score, seat) => `${who(names, seat)} ${score}`).join(", ")}`;
  }
  if (outcome.reason) text += ` · ${words(outcome.reason)}`;
  return text;
}
