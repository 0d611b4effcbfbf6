/**
 * The web table's entry point: one page, routed by the address's fragment, so the server
 * serves a single index.html at `/`.
 *
 *   #/               the lobby
 *   #/table/ID       the table: with this tab's seat if it holds one there, else as a visitor
 *   #/watch/ID       the table as a spectator (no token is ever sent)
 *   #/replay/ID      the replay of a table's history
 */

import { heldSeat } from "./api.js";
import { el, replace } from "./dom.js";
import { LobbyPage } from "./lobby.js";
import { ReplayPage } from "./replay.js";
import { TablePage, type Navigator } from "./table.js";

interface Page {
  start(): Promise<void>;
  destroy(): void;
}

class App implements Navigator {
  private page: Page | undefined;

  constructor(private readonly root: HTMLElement) {
    window.addEventListener("hashchange", () => this.route());
  }

  go(hash: string): void {
    if (window.location.hash === hash) this.route();
    else window.location.hash = hash;
  }

  route(): void {
    this.page?.destroy();
    const [, kind = "", raw = ""] = /^#\/(table|watch|replay)\/(.+)$/.exec(window.location.hash) ?? [];
    let id = "";
    try {
      id = decodeURIComponent(raw);
    } catch {
      id = "";
    }
    if (kind === "table" && id) this.page = new TablePage(this.root, id, heldSeat(id), this);
    else if (kind === "watch" && id) this.page = new TablePage(this.root, id, undefined, this);
    else if (kind === "replay" && id) this.page = new ReplayPage(this.root, id, this);
    else this.page = new LobbyPage(this.root, this);
    document.body.dataset["route"] = kind || "lobby";
    const page = this.page;
    page.start().catch((error: unknown) => {
      if (this.page === page) replace(this.root, el("p", { class: "notice" }, `Something went wrong: ${String(error)}`));
    });
  }
}

const root = document.getElementById("app");
if (root) new App(root).route();
