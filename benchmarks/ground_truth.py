"""Ground truth for the fit estimator: random-weight GGUFs of chosen shapes, run by llama.cpp.

    python benchmarks/ground_truth.py --out DIR --census --max-load 3   # the CPU half
    python benchmarks/ground_truth.py --gpu --out DIR --census          # an NVIDIA machine

The GPU half needs llama-cpp-python 0.3.36 built with CUDA
(``CMAKE_ARGS="-DGGML_CUDA=on" pip install --no-binary :all: llama-cpp-python==0.3.36``),
``pynvml``, about 25 GB of disk for its four models (qwen2.5-1.5b's, qwen3-4b's and gemma-2-2b's
shapes, a 128-expert Qwen3-MoE cut; Q8_0), and llama.cpp's vocab files: fetched once from the
sdist (online), or put in ``$LLM_SCOUT_VOCAB_DIR`` beforehand on a machine without network.
Then ``benchmarks/fit_accuracy.py --gpu-only --ground-truth DIR`` prints the fit against it.

Each shape (dense GQA and MHA, sliding window, q/k norms, mixture of experts with n experts and
k used) is written with random weights and a real tokenizer (``tests/fixtures/tiny_models.py``:
llama.cpp's vocab-only files from the llama-cpp-python sdist), as F16 then quantized by
llama.cpp's own quantizer (``llama_model_quantize``) into the mixes asked for, or (the GPU
shapes) as Q8_0 directly. Every measurement is a fresh process (``_ground_truth_cell.py``) that
loads the model the way the engine's worker does (n_batch 512, flash attention off, one thread
per physical core, mmap on) and runs what ``llm-scout bench`` runs: a prompt of ``pp`` token ids
(the bench's own pseudo-random ids; tokens/s from llama.cpp's prompt-eval time) and ``tg`` tokens
generated after a one-token prompt (or after ``depth`` tokens), greedy, end of generation
ignored, tokens/s as ``(n - 1) / (t_last - t_first)`` over ``Llama.generate``, the worker's loop
(``--bench-check N`` compares a cell with ``llm-scout bench`` itself).

Measured per cell: RSS from ``/proc/self/status`` (VmHWM, the peak, and RssAnon/RssFile, private
and file-backed, after the load and after each run); with ``--gpu``, NVML's device memory in use
(peak minus what was in use before the process started, polled at 50 Hz from this process) and
the process's own figure, and the device's free memory. ``--census`` adds one process per model
with ``GGML_SCHED_DEBUG=2``: the compute nodes of a one-token graph by operation, and the graph
splits of a 512-token batch with the inputs copied between devices (what partial offload stages
on the GPU).

Written to DIR: ``cells.jsonl`` (first line: the machine as ``llm-scout hw --json`` sees it and
the llama.cpp build; then one line per cell), ``targets.json`` (each model's fit inputs, read
from its header, so the rows can be predicted without the files), ``census.json`` and
``logs/<cell>.log`` (llama.cpp's log of that cell, without the per-tensor lines). A cell already
in ``cells.jsonl`` is not measured again, so a run can be stopped and continued; ``--rounds``
repeats the speed cells in interleaved rounds (shared machines: take the best round) and
``--max-load`` waits for a quiet machine before each speed cell.

Models are cached in ``$LLM_SCOUT_BENCH_CACHE/ground-truth`` (default
``~/.cache/llm-scout-bench``); ``--clean`` deletes them at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._ground_truth_nvml import GpuPoller  # noqa: E402
from benchmarks._ground_truth_shapes import CPU_SHAPES, GPU_SHAPES, Shape  # noqa: E402

CELL = Path(__file__).with_name("_ground_truth_cell.py")
RECIPE_VERSION = 1
MEMORY_PP = 128  # prompt tokens of a memory cell (a short chat turn)
MEMORY_TG = 16
SPEED_PP = 512  # llm-scout bench's defaults
SPEED_TG = 128
SPEED_CTX = 1024


@dataclass(frozen=True)
class Model:
    shape: Shape
    quant: str

    @property
    def key(self) -> str:
        return f"{self.shape.key}.{self.quant}"


@dataclass(frozen=True)
class Cell:
    """One fresh process: ``kind`` memory (short turn at ``n_ctx``) or speed (bench-like)."""

    model: Model
    kind: str
    n_ctx: int
    ngl: int = 0
    n_cpu_moe: int = 0  # experts of the first N layers kept on the CPU (tensor overrides)
    pp: int = MEMORY_PP
    tg: int = MEMORY_TG
    depth: int = 0
    reps: int = 1
    round: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def id(self) -> str:
        parts = [self.model.key, self.kind, f"ctx{self.n_ctx}", f"ngl{self.ngl}"]
        if self.n_cpu_moe:
            parts.append(f"cpumoe{self.n_cpu_moe}")
        if self.depth:
            parts.append(f"d{self.depth}")
        if self.kind == "speed":
            parts.append(f"r{self.round}")
        return "-".join(parts)


# --------------------------------------------------------------------------- models


def cache_dir() -> Path:
    base = os.environ.get("LLM_SCOUT_BENCH_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "llm-scout-bench"
    path = root / "ground-truth"
    path.mkdir(parents=True, exist_ok=True)
    return path


def model_path(model: Model) -> Path:
    """The model file, written (and quantized) on first use and cached with its recipe."""
    from tests.fixtures.tiny_models import quantize_model, write_tiny_model

    shape = model.shape
    if shape.demo:
        from desktop.core import demo

        return demo.smollm2_path() if shape.demo == "smollm2" else demo.gemma3_path()
    ftype = shape.source
    source = cache_dir() / f"{shape.key}.{ftype}.gguf"
    stamp = source.with_suffix(".json")
    wanted = {"v": RECIPE_VERSION, "arch": shape.arch, "ftype": ftype, **shape.dims}
    if not (source.is_file() and stamp.is_file() and json.loads(stamp.read_text()) == wanted):
        sys.stderr.write(f"writing {source.name} ...\n")
        write_tiny_model(
            source,
            arch=shape.arch,
            ftype=ftype,
            n_ctx_train=32768,
            name=f"llm-scout ground truth {shape.key}",
            **shape.dims,
        )
        stamp.write_text(json.dumps(wanted))
    if model.quant == ftype:
        return source
    dest = cache_dir() / f"{shape.key}.{model.quant}.gguf"
    if not dest.is_file() or dest.stat().st_mtime < source.stat().st_mtime:
        sys.stderr.write(f"quantizing {source.name} to {model.quant} ...\n")
        quantize_model(source, dest, model.quant, threads=os.cpu_count() or 2)
    return dest


def _shape_paths(models: list[Model]) -> list[tuple[str, Path]]:
    return [(m.key, model_path(m)) for m in models]


def prepare(models: list[Model], jobs: int) -> dict[str, Path]:
    """Every model's file, written (a shape's source, then its quants) ``jobs`` shapes at a
    time: writing random weights is single-threaded numpy, the GPU machine has many cores."""
    by_shape: dict[str, list[Model]] = {}
    for model in models:
        by_shape.setdefault(model.shape.key, []).append(model)
    groups = list(by_shape.values())
    if jobs <= 1 or len(groups) == 1:
        return dict(pair for group in groups for pair in _shape_paths(group))
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = pool.map(_shape_paths, groups)
        return dict(pair for found in done for pair in found)


def target_record(model: Model, path: Path) -> dict[str, Any]:
    """What the fit needs to predict this model, read from its header
    (``tests/fixtures/fit_targets.py``)."""
    from desktop.core.fit import FitTarget
    from desktop.core.gguf import read_gguf
    from tests.fixtures.fit_targets import target_to_dict

    target = FitTarget.from_gguf(read_gguf(path))
    record = target_to_dict(target)
    record["path"] = path.name
    return {
        "shape": model.shape.key,
        "quant": model.quant,
        "role": model.shape.role,
        "note": model.shape.note,
        "arch": model.shape.arch,
        "dims": model.shape.dims,
        "file_bytes": path.stat().st_size,
        "target": record,
    }


# --------------------------------------------------------------------------- the machine


def machine_record(gpu: bool) -> dict[str, Any]:
    """The machine as ``llm-scout hw --json`` sees it, and the llama.cpp build."""
    from dataclasses import replace

    from desktop.core.hardware import cpu_bandwidth_gbps, probe

    profile = probe()
    if profile.cpu.memory_bandwidth_gbps is None:
        bandwidth = cpu_bandwidth_gbps(measure_if_missing=True, cpu=profile.cpu)
        profile = replace(profile, cpu=replace(profile.cpu, memory_bandwidth_gbps=bandwidth))
    build = json.loads(
        subprocess.run(
            [sys.executable, str(CELL), "--build-info"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
    )
    return {
        "record": "machine",
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mode": "gpu" if gpu else "cpu",
        "profile": profile.to_dict(),
        "build": build,
        "repo_commit": _git_commit(),
        "loadavg": list(os.getloadavg()),
    }


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return None
    return done.stdout.strip() or None


# --------------------------------------------------------------------------- the parent

DROP_LOG = re.compile(
    r"^(create_tensor: loading tensor|llama_graph_n_input_tensors|load: control token|"
    r"llama_model_loader: - tensor|node #|## SPLIT|load_tensors: layer +\d+ assigned|"
    r"llama_kv_cache: layer +\d+:)"
)


def trim_log(text: str) -> str:
    """llama.cpp's log without the lines that repeat per tensor or per layer (the same for
    every load of a file; the counts are in the kept lines)."""
    return "".join(line for line in text.splitlines(True) if not DROP_LOG.match(line))


def run_cell(
    cell: Cell, path: Path, logs: Path, poller: GpuPoller | None, timeout: float
) -> dict[str, Any]:
    spec = {
        "path": str(path),
        "kind": cell.kind,
        "n_ctx": cell.n_ctx,
        "ngl": cell.ngl,
        "n_cpu_moe": cell.n_cpu_moe,
        "pp": cell.pp,
        "tg": cell.tg,
        "depth": cell.depth,
        "reps": cell.reps,
    }
    load_before = list(os.getloadavg())
    before = poller._read() if poller is not None else None
    started = time.time()
    with subprocess.Popen(
        [sys.executable, str(CELL), json.dumps(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    ) as proc:
        if poller is not None and before is not None:
            poller.start(proc.pid, before)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
        gpu = poller.stop() if poller is not None else {}
    (logs / f"{cell.id}.log").write_text(trim_log(stderr), encoding="utf-8")
    row: dict[str, Any] = {
        "record": "cell",
        "id": cell.id,
        "model": cell.model.key,
        "shape": cell.model.shape.key,
        "quant": cell.model.quant,
        "role": cell.model.shape.role,
        "kind": cell.kind,
        "n_ctx": cell.n_ctx,
        "ngl": cell.ngl,
        "n_cpu_moe": cell.n_cpu_moe,
        "pp": cell.pp,
        "tg": cell.tg,
        "depth": cell.depth,
        "round": cell.round,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "wall_s": round(time.time() - started, 2),
        "loadavg_before": load_before,
        "loadavg_after": list(os.getloadavg()),
        **gpu,
    }
    lines = stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        row["error"] = (stderr.strip().splitlines() or ["no output"])[-1][:500]
        return row
    row.update(json.loads(lines[-1]))
    return row


def census(model: Model, path: Path, ngl: int, n_cpu_moe: int = 0) -> dict[str, Any]:
    """The graph llama.cpp runs for one token and for a 512-token batch (GGML_SCHED_DEBUG=2)."""
    spec = {
        "path": str(path), "kind": "memory", "n_ctx": 1024, "ngl": ngl,
        "n_cpu_moe": n_cpu_moe, "pp": 512, "tg": 2, "depth": 0, "reps": 1, "marker": True,
    }  # fmt: skip
    env = dict(os.environ, GGML_SCHED_DEBUG="2")
    done = subprocess.run(
        [sys.executable, str(CELL), json.dumps(spec)],
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:500]}
    pp_part = done.stderr.split("@@ PP 0", 1)[-1].split("@@ TG 0", 1)[0]
    tg_part = done.stderr.split("@@ TG 0", 1)[-1]
    tg_graph = _last_graph(tg_part)
    ops = Counter(re.findall(r"^node #\s*\d+ \(\s*([A-Z_0-9]+)\)", tg_graph, re.M))
    splits = re.findall(r"^## SPLIT #\d+: (\S+) # (\d+) inputs(.*)$", _last_graph(pp_part), re.M)
    return {
        "model": model.key,
        "ngl": ngl,
        "n_cpu_moe": n_cpu_moe,
        "tg_ops": dict(sorted(ops.items())),
        "tg_ops_total": sum(ops.values()),
        "tg_splits": len(re.findall(r"^## SPLIT", tg_graph, re.M)),
        "pp_splits": len(splits),
        "pp_split_inputs": [
            [backend, int(n), re.findall(r"\[(\S+) \(\s*([\d.]+[MK])\)\]", rest)]
            for backend, n, rest in splits
            if int(n)
        ],
    }


def _last_graph(text: str) -> str:
    """The last graph the scheduler printed in ``text`` (from its first split to the end)."""
    starts = [m.start() for m in re.finditer(r"^## SPLIT #0:", text, re.M)]
    return text[starts[-1] :] if starts else ""


def plan(
    shapes: tuple[Shape, ...], gpu: bool, rounds: int, speed: bool, memory: bool
) -> Iterator[Cell]:
    """Memory cells first (independent of the machine's load), then interleaved speed rounds."""
    models = [Model(s, q) for s in shapes for q in s.quants]
    if memory:
        for m in models:
            n_layers = int(m.shape.dims["n_layers"])
            for ctx in m.shape.contexts:
                for ngl in (-1,) if gpu else (0,):
                    yield Cell(m, "memory", ctx, ngl)
            if gpu:
                yield Cell(m, "memory", 8192, n_layers // 2)
                if m.shape.dims.get("n_expert"):
                    yield Cell(m, "memory", 8192, -1, n_cpu_moe=n_layers)
                    yield Cell(m, "memory", 8192, -1, n_cpu_moe=n_layers // 2)
    if speed:
        for r in range(rounds):
            for m in models:
                n_layers = int(m.shape.dims["n_layers"])
                configs = [(-1, 0), (n_layers // 2, 0)] if gpu else [(0, 0)]
                if gpu and m.shape.dims.get("n_expert"):
                    configs += [(-1, n_layers), (-1, n_layers // 2)]
                for ngl, cpu_moe in configs:
                    yield Cell(
                        m, "speed", SPEED_CTX, ngl, cpu_moe, SPEED_PP, SPEED_TG, reps=2, round=r
                    )
                if m.shape.depth and r == 0:
                    ctx = m.shape.depth + 1024
                    yield Cell(
                        m, "speed", ctx, -1 if gpu else 0, 0, SPEED_PP, SPEED_TG,
                        depth=m.shape.depth, reps=1, round=r,
                    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="output folder (created)")
    parser.add_argument("--gpu", action="store_true", help="the GPU shapes, NVML, GPU layers")
    parser.add_argument("--shapes", nargs="+", metavar="KEY", help="only these shapes")
    parser.add_argument("--quants", nargs="+", metavar="Q", help="only these quants")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved speed rounds")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--census", action="store_true", help="also count llama.cpp's graph")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per cell")
    parser.add_argument(
        "--max-load",
        type=float,
        default=float("inf"),
        metavar="L",
        help="before a speed cell, wait for the 1-minute load average to fall below L",
    )
    parser.add_argument(
        "--max-wait", type=float, default=600, metavar="S", help="wait at most S seconds for it"
    )
    parser.add_argument("--clean", action="store_true", help="delete the models at the end")
    parser.add_argument(
        "--jobs",
        type=int,
        default=max(1, (os.cpu_count() or 2) // 4),
        help="shapes written at once (default: a quarter of the CPUs)",
    )
    parser.add_argument("--list", action="store_true", help="print the cells and stop")
    parser.add_argument(
        "--bench-check",
        type=int,
        default=0,
        metavar="N",
        help="alternate N times a speed cell and `llm-scout bench` on the first model, print "
        "their tokens/s side by side, and stop",
    )
    args = parser.parse_args(argv)
    shapes: tuple[Shape, ...] = GPU_SHAPES if args.gpu else CPU_SHAPES
    if args.shapes:
        unknown = set(args.shapes) - {s.key for s in shapes}
        if unknown:
            parser.error(f"unknown shape(s): {', '.join(sorted(unknown))}")
        shapes = tuple(s for s in shapes if s.key in args.shapes)
    if args.quants:
        from dataclasses import replace

        shapes = tuple(
            replace(s, quants=tuple(q for q in s.quants if q in args.quants)) for s in shapes
        )
    cells = list(plan(shapes, args.gpu, args.rounds, not args.no_speed, not args.no_memory))
    if args.list:
        for cell in cells:
            sys.stdout.write(cell.id + "\n")
        return 0
    if args.bench_check:
        return bench_check(Model(shapes[0], shapes[0].quants[0]), args.bench_check, args.gpu)
    if args.out is None:
        parser.error("--out DIR is needed")
    return run(args, shapes, cells)


def wait_for_quiet(max_load: float, max_wait: float) -> None:
    """Before a speed cell: wait (up to ``max_wait`` s) for the 1-minute load average to fall
    below ``max_load``; the load is recorded with the cell either way."""
    deadline = time.monotonic() + max_wait
    while os.getloadavg()[0] >= max_load and time.monotonic() < deadline:
        time.sleep(10)


def bench_check(model: Model, rounds: int, gpu: bool) -> int:
    """A speed cell and ``llm-scout bench`` on the same file, alternating: does the cell
    measure what bench measures?"""
    from benchmarks._common import median

    path = model_path(model)
    ngl = -1 if gpu else 0
    cell = Cell(model, "speed", SPEED_CTX, ngl, 0, SPEED_PP, SPEED_TG, reps=2)
    bench = [sys.executable, "-m", "desktop", "bench", str(path), "--pp", str(SPEED_PP)]
    bench += ["--tg", str(SPEED_TG), "-r", "2", "--ctx", str(SPEED_CTX), "--ngl", str(ngl)]
    ratios: list[float] = []
    with tempfile.TemporaryDirectory() as logs:
        for i in range(rounds):
            row = run_cell(cell, path, Path(logs), None, 1800)
            cell_tg = max(r["tg_tok_s"] for r in row["runs"])
            done = subprocess.run(
                [*bench, "--json"], capture_output=True, text=True, cwd=ROOT, check=True
            )
            bench_tg = float(json.loads(done.stdout)["tg_tokens_per_s"])
            ratios.append(cell_tg / bench_tg)
            sys.stdout.write(
                f"round {i + 1}: cell {cell_tg:.1f} tok/s, bench {bench_tg:.1f} tok/s, "
                f"ratio {ratios[-1]:.3f} (load {os.getloadavg()[0]:.1f})\n"
            )
    sys.stdout.write(f"median cell/bench {median(ratios):.3f} over {rounds} rounds\n")
    return 0


def run(args: argparse.Namespace, shapes: tuple[Shape, ...], cells: list[Cell]) -> int:
    from tests.fixtures.tiny_models import fetch_vocab_files

    out: Path = args.out
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    fetch_vocab_files()
    rows_path = out / "cells.jsonl"
    done: set[str] = set()
    if rows_path.is_file():
        for line in rows_path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("record") == "cell" and "error" not in row:
                done.add(row["id"])
    else:
        rows_path.write_text(json.dumps(machine_record(args.gpu)) + "\n", encoding="utf-8")
    poller = GpuPoller() if args.gpu else None
    targets_path = out / "targets.json"
    targets = json.loads(targets_path.read_text()) if targets_path.is_file() else {}
    paths = prepare(sorted({c.model for c in cells}, key=lambda m: m.key), args.jobs)
    for model in {c.model for c in cells}:
        targets[model.key] = target_record(model, paths[model.key])
    targets_path.write_text(json.dumps(targets, indent=1, sort_keys=True) + "\n")
    if args.census:
        census_path = out / "census.json"
        found = json.loads(census_path.read_text()) if census_path.is_file() else {}
        # One model per shape: the graph does not depend on the weights' types.
        firsts: dict[str, Model] = {}
        for cell in cells:
            firsts.setdefault(cell.model.shape.key, cell.model)
        for model in firsts.values():
            configs = (
                [(0, 0)] if not args.gpu else [(-1, 0), (model.shape.dims["n_layers"] // 2, 0)]
            )
            if args.gpu and model.shape.dims.get("n_expert"):
                configs.append((-1, model.shape.dims["n_layers"]))
            for ngl, cpu_moe in configs:
                key = f"{model.key}-ngl{ngl}-cpumoe{cpu_moe}"
                if key not in found or "error" in found[key]:
                    sys.stderr.write(f"census {key}\n")
                    found[key] = census(model, paths[model.key], ngl, cpu_moe)
                    census_path.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    for i, cell in enumerate(cells, 1):
        if cell.id in done:
            continue
        if cell.kind == "speed":
            wait_for_quiet(args.max_load, args.max_wait)
        sys.stderr.write(f"[{i}/{len(cells)}] {cell.id} (load {os.getloadavg()[0]:.1f})\n")
        row = run_cell(cell, paths[cell.model.key], logs, poller, args.timeout)
        if "error" in row:
            sys.stderr.write(f"  failed: {row['error']}\n")
        with rows_path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
    if args.clean:
        for path in set(paths.values()):
            if path.parent == cache_dir():
                path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
