"""Calibration under contention: runs made while busy loops take the CPUs must not drag the
estimates (issue 23: three such runs pulled this machine's speed factor to 0.12-0.16).

In a fresh data folder, with the SmolLM2 demo and 128-token answers (`llm-scout run`, which
records every run for calibration as a person's runs would be):

1. ``--busy N`` runs while one busy-loop process per usable CPU runs (as
   ``../shared/tools/busy`` does), then the calibrated ``fit smollm2`` speed;
2. ``--quiet N`` runs with nothing else started, their measured generation speed, and the
   calibrated ``fit`` speed again.

Headline (decided before measuring): the calibrated ``fit`` speed after the busy runs, divided
by the median measured speed of the quiet runs; the issue's target is 0.7-1.43. The table also
gives what the previous rule (every run counts, one median) would have predicted from the same
stored runs, side by side, and the quiet runs' own calibrated ratio.

    .venv/bin/python benchmarks/calibration_contention.py [--busy 3] [--quiet 3] [--tokens 128]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.core.fit import CalibrationStore  # noqa: E402
from desktop.core.hardware import usable_cpus  # noqa: E402

PROMPT = "Write a long story about the sea, the ships and the lighthouse keeper."


def cli(*argv: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "desktop", *argv, "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=tempfile.gettempdir(),
    )
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def one_run(tokens: int) -> dict[str, Any]:
    return cli("run", "smollm2", "--prompt", PROMPT, "--max-tokens", str(tokens), "--temp", "0")


def fit_speed() -> float:
    speed = cli("fit", "smollm2")["tokens_per_s"]
    assert isinstance(speed, float)
    return speed


def previous_rule(raw: float) -> float | None:
    """What the rule before this change predicted from the stored runs: every run counts
    (no busy mark), the median of all of them."""
    ratios = [
        e.measured_tokens_per_s / e.predicted_tokens_per_s
        for e in CalibrationStore().load()
        if e.measured_tokens_per_s and e.predicted_tokens_per_s and e.generated_tokens >= 16
    ]
    if len(ratios) < 2:
        return None
    return raw * math.exp(statistics.median(math.log(r) for r in ratios))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=3, help="runs under busy loops")
    parser.add_argument("--quiet", type=int, default=3, help="quiet runs")
    parser.add_argument("--tokens", type=int, default=128, help="tokens per answer")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="calibration-") as home:
        os.environ["LLM_SCOUT_HOME"] = home
        raw = cli("fit", "smollm2", "--uncalibrated")["tokens_per_s"]
        assert isinstance(raw, float)
        hogs = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(usable_cpus())
        ]
        try:
            time.sleep(0.5)
            busy = [one_run(args.tokens) for _ in range(args.busy)]
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        after_busy = fit_speed()
        old_after_busy = previous_rule(raw)
        quiet = [one_run(args.tokens) for _ in range(args.quiet)]
        after_quiet = fit_speed()
        old_after_quiet = previous_rule(raw)
    quiet_speed = median([float(r["generation_tokens_per_s"]) for r in quiet])

    def ratio(value: float | None) -> str:
        return f"{value / quiet_speed:.2f}" if value else "-"

    def speeds(runs: list[dict[str, Any]]) -> str:
        return ", ".join(f"{float(r['generation_tokens_per_s']):.1f}" for r in runs)

    def busy_marks(runs: list[dict[str, Any]]) -> str:
        return ", ".join("busy" if (r["cpu"] or {}).get("busy") else "quiet" for r in runs)

    sys.stdout.write(
        f"load average at the start: {load:.2f}; {usable_cpus()} usable CPUs; raw fit "
        f"{raw:.1f} t/s; quiet runs' median {quiet_speed:.1f} t/s\n\n"
    )
    print_markdown_table(
        ["runs stored", "measured t/s", "marked", "fit t/s now", "/ quiet", "previous rule",
         "/ quiet", "0.7-1.43"],
        [
            [f"{args.busy} under busy loops", speeds(busy), busy_marks(busy),
             f"{after_busy:.1f}", ratio(after_busy),
             f"{old_after_busy:.1f}" if old_after_busy else "-", ratio(old_after_busy),
             "yes" if 0.7 <= after_busy / quiet_speed <= 1.43 else "NO"],
            [f"+ {args.quiet} quiet", speeds(quiet), busy_marks(quiet),
             f"{after_quiet:.1f}", ratio(after_quiet),
             f"{old_after_quiet:.1f}" if old_after_quiet else "-", ratio(old_after_quiet),
             "yes" if 0.7 <= after_quiet / quiet_speed <= 1.43 else "NO"],
        ],
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
