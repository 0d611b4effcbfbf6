/**
 * The replay's check of the shuffle: the very verifier the Node client runs
 * (clients/node/src/fair, WebCrypto only) reproduces every deal from the revealed seed and the
 * seats' entropy, in the page, and says whether the history's deals are the ones derived.
 */

import { type HistoryLike, type Report, verifyHistory } from "../../node/src/fair/verify.js";
import { clean, el, replace } from "./dom.js";

function headline(report: Report): string {
  const deals = report.verdicts.filter((verdict) => verdict.step.startsWith("deal ")).length;
  if (report.status === "verified") return `Shuffle verified: ${deals === 1 ? "the deal was" : `all ${deals} deals were`} reproduced in this page from the revealed seed and the seats' entropy.`;
  if (report.status === "failed") return "Shuffle NOT verified: the history differs from what its seed derives.";
  if (report.status === "unchecked") return "This page cannot check the shuffle of this game (see below); the command-line `bezique verify` replays any installed variant.";
  return "The shuffle can be verified once the game has ended and its seed is revealed.";
}

/** A section that fills in once the check has run (WebCrypto is asynchronous). */
export function fairnessSection(history: HistoryLike): HTMLElement {
  const section = el("section", { id: "fairness", class: "fairness", "data-status": "checking" },
    el("p", { class: "about" }, "Checking the shuffle…"));
  if (!history.finished) {
    section.dataset.status = "unfinished";
    replace(section, el("p", { class: "about" }, "The shuffle can be verified once the game has ended and its seed is revealed."));
    return section;
  }
  if (globalThis.crypto?.subtle === undefined) {
    section.dataset.status = "unavailable";
    replace(section, el("p", { class: "about" }, "This page cannot check the shuffle: it is not a secure context (no WebCrypto); the command-line verifiers (bezique verify, bezique-verify) can."));
    return section;
  }
  verifyHistory(history).then((report) => {
    section.dataset.status = report.status;
    const list = el("ul", { class: "verdicts" }, ...report.verdicts.map((verdict) =>
      el("li", { class: verdict.ok ? "ok" : verdict.unchecked ? "unchecked" : "failed", "data-step": clean(verdict.step) },
        `${verdict.ok ? "✓" : verdict.unchecked ? "–" : "✗"} ${clean(verdict.step)}: ${clean(verdict.text)}`)));
    replace(section, el("p", { class: report.status === "verified" ? "verified" : "notice" }, headline(report)),
      el("details", { open: report.status === "failed" }, el("summary", {}, "What was checked"), list));
  }, (error: unknown) => {
    section.dataset.status = "error";
    replace(section, el("p", { class: "notice" }, `The shuffle could not be checked: ${clean(String(error))}`));
  });
  return section;
}
