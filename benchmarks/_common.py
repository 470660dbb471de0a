"""Helpers shared by the benchmark scripts: alternating A/B runs and a ratio table.

The machine is noisy, so benchmarks never compare absolute times across runs: they alternate the
variants inside one run and report per-pair ratios and their median.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


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
