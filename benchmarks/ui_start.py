"""Cold start of the window, on an empty and on a used data folder, against a bare Qt window.

A fresh Python process from its start to the window shown with the event loop turning (the same
measure as ``ui_responsiveness.py``), for:

- a bare PySide6 ``QMainWindow`` (the floor: Python + Qt alone);
- LLM Scout on an **empty** data folder (a first start);
- LLM Scout on a **used** data folder: 300 answers and 12 comparisons in the history, the two
  demo models and 40 more GGUF files in the library, 40 calibration entries, and the window state
  a closed window saved (geometry, last page, profile);
- with ``--baseline REV``, the same two for the code at git revision REV (its ``desktop``
  package, catalog and resources, extracted to a temporary folder), each on its own copy of the
  same used folder.

The variants alternate in every round, so all see the same machine; the table gives each one's
times, the median, the ratio to the bare window and, with a baseline, the median of the
per-round ratios now/baseline. The issue's target: at most 1.5 s on the used folder.

    .venv/bin/python benchmarks/ui_start.py [--starts 7] [--baseline REV]
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import median, print_markdown_table

ROOT = Path(__file__).resolve().parents[1]
TARGET_START_S = 1.5

APP_START = """
import time
from desktop.ui.app import Controller, make_application
from desktop.core.workspace import Workspace
from PySide6.QtCore import QTimer
app = make_application()
controller = Controller(app, Workspace.load())
controller.start()
def shown():
    print(time.time(), flush=True)
    if SAVE:
        controller.window.save_state()
    controller.shutdown()
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""

QT_START = """
import time, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv)
window = QMainWindow()
window.resize(1280, 800)
window.show()
def shown():
    print(time.time(), flush=True)
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""

# Fills LLM_SCOUT_HOME with what a few weeks of use leave there, through the core's own API.
FILL = """
import os, shutil, sys, time
from pathlib import Path
from desktop.core import demo
from desktop.core.engine import GenerationMetrics, RunReport
from desktop.core.fit.calibration import CalibrationEntry, CalibrationStore
from desktop.core.history import ContestantRecord, History, PromptRecord
from desktop.core import paths
from desktop.core.library import Library

home = Path(os.environ["LLM_SCOUT_HOME"])
models = [demo.smollm2_path(), demo.gemma3_path()]
folder = home / "more-models"
folder.mkdir()
for i in range(40):  # header copies: the real header, then a sparse hole to the real size
    source = models[i % 2]
    with source.open("rb") as f:
        head = f.read(16 << 20)
    target = folder / f"model-{i:02d}.gguf"
    with target.open("wb") as f:
        f.write(head)
        f.truncate(source.stat().st_size)

def report(i):
    metrics = GenerationMetrics(ttft_ms=120.0 + i, prompt_tokens=40, prompt_tokens_per_s=300.0,
        generated_tokens=128, tokens_per_s=90.0 + i % 7, per_second=(88.0, 91.0),
        t_first=None, t_last=None)
    return RunReport(text=("A fairly long answer. " * 40) + str(i), metrics=metrics,
        load_ms=210.0, rss_after_load_bytes=190 << 20, rss_after_first_token_bytes=195 << 20,
        rss_peak_bytes=200 << 20, private_peak_bytes=60 << 20, file_peak_bytes=140 << 20,
        predicted_ram_bytes=205 << 20, predicted_vram_bytes=0, predicted_tokens_per_s=105.0,
        finish_reason="length", n_ctx=4096, n_threads=2)

with Library(paths.library_db_path()) as library:
    for path in models:
        library.import_file(path)
    for path in sorted(folder.iterdir()):
        library.import_file(path)
with History.open() as history:
    for i in range(300):
        history.record_run(report(i), model=models[i % 2], prompt=f"Question number {i}?",
                           machine="this machine")
    for c in range(12):
        refs = [history.model_ref(m) for m in models]
        cid = history.create_comparison(
            title=f"Comparison {c}", mode="fair",
            contestants=[ContestantRecord(name=p.stem, spec=str(p), model=r, settings={})
                         for p, r in zip(models, refs)],
            prompts=[PromptRecord(text=f"Prompt {k}") for k in range(8)],
            machine="this machine")
        for k in range(8):
            for j in range(2):
                history.record_answer(cid, j, k, output="An answer. " * 30, report=report(k))
        history.set_comparison_status(cid, "finished")
store = CalibrationStore()
for i in range(40):
    store.add(CalibrationEntry(machine="bench", source="run", model=models[i % 2].name,
        device="cpu", n_gpu_layers=0, n_ctx=4096, generated_tokens=128,
        predicted_tokens_per_s=100.0, measured_tokens_per_s=90.0 + i % 5,
        predicted_ram_bytes=200 << 20, rss_peak_bytes=210 << 20, time=time.time()))
print("filled")
"""


def _env(code_root: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(code_root), LLM_SCOUT_HOME=str(home))
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def start_once(code: str, code_root: Path = ROOT, home: Path | None = None) -> float:
    env = _env(code_root, home) if home is not None else dict(os.environ, PYTHONPATH=str(ROOT))
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    started = time.time()
    # cwd: "-c" puts the working folder first on sys.path, before PYTHONPATH's code root.
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    ).stdout
    shown_at: float = float(out.strip().splitlines()[-1])
    return shown_at - started


def app_start(code_root: Path, home: Path, save: bool = False) -> float:
    return start_once(f"SAVE = {save}\n" + APP_START, code_root, home)


def fill_used_home(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", FILL],
        env=_env(ROOT, home),
        check=False,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if done.returncode != 0:
        raise SystemExit(f"filling the used data folder failed:\n{done.stderr}")
    app_start(ROOT, home, save=True)  # a closed window saves its state


def extract(rev: str, into: Path) -> Path:
    """The code at ``rev`` (package, catalog, resources) in ``into``."""
    archive = subprocess.run(
        ["git", "archive", rev, "desktop", "resources", "models_catalog.json"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=7, help="fresh processes per variant")
    parser.add_argument("--baseline", metavar="REV", help="also start the code at REV")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ui-start-") as tmp:
        work = Path(tmp)
        used = work / "used-template"
        fill_used_home(used)
        variants: dict[str, tuple[Path, Path | None]] = {
            "bare QMainWindow": (ROOT, None),
            "now, empty folder": (ROOT, work / "empty-now"),
            "now, used folder": (ROOT, work / "used-now"),
        }
        if args.baseline:
            base = extract(args.baseline, work / "baseline")
            variants["baseline, empty folder"] = (base, work / "empty-base")
            variants["baseline, used folder"] = (base, work / "used-base")
        for name, (_, home) in variants.items():
            if home is not None and "used" in name:
                shutil.copytree(used, home)
        for code_root, home in variants.values():  # warm the disk cache and .pyc files
            if home is not None:
                app_start(code_root, home)
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.starts):
            for name, (code_root, home) in variants.items():
                times[name].append(
                    start_once(QT_START) if home is None else app_start(code_root, home)
                )
    bare = median(times["bare QMainWindow"])
    rows: list[list[object]] = []
    for name, values in times.items():
        m = median(values)
        row: list[object] = [
            name,
            ", ".join(f"{t:.2f}" for t in values),
            f"{m:.2f}",
            f"{m / bare:.2f}",
        ]
        if args.baseline:
            twin = name.replace("now", "baseline")
            if name.startswith("now") and twin in times:
                ratios = [a / b for a, b in zip(values, times[twin], strict=True)]
                row.append(f"{median(ratios):.2f}")
            else:
                row.append("")
        row.append(("yes" if m <= TARGET_START_S else "NO") if name.startswith("now") else "")
        rows.append(row)
    headers = ["process", "each s", "median s", "ratio to bare Qt"]
    if args.baseline:
        headers.append("now / baseline (per round)")
    headers.append(f"<= {TARGET_START_S} s")
    sys.stdout.write(
        f"### Cold start to the window shown, fresh processes (median of {args.starts})\n\n"
    )
    print_markdown_table(headers, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
