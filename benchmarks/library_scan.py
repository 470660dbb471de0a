"""Library scan speed: 100 GGUF files, first scan (every header read) and re-scan (none read).

The files are header copies of the demo models: the real header bytes, then a sparse hole up to
the real file size, so the reader sees exactly what it sees in the real file (it never reads
tensor data) while the disk holds only the headers. The page cache is warm (the headers were
just written), the database is new for each first scan: the "cold-ish" case of a first run.

Each round: a first scan into a new database (the reader is timed inside it, so the split
between header reading and the library's own work is measured in the same run), then a re-scan.
The table gives medians and the ratio to the 1 s target of the issue ("100 files in under 1 s").

    .venv/bin/python benchmarks/library_scan.py [--files N] [--rounds N] [--mix smollm2|gemma3|both]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.core import demo  # noqa: E402
from desktop.core.gguf import GGUFInfo, read_gguf  # noqa: E402
from desktop.core.library import Library  # noqa: E402
from desktop.core.library_sources import ScanRoot  # noqa: E402

TARGET_S = 1.0


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


class TimedReader:
    """The real reader, adding up the time spent inside it."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self, path: Path) -> GGUFInfo:
        started = time.perf_counter()
        try:
            return read_gguf(path)
        finally:
            self.seconds += time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mix", choices=("smollm2", "gemma3", "both"), default="both")
    args = parser.parse_args(argv)

    mixes = {
        "smollm2": [demo.smollm2_path()],
        "gemma3": [demo.gemma3_path()],
        "both": [demo.smollm2_path(), demo.gemma3_path()],
    }
    sources = mixes[args.mix]
    first: list[float] = []
    in_reader: list[float] = []
    rescan: list[float] = []
    with tempfile.TemporaryDirectory(prefix="llm-scout-bench-") as tmp:
        tree = Path(tmp) / "models"
        build_tree(tree, sources, args.files)
        roots = [ScanRoot("folder", tree)]
        for round_no in range(args.rounds):
            reader = TimedReader()
            with Library(Path(tmp) / f"library-{round_no}.db", reader=reader) as library:
                library._get_catalog()  # loaded once per app start, not per scan
                started = time.perf_counter()
                report = library.scan(roots)
                first.append(time.perf_counter() - started)
                in_reader.append(reader.seconds)
                assert report.headers_read == args.files, report.headers_read
                assert len(report.added) == args.files
                started = time.perf_counter()
                again = library.scan(roots)
                rescan.append(time.perf_counter() - started)
                assert again.headers_read == 0
                assert again.unchanged == args.files
        on_disk = sum(p.stat().st_blocks * 512 for p in tree.rglob("*.gguf"))

    sys.stdout.write(
        f"{args.files} files ({', '.join(s.name for s in sources)}), "
        f"{on_disk / 2**20:.1f} MiB of headers on disk, {args.rounds} rounds, medians\n\n"
    )
    own = [total - reading for total, reading in zip(first, in_reader, strict=True)]
    rows = [
        ("first scan (new database)", args.files, first),
        ("  of which GGUF header reading", args.files, in_reader),
        ("  of which the library's own work", "-", own),
        ("re-scan (nothing changed)", 0, rescan),
    ]
    print_markdown_table(
        ["case", "headers read", "median s", "per file ms", "vs 1 s target", "share of first scan"],
        [
            [name, reads, median(values), 1000 * median(values) / args.files,
             median(values) / TARGET_S, median(values) / median(first)]
            for name, reads, values in rows
        ],
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
