/**
 * The replay's check of the shuffle: the very verifier the Node client runs
 * (clients/node/src/fair, WebCrypto only) reproduces every deal from the revealed seed and the
 * seats' entropy, in the page, and says whether the history's deals are the ones derived.
 */

import { type HistoryLike, type Report, verifyHistory } from "../../node/src/fair/verify.js";
import { clean, el, replace } from "./dom.js";
import { t } from "./i18n.js";

function headline(report: Report): string {
  const deals = report.verdicts.filter((verdict) => verdict.step.startsWith("deal ")).length;
  if (report.status === "verified") return deals === 1 ? t("shuffleOkOne") : t("shuffleOk", { n: deals });
  if (report.status === "failed") return t("shuffleBad");
  if (report.status === "unchecked") return t("shuffleUnchecked");
  return t("shuffleLater");
}

/** A section that fills in once the check has run (WebCrypto is asynchronous). */
export function fairnessSection(history: HistoryLike): HTMLElement {
  const section = el("section", { id: "fairness", class: "fairness", "data-status": "checking" },
    el("p", { class: "about" }, t("checking")));
  if (!history.finished) {
    section.dataset.status = "unfinished";
    replace(section, el("p", { class: "about" }, t("shuffleLater")));
    return section;
  }
  if (globalThis.crypto?.subtle === undefined) {
    section.dataset.status = "unavailable";
    replace(section, el("p", { class: "about" }, t("shuffleNoCrypto")));
    return section;
  }
  verifyHistory(history).then((report) => {
    section.dataset.status = report.status;
    const list = el("ul", { class: "verdicts" }, ...report.verdicts.map((verdict) =>
      el("li", { class: verdict.ok ? "ok" : verdict.unchecked ? "unchecked" : "failed", "data-step": clean(verdict.step) },
        `${verdict.ok ? "✓" : verdict.unchecked ? "–" : "✗"} ${clean(verdict.step)}: ${clean(verdict.text)}`)));
    replace(section, el("p", { class: report.status === "verified" ? "verified" : "notice" }, headline(report)),
      el("details", { open: report.status === "failed" }, el("summary", {}, t("whatChecked")), list));
  }, (error: unknown) => {
    section.dataset.status = "error";
    replace(section, el("p", { class: "notice" }, t("shuffleError", { e: clean(String(error)) })));
  });
  return section;
}
