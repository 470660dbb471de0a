"""The Playground's drawing rate against its cost to llama.cpp: tokens/s in the window at ~30,
~15 and ~10 Hz of redraws, against ``llm-scout run`` on the same model and settings.

Each round answers the same prompt in the window once per rate (``PlaygroundPage``'s active tick,
which drives the plots and the streamed text), then once with ``llm-scout run --chat`` in its own
process (kept running, as in ``ui_playground.py``); the table gives the medians, each rate's
ratio to the CLI and the window's CPU. The app draws at ~30 Hz (issue 10); the other rates say
what drawing less often would buy on this machine. Greedy decoding, as in ``ui_playground.py``
(whose functions this reuses).

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


import desktop.ui.pages.playground as playground_module  # noqa: E402
from benchmarks import ui_playground as bench  # noqa: E402
from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.ui.workers import wait_for_tasks  # noqa: E402

RATES_MS = ((33, "~30 Hz (the app)"), (66, "~15 Hz"), (100, "~10 Hz"))


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
    window_rates: dict[int, list[float]] = {ms: [] for ms, _label in RATES_MS}
    window_cpu: dict[int, list[float]] = {ms: [] for ms, _label in RATES_MS}
    cli_rates: list[float] = []
    default_ms = playground_module.ACTIVE_TICK_MS
    try:
        for _ in range(args.rounds):
            for ms, _label in RATES_MS:
                playground_module.ACTIVE_TICK_MS = ms
                rate, _stall, cpu_pct, _text = bench.in_window(page, args.tokens, None)
                window_rates[ms].append(rate)
                window_cpu[ms].append(cpu_pct)
                time.sleep(bench.SETTLE_S)
            cli_rates.append(chat.ask(bench.PROMPT)[0])
            time.sleep(bench.SETTLE_S)
    finally:
        playground_module.ACTIVE_TICK_MS = default_ms
        chat.close()
    cli = median(cli_rates)
    rows: list[list[object]] = [
        [
            label,
            median(window_rates[ms]),
            median(window_rates[ms]) / cli,
            median(window_cpu[ms]),
            ", ".join(f"{r:.1f}" for r in window_rates[ms]),
        ]
        for ms, label in RATES_MS
    ]
    rows.append(["llm-scout run --chat", cli, 1.0, "-", ", ".join(f"{r:.1f}" for r in cli_rates)])
    print_markdown_table(
        ("window redraws", "median t/s", "to the CLI", "window CPU % of a core", "each round"),
        rows,
    )
    window.close()
    wait_for_tasks(30_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
