/**
 * What the page says: seats by name, moves as button labels, events as sentences, the
 * outcome, detail values. Generic over variants (as clients/render.py is for the terminal): a
 * variant's specifics arrive as kinds, labels and detail keys; the well-known ones get words,
 * the others are shown as they come. Every server string goes through clean() into text nodes.
 */

import { cardLabel, cardNode, cardRow, isCardCode, SUITS } from "./cards.js";
import { clean, el, fragment, type Child } from "./dom.js";
import { lang, t } from "./i18n.js";
import type { Card, Event, Move, Outcome, SeatState } from "./gen/bezique/v1/table_service_pb.js";
import type { JsonValue } from "@bufbuild/protobuf";

const VERBS_EN: Readonly<Record<string, string>> = {
  play: "plays", trick: "takes the trick", round_won: "wins the round", deal: "is dealt",
  draw: "draws", declare: "declares", pass: "passes", dealer: "deals", fold: "folds",
  call: "calls", raise: "raises to", bet: "calls", check: "checks", ante: "antes",
  claim: "claims the match", lot: "draws for the deal", shuffle: "shuffles", cut: "cuts",
  pot_won: "wins from the pot", reveal: "shows", sit_out: "sits the deal out",
  exchange_seven: "exchanges the seven of trumps", show_seven: "shows the seven of trumps",
  turnup: "turns up the trump card", trump: "turns up trumps", allin: "goes all in with",
  show: "calls and shows with", deal_start: "starts a deal", deal_end: "ends the deal",
  match_end: "ends the match", table_end: "closes the table", carry_over: "carries the pot over:",
  brisques: "counts brisques", last_trick: "takes the last trick", endgame: "the stock is out: the endgame begins",
  melds_returned: "melds go back to the hands",
};

const VERBS_RU: Readonly<Record<string, string>> = {
  play: "ходит", trick: "берёт взятку", round_won: "выигрывает круг", deal: "получает карты",
  draw: "берёт из колоды", declare: "объявляет", pass: "пасует", dealer: "сдаёт", fold: "сбрасывает карты",
  call: "уравнивает", raise: "повышает до", bet: "уравнивает", check: "пропускает", ante: "ставит анте",
  claim: "заявляет о победе", lot: "тянет жребий", shuffle: "тасует", cut: "снимает",
  pot_won: "забирает из банка", reveal: "открывает", sit_out: "пропускает сдачу",
  exchange_seven: "меняет козырную семёрку", show_seven: "показывает козырную семёрку",
  turnup: "открывает козырную карту", trump: "открывает козырь", allin: "идёт ва-банк:",
  show: "уравнивает и открывает", deal_start: "начинает сдачу", deal_end: "завершает сдачу",
  match_end: "завершает партию", table_end: "закрывает стол", carry_over: "переносит банк:",
  brisques: "считает бриски", last_trick: "берёт последнюю взятку", endgame: "колода кончилась: конец игры",
  melds_returned: "объявления возвращаются в руки",
};

function verbs(): Readonly<Record<string, string>> {
  return lang() === "ru" ? VERBS_RU : VERBS_EN;
}

/** Combination and meld names the page knows, for servers whose vocabulary has no labels. */
const LABELS_EN: Readonly<Record<string, string>> = {
  "koronka-4": "koronka of four", "koronka-3": "koronka of three", "three-of-a-kind": "three of a kind",
  "four-kings": "four kings", "two-beziques": "double bezique", bezique: "bezique", marriage: "marriage",
};
const LABELS_RU: Readonly<Record<string, string>> = {
  "koronka-4": "коронка из четырёх", "koronka-3": "коронка из трёх", "three-of-a-kind": "три одинаковые",
  "four-kings": "четыре короля", "two-beziques": "двойной безик", bezique: "безик", marriage: "марьяж",
  common_marriage: "марьяж", royal_marriage: "козырной марьяж", double_bezique: "двойной безик",
  four_aces: "четыре туза", four_kings: "четыре короля", four_queens: "четыре дамы", four_jacks: "четыре валета",
  sequence: "терц", carried_over: "переносит банк", "last-standing": "остался один",
  heuristic: "эвристика", random: "случайный", highest: "старшая карта", search: "перебор",
};

/** Event kinds whose amount is chips, not points. */
const CHIP_KINDS = new Set(["ante", "bet", "raise", "allin", "show", "call", "pot_won", "carry_over"]);

const MOVE_WORDS_RU: Readonly<Record<string, string>> = {
  play: "Ход", declare: "Объявить", pass: "Пас", claim: "Заявить о победе",
  exchange_seven: "Обменять семёрку", show_seven: "Показать семёрку", bet: "Уравнять",
  raise: "Повысить до", allin: "Ва-банк", fold: "Сбросить", show: "Уравнять и открыть",
};

const MOVE_WORDS_EN: Readonly<Record<string, string>> = {
  play: "Play", declare: "Declare", pass: "Pass", claim: "Claim the match",
  exchange_seven: "Exchange the seven", show_seven: "Show the seven", bet: "Call",
  raise: "Raise to", allin: "All in", fold: "Fold", show: "Call and show",
};

/** Detail keys that an event sentence says in words (others go to its tooltip). */
const SAID_KEYS = new Set(["points", "combinations", "has_combination", "reason"]);

/**
 * A variant's own words (VariantInfo.vocabulary, and its translations in servers that send
 * them); maps may be empty.
 */
export interface Vocabulary {
  readonly phases: Readonly<Record<string, string>>;
  readonly events: Readonly<Record<string, string>>;
  readonly zones: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, string>>;
  readonly moves: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly outcomes: Readonly<Record<string, string>>;
  readonly options: Readonly<Record<string, string>>;
  readonly title: string;
  readonly description: string;
}

const NO_WORDS: Vocabulary = {
  phases: {}, events: {}, zones: {}, details: {}, moves: {}, labels: {}, outcomes: {}, options: {}, title: "", description: "",
};
let vocabulary: Vocabulary = NO_WORDS;

function stringMap(value: unknown): Record<string, string> {
  const map: Record<string, string> = {};
  if (value === null || typeof value !== "object") return map;
  for (const [key, text] of Object.entries(value)) if (typeof text === "string" && text) map[key] = clean(text);
  return map;
}

type Words = Record<string, unknown>;

function readWords(declared: Words | undefined): Vocabulary {
  if (declared === undefined) return NO_WORDS;
  return {
    phases: stringMap(declared["phases"]), events: stringMap(declared["events"]),
    zones: stringMap(declared["zones"]), details: stringMap(declared["details"]),
    moves: stringMap(declared["moves"]), labels: stringMap(declared["labels"]),
    outcomes: stringMap(declared["outcomes"]), options: stringMap(declared["options"]),
    title: typeof declared["title"] === "string" ? clean(declared["title"]) : "",
    description: typeof declared["description"] === "string" ? clean(declared["description"]) : "",
  };
}

function merged(base: Vocabulary, over: Vocabulary): Vocabulary {
  return {
    phases: { ...base.phases, ...over.phases }, events: { ...base.events, ...over.events },
    zones: { ...base.zones, ...over.zones }, details: { ...base.details, ...over.details },
    moves: { ...base.moves, ...over.moves }, labels: { ...base.labels, ...over.labels },
    outcomes: { ...base.outcomes, ...over.outcomes }, options: { ...base.options, ...over.options },
    title: over.title || base.title, description: over.description || base.description,
  };
}

/**
 * The words of `info`'s variant in the page's language: its translation for the language
 * (VariantInfo.translations, in servers that send them) over its own vocabulary. Read without
 * the generated field names, so that the page also builds against a protocol from before them.
 * A variant with no words in the page's language other than English: the page's own words for
 * what it knows, the variant's English for the rest.
 */
export function variantWords(info: object | undefined): Vocabulary {
  const carried = info as { vocabulary?: Words; translations?: Record<string, Words> } | undefined;
  const own = readWords(carried?.vocabulary);
  const ownLanguage = typeof carried?.vocabulary?.["language"] === "string" && carried.vocabulary["language"] ? carried.vocabulary["language"] : "en";
  if (ownLanguage === lang()) return own;
  const translated = carried?.translations?.[lang()];
  if (translated !== undefined) return merged(own, readWords(translated));
  // Not in the page's language: keep only what the page cannot say itself.
  return lang() === "en" ? own : { ...own, events: {}, moves: {}, labels: {}, outcomes: {} };
}

/** Use the words `info` declares for its variant. Undefined: only the page's words. */
export function useVocabulary(info: object | undefined): void {
  vocabulary = variantWords(info);
}

/** The variant's label of a phase, zone or detail key, if it declares one. */
export function declared(kind: "phases" | "zones" | "details" | "moves", name: string): string | undefined {
  return vocabulary[kind][name];
}

/** A named choice (a meld, a combination, a reason) in words: the variant's, else the page's. */
export function label(name: string): string {
  return vocabulary.labels[name] ?? (lang() === "ru" ? LABELS_RU : LABELS_EN)[name] ?? words(name);
}

/** A variant's title in the page's language. */
export function variantTitle(info: { id: string; title: string } & object): string {
  return variantWords(info).title || clean(info.title || info.id);
}

/** "royal_marriage" -> "royal marriage". */
export function words(name: string): string {
  return clean(name).replace(/[_/]/g, " ").trim();
}

/**
 * Names of the seats as players call each other: the display name (a bot's is its policy's),
 * the viewer's own name for the viewer's seat, "Seat 2" for a seat without one.
 */
export function seatNames(seats: readonly SeatState[], viewer?: number): Map<number, string> {
  const names = new Map<number, string>();
  for (const state of seats) {
    // A name the server made up for a seat without one ("seat 0") is no name.
    const given = clean(state.displayName).trim();
    const name = given.toLowerCase() === `seat ${state.seat}` ? "" : given;
    if (state.botPolicy && (name === "" || name === `${state.botPolicy} bot`)) names.set(state.seat, t("botNamed", { bot: label(state.botPolicy) }));
    else if (name) names.set(state.seat, name);
    else if (viewer !== undefined && state.seat === viewer) names.set(state.seat, t("you"));
    else if (!state.occupied) names.set(state.seat, t("freeSeat"));
    else names.set(state.seat, t("seatN", { n: state.seat + 1 }));
  }
  return distinct(names);
}

/** Names that two seats share get their seat's number ("random bot 2", "random bot 3"). */
export function distinct(names: Map<number, string>): Map<number, string> {
  const counts = new Map<string, number>();
  for (const name of names.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [seat, name] of names) if ((counts.get(name) ?? 0) > 1) names.set(seat, `${name} ${seat + 1}`);
  return names;
}

export function who(names: ReadonlyMap<number, string>, seat: number | undefined): string {
  if (seat === undefined) return t("table");
  return names.get(seat) ?? t("seatN", { n: seat + 1 });
}

/** A detail value in words: cards as symbols, suits as symbols, lists joined. */
export function valueText(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? (lang() === "ru" ? "да" : "yes") : (lang() === "ru" ? "нет" : "no");
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
  if (lang() !== "en") return ""; // the server's text is the variant's English: the page says it
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
  const parts: Child[] = [el("span", { class: "kind" }, (lang() === "ru" ? MOVE_WORDS_RU : MOVE_WORDS_EN)[move.kind] ?? words(move.kind))];
  if (move.label) parts.push(" ", el("span", { class: "label" }, label(move.label)));
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
  const parts = [(lang() === "ru" ? MOVE_WORDS_RU : MOVE_WORDS_EN)[move.kind] ?? words(move.kind)];
  if (move.label) parts.push(label(move.label));
  if (move.cards.length) parts.push(move.cards.map((card) => cardLabel(card.code)).join(" "));
  if (move.amount !== 0n) parts.push(move.amount.toString());
  return parts.join(" ");
}

export function combinationsText(value: JsonValue | undefined): string {
  if (!Array.isArray(value) || value.length === 0) return t("noCombination");
  return value.map((item) => {
    if (item !== null && typeof item === "object" && !Array.isArray(item)) {
      const name = typeof item["name"] === "string" ? label(item["name"]) : valueText(item);
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
  const verb = own?.replaceAll("{amount}", event.amount.toString()) ?? verbs()[event.kind] ?? words(event.kind);
  const pieces: Child[] = [];
  if (event.seat === undefined && own !== undefined) {
    pieces.push(el("span", { class: "what house" }, verb.charAt(0).toUpperCase() + verb.slice(1)));
  } else {
    pieces.push(el("span", { class: event.seat === undefined ? "who house" : "who" }, who(names, event.seat)), ` ${verb}`);
  }
  if (event.label) pieces.push(" ", el("span", { class: "label" }, label(event.label)));
  if (event.cards.length > 0 || event.hiddenCount > 0) pieces.push(" ", cardRow(event.cards, event.hiddenCount));
  const detail = event.detail ?? {};
  if (event.amount !== 0n && !("points" in detail) && !amountSaid) {
    if (CHIP_KINDS.has(event.kind)) pieces.push(` ${event.amount}`);
    else pieces.push(` (${event.amount > 0n ? "+" : ""}${event.amount})`);
  }
  if ("points" in detail) {
    pieces.push(` — ${valueText(detail["points"])}, ${combinationsText(detail["combinations"])}`);
  }
  if (typeof detail["reason"] === "string") pieces.push(` (${label(detail["reason"])})`);
  line.append(fragment(...pieces, "."));
  const rest = Object.keys(detail).sort().filter((key) => !SAID_KEYS.has(key));
  if (rest.length > 0) line.title = rest.map((key) => `${declared("details", key) ?? words(key)}: ${valueText(detail[key])}`).join(" · ");
  return line;
}

/** A log entry without events of its own (a seat joined, left, ...) as a sentence. */
export function entrySentence(kind: string, seat: number | undefined, names: ReadonlyMap<number, string>): string {
  const actor = who(names, seat);
  const ru = lang() === "ru";
  switch (kind) {
    case "created": return ru ? "Стол создан." : "The table is created.";
    case "joined": return ru ? `${actor} садится за стол.` : `${actor} takes a seat.`;
    case "revealed": return ru ? `${actor} раскрывает своё случайное число.` : `${actor} reveals its entropy.`;
    case "left": return ru ? `${actor} уходит из-за стола.` : `${actor} leaves the table.`;
    case "timeout": return ru ? `У ${actor} кончилось время: сделан ход по умолчанию.` : `${actor} ran out of time: the default move is made.`;
    default: return `${actor}: ${words(kind)}.`;
  }
}

/** Why a table ended, in words: the variant's (with details filled in), else the page's. */
export function reasonText(outcome: Outcome): string {
  const detail = outcome.detail ?? {};
  const key = typeof detail["end"] === "string" ? detail["end"] : outcome.reason;
  const said = vocabulary.outcomes[key] ?? vocabulary.outcomes[outcome.reason];
  if (said !== undefined) return said.replace(/\{(\w+)\}/g, (whole, name: string) => (name in detail ? valueText(detail[name]) : whole));
  const known: Readonly<Record<string, string>> = lang() === "ru"
    ? { target: "набрано нужное число очков", target_last_trick: "набрано нужное число очков (с последней взяткой)", most_rounds: "больше выигранных кругов", "most rounds won": "больше выигранных кругов" }
    : { target: "reached the target", target_last_trick: "reached the target with the last trick" };
  const deals = /^(\d+) deals? played$/.exec(outcome.reason);
  if (deals) return lang() === "ru" ? `сыграно сдач: ${deals[1]}` : `${deals[1]} deal${deals[1] === "1" ? "" : "s"} played`;
  return known[outcome.reason] ?? words(outcome.reason);
}

/** The final scores in one line: "ann 110, heuristic bot 270". */
export function finalText(outcome: Outcome, names: ReadonlyMap<number, string>): string {
  return outcome.scores.map((score, seat) => `${who(names, seat)} ${score}`).join(", ");
}

/** The outcome in one line: who wins, the final scores, the reason. */
export function outcomeText(outcome: Outcome, names: ReadonlyMap<number, string>): string {
  const final = outcome.scores.length ? ` · ${t("finalScores", { scores: finalText(outcome, names) })}` : "";
  if (outcome.reason === "reveal_timeout") {
    const withheld = outcome.detail?.["withheld"];
    const seats = Array.isArray(withheld) ? withheld.filter((seat): seat is number => typeof seat === "number") : [];
    return t("noGame", { who: seats.length ? seats.map((seat) => who(names, seat)).join(", ") : "?" });
  }
  if (outcome.reason === "aborted") return `${t("aborted")}${final}`;
  if (outcome.reason === "abandoned") return `${t("abandoned")}${final}`;
  const winners = outcome.winners.map((seat) => who(names, seat));
  let head = t("nobodyWins");
  if (winners.length === 1) head = t("wins", { who: winners[0]! });
  else if (winners.length > 1) head = t("shareWin", { who: winners.join(t("and")) });
  let text = t("gameOverLine", { head });
  if (outcome.scores.length) text += final;
  if (outcome.reason) text += ` · ${reasonText(outcome)}`;
  return text;
}
