/**
 * The web table's entry point: one page, routed by the address's fragment, so the server
 * serves a single index.html at `/`.
 *
 *   #/               the lobby
 *   #/table/ID       the table: with this tab's seat if it holds one there, else as a visitor
 *   #/watch/ID       the table as a spectator (no token is ever sent)
 *   #/replay/ID      the replay of a table's history
 *   #/resume/CODE    a seat from a resume code (kept, then the address becomes #/table/ID)
 *
 * A bar above every page switches the language (English, Russian).
 */

import { heldSeat, holdSeat, readResumeCode } from "./api.js";
import { button, el, replace } from "./dom.js";
import { lang, setLang, t } from "./i18n.js";
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
    document.documentElement.lang = lang();
    document.title = t("appTitle");
    const resume = /^#\/resume\/(.+)$/.exec(window.location.hash);
    if (resume) {
      // The code is the seat's secret: kept in this browser, then out of the address and history.
      const hold = readResumeCode(decodeURIComponent(resume[1]!));
      if (hold) holdSeat(hold);
      window.history.replaceState(null, "", hold ? `#/table/${encodeURIComponent(hold.tableId)}` : "#/");
    }
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
      if (this.page === page) replace(this.root, el("p", { class: "notice" }, t("wentWrong", { e: String(error) })));
    });
  }
}

const root = document.getElementById("app");
if (root) {
  const app = new App(root);
  const bar = el("nav", { id: "bar", class: "bar" });
  const drawBar = (): void => replace(bar, button(t("language"), () => {
    setLang(lang() === "ru" ? "en" : "ru");
    drawBar();
    app.route();
  }, { id: "lang", class: "link", lang: lang() === "ru" ? "en" : "ru" }));
  drawBar();
  root.parentElement?.insertBefore(bar, root);
  app.route();
}
