"""The Playground's drawing rate against its cost to llama.cpp: tokens/s in the window at ~30,
~15, ~10 and ~5 Hz of redraws and with drawing off, against ``llm-scout run`` on the same model
and settings.

Each round answers the same prompt once per variant: in the window at each rate
(``PlaygroundPage``'s active tick, which drives the plots and the streamed text), in the window
with the plots and the transcript not redrawn (a diagnostic: what the rest of the window costs),
and with ``llm-scout run --chat`` in its own process (kept running, as in ``ui_playground.py``).
The order of the variants rotates from round to round. The table gives each variant's median
tokens/s, the median of its per-round ratio to the CLI's answer of the same round (with a
bootstrap 95% interval) and the window's CPU. The app draws at ~30 Hz (issue 10); the other rows
say what drawing less often would buy on this machine. Each rate is set as both of the page's
ticks while answering (``ACTIVE_TICK_MS``, and ``SPARING_TICK_MS``, ~5 Hz, which the app uses
instead when llama.cpp's threads take every CPU, as with the default threads on this VM).
Greedy decoding, as in ``ui_playground.py`` (whose functions this reuses).

Run: ``.venv/bin/python benchmarks/ui_playground_rates.py [--rounds 4] [--tokens 200]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


import desktop.core.playground.pace as playground_module  # noqa: E402  (the drawing ticks)
from benchmarks import ui_playground as bench  # noqa: E402
from benchmarks._common import median, median_interval, print_markdown_table  # noqa: E402
from desktop.ui.widgets.live_plots import LivePlots  # noqa: E402
from desktop.ui.widgets.transcript import TranscriptView  # noqa: E402
from desktop.ui.workers import wait_for_tasks  # noqa: E402

CLI = "cli"
OFF = "off"
VARIANTS = (
    ("33", "~30 Hz (the app with a CPU to spare)"),
    ("66", "~15 Hz"),
    ("100", "~10 Hz"),
    ("200", "~5 Hz (the app when llama.cpp takes every CPU)"),
    (OFF, "drawing off (diagnostic)"),
    (CLI, "llm-scout run --chat"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds (each: every rate, CLI)")
    parser.add_argument("--tokens", type=int, default=200, help="most tokens per answer")
    args = parser.parse_args(argv)
    window, page, model, threads = bench.loaded_playground()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    sys.stdout.write(
        f"ui_playground_rates: SmolLM2 135M Q4_1, n_ctx {bench.N_CTX}, {threads} threads, up to "
        f"{args.tokens} tokens; {args.rounds} rounds; load average {load[0]:.2f}\n\n"
    )
    chat = bench.ChatCli(model, args.tokens, threads)
    bench.in_window(page, 16, None)  # warm-up
    chat.ask(bench.PROMPT)
    rates: dict[str, list[float]] = {key: [] for key, _label in VARIANTS}
    cpus: dict[str, list[float]] = {key: [] for key, _label in VARIANTS}
    default_ms = playground_module.ACTIVE_TICK_MS
    sparing_ms = playground_module.SPARING_TICK_MS
    refresh, flush = LivePlots.refresh, TranscriptView.flush
    keys = [key for key, _label in VARIANTS]
    try:
        for i in range(args.rounds):
            for key in keys[i % len(keys) :] + keys[: i % len(keys)]:
                if key == CLI:
                    rates[key].append(chat.ask(bench.PROMPT)[0])
                else:
                    drawing = key != OFF
                    LivePlots.refresh = refresh if drawing else bench.no_refresh  # type: ignore[method-assign]
                    TranscriptView.flush = flush if drawing else bench.no_flush  # type: ignore[method-assign]
                    ms = int(key) if drawing else default_ms
                    playground_module.ACTIVE_TICK_MS = playground_module.SPARING_TICK_MS = ms
                    rate, _stall, cpu_pct, _text = bench.in_window(page, args.tokens, None)
                    rates[key].append(rate)
                    cpus[key].append(cpu_pct)
                time.sleep(bench.SETTLE_S)
    finally:
        playground_module.ACTIVE_TICK_MS = default_ms
        playground_module.SPARING_TICK_MS = sparing_ms
        LivePlots.refresh, TranscriptView.flush = refresh, flush  # type: ignore[method-assign]
        chat.close()
    rows: list[list[object]] = []
    for key, label in VARIANTS:
        ratios = [w / c for w, c in zip(rates[key], rates[CLI], strict=True)]
        low, high = median_interval(ratios)
        rows.append(
            [
                label,
                median(rates[key]),
                median(ratios),
                f"{low:.3f}-{high:.3f}",
                median(cpus[key]) if cpus[key] else "-",
                ", ".join(f"{r:.1f}" for r in rates[key]),
            ]
        )
    print_markdown_table(
        (
            "variant",
            "median t/s",
            "median ratio to the CLI",
            "95% interval",
            "window CPU % of a core",
            "each round",
        ),
        rows,
    )
    window.close()
    wait_for_tasks(30_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
