"""Library scan speed: 100 GGUF files, first scan (every header read) and re-scan (none read).

The files are header copies of the demo models: the real header bytes, then a sparse hole up to
the real file size, so the reader sees exactly what it sees in the real file (it never reads
tensor data) while the disk holds only the headers. The page cache is warm (the headers were
just written), the database is new for each first scan: the "cold-ish" case of a first run.

Each round: a first scan into a new database (the reader is timed inside it, so the split
between header reading and the library's own work is measured in the same run), then a re-scan.
The table gives medians and the ratio to the 1 s target of the issue ("100 files in under 1 s").

``--baseline REV`` also scans with the code as it was at git revision REV: its ``desktop``
package and catalog, extracted to a temporary folder and imported as ``baseline_desktop``. The two
alternate in every round (which goes first alternates too); a column gives the median of the
per-round ratios now/baseline. ``--pool`` also times reading the headers alone, in this process
versus in a pool of 2 spawned processes (the app does not use a pool; this is the measurement
behind that choice).

    .venv/bin/python benchmarks/library_scan.py [--files N] [--rounds N]
        [--mix smollm2|gemma3|both] [--baseline REV] [--pool]
"""

from __future__ import annotations

import argparse
import importlib
import io
import multiprocessing
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.core import demo  # noqa: E402
from desktop.core.gguf import read_gguf, read_gguf_split  # noqa: E402
from desktop.core.library import Library, ScanRoot  # noqa: E402

TARGET_S = 1.0
BASELINE_PACKAGE = "baseline_desktop"


def header_copy(src: Path, dest: Path) -> None:
    """The header bytes of ``src``, then a hole up to its size (sparse: no disk used)."""
    info = read_gguf(src)
    with src.open("rb") as fin:
        header = fin.read(info.data_offset)
    with dest.open("wb") as fout:
        fout.write(header)
        fout.truncate(src.stat().st_size)


def build_tree(root: Path, sources: list[Path], n_files: int) -> None:
    """``n_files`` models spread over folders of 10, like a real collection."""
    for i in range(n_files):
        src = sources[i % len(sources)]
        folder = root / f"publisher-{i // 10}" / f"repo-{i}"
        folder.mkdir(parents=True)
        header_copy(src, folder / f"model-{i}-{src.name}")


def load_baseline(rev: str, into: Path) -> dict[str, Any]:
    """The library and reader of the ``desktop`` package at git revision ``rev``.

    The package is extracted under ``into`` as ``baseline_desktop`` with its own imports
    renamed, so both versions live in this process side by side."""
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
    gguf = importlib.import_module(f"{BASELINE_PACKAGE}.core.gguf")
    library = importlib.import_module(f"{BASELINE_PACKAGE}.core.library")
    sources = importlib.import_module(f"{BASELINE_PACKAGE}.core.library_sources")
    return {"Library": library.Library, "read": gguf.read_gguf, "ScanRoot": sources.ScanRoot}


class TimedReader:
    """A reader, adding up the time spent inside it."""

    def __init__(self, read: Callable[[Path], Any]) -> None:
        self.read = read
        self.seconds = 0.0

    def __call__(self, path: Path) -> Any:
        started = time.perf_counter()
        try:
            return self.read(path)
        finally:
            self.seconds += time.perf_counter() - started


def scan_once(
    version: dict[str, Any], tree: Path, db: Path, n_files: int
) -> tuple[float, float, float]:
    """(first scan s, of which in the reader s, re-scan s) into a new database."""
    reader = TimedReader(version["read"])
    roots = [version["ScanRoot"]("folder", tree)]
    with version["Library"](db, reader=reader) as library:
        library._get_catalog()  # loaded once per app start, not per scan
        started = time.perf_counter()
        report = library.scan(roots)
        first = time.perf_counter() - started
        assert report.headers_read == n_files, report.headers_read
        assert len(report.added) == n_files
        started = time.perf_counter()
        again = library.scan(roots)
        rescan = time.perf_counter() - started
        assert again.headers_read == 0
        assert again.unchanged == n_files
    return first, reader.seconds, rescan


def header_facts(path: Path) -> tuple[str | None, int, int]:
    """What a pool worker sends back (small: a GGUFInfo holds read-only mappings that do not
    pickle, so a real pool would cost more than this)."""
    info = read_gguf_split(path)
    return info.name, info.arch.n_params, info.tensor_bytes


def read_all_in_pool(files: list[Path]) -> float:
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        facts = list(pool.map(header_facts, files, chunksize=4))
    assert len(facts) == len(files)
    return time.perf_counter() - started


def read_all_here(files: list[Path]) -> float:
    started = time.perf_counter()
    for path in files:
        header_facts(path)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mix", choices=("smollm2", "gemma3", "both"), default="both")
    parser.add_argument("--baseline", metavar="REV", help="also scan with the code at REV")
    parser.add_argument("--pool", action="store_true", help="also time a 2-process reader pool")
    args = parser.parse_args(argv)

    mixes = {
        "smollm2": [demo.smollm2_path()],
        "gemma3": [demo.gemma3_path()],
        "both": [demo.smollm2_path(), demo.gemma3_path()],
    }
    sources = mixes[args.mix]
    current = {"Library": Library, "read": read_gguf_split, "ScanRoot": ScanRoot}
    results: dict[str, list[tuple[float, float, float]]] = {"now": [], "baseline": []}
    pool_times: dict[str, list[float]] = {"here": [], "pool": []}
    with tempfile.TemporaryDirectory(prefix="llm-scout-bench-") as tmp:
        tree = Path(tmp) / "models"
        build_tree(tree, sources, args.files)
        versions = {"now": current}
        if args.baseline:
            versions["baseline"] = load_baseline(args.baseline, Path(tmp) / "baseline")
        for round_no in range(args.rounds):
            order = list(versions) if round_no % 2 == 0 else list(reversed(versions))
            for label in order:
                db = Path(tmp) / f"library-{label}-{round_no}.db"
                results[label].append(scan_once(versions[label], tree, db, args.files))
        if args.pool:
            files = sorted(tree.rglob("*.gguf"))
            for round_no in range(args.rounds):
                order = ["here", "pool"] if round_no % 2 == 0 else ["pool", "here"]
                for label in order:
                    run = read_all_here if label == "here" else read_all_in_pool
                    pool_times[label].append(run(files))
        on_disk = sum(p.stat().st_blocks * 512 for p in tree.rglob("*.gguf"))

    sys.stdout.write(
        f"{args.files} files ({', '.join(s.name for s in sources)}), "
        f"{on_disk / 2**20:.1f} MiB of headers on disk, {args.rounds} rounds, medians"
        + (f"; baseline: the code at {args.baseline}" if args.baseline else "")
        + "\n\n"
    )
    _scan_table(results, args.files, with_baseline=bool(args.baseline))
    if args.pool:
        sys.stdout.write("\nReading the headers alone (no library), this process vs a pool\n\n")
        here, pool = pool_times["here"], pool_times["pool"]
        print_markdown_table(
            ["reader", "median s", "per file ms", "ratio to this process (per round)"],
            [
                ["in this process", median(here), 1000 * median(here) / args.files, 1.0],
                [
                    "pool of 2 spawned processes (incl. start)",
                    median(pool),
                    1000 * median(pool) / args.files,
                    median([p / h for p, h in zip(pool, here, strict=True)]),
                ],
            ],
        )
    return 0


def _scan_table(
    results: dict[str, list[tuple[float, float, float]]], n_files: int, *, with_baseline: bool
) -> None:
    def series(label: str, case: str) -> list[float]:
        rows = results[label]
        if case == "first":
            return [r[0] for r in rows]
        if case == "reader":
            return [r[1] for r in rows]
        if case == "own":
            return [r[0] - r[1] for r in rows]
        return [r[2] for r in rows]

    cases = [
        ("first scan (new database)", n_files, "first"),
        ("  of which GGUF header reading", n_files, "reader"),
        ("  of which the library's own work", "-", "own"),
        ("re-scan (nothing changed)", 0, "rescan"),
    ]
    first_now = median(series("now", "first"))
    rows: list[list[object]] = []
    for name, reads, case in cases:
        now = series("now", case)
        row: list[object] = [name, reads]
        if with_baseline:
            before = series("baseline", case)
            ratios = [n / b for n, b in zip(now, before, strict=True) if b > 0]
            row += [median(before), median(now), median(ratios) if ratios else "-"]
        else:
            row += [median(now)]
        row += [1000 * median(now) / n_files, median(now) / TARGET_S, median(now) / first_now]
        rows.append(row)
    headers = ["case", "headers read"]
    headers += ["baseline s", "now s", "now / baseline"] if with_baseline else ["median s"]
    headers += ["per file ms", "vs 1 s target", "share of first scan"]
    print_markdown_table(headers, rows)


if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
