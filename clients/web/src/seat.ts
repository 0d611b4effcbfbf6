/**
 * What a seat's player does beside playing: copy a code or a link, play again with the same
 * game, and the player's settings (kept in localStorage, like the seats).
 */

import { callOptions, joinTable, playerName, rpc, type SeatHold } from "./api.js";
import { button, el } from "./dom.js";
import type { View } from "./gen/bezique/v1/table_service_pb.js";
import { t } from "./i18n.js";

const AUTO_PASS_KEY = "bezique.autopass";

/** A read-only text with a Copy button (the text selected on focus, for a phone's own copy). */
export function copyBox(text: string, id: string): HTMLElement {
  const input = el("input", { type: "text", id, readonly: true, value: text, class: "copy-text", spellcheck: "false" });
  input.addEventListener("focus", () => input.select());
  const done = el("span", { class: "copied", hidden: true }, t("copied"));
  const copy = button(t("copy"), () => {
    input.select();
    const shown = (): void => { done.hidden = false; };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(shown, () => undefined);
    else shown();
  }, { class: "copy", "data-for": id });
  return el("span", { class: "copy-box" }, input, " ", copy, " ", done);
}

/** Whether the player asked the page to pass for them when there is nothing to declare. */
export function settingAutoPass(): boolean {
  try {
    return window.localStorage.getItem(AUTO_PASS_KEY) === "true";
  } catch {
    return false;
  }
}

export function setAutoPass(on: boolean): void {
  try {
    window.localStorage.setItem(AUTO_PASS_KEY, on ? "true" : "false");
  } catch {
    // private mode: not remembered
  }
}

/**
 * A new table like `tableId`: the same variant, options, turn clock and bots (from its
 * history and view), this player at the same seat, other players' seats left open (the
 * invite link brings them). Returns the new table's id.
 */
export async function playAgain(tableId: string, hold: SeatHold | undefined, view: View | undefined): Promise<string> {
  const history = await rpc.getHistory({ tableId, pageSize: 1 }, callOptions(hold?.token));
  const bots = (view?.seats ?? []).flatMap((seat) => (seat.botPolicy ? [{ seat: seat.seat, policy: seat.botPolicy }] : []));
  const created = await rpc.createTable({
    variantId: history.variantId, options: history.options, bots, turnSeconds: history.turnSeconds,
  }, callOptions());
  await joinTable(created.tableId, playerName(), hold?.seat, history.variantId);
  return created.tableId;
}
