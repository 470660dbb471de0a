"""One ground-truth measurement in a fresh process (``benchmarks/ground_truth.py`` starts it).

    python benchmarks/_ground_truth_cell.py '{"path": ..., "kind": "memory", ...}'
    python benchmarks/_ground_truth_cell.py --build-info

Loads the model as the engine's worker does and runs what ``llm-scout bench`` runs (see
``benchmarks/ground_truth.py``); prints one JSON object. Imports nothing of the app before its
measurements, so the memory measured is llama-cpp-python's and the interpreter's only.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def build_info() -> dict[str, Any]:
    import gguf
    import llama_cpp
    import llama_cpp.llama_cpp as lc
    import numpy

    lib = Path(llama_cpp.__file__).parent / "lib"
    libs = {}
    for path in sorted(lib.glob("*.so")) + sorted(lib.glob("*.dll")) + sorted(lib.glob("*.dylib")):
        libs[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return {
        "llama_cpp_python": llama_cpp.__version__,
        "system_info": lc.llama_print_system_info().decode(errors="replace").strip(),
        "gpu_offload": bool(lc.llama_supports_gpu_offload()),
        "mmap": bool(lc.llama_supports_mmap()),
        "libraries_sha256": libs,
        "python": sys.version.split()[0],
        "gguf": getattr(gguf, "__version__", None) or _dist_version("gguf"),
        "numpy": numpy.__version__,
    }


def _dist_version(name: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _status() -> dict[str, int]:
    values: dict[str, int] = {}
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            key, _, rest = line.partition(":")
            if key.startswith(("Vm", "Rss")):
                values[key] = int(rest.split()[0]) * 1024
    return values


def _memory(prefix: str) -> dict[str, int]:
    s = _status()
    return {
        f"{prefix}_rss": s["VmRSS"],
        f"{prefix}_hwm": s["VmHWM"],
        f"{prefix}_anon": s.get("RssAnon", 0),
        f"{prefix}_file": s.get("RssFile", 0),
    }


def bench_prompt(n_tokens: int, n_vocab: int) -> list[int]:
    """``desktop.core.engine.bench.bench_prompt`` (copied: importing the engine would add its
    modules to the memory measured)."""
    return [(7919 * i + 1009) % n_vocab for i in range(1, n_tokens + 1)]


def _physical_cores() -> int:
    import psutil

    return int(psutil.cpu_count(logical=False) or os.cpu_count() or 1)


def _install_overrides(lc: Any, n_cpu_moe: int) -> list[Any]:
    """Keep the expert tensors of the first ``n_cpu_moe`` layers in host memory, as llama.cpp's
    ``--n-cpu-moe`` does: llama-cpp-python 0.3.36 does not expose ``tensor_buft_overrides``, so
    the default model parameters it starts from get the list here. Returns what must stay
    alive while the model loads."""
    import ctypes

    if n_cpu_moe <= 0:
        return []
    lib_dir = Path(lc.__file__).parent / "lib"
    names = ("libggml.so", "libggml.dylib", "ggml.dll")
    ggml = next(ctypes.CDLL(str(lib_dir / n)) for n in names if (lib_dir / n).exists())
    ggml.ggml_backend_dev_by_type.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_by_type.argtypes = [ctypes.c_int]
    ggml.ggml_backend_dev_buffer_type.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_buffer_type.argtypes = [ctypes.c_void_p]
    cpu = ggml.ggml_backend_dev_buffer_type(ggml.ggml_backend_dev_by_type(0))  # DEVICE_TYPE_CPU

    class Override(ctypes.Structure):
        _fields_ = [("pattern", ctypes.c_char_p), ("buft", ctypes.c_void_p)]

    patterns = [
        f"blk\\.{i}\\.ffn_(up|down|gate|gate_up)_(ch|)exps".encode() for i in range(n_cpu_moe)
    ]
    table = (Override * (len(patterns) + 1))()
    for i, pattern in enumerate(patterns):
        table[i].pattern = pattern
        table[i].buft = cpu
    original = lc.llama_model_default_params

    def with_overrides() -> Any:
        params = original()
        params.tensor_buft_overrides = ctypes.addressof(table)
        return params

    lc.llama_model_default_params = with_overrides
    return [table, patterns, ggml]


def cell_main(spec: dict[str, Any]) -> int:
    """Run one cell in this (fresh) process; one JSON object on stdout."""
    out: dict[str, Any] = {}
    out.update(_memory("start"))
    import llama_cpp
    import llama_cpp.llama_cpp as lc

    out.update(_memory("import"))
    keep = _install_overrides(lc, int(spec.get("n_cpu_moe", 0)))
    threads = _physical_cores()
    ngl = int(spec["ngl"])
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(
        model_path=spec["path"],
        n_ctx=int(spec["n_ctx"]),
        n_batch=512,
        n_threads=threads,
        n_threads_batch=threads,
        n_gpu_layers=ngl,
        flash_attn=False,
        verbose=True,
    )
    out["load_s"] = time.perf_counter() - t0
    del keep
    out.update(_memory("load"))
    marker = spec.get("marker")
    n_vocab = int(llm.n_vocab())
    prompt = bench_prompt(int(spec["pp"]), n_vocab)
    depth = int(spec.get("depth", 0))
    runs = []
    for rep in range(int(spec.get("reps", 1)) + (1 if spec["kind"] == "speed" else 0)):
        if marker:
            sys.stderr.write(f"\n@@ PP {rep}\n")
            sys.stderr.flush()
        pp_rate = _prompt_run(llm, lc, prompt)
        if marker:
            sys.stderr.write(f"\n@@ TG {rep}\n")
            sys.stderr.flush()
        tg_rate, cpu_share = _generation_run(llm, prompt[: max(1, depth)], int(spec["tg"]))
        runs.append(
            {"pp_tok_s": pp_rate, "tg_tok_s": tg_rate, "tg_cpu_share": cpu_share, **_memory("run")}
        )
    if spec["kind"] == "speed":
        runs = runs[1:]  # the first is a warm-up, as in llm-scout bench
    out["runs"] = runs
    out["context_used"] = max(int(spec["pp"]), max(1, depth) + int(spec["tg"]))
    out.update(_memory("end"))
    out["n_threads"] = threads
    llm.close()
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


def _sampling() -> dict[str, Any]:
    # The worker's call for SamplingParams(temperature=0) (greedy; the other values are the
    # protocol's defaults and do not change a greedy pick).
    return {"temp": 0.0, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.0}


def _prompt_run(llm: Any, lc: Any, prompt: list[int]) -> float | None:
    llm.reset()
    lc.llama_perf_context_reset(llm.ctx)
    generator = llm.generate(prompt, **_sampling())
    next(generator)
    generator.close()
    perf = lc.llama_perf_context(llm.ctx)
    seconds = float(perf.t_p_eval_ms) / 1000.0
    return len(prompt) / seconds if seconds > 0 else None


def _generation_run(llm: Any, prompt: list[int], n: int) -> tuple[float | None, float | None]:
    """(tokens/s, CPU share): the share is the process's CPU time over the wall time between
    the first and the last token, per thread it runs (1.0: every llama.cpp thread had a core
    all along; other work on the machine lowers it)."""
    llm.reset()
    stamps: list[float] = []
    cpu: list[float] = []
    generator = llm.generate(prompt, **_sampling())
    try:
        for _token in generator:
            stamps.append(time.perf_counter())
            cpu.append(time.process_time())
            if len(stamps) >= n:
                break
    finally:
        generator.close()
    if len(stamps) < 2:
        return None, None
    wall = stamps[-1] - stamps[0]
    threads = max(1, int(llm.context_params.n_threads))
    return (len(stamps) - 1) / wall, (cpu[-1] - cpu[0]) / wall / threads


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--build-info":
        sys.stdout.write(json.dumps(build_info()) + "\n")
        return 0
    return cell_main(json.loads(argv[0]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
