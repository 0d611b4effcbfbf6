"""The web table's move latency: from a click on one browser page to the other page's screen.

Two pages of headless Chromium (Debian's ``chromium``, driven by Playwright, as in tests/web)
sit at one highcard table of a ``bezique-server`` child process and play it out, over
Connect on the server's HTTP port on loopback. For each move the mover's page notes when its
click was dispatched, and the other page notes the first animation frame after the played card
appeared in its log: the move has then been submitted, stored, sent down the other page's
watch stream, decoded, drawn and painted. Both times are the machine's clock as the pages see
it (``performance.timeOrigin + performance.now()``), so they compare across pages.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import ROOT, Section, fmt_ms, median, percentile, server_argv, spawn

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TARGET_P99_MS = 100.0

# Notes the click time on every page, and on every page the time a card first shows (the other
# page cannot have shown the played card before: it was in the mover's hidden hand): when the
# node is added (DOM) and at the next animation frame (screen).
PROBE = """() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__seen = {};
  document.addEventListener('click', () => { window.__clickAt = now(); }, true);
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) {
      if (node.nodeType !== 1) continue;
      const cards = [...node.querySelectorAll('[data-card-id]')];
      if (node.hasAttribute('data-card-id')) cards.push(node);
      for (const card of cards) {
        const id = card.getAttribute('data-card-id');
        if (id in window.__seen) continue;
        const dom = now();
        window.__seen[id] = { dom, frame: null };
        requestAnimationFrame(() => { window.__seen[id].frame = now(); });
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""
MINE = "#status[data-turn='mine']"


@dataclass
class WebConfig:
    games: int = 12
    hand_size: int = 8


def _version(page: Any) -> int:
    return int(page.locator("#table").get_attribute("data-version") or 0)


def _whose_turn(ann: Any, bob: Any, timeout: float = 20.0) -> tuple[Any, Any]:
    """(the page whose seat is to move, the other page), once one of them is."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ann.locator(MINE).count():
            return ann, bob
        if bob.locator(MINE).count():
            return bob, ann
        time.sleep(0.002)
    raise RuntimeError("neither page got the turn")


def _play_game(browser: Any, url: str, hand_size: int) -> tuple[list[float], list[float]]:
    """One highcard game between two pages; (click-to-screen, click-to-DOM) in seconds."""
    contexts = [browser.new_context(), browser.new_context()]
    try:
        ann, bob = (context.new_page() for context in contexts)
        for page in (ann, bob):
            page.set_default_timeout(20_000)
        ann.goto(f"{url}/#/")
        form = ann.locator("form.variant[data-variant='highcard']")
        ann.locator(".variant-card[data-variant='highcard'] details.rules summary").click()
        form.locator("[name='players']").fill("2")
        form.locator("[name='hand_size']").fill(str(hand_size))
        form.locator("select[data-seat='1']").select_option("open")
        form.locator("button.create").click()
        ann.wait_for_url("**/#/table/*")
        table = ann.url.rsplit("/", 1)[1]
        bob.goto(f"{url}/#/table/{table}")
        bob.locator("#join").click()
        bob.locator("#table[data-mode='seat']").wait_for()
        for page in (ann, bob):
            page.evaluate(PROBE)
        screen: list[float] = []
        dom: list[float] = []
        for _ in range(2 * hand_size):
            mover, other = _whose_turn(ann, bob)
            before = _version(mover)
            card = mover.locator("#hand button.card.playable").first
            card_id = card.get_attribute("data-card-id")
            card.click()
            handle = other.wait_for_function(
                "id => { const s = window.__seen[id]; return s && s.frame !== null && s; }",
                arg=card_id)
            seen = handle.json_value()
            clicked = float(mover.evaluate("() => window.__clickAt"))
            screen.append((float(seen["frame"]) - clicked) / 1000)
            dom.append((float(seen["dom"]) - clicked) / 1000)
            # The mover's own page has moved on before the next move is looked for.
            mover.wait_for_function(
                "n => Number(document.querySelector('#table')?.dataset.version || 0) > n",
                arg=before)
        return screen, dom
    finally:
        for context in contexts:
            context.close()


def run(config: WebConfig) -> Section:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tools"))
    from webbundle import ensure_bundle

    started = time.perf_counter()
    dist = ensure_bundle()
    screen: list[float] = []
    dom: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bezique-bench-") as tmp:
        server = spawn(server_argv("--store", "memory:", "--http-address", "127.0.0.1:0",
                                   "--http-static-dir", str(dist)),
                       Path(tmp), "server", ready=r"browsers .* on (http://[\d.]+:\d+)/")
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                     args=CHROMIUM_ARGS)
                try:
                    for _ in range(config.games):
                        game_screen, game_dom = _play_game(browser, server.address,
                                                           config.hand_size)
                        screen += game_screen
                        dom += game_dom
                finally:
                    browser.close()
        finally:
            server.stop()
    p99 = percentile(screen, 99)
    section = Section(
        title="Web table: a click on one page to the other page's screen",
        header=["measure", "moves", "p50", "p99", "max"],
        rows=[["click → other page's screen (next frame)", str(len(screen)),
               fmt_ms(median(screen)), fmt_ms(p99), fmt_ms(max(screen))],
              ["click → other page's DOM", str(len(dom)), fmt_ms(median(dom)),
               fmt_ms(percentile(dom, 99)), fmt_ms(max(dom))]],
        notes=[f"{config.games} highcard games of {config.hand_size} cards a seat between two "
               "headless Chromium pages (Connect binary over HTTP/1.1 on loopback, server bots "
               "not involved); one server process, memory store"],
        figures={"moves": len(screen), "p50_ms": median(screen) * 1000, "p99_ms": p99 * 1000,
                 "max_ms": max(screen) * 1000, "dom_p50_ms": median(dom) * 1000,
                 "dom_p99_ms": percentile(dom, 99) * 1000},
        targets={f"p99 ≤ {TARGET_P99_MS:.0f} ms": p99 * 1000 <= TARGET_P99_MS},
    )
    section.seconds = time.perf_counter() - started
    return section
