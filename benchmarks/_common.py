"""Helpers shared by the benchmark scripts: alternating A/B runs and a ratio table.

The machine is noisy, so benchmarks never compare absolute times across runs: they alternate the
variants inside one run and report per-pair ratios and their median.
"""

from __future__ import annotations

import random
import statistics
import sys
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def median_interval(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 4000
) -> tuple[float, float]:
    """A bootstrap interval for the median of ``values`` (percentile method, fixed seed): how
    far the noise of a run leaves the median uncertain."""
    rng = random.Random(0)
    n = len(values)
    medians = sorted(statistics.median(rng.choices(values, k=n)) for _ in range(resamples))
    tail = (1.0 - confidence) / 2.0
    low = medians[int(tail * (resamples - 1))]
    high = medians[int((1.0 - tail) * (resamples - 1))]
    return float(low), float(high)


def print_markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a GitHub-markdown table (pasted as is into benchmarks/RESULTS.md)."""

    def fmt(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
        return str(value)

    sys.stdout.write("| " + " | ".join(headers) + " |\n")
    sys.stdout.write("|" + "|".join("---" for _ in headers) + "|\n")
    for row in rows:
        sys.stdout.write("| " + " | ".join(fmt(v) for v in row) + " |\n")
