"""Whole-catalog fit estimate for a context slider: per-row estimate() loops vs CatalogEstimator.

The window re-estimates every catalog variant on each move of its context slider (2k..128k), so
one call must stay under 100 ms on this 2-core machine. Three ways, on the same targets:

- ``baseline loop``: ``estimate()`` per variant with the code at git revision ``--baseline``
  (default: the commit before the fast estimator; its ``desktop`` package and catalog are
  extracted to a temporary folder and imported as ``baseline_desktop``);
- ``estimate() loop``: today's ``estimate()`` per variant (what ``llm-scout fit`` does once);
- ``CatalogEstimator``: one estimator per round; its first call (cold: it does the per-target
  work it then keeps) and the calls after it (warm: one per slider move) are reported apart.

Each round runs the three on each profile in turn, the order rotated every round, over the same
slider contexts; the table gives the medians of milliseconds per whole-catalog call and the
median of the per-round ratios. The first round also checks that all three give identical
results, field by field.

    .venv/bin/python benchmarks/catalog_estimate.py [--rounds N] [--baseline REV]
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.core.catalog import load_catalog  # noqa: E402
from desktop.core.fit import CatalogEstimator, estimate  # noqa: E402
from desktop.core.hardware import HardwareProfile, load_profile, probe  # noqa: E402
from desktop.core.library import ModelResolver  # noqa: E402

TARGET_MS = 100.0
BASELINE_REV = "c09be71"  # the estimator before CatalogEstimator kept per-target work
BASELINE_PACKAGE = "baseline_desktop"
# A slider dragged from the default 4k up to 128k and back down.
SLIDER = (4096, 8192, 16384, 32768, 65536, 131072, 49152, 12288, 2048)
METHODS = ("baseline", "loop", "table")


def load_baseline(rev: str, into: Path) -> dict[str, Any]:
    """``estimate``, ``load_catalog``, ``ModelResolver`` and ``HardwareProfile`` of the code at
    git revision ``rev``, imported from ``into`` under another package name."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "desktop", "models_catalog.json"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / BASELINE_PACKAGE
    (into / "desktop").rename(package)
    own_name = re.compile(r"(?<![\w.])desktop(?=\.|\s+import\b)")
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        source.write_text(own_name.sub(BASELINE_PACKAGE, text), encoding="utf-8")
    sys.path.insert(0, str(into))
    fit = importlib.import_module(f"{BASELINE_PACKAGE}.core.fit")
    catalog = importlib.import_module(f"{BASELINE_PACKAGE}.core.catalog")
    library = importlib.import_module(f"{BASELINE_PACKAGE}.core.library")
    hardware = importlib.import_module(f"{BASELINE_PACKAGE}.core.hardware")
    return {
        "estimate": fit.estimate,
        "load_catalog": lambda: catalog.load_catalog(bundled=into / "models_catalog.json"),
        "ModelResolver": library.ModelResolver,
        "HardwareProfile": hardware.HardwareProfile,
    }


def loop_calls(
    run: Callable[..., Any], targets: list[Any], profile: Any, models_dir: Path
) -> tuple[list[float], list[list[Any]]]:
    """(ms per whole-catalog call, results) of ``run`` per target at each slider context."""
    times: list[float] = []
    results: list[list[Any]] = []
    for n_ctx in SLIDER:
        started = time.perf_counter()
        rows = []
        for target in targets:
            try:
                rows.append(run(target, profile, n_ctx=n_ctx, models_dir=models_dir))
            except Exception as exc:  # a row error is a result too
                rows.append(str(exc))
        times.append((time.perf_counter() - started) * 1000)
        results.append(rows)
    return times, results


def table_calls(
    triples: list[Any], profile: HardwareProfile, models_dir: Path
) -> tuple[list[float], list[list[Any]]]:
    estimator = CatalogEstimator(triples, profile, models_dir=models_dir)
    times: list[float] = []
    results: list[list[Any]] = []
    for n_ctx in SLIDER:
        started = time.perf_counter()
        rows = estimator.estimate(n_ctx)
        times.append((time.perf_counter() - started) * 1000)
        results.append([row.result if row.error is None else row.error for row in rows])
    return times, results


def plain(value: Any) -> Any:
    return value if isinstance(value, str) else asdict(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV", default=BASELINE_REV)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="llm-scout-bench-") as tmp:
        models_dir = Path(tmp) / "models"
        models_dir.mkdir()
        base = load_baseline(args.baseline, Path(tmp) / "baseline")
        catalog = load_catalog()
        triples = ModelResolver(catalog, models_dir=models_dir).fit_targets(catalog.variants())
        targets = [target for _m, _v, target in triples]
        old_catalog = base["load_catalog"]()
        old_resolver = base["ModelResolver"](old_catalog, models_dir=models_dir)
        old_targets = [t for _m, _v, t in old_resolver.fit_targets(old_catalog.variants())]
        assert [t.label for t in old_targets] == [t.label for t in targets]
        profiles = {
            "rtx-4090-24gb": load_profile("rtx-4090-24gb"),
            "this machine": probe(models_dir),
        }

        # times[profile][method]: per round, the ms of each call along the slider
        times: dict[str, dict[str, list[list[float]]]] = {
            name: {m: [] for m in METHODS} for name in profiles
        }
        identical = True
        for round_no in range(args.rounds):
            for name, profile in profiles.items():
                shift = round_no % len(METHODS)
                outputs: dict[str, list[list[Any]]] = {}
                for method in METHODS[shift:] + METHODS[:shift]:
                    if method == "baseline":
                        old_profile = base["HardwareProfile"].from_json(profile.to_json())
                        ms, out = loop_calls(base["estimate"], old_targets, old_profile, models_dir)
                    elif method == "loop":
                        ms, out = loop_calls(estimate, targets, profile, models_dir)
                    else:
                        ms, out = table_calls(triples, profile, models_dir)
                    times[name][method].append(ms)
                    outputs[method] = out
                if round_no == 0:
                    for method in ("baseline", "table"):
                        for got, want in zip(outputs[method], outputs["loop"], strict=True):
                            identical &= [plain(g) for g in got] == [plain(w) for w in want]

    sys.stdout.write(
        f"{len(targets)} catalog variants (none on disk), {args.rounds} rounds, slider "
        f"{' -> '.join(str(c) for c in SLIDER)}; baseline: the code at {args.baseline}; "
        f"results identical field by field: {'yes' if identical else 'NO'}\n\n"
    )
    rows: list[list[object]] = []
    for name in profiles:
        by = times[name]
        base_ms = [median(r) for r in by["baseline"]]  # per round, median over the slider
        loop_ms = [median(r) for r in by["loop"]]
        cold = [r[0] for r in by["table"]]
        warm = [median(r[1:]) for r in by["table"]]
        worst = max(max(r[1:]) for r in by["table"])
        rows.append(
            [
                name,
                median(base_ms),
                median(loop_ms),
                median(cold),
                median(warm),
                worst,
                median([w / b for w, b in zip(warm, base_ms, strict=True)]),
                median([c / b for c, b in zip(cold, base_ms, strict=True)]),
                median(warm) / TARGET_MS,
            ]
        )
    print_markdown_table(
        [
            "profile",
            "baseline loop ms",
            "estimate() loop ms",
            "table first call ms",
            "table per move ms",
            "table slowest move ms",
            "per move / baseline",
            "first call / baseline",
            "per move vs 100 ms",
        ],
        rows,
    )
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
