"""``python -m bench`` (``make bench``): run the suite and print every figure beside its baseline.

Options: ``--quick`` (smaller runs, about 3 minutes for the whole suite), ``--only NAME``
(repeatable: engine, layers, service, memory, streams, browser, feed, web, peers, layout, floor,
leastwork, bots),
``--json PATH`` (raw figures), ``--markdown PATH`` (the printed report, for bench/results.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench import (
    bots,
    browser,
    chance,
    engine,
    feed,
    floor,
    layers,
    layout,
    leastwork,
    memory,
    peerbench,
    service,
    streams,
    web,
)
from bench.common import Section, machine, raise_fd_limit

Runner = Callable[[bool], Section | list[Section]]
"""One benchmark: its section, or its sections (the first one's figures are its own)."""

SUITES: dict[str, Runner] = {
    "engine": lambda quick: [
        engine.run(engine.EngineConfig(reps=3, budget=0.15) if quick else engine.EngineConfig()),
        chance.run(chance.ChanceConfig(reps=10, samples=3, budget=0.15, games=20) if quick
                   else chance.ChanceConfig())],
    "layers": lambda quick: layers.run(
        layers.LayersConfig(moves=500, reps=1) if quick else layers.LayersConfig()),
    "service": lambda quick: service.run(
        service.ServiceConfig(moves=3_000, reps=2, open_seconds=2.0, open_reps=1,
                              warmup_moves=500) if quick else service.ServiceConfig()),
    "memory": lambda quick: memory.run(
        memory.MemoryConfig(tables=2_000) if quick else memory.MemoryConfig()),
    "streams": lambda quick: streams.run(
        streams.StreamsConfig(tables=50, watchers=40, processes=2, rate=20.0) if quick
        else streams.StreamsConfig()),
    "browser": lambda quick: browser.run(
        browser.BrowserConfig(moves=2_000, reps=2, warmup_moves=400) if quick
        else browser.BrowserConfig()),
    "feed": lambda quick: feed.run(
        feed.FeedConfig(moves=2_000) if quick else feed.FeedConfig()),
    "web": lambda quick: web.run(web.WebConfig(games=2) if quick else web.WebConfig()),
    "peers": lambda quick: peerbench.run(
        peerbench.PeersConfig(moves=2_000, reps=1, open_seconds=2.0, open_reps=1,
                              warmup_moves=1_000, idle_tables=200) if quick
        else peerbench.PeersConfig()),
    "layout": lambda quick: layout.run(
        layout.LayoutConfig(moves=1_000, reps=1, warmup_moves=200) if quick
        else layout.LayoutConfig()),
    "bots": lambda quick: bots.run(bots.QUICK if quick else bots.DEFAULT),
    "floor": lambda quick: floor.run(
        floor.FloorConfig(moves=2_000, reps=3, warmup_moves=500, idle_tables=100) if quick
        else floor.FloorConfig()),
    "leastwork": lambda quick: leastwork.run(
        leastwork.LeastWorkConfig(moves=2_000, reps=3, warmup_moves=500) if quick
        else leastwork.LeastWorkConfig()),
}


def header(argv: list[str]) -> str:
    info = machine()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return "\n".join([
        "# bezique benchmarks",
        "",
        f"- command: `{' '.join(['python -m bench', *argv])}`",
        f"- date: {info['date']}",
        f"- machine: {info['nproc']} cores, {info['cpu']}; load average at start {load}",
        f"- python {info['python']}, grpcio {info['grpcio']}, protobuf {info['protobuf']}, "
        f"pokerkit {info['pokerkit']}",
    ])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller runs (about 3 minutes)")
    parser.add_argument("--only", action="append", choices=list(SUITES),
                        help="run only this benchmark (repeatable)")
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    parser.add_argument("--markdown", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    raise_fd_limit()
    started = time.perf_counter()
    parts = [header(argv)]
    print(parts[0], flush=True)
    figures: dict[str, object] = {"machine": machine()}
    failed = False
    for name in args.only or list(SUITES):
        print(f"\n... running {name}", file=sys.stderr, flush=True)
        try:
            ran = SUITES[name](args.quick)
        except Exception as exc:
            failed = True
            text = f"## {name}\n\nFAILED: {exc!r}"
            figures[name] = {"error": repr(exc)}
        else:
            sections = ran if isinstance(ran, list) else [ran]
            text = "\n\n".join(section.render() for section in sections)
            first = sections[0]
            own: dict[str, object] = dict(first.figures)
            targets = dict(first.targets)
            for more in sections[1:]:
                own[more.title] = more.figures
                targets.update(more.targets)
            figures[name] = {"figures": own, "targets": targets,
                             "seconds": sum(section.seconds for section in sections)}
        print("\n" + text, flush=True)
        parts.append(text)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    footer = (f"\nTotal: {time.perf_counter() - started:.0f} s; load average at the end "
              f"{load}.")
    print(footer)
    parts.append(footer)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    if args.markdown:
        args.markdown.write_text("\n\n".join(parts) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
