"""How long the hardware probe takes (budget: 300 ms for the whole probe on this machine).

Runs the full ``probe()`` N times in one process with the CPU bandwidth already cached (as every
run after the first is), and prints the median milliseconds per source and in total, with the
ratio to the 300 ms budget. The NVIDIA probe runs on a thread beside the others, so the
per-source times can add up to more than the total. The first, cold probe (imports, NVML
library search) and the one-time bandwidth measurement are reported on their own rows.

    .venv/bin/python benchmarks/hw_probe.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import median, print_markdown_table

BUDGET_MS = 300.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="hw-probe-bench-") as home:
        os.environ["LLM_SCOUT_HOME"] = home  # a clean cache: the first run measures bandwidth
        from desktop.core.hardware import cpu_bandwidth_gbps, probe
        from desktop.core.hardware.cpu import probe_cpu

        start = time.perf_counter()
        cold_profile = probe()
        cold_ms = (time.perf_counter() - start) * 1000

        start = time.perf_counter()
        gbps = cpu_bandwidth_gbps(True, cpu=probe_cpu())
        measure_ms = (time.perf_counter() - start) * 1000

        totals: list[float] = []
        per_source: dict[str, list[float]] = {}
        for _ in range(args.runs):
            start = time.perf_counter()
            timings: dict[str, float] = {}
            profile = probe(timings=timings)
            totals.append((time.perf_counter() - start) * 1000)
            for name, ms in timings.items():
                per_source.setdefault(name, []).append(ms)
        assert profile.cpu.memory_bandwidth_gbps == gbps  # the cached value was used

    rows: list[list[object]] = [
        [name, median(values), median(values) / BUDGET_MS]
        for name, values in sorted(per_source.items(), key=lambda kv: -median(kv[1]))
    ]
    rows.append(["**total (warm, median)**", median(totals), median(totals) / BUDGET_MS])
    rows.append(["total (warm, max)", max(totals), max(totals) / BUDGET_MS])
    rows.append(["total (first, cold)", cold_ms, cold_ms / BUDGET_MS])
    rows.append(["bandwidth measurement (once)", measure_ms, measure_ms / BUDGET_MS])
    sys.stdout.write(
        f"hardware probe, {args.runs} runs; CPU {cold_profile.cpu.brand}, "
        f"{cold_profile.cpu.logical_cores} threads; {len(cold_profile.gpus)} GPU(s); "
        f"measured CPU bandwidth {gbps} GB/s\n\n"
    )
    print_markdown_table(["probe", "median ms", "ratio to 300 ms"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
