/**
 * The lobby: "Play now" per variant (one click: a table with the variant's defaults, you at
 * the first seat and its best bot at the others), the variant's rules folded away with their
 * defaults shown (each seat given to you, left open for another player, or to a bot), the
 * tables this browser holds a seat at (live and finished), the unfinished tables (join, watch,
 * or go back to your seat), the replay of a finished table by its id, and a resume code from
 * another device.
 */

import {
  callOptions, describeError, dropSeat, heldSeat, heldSeats, holdSeat, joinTable, listVariants, markFinished, playerName,
  readResumeCode, rememberName, rpc, type SeatHold,
} from "./api.js";
import { button, clean, el, replace } from "./dom.js";
import { t } from "./i18n.js";
import {
  OptionType, type OptionSchema, type TableSummary, type VariantInfo,
} from "./gen/bezique/v1/table_service_pb.js";
import type { Navigator } from "./table.js";
import { label, seatNames, variantTitle, variantWords, words } from "./words.js";

/** How often the list of tables is read again while the lobby is shown. */
const REFRESH_MS = 3000;
/** Pages of tables read at most (100 tables a page). */
const MAX_PAGES = 5;

const YOU = "you";
const OPEN = "open";

/** The input of one option, and how to read its value back as the protocol's string. */
interface OptionField {
  readonly schema: OptionSchema;
  readonly node: HTMLElement;
  value(): string;
}

function optionField(info: VariantInfo, schema: OptionSchema, changed: () => void): OptionField {
  const variant = info.id;
  const id = `opt-${variant}-${schema.name}`;
  const own = variantWords(info);
  const about = own.options[schema.name] ?? clean(schema.description);
  const described = declared(own.details, schema.name) ?? words(schema.name);
  const shownDefault = schema.defaultValue === "none" ? "—" : schema.type === OptionType.CHOICE ? label(schema.defaultValue)
    : schema.type === OptionType.BOOL ? (schema.defaultValue === "true" ? "✓" : "✗") : clean(schema.defaultValue);
  const label_ = (control: HTMLElement): HTMLElement => el("label", { class: "option", for: id, title: about },
    el("span", { class: "name" }, described), " ", control, el("span", { class: "default" }, ` (${shownDefault})`));
  if (schema.type === OptionType.BOOL) {
    const box = el("input", { type: "checkbox", id, name: schema.name, checked: schema.defaultValue === "true" });
    box.addEventListener("change", changed);
    return { schema, node: label_(box), value: () => (box.checked ? "true" : "false") };
  }
  if (schema.type === OptionType.CHOICE) {
    const select = el("select", { id, name: schema.name });
    for (const choice of schema.choices) {
      select.append(el("option", { value: clean(choice), selected: choice === schema.defaultValue }, label(choice)));
    }
    select.addEventListener("change", changed);
    return { schema, node: label_(select), value: () => select.value };
  }
  const input = el("input", {
    type: "number", id, name: schema.name, step: 1,
    min: schema.minimum?.toString(), max: schema.maximum?.toString(),
    value: schema.defaultValue === "none" ? "" : clean(schema.defaultValue),
    placeholder: schema.nullable ? "—" : undefined,
  });
  input.addEventListener("input", changed);
  return { schema, node: label_(input), value: () => (input.value.trim() === "" && schema.nullable ? "none" : input.value.trim()) };
}

/** How many seats a table of `variant` with these option values has. */
function seatCount(variant: VariantInfo, values: ReadonlyMap<string, string>): number {
  for (const name of ["players", "seats"]) {
    const value = values.get(name);
    if (value !== undefined && /^\d+$/.test(value)) {
      return Math.max(variant.minSeats, Math.min(Number(value), variant.maxSeats || Number(value)));
    }
  }
  return variant.minSeats;
}

function declared(map: Readonly<Record<string, string>>, key: string): string | undefined {
  return map[key];
}

/**
 * The variant's best bot, by a simple rule over the names it lists: "search" (the built-ins'
 * default search level, the strongest that answers within 100 ms), else another "search" policy
 * (the deepest by the number in its name; "-easy" last), else "heuristic", else the first that is
 * not "random".
 */
export function bestBot(policies: readonly string[]): string {
  const depth = (name: string): number =>
    name.includes("easy") ? -1 : Number(/(\d+)/.exec(name)?.[1] ?? "0");
  const searching = policies.filter((name) => name.includes("search")).sort((a, b) => depth(b) - depth(a));
  return policies.find((name) => name === "search") ?? searching[0]
    ?? policies.find((name) => name.includes("heuristic"))
    ?? policies.find((name) => name !== "random") ?? policies[0] ?? "random";
}

/** A bot's name for people: "heuristic bot". */
function botName(policy: string): string {
  return t("botNamed", { bot: label(policy) });
}

/** A held table's state in words: playing, finished, or why it ended when nobody played it out. */
function stateText(hold: SeatHold): string {
  if (!hold.finished) return t("live");
  if (hold.ended === "abandoned") return t("endedAbandoned");
  if (hold.ended === "aborted") return t("endedAborted");
  return t("finished");
}

export class LobbyPage {
  private timer: number | undefined;
  private readonly tables = el("div", { id: "tables" });
  private readonly mine = el("div", { id: "my-tables" });
  private readonly notice = el("div", { id: "notice", class: "notice", role: "alert", hidden: true });
  private readonly name = el("input", { type: "text", id: "name", maxlength: 64, placeholder: t("namePlaceholder"), value: playerName() });

  constructor(private readonly root: HTMLElement, private readonly nav: Navigator) {}

  async start(): Promise<void> {
    this.name.addEventListener("change", () => rememberName(this.name.value.trim()));
    const variants = el("div", { id: "variants", class: "variants" }, t("loading"));
    const replayId = el("input", { type: "text", id: "replay-id", placeholder: t("tableId") });
    const replayForm = el("form", { id: "replay-form" }, replayId, " ", el("button", { type: "submit" }, t("replayButton")));
    replayForm.addEventListener("submit", (event) => {
      event.preventDefault();
      if (replayId.value.trim()) this.nav.go(`#/replay/${encodeURIComponent(replayId.value.trim())}`);
    });
    const code = el("input", { type: "text", id: "resume-input", autocomplete: "off", spellcheck: "false", placeholder: "bz1.…" });
    const resumeForm = el("form", { id: "resume-form" }, code, " ", el("button", { type: "submit" }, t("resumeButton")));
    resumeForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const hold = readResumeCode(code.value);
      if (hold === undefined) {
        this.say(t("resumeBad"));
        return;
      }
      holdSeat(hold);
      this.nav.go(`#/table/${encodeURIComponent(hold.tableId)}`);
    });
    replace(this.root, el("div", { id: "lobby", class: "lobby" },
      el("h1", {}, t("appTitle")),
      el("label", { class: "player" }, `${t("yourName")} `, this.name),
      this.notice,
      el("section", { id: "play" }, variants),
      el("section", {}, el("h2", {}, t("myTables")), this.mine),
      el("section", {}, el("h2", {}, t("openTables"), " ", button(t("refresh"), () => void this.loadTables(), { class: "link" })), this.tables),
      el("details", { class: "more" }, el("summary", {}, t("resumeTitle")), el("p", { class: "about" }, t("resumeHint")), resumeForm),
      el("details", { class: "more" }, el("summary", {}, t("replayTitle")), replayForm)));
    this.drawMine();
    this.timer = window.setInterval(() => void this.loadTables(), REFRESH_MS);
    void this.loadTables();
    try {
      const infos = await listVariants();
      replace(variants, ...infos.map((info) => this.variantCard(info)));
    } catch (error) {
      replace(variants, t("variantsFailed", { e: describeError(error) }));
    }
  }

  destroy(): void {
    window.clearInterval(this.timer);
  }

  private say(text: string): void {
    replace(this.notice, text);
    this.notice.hidden = text === "";
  }

  private playerName(): string {
    const name = this.name.value.trim();
    rememberName(name);
    return name;
  }

  /** The tables this browser holds a seat at, live and finished, to open again or forget. */
  private drawMine(): void {
    const holds = heldSeats();
    if (holds.length === 0) {
      replace(this.mine, el("p", { class: "none" }, t("noMyTables")));
      return;
    }
    const titles = new Map<string, string>();
    listVariants().then((infos) => {
      for (const info of infos) titles.set(info.id, variantTitle(info));
      for (const cell of Array.from(this.mine.querySelectorAll<HTMLElement>("td.game"))) {
        cell.textContent = titles.get(cell.dataset["variant"] ?? "") ?? cell.textContent;
      }
    }, () => undefined);
    replace(this.mine, el("table", { class: "tables mine" }, el("tbody", {}, ...holds.map((hold) => {
      const id = hold.tableId;
      return el("tr", { "data-table": clean(id), "data-state": hold.finished ? "finished" : "live", "data-ended": clean(hold.ended ?? "") },
        el("td", { class: "game", "data-variant": clean(hold.variantId ?? "") }, clean(hold.variantId ?? id)),
        el("td", {}, hold.since ? new Date(hold.since).toLocaleString() : ""),
        el("td", { class: "state" }, stateText(hold)),
        el("td", { class: "actions" },
          button(t("reopen"), () => this.nav.go(`#/table/${encodeURIComponent(id)}`), { class: "reopen" }), " ",
          button(t("forget"), () => { dropSeat(id); this.drawMine(); }, { class: "link forget" })));
    }))));
  }

  /**
   * My tables the server no longer lists as unfinished have ended (while no page watched):
   * each is asked once for its outcome, so an abandoned or aborted one says so.
   */
  private noteEnded(unfinished: ReadonlySet<string>): void {
    const ended = heldSeats().filter((hold) => !hold.finished && !unfinished.has(hold.tableId));
    if (ended.length === 0) return;
    void Promise.all(ended.map(async (hold) => {
      let reason: string | undefined;
      try {
        const answer = await rpc.getView({ tableId: hold.tableId }, callOptions(hold.token));
        reason = answer.view?.outcome?.reason;
      } catch {
        // gone or unreachable: finished, the reason unknown
      }
      markFinished(hold.tableId, reason);
    })).then(() => this.drawMine());
  }

  /** One variant: its name, Play now, and its rules folded away. */
  private variantCard(variant: VariantInfo): HTMLElement {
    const own = variantWords(variant);
    const description = own.description || clean(variant.description);
    const best = bestBot(variant.botPolicies);
    return el("article", { class: "variant-card", "data-variant": clean(variant.id) },
      el("h3", {}, variantTitle(variant)),
      description ? el("p", { class: "about" }, description) : null,
      el("div", { class: "play-line" },
        button(t("playNow"), () => void this.playNow(variant), { class: "play-now primary", "data-variant": clean(variant.id) }),
        " ", el("span", { class: "against" }, t("playNowAgainst", { bot: botName(best) }))),
      el("details", { class: "rules" }, el("summary", {}, t("rules")), el("p", { class: "about" }, t("rulesNote")),
        this.variantForm(variant)));
  }

  /** Play now: the variant's defaults, you at the first seat, the best bot at every other. */
  private async playNow(variant: VariantInfo): Promise<void> {
    const best = bestBot(variant.botPolicies);
    const count = seatCount(variant, new Map(variant.options.map((schema) => [schema.name, schema.defaultValue])));
    const seats = [YOU, ...Array.from({ length: Math.max(1, count) - 1 }, () => `bot:${best}`)];
    await this.create(variant.id, {}, seats, 0);
  }

  /** One variant's rules: its options, who sits where, the turn clock, and Create. */
  private variantForm(variant: VariantInfo): HTMLElement {
    const seatsBox = el("div", { class: "seat-choices" });
    const choices: HTMLSelectElement[] = [];
    const drawSeats = (): void => {
      const values = new Map(fields.map((field) => [field.schema.name, field.value()]));
      const count = seatCount(variant, values);
      const kept = choices.map((select) => select.value);
      choices.length = 0;
      for (let seat = 0; seat < count; seat += 1) {
        const select = el("select", { name: `seat-${seat}`, "data-seat": seat });
        select.append(el("option", { value: YOU }, t("seatYou")), el("option", { value: OPEN }, t("seatOpen")));
        for (const policy of variant.botPolicies) {
          select.append(el("option", { value: `bot:${clean(policy)}` }, botName(policy)));
        }
        select.value = kept[seat] ?? (seat === 0 ? YOU : `bot:${clean(bestBot(variant.botPolicies))}`);
        choices.push(select);
      }
      replace(seatsBox, ...choices.map((select, seat) => el("label", { class: "seat-choice" }, `${t("seatN", { n: seat + 1 })} `, select)));
    };
    const fields = variant.options.map((schema) => optionField(variant, schema, drawSeats));
    drawSeats();
    const clock = el("input", { type: "number", name: "turn_seconds", min: 0, max: 3600, step: 1, value: 0 });
    const form = el("form", { class: "variant", "data-variant": clean(variant.id) },
      el("p", { class: "facts" }, variant.minSeats === variant.maxSeats ? t("seatsOne", { a: variant.minSeats })
        : t("seatsRange", { a: variant.minSeats, b: variant.maxSeats })),
      fields.length ? el("fieldset", { class: "options" }, ...fields.map((field) => field.node)) : null,
      el("fieldset", { class: "seating" }, el("legend", {}, t("seatsLegend")), seatsBox,
        el("label", { class: "option" }, el("span", { class: "name" }, t("turnClock")), " ", clock)),
      el("button", { type: "submit", class: "create", "data-variant": clean(variant.id) }, t("createTable")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const options: Record<string, string> = {};
      for (const field of fields) {
        const value = field.value();
        if (value !== field.schema.defaultValue) options[field.schema.name] = value;
      }
      void this.create(variant.id, options, choices.map((select) => select.value), Number(clock.value) || 0);
    });
    return form;
  }

  private async create(variantId: string, options: Record<string, string>, seats: string[], turnSeconds: number): Promise<void> {
    const mine = seats.indexOf(YOU);
    if (seats.filter((choice) => choice === YOU).length > 1) {
      this.say(t("oneSeat"));
      return;
    }
    const bots = seats.flatMap((choice, seat) => (choice.startsWith("bot:") ? [{ seat, policy: choice.slice(4) }] : []));
    try {
      const created = await rpc.createTable({ variantId, options, bots, turnSeconds }, callOptions());
      const tableId = created.tableId;
      if (mine < 0) {
        this.nav.go(`#/watch/${encodeURIComponent(tableId)}`);
        return;
      }
      await joinTable(tableId, this.playerName(), mine, variantId);
      this.nav.go(`#/table/${encodeURIComponent(tableId)}`);
    } catch (error) {
      this.say(t("createFailed", { e: describeError(error) }));
    }
  }

  private async join(tableId: string, variantId: string): Promise<void> {
    try {
      await joinTable(tableId, this.playerName(), undefined, variantId);
      this.nav.go(`#/table/${encodeURIComponent(tableId)}`);
    } catch (error) {
      this.say(t("joinFailed", { e: describeError(error) }));
      void this.loadTables();
    }
  }

  private async loadTables(): Promise<void> {
    const found: TableSummary[] = [];
    let complete = false;
    try {
      let pageToken = "";
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const answer = await rpc.listTables({ pageToken }, callOptions());
        found.push(...answer.tables);
        pageToken = answer.nextPageToken;
        if (!pageToken) {
          complete = true;
          break;
        }
      }
    } catch (error) {
      replace(this.tables, t("tablesFailed", { e: describeError(error) }));
      return;
    }
    if (complete) this.noteEnded(new Set(found.map((table) => table.tableId)));
    if (found.length === 0) {
      replace(this.tables, el("p", { class: "none" }, t("noTables")));
      return;
    }
    const titles = new Map<string, string>();
    try {
      for (const info of await listVariants()) titles.set(info.id, variantTitle(info));
    } catch {
      // ids will do
    }
    const rows = found.map((table) => {
      const id = table.tableId;
      const held = heldSeat(id);
      // Named as at the table: a bot by its policy in the page's language, no "seat 0".
      const names = seatNames(table.seats);
      const seats = table.seats.map((seat) => (seat.occupied ? names.get(seat.seat) ?? t("seatN", { n: seat.seat + 1 }) : t("free"))).join(", ");
      const actions = el("td", { class: "actions" });
      if (held) actions.append(button(t("backToSeat"), () => this.nav.go(`#/table/${encodeURIComponent(id)}`), { class: "back" }));
      else if (table.freeSeats > 0) actions.append(button(t("join"), () => void this.join(id, table.variantId), { class: "join" }));
      actions.append(" ", button(t("watch"), () => this.nav.go(`#/watch/${encodeURIComponent(id)}`), { class: "watch" }));
      return el("tr", { "data-table": clean(id), "data-variant": clean(table.variantId) },
        el("td", {}, titles.get(table.variantId) ?? clean(table.variantId)),
        el("td", { class: "players" }, seats), el("td", {}, table.turnSeconds ? `⏱ ${table.turnSeconds} s` : ""), actions);
    });
    replace(this.tables, el("div", { class: "scroll" }, el("table", { class: "tables" },
      el("thead", {}, el("tr", {}, ...[t("variant"), t("players"), t("clock"), ""].map((title) => el("th", {}, title)))),
      el("tbody", {}, ...rows))));
  }
}
