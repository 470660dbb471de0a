"""The GGUF header reader on hostile headers: peak RSS and time per bomb, fresh process each.

Each bomb (``tests/fixtures/gguf_bombs.py``) is a valid-looking header whose counts are honest
about the bytes behind them but large: ten million tensor infos in a 400 MB file, a 120 MB
array of ten million empty arrays, ten million empty strings, a million metadata keys, ten
thousand arrays of a thousand strings. Every operation runs in a fresh process and is measured
from outside: wall time, and peak RSS (``VmHWM``: the child reports it as it ends; for a run
that is killed, the last value read from outside).

Operations: ``read`` (``read_gguf``: the reader alone), ``fit`` (``llm-scout fit FILE``),
``import`` (``llm-scout import FILE``: header, sha256, library row) and ``scan``
(``Library.scan`` of a folder holding the file: what any folder scan that meets it pays). The
window's import runs the same ``Library.import_file`` as ``llm-scout import``.

The first rows are the SmolLM2 demo model, for scale: what the same operations cost on a
real file (``import`` hashes its 98 MB). ``--baseline REV`` runs the same operations with the
code at git revision REV (its ``desktop`` package extracted to a temporary folder), alternating
with the current code file by file, so the two columns are measured side by side. A run that
passes ``--timeout`` is killed and reported as such.

    .venv/bin/python benchmarks/gguf_bombs.py [--bombs tensors,arrays,...]
        [--ops read,fit,import,scan] [--baseline REV] [--timeout S]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPS = ("read", "fit", "import", "scan")


# --------------------------------------------------------------------------- the child side


def _child(op: str, path: str, home: str) -> None:
    """One operation on one file, in this (fresh) process; prints its outcome as JSON."""
    os.environ["LLM_SCOUT_HOME"] = home
    started = time.perf_counter()
    outcome = "ok"
    try:
        if op == "read":
            from desktop.core.gguf import read_gguf

            info = read_gguf(path)
            outcome = f"read: {len(info.tensors):,} tensors, {len(info.metadata):,} keys"
        elif op == "scan":
            from desktop.core.library import Library, ScanRoot

            library = Library(Path(home) / "library.db")
            report = library.scan([ScanRoot("folder", Path(path).parent)])
            library.close()
            problems = [p.message for p in report.problems]
            outcome = problems[0] if problems else f"scan: {len(report.added)} added"
        else:
            from desktop.entry import main

            argv = ["fit", path] if op == "fit" else ["import", path]
            sink = io.StringIO()
            saved = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = sink
            try:
                code = main(argv)
            finally:
                sys.stdout, sys.stderr = saved
            lines = [line for line in sink.getvalue().splitlines() if line.strip()]
            outcome = f"rc {code}: " + (lines[-1] if lines else "")
    except BaseException as exc:  # the outcome is what is measured, whatever it is
        outcome = f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - started
    result = {"outcome": outcome[:160], "inner_s": seconds, "hwm_kib": _hwm_kib("self")}
    sys.stdout.write(json.dumps(result) + "\n")


def _hwm_kib(pid: str) -> int:
    """A process's peak RSS so far (``VmHWM``), in KiB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


# --------------------------------------------------------------------------- the parent side


@dataclass
class Measured:
    seconds: float
    peak_bytes: int
    outcome: str


def _extract(rev: str, into: Path) -> Path:
    """The ``desktop`` package (and the catalog) as they were at ``rev``."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "desktop", "models_catalog.json"],
        check=True,
        capture_output=True,
    ).stdout
    into.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(into, filter="data")
    return into


def _run(code_root: Path, op: str, path: Path, timeout: float) -> Measured:
    with tempfile.TemporaryDirectory(prefix="bomb-home-") as home:
        return _run_in(code_root, op, path, timeout, home)


def _run_in(code_root: Path, op: str, path: Path, timeout: float, home: str) -> Measured:
    env = dict(os.environ, PYTHONPATH=str(code_root), LLM_SCOUT_HOME=home)
    env.pop("LLM_SCOUT_DEBUG", None)
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import runpy; g = runpy.run_path(sys.argv[2]);"
        "g['_child'](sys.argv[3], sys.argv[4], sys.argv[5])"
    )
    command = [sys.executable, "-c", script, str(code_root), __file__, op, str(path), home]
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak_kib = 0
    timed_out = False
    while proc.poll() is None:
        peak_kib = max(peak_kib, _hwm_kib(str(proc.pid)))
        if time.perf_counter() - started > timeout:
            proc.kill()
            proc.wait()
            timed_out = True
            break
        time.sleep(0.02)
    seconds = time.perf_counter() - started
    out = proc.stdout.read().decode("utf-8", "replace") if proc.stdout else ""
    if proc.stdout:
        proc.stdout.close()
    if timed_out:
        outcome = f"killed after {timeout:.0f} s"
    else:
        try:
            report = json.loads(out.strip().splitlines()[-1])
            outcome = report["outcome"]
            peak_kib = max(peak_kib, int(report["hwm_kib"]))
        except (IndexError, ValueError, KeyError):
            outcome = f"exit {proc.returncode}"
    return Measured(seconds, peak_kib * 1024, outcome)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from benchmarks._common import print_markdown_table
    from tests.fixtures.gguf_bombs import BOMBS

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bombs", default=",".join(BOMBS), help="which bombs, comma-separated")
    parser.add_argument("--ops", default=",".join(OPS), help="which operations, comma-separated")
    parser.add_argument("--baseline", metavar="REV", help="also run the code at git revision REV")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="S", help="per run")
    parser.add_argument(
        "--no-reference", dest="reference", action="store_false", help="skip the real model"
    )
    args = parser.parse_args()
    bombs = [b for b in args.bombs.split(",") if b]
    ops = [o for o in args.ops.split(",") if o]
    unknown = [b for b in bombs if b not in BOMBS] + [o for o in ops if o not in OPS]
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="gguf-bombs-") as tmp:
        versions = {"now": ROOT}
        if args.baseline:
            versions = {"baseline": _extract(args.baseline, Path(tmp) / "baseline"), **versions}
        cases: list[tuple[str, Path, bool]] = []
        if args.reference:
            from desktop.core import demo

            cases.append(("a real model: SmolLM2 135M Q4_1 (98 MB)", demo.smollm2_path(), False))
        for bomb in bombs:
            folder = Path(tmp) / bomb
            folder.mkdir()
            cases.append((BOMBS[bomb][0], BOMBS[bomb][1](folder / f"{bomb}.gguf"), True))
        for title, path, written in cases:
            for op in ops:
                row: list[object] = [title, op]
                results = {
                    name: _run(root, op, path, args.timeout) for name, root in versions.items()
                }
                for name in versions:
                    m = results[name]
                    row += [f"{m.peak_bytes / 2**20:,.0f}", f"{m.seconds:.2f}"]
                now = results["now"]
                row.append(now.outcome.replace("|", "/"))
                if "baseline" in results:
                    row.append(results["baseline"].outcome.replace("|", "/"))
                rows.append(row)
                measured = ", ".join(
                    f"{n} {r.peak_bytes / 2**20:.0f} MiB {r.seconds:.1f} s"
                    for n, r in results.items()
                )
                sys.stderr.write(f"{title} {op}: {measured}\n")
            if written:
                path.unlink()
    headers = ["file", "operation"]
    for name in versions:
        headers += [f"{name} peak RSS MiB", f"{name} s"]
    headers.append("now: outcome")
    if args.baseline:
        headers.append("baseline: outcome")
    print_markdown_table(headers, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
