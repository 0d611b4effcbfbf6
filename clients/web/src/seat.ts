/**
 * What a seat's player does beside playing: copy a code or a link, play again with the same
 * game, and the player's settings (kept in localStorage, like the seats).
 */

import { Code, ConnectError } from "@connectrpc/connect";

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
 * The rematch of `tableId` (CreateTableRequest.rematch_of): the server copies the variant,
 * options, turn clock and bots, and every player of the old table who presses Play again gets
 * the same new table. A server from before it refuses the request as invalid: the page then
 * makes a table with the same settings itself (from the history and the view). This player
 * takes the same seat, else any free one. Returns the new table's id.
 */
export async function playAgain(tableId: string, hold: SeatHold | undefined, view: View | undefined): Promise<string> {
  const history = await rpc.getHistory({ tableId, pageSize: 1 }, callOptions(hold?.token));
  let created: { tableId: string; existed: boolean };
  try {
    created = await rpc.createTable({ rematchOf: tableId }, callOptions());
  } catch (error) {
    // A server from before rematch_of: a table like it, made here.
    if (!(error instanceof ConnectError && error.code === Code.InvalidArgument)) throw error;
    const bots = (view?.seats ?? []).flatMap((seat) => (seat.botPolicy ? [{ seat: seat.seat, policy: seat.botPolicy }] : []));
    created = await rpc.createTable({
      variantId: history.variantId, options: history.options, bots, turnSeconds: history.turnSeconds,
    }, callOptions());
  }
  try {
    await joinTable(created.tableId, playerName(), hold?.seat, history.variantId);
  } catch (error) {
    if (!created.existed) throw error;
    await joinTable(created.tableId, playerName(), undefined, history.variantId); // my old seat is taken
  }
  return created.tableId;
}
