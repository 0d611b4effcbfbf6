/**
 * The lobby: the server's variants with their options (a form per variant, each seat given to
 * you, left open for another player, or to one of the variant's bots), the unfinished tables
 * (join, watch, or go back to your seat), and the replay of a finished table by its id.
 */

import {
  callOptions, describeError, heldSeat, joinTable, listVariants, playerName, rememberName, rpc,
} from "./api.js";
import { button, clean, el, replace } from "./dom.js";
import {
  OptionType, type OptionSchema, type TableSummary, type VariantInfo,
} from "./gen/bezique/v1/table_service_pb.js";
import type { Navigator } from "./table.js";
import { words } from "./words.js";

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

function optionField(variant: string, schema: OptionSchema, changed: () => void): OptionField {
  const id = `opt-${variant}-${schema.name}`;
  const label = (control: HTMLElement): HTMLElement => el("label", { class: "option", for: id, title: clean(schema.description) },
    el("span", { class: "name" }, words(schema.name)), " ", control);
  if (schema.type === OptionType.BOOL) {
    const box = el("input", { type: "checkbox", id, name: schema.name, checked: schema.defaultValue === "true" });
    box.addEventListener("change", changed);
    return { schema, node: label(box), value: () => (box.checked ? "true" : "false") };
  }
  if (schema.type === OptionType.CHOICE) {
    const select = el("select", { id, name: schema.name });
    for (const choice of schema.choices) {
      select.append(el("option", { value: clean(choice), selected: choice === schema.defaultValue }, words(choice)));
    }
    select.addEventListener("change", changed);
    return { schema, node: label(select), value: () => select.value };
  }
  const input = el("input", {
    type: "number", id, name: schema.name, step: 1,
    min: schema.minimum?.toString(), max: schema.maximum?.toString(),
    value: schema.defaultValue === "none" ? "" : clean(schema.defaultValue),
    placeholder: schema.nullable ? "none" : undefined,
  });
  input.addEventListener("input", changed);
  return { schema, node: label(input), value: () => (input.value.trim() === "" && schema.nullable ? "none" : input.value.trim()) };
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

/** The variant's best bot: the first policy that is not "random". */
function betterBot(variant: VariantInfo): string {
  return variant.botPolicies.find((policy) => policy !== "random") ?? variant.botPolicies[0] ?? "random";
}

export class LobbyPage {
  private timer: number | undefined;
  private readonly tables = el("div", { id: "tables" });
  private readonly notice = el("div", { id: "notice", class: "notice", role: "alert", hidden: true });
  private readonly name = el("input", { type: "text", id: "name", maxlength: 64, placeholder: "your name", value: playerName() });

  constructor(private readonly root: HTMLElement, private readonly nav: Navigator) {}

  async start(): Promise<void> {
    this.name.addEventListener("change", () => rememberName(this.name.value.trim()));
    const variants = el("div", { id: "variants", class: "variants" }, "Loading the variants…");
    const replayId = el("input", { type: "text", id: "replay-id", placeholder: "table id" });
    const replayForm = el("form", { id: "replay-form" }, replayId, " ", el("button", { type: "submit" }, "Replay"));
    replayForm.addEventListener("submit", (event) => {
      event.preventDefault();
      if (replayId.value.trim()) this.nav.go(`#/replay/${encodeURIComponent(replayId.value.trim())}`);
    });
    replace(this.root, el("div", { id: "lobby", class: "lobby" },
      el("h1", {}, "Card tables"),
      el("label", { class: "player" }, "Your name ", this.name),
      this.notice,
      el("section", {}, el("h2", {}, "Tables"), button("Refresh", () => void this.loadTables(), { class: "link" }), this.tables),
      el("section", {}, el("h2", {}, "New table"), variants),
      el("section", {}, el("h2", {}, "Replay a finished table"), replayForm)));
    this.timer = window.setInterval(() => void this.loadTables(), REFRESH_MS);
    void this.loadTables();
    try {
      const infos = await listVariants();
      replace(variants, ...infos.map((info) => this.variantForm(info)));
    } catch (error) {
      replace(variants, `The variants could not be read: ${describeError(error)}`);
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

  /** One variant: its facts, its options, who sits where, the turn clock, and Create. */
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
        select.append(el("option", { value: YOU }, "you"), el("option", { value: OPEN }, "open (another player)"));
        for (const policy of variant.botPolicies) {
          select.append(el("option", { value: `bot:${clean(policy)}` }, `${words(policy)} bot`));
        }
        select.value = kept[seat] ?? (seat === 0 ? YOU : `bot:${clean(betterBot(variant))}`);
        choices.push(select);
      }
      replace(seatsBox, ...choices.map((select, seat) => el("label", { class: "seat-choice" }, `Seat ${seat} `, select)));
    };
    const fields = variant.options.map((schema) => optionField(variant.id, schema, drawSeats));
    drawSeats();
    const clock = el("input", { type: "number", name: "turn_seconds", min: 0, max: 3600, step: 1, value: 0 });
    const form = el("form", { class: "variant", "data-variant": clean(variant.id) },
      el("h3", {}, clean(variant.title || variant.id), " ", el("code", {}, clean(variant.id))),
      variant.description ? el("p", { class: "about" }, clean(variant.description)) : null,
      el("p", { class: "facts" }, variant.minSeats === variant.maxSeats ? `${variant.minSeats} seats` : `${variant.minSeats}–${variant.maxSeats} seats`,
        variant.distribution ? ` · ${clean(variant.distribution)} ${clean(variant.distributionVersion)}` : ""),
      fields.length ? el("fieldset", { class: "options" }, el("legend", {}, "Options"), ...fields.map((field) => field.node)) : null,
      el("fieldset", { class: "seating" }, el("legend", {}, "Seats"), seatsBox,
        el("label", { class: "option" }, el("span", { class: "name" }, "turn clock (s, 0 = none)"), " ", clock)),
      el("button", { type: "submit", class: "create", "data-variant": clean(variant.id) }, `Create a ${clean(variant.title || variant.id)} table`));
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
      this.say("Take one seat at most.");
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
      await joinTable(tableId, this.playerName(), mine);
      this.nav.go(`#/table/${encodeURIComponent(tableId)}`);
    } catch (error) {
      this.say(`The table could not be created: ${describeError(error)}`);
    }
  }

  private async join(tableId: string): Promise<void> {
    try {
      await joinTable(tableId, this.playerName());
      this.nav.go(`#/table/${encodeURIComponent(tableId)}`);
    } catch (error) {
      this.say(`Could not join ${tableId}: ${describeError(error)}`);
      void this.loadTables();
    }
  }

  private async loadTables(): Promise<void> {
    const found: TableSummary[] = [];
    try {
      let pageToken = "";
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const answer = await rpc.listTables({ pageToken }, callOptions());
        found.push(...answer.tables);
        pageToken = answer.nextPageToken;
        if (!pageToken) break;
      }
    } catch (error) {
      replace(this.tables, `The tables could not be read: ${describeError(error)}`);
      return;
    }
    if (found.length === 0) {
      replace(this.tables, el("p", { class: "none" }, "No table is open: create one below."));
      return;
    }
    const rows = found.map((table) => {
      const id = table.tableId;
      const held = heldSeat(id);
      const seats = table.seats.map((seat) => (seat.occupied ? clean(seat.displayName) || `seat ${seat.seat}` : "—")).join(", ");
      const actions = el("td", { class: "actions" });
      if (held) actions.append(button(`Back to seat ${held.seat}`, () => this.nav.go(`#/table/${encodeURIComponent(id)}`), { class: "back" }));
      else if (table.freeSeats > 0) actions.append(button("Join", () => void this.join(id), { class: "join" }));
      actions.append(" ", button("Watch", () => this.nav.go(`#/watch/${encodeURIComponent(id)}`), { class: "watch" }));
      return el("tr", { "data-table": clean(id), "data-variant": clean(table.variantId) },
        el("td", {}, el("code", {}, clean(id))), el("td", {}, clean(table.variantId)),
        el("td", {}, clean(table.phase)), el("td", {}, seats), el("td", {}, String(table.freeSeats)),
        el("td", {}, table.turnSeconds ? `${table.turnSeconds} s` : "—"), actions);
    });
    replace(this.tables, el("table", { class: "tables" },
      el("thead", {}, el("tr", {}, ...["table", "variant", "phase", "players", "free", "clock", ""].map((title) => el("th", {}, title)))),
      el("tbody", {}, ...rows)));
  }
}
