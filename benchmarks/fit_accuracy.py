"""Fit accuracy: predicted vs measured peak RSS of real llama.cpp processes, and file sizes.

Each memory cell loads a model in a fresh process (``benchmarks/_measure_memory.py``) at one
context length, generates a few tokens and reports VmHWM; the estimator predicts the same run
(``estimate(..., prompt_tokens=prompt + generated)``) on this machine's probed profile.

- Calibration: the two demo models, and eight tiny-weight models whose tokenizers are real ones
  from llama.cpp's vocab files (gpt-2, falcon, deepseek-llm, deepseek-coder, command-r, aquila,
  llama-spm, baichuan): the tokenizer's memory is most of their footprint. ``--fit`` prints the
  least-squares constants these cells give (``memory.Calibration`` holds them).
- Held out: random-weight models of other architectures (written with
  ``tests/fixtures/tiny_models.py``, cached between runs), three with the demo tokenizers and
  five with real tokenizers not used for calibration (Llama 3, Qwen 2, Phi-3, Gemma 4; F16,
  Q8_0 and Q4_K_M weights, MHA and GQA), at every context from 512 to their maximum (32768).
- File sizes: each real-tokenizer model's F16 source quantized with llama.cpp's quantizer into
  six mixes, the demo files and the catalog sizes recorded from real files, against the file
  the shape model (``desktop.core.gguf.quant_layout``) predicts from the architecture alone.
- Also: KV cache types and a long prompt at one context, and generation speed.

The vocab files come from the llama-cpp-python sdist (``pip download``, once, into the cache).

    .venv/bin/python benchmarks/fit_accuracy.py [--quick] [--ctx 512 2048 ...] [--no-heldout]
        [--no-sizes] [--no-speed] [--fit] [--json FILE] [--dry-run]

``--dry-run`` prints only the estimate beside llama.cpp's own projection (a ``no_alloc`` load
per model and context, ``desktop.core.engine.dry_run``): weights, repacked copies, KV cache and
compute buffers, with the gap.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from benchmarks._fit_ground_truth import report as ground_truth_report  # noqa: E402
from desktop.core import demo  # noqa: E402
from desktop.core.fit import FitResult, FitTarget, estimate  # noqa: E402
from desktop.core.gguf import (  # noqa: E402
    guess_tokenizer,
    quant_layout,
    read_gguf,
    tokenizer_facts,
)
from desktop.core.hardware import HardwareProfile  # noqa: E402
from tests.fixtures.fit_targets import CPU_RUN  # noqa: E402

CONTEXTS = (512, 2048, 8192, 32768)
PROBE_CONTEXTS = (512, 8192)
MEASURE = ROOT / "benchmarks" / "_measure_memory.py"
MIB = 1024 * 1024
SIZE_MIXES = ("Q3_K_M", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0")


@dataclass(frozen=True)
class Built:
    """A random-weight model (sizes chosen so weights or the tokenizer dominate).

    ``ftype`` is what ``write_tiny_model`` writes; with ``quant`` the written (F16) model is
    quantized to that mix by llama.cpp's quantizer, and that file is measured."""

    key: str
    arch: str
    ftype: str
    kwargs: dict[str, Any]
    note: str
    quant: str | None = None
    sizes: bool = False  # quantize the F16 source into SIZE_MIXES for the file-size table
    contexts: tuple[int, ...] = CONTEXTS
    source: str = ""  # the written file's name (default: key); models may share one

    @property
    def source_name(self) -> str:
        return self.source or self.key


HELD_OUT = (
    Built(
        "qwen2-q8_0",
        "qwen2",
        "Q8_0",
        {
            "n_layers": 12,
            "n_embd": 896,
            "n_head": 14,
            "n_head_kv": 2,
            "n_ff": 4864,
            "tied_output": False,
            "tokenizer": "smollm2",
        },
        "q/k/v biases, GQA 7:1, untied output, SmolLM2 BPE vocab (49,152)",
    ),
    Built(
        "phi3-q4_0",
        "phi3",
        "Q4_0",
        {
            "n_layers": 16,
            "n_embd": 1024,
            "n_head": 16,
            "n_head_kv": 16,
            "n_ff": 4096,
            "n_vocab": 32064,
            "tokenizer": "smollm2",
        },
        "fused qkv, MHA, Q4_0 (repacked on AVX2), untied output, BPE vocab cut to 32,064",
    ),
    Built(
        "llama-moe-q8_0",
        "llama",
        "Q8_0",
        {
            "n_layers": 8,
            "n_embd": 768,
            "n_head": 12,
            "n_head_kv": 4,
            "n_ff": 1024,
            "n_expert": 8,
            "n_expert_used": 2,
            "tokenizer": "gemma3",
        },
        "Mixtral-style MoE, 8 experts, 2 used, tied output, SentencePiece vocab 262,144",
    ),
)

# Real tokenizers that calibration never saw (llama.cpp's vocab files).
_LLAMA3 = {
    "n_layers": 8,
    "n_embd": 1024,
    "n_head": 16,
    "n_head_kv": 4,
    "n_ff": 2816,
    "tied_output": False,
    "tokenizer": "llama-bpe",
}
REAL_TOKENIZERS = (
    Built(
        "llama3-vocab-q8_0",
        "llama",
        "F16",
        _LLAMA3,
        "Llama 3 tokenizer (128,256 tokens, 280,147 merges), GQA 4:1, untied, Q8_0",
        quant="Q8_0",
        sizes=True,
        source="llama3-vocab-f16",
    ),
    Built(
        "llama3-vocab-q4_k_m",
        "llama",
        "F16",
        _LLAMA3,
        "the same model as Q4_K_M (Q4_K repacked on AVX2, Q6_K attn_v/ffn_down/output)",
        quant="Q4_K_M",
        source="llama3-vocab-f16",
    ),
    Built(
        "qwen2-vocab-f16",
        "qwen2",
        "F16",
        {
            "n_layers": 8,
            "n_embd": 896,
            "n_head": 14,
            "n_head_kv": 2,
            "n_ff": 4864,
            "tied_output": True,
            "tokenizer": "qwen2",
        },
        "Qwen 2 tokenizer (151,936 tokens, 151,387 merges), Qwen2.5-0.5B shape (8 layers), F16",
        sizes=True,
    ),
    Built(
        "phi3-vocab-mha-f16",
        "phi3",
        "F16",
        {
            "n_layers": 8,
            "n_embd": 1024,
            "n_head": 16,
            "n_head_kv": 16,
            "n_ff": 2816,
            "tokenizer": "phi-3",
        },
        "Phi-3 SentencePiece tokenizer (32,064), MHA, fused qkv, F16",
        sizes=True,
    ),
    Built(
        "llama-spm-mha-f16",
        "llama",
        "F16",
        {
            "n_layers": 6,
            "n_embd": 768,
            "n_head": 12,
            "n_head_kv": 12,
            "n_ff": 2048,
            "tied_output": False,
            "tokenizer": "llama-spm",
        },
        "small MHA model in F16, Llama 2 SentencePiece tokenizer (32,000)",
        sizes=True,
    ),
    Built(
        "gemma3-gemma4-vocab-q8_0",
        "gemma3",
        "F16",
        {
            "n_layers": 18,
            "n_embd": 640,
            "n_head": 4,
            "n_head_kv": 1,
            "head_dim": 256,
            "n_ff": 2048,
            "sliding_window": 512,
            "tokenizer": "gemma-4",
        },
        "Gemma 3 270M shape with the Gemma 4 tokenizer (262,144 tokens, 514,906 merges), Q8_0",
        quant="Q8_0",
        sizes=True,
        source="gemma3-gemma4-vocab-f16",
    ),
)

# Calibration: tiny weights (2 layers of 64), so the tokenizer is most of the footprint.
PROBE_TOKENIZERS = (
    "gpt-2",
    "falcon",
    "deepseek-llm",
    "deepseek-coder",
    "command-r",
    "aquila",
    "llama-spm",
    "baichuan",
)
PROBES = tuple(
    Built(
        f"vocab-probe-{name}",
        "llama",
        "F16",
        {
            "n_layers": 2,
            "n_embd": 64,
            "n_head": 4,
            "n_head_kv": 2,
            "n_ff": 128,
            "tokenizer": name,
        },
        f"tiny weights, the {name} tokenizer",
        contexts=PROBE_CONTEXTS,
    )
    for name in PROBE_TOKENIZERS
)


def cache_dir() -> Path:
    base = os.environ.get("LLM_SCOUT_BENCH_CACHE")
    path = Path(base) if base else Path.home() / ".cache" / "llm-scout-bench"
    path.mkdir(parents=True, exist_ok=True)
    return path


def source_path(model: Built) -> Path:
    """The written model (F16 for the quantized ones), cached with a stamp of its recipe."""
    from tests.fixtures.tiny_models import write_tiny_model

    path = cache_dir() / f"{model.source_name}.gguf"
    stamp = path.with_suffix(".json")
    wanted = {"arch": model.arch, "ftype": model.ftype, "v": 2, **model.kwargs}
    if path.is_file() and stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        return path
    sys.stderr.write(f"writing random-weight model {path.name} ...\n")
    write_tiny_model(
        path,
        arch=model.arch,
        ftype=model.ftype,
        n_ctx_train=32768,
        # Not the architecture: llama.cpp special-cases some names ("phi...") in the vocab.
        name="llm-scout held-out model",
        **model.kwargs,
    )
    stamp.write_text(json.dumps(wanted))
    return path


def quantized_path(source: Path, quant: str) -> Path:
    from tests.fixtures.tiny_models import quantize_model

    dest = source.with_name(f"{source.name.removesuffix('.gguf')}.{quant}.gguf")
    if dest.is_file() and dest.stat().st_mtime >= source.stat().st_mtime:
        return dest
    sys.stderr.write(f"quantizing {source.name} to {quant} ...\n")
    return quantize_model(source, dest, quant)


def model_path(model: Built) -> Path:
    source = source_path(model)
    return quantized_path(source, model.quant) if model.quant else source


LONG_PROMPT = " ".join(["memory bandwidth limits token generation speed on every machine;"] * 150)


def measure(
    path: Path, n_ctx: int, cache_type: str = "f16", tokens: int = 16, prompt: str | None = None
) -> dict[str, Any]:
    cmd = [sys.executable, str(MEASURE), str(path), "--ctx", str(n_ctx)]
    cmd += ["--cache-type", cache_type, "--tokens", str(tokens)]
    if prompt is not None:
        cmd += ["--prompt", prompt]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"measurement failed for {path} at {n_ctx}: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def predict(
    target: FitTarget, profile: HardwareProfile, cell: dict[str, Any], cache_type: str = "f16"
) -> FitResult:
    used = int(cell["prompt_tokens"]) + int(cell["completion_tokens"])
    return estimate(
        target,
        profile,
        n_ctx=int(cell["n_ctx"]),
        n_gpu_layers=0,
        cache_type=cache_type,  # type: ignore[arg-type]
        prompt_tokens=used,
    )


def error_pct(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured * 100.0


Entry = tuple[str, str, Path, str, tuple[int, ...]]  # label, set, path, note, contexts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ctx", type=int, nargs="+", default=list(CONTEXTS))
    parser.add_argument("--quick", action="store_true", help="contexts 512 and 2048 only")
    parser.add_argument("--no-heldout", action="store_true")
    parser.add_argument("--no-sizes", action="store_true", help="skip the file-size table")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed table")
    parser.add_argument("--fit", action="store_true", help="print the fitted constants")
    parser.add_argument(
        "--fit-only",
        type=Path,
        metavar="CELLS",
        help="fit the constants on the calibration cells of a --json file and stop",
    )
    parser.add_argument("--json", type=Path, help="also write every cell to this file")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print only the table of the estimate vs llama.cpp's no_alloc projection",
    )
    parser.add_argument("--speed-runs", type=int, default=3, help="runs per model for speed")
    parser.add_argument(
        "--gpu-only",
        action="store_true",
        help="print only the ground-truth tables (GPU rows and the CPU run) and stop",
    )
    parser.add_argument(
        "--ground-truth",
        type=Path,
        default=CPU_RUN,
        metavar="DIR",
        help="a benchmarks/ground_truth.py run to check (default: the committed CPU run)",
    )
    parser.add_argument(
        "--fit-speed",
        action="store_true",
        help="also print the speed constants least squares gives on the ground truth's fit rows",
    )
    args = parser.parse_args(argv)
    contexts = (512, 2048) if args.quick else tuple(args.ctx)
    ground_truth_report(args.ground_truth, fit=args.fit_speed)
    if args.gpu_only:
        return 0
    if args.fit_only:
        from desktop.core.hardware import probe as probe_hardware

        saved = json.loads(args.fit_only.read_text())
        fit_constants([c for c in saved if c["group"] == "calibration"], probe_hardware())
        return 0

    from desktop.core.hardware import cpu_bandwidth_gbps, probe
    from tests.fixtures.tiny_models import fetch_vocab_files

    fetch_vocab_files()
    profile = probe()
    if profile.cpu.memory_bandwidth_gbps is None:
        bandwidth = cpu_bandwidth_gbps(measure_if_missing=True, cpu=profile.cpu)
        profile = replace(profile, cpu=replace(profile.cpu, memory_bandwidth_gbps=bandwidth))

    demos: list[Entry] = [
        ("SmolLM2-135M Q4_1", "calibration", demo.smollm2_path(), "llama, real weights", contexts),
        ("Gemma 3 270M Q4_K_M", "calibration", demo.gemma3_path(), "gemma3, SWA 5:1", contexts),
    ]
    models: list[Entry] = list(demos)
    probe_contexts = tuple(c for c in PROBE_CONTEXTS if c in contexts) or contexts[:1]
    for built in PROBES:
        models.append((built.key, "calibration", model_path(built), built.note, probe_contexts))
    if not args.no_heldout:
        for built in HELD_OUT + REAL_TOKENIZERS:
            label = f"random {built.key}"
            models.append((label, "held-out", model_path(built), built.note, contexts))
    if args.dry_run:
        dry_run_table(models, profile)
        return 0

    rows: list[list[object]] = []
    cells: list[dict[str, Any]] = []
    errors: dict[str, list[float]] = {"calibration": [], "held-out": []}
    for label, group, path, note, ctxs in models:
        info = read_gguf(path)
        target = FitTarget.from_gguf(info)
        tok = target.tokenizer
        sys.stderr.write(f"{label}: {note}\n")
        for n_ctx in ctxs:
            cell = measure(path, n_ctx)
            result = predict(target, profile, cell)
            err = error_pct(result.ram_bytes, cell["peak_rss_bytes"])
            errors[group].append(err)
            rows.append(
                [
                    label,
                    group,
                    n_ctx,
                    f"{tok.n_tokens if tok else info.arch.n_vocab:,}",
                    f"{tok.n_merges if tok else 0:,}",
                    f"{result.ram_bytes / MIB:.1f}",
                    f"{cell['peak_rss_bytes'] / MIB:.1f}",
                    f"{err:+.1f}%",
                    "yes" if -5 <= err <= 10 else "NO",
                ]
            )
            cells.append({"label": label, "group": group, **cell, "predicted": result.to_dict()})
    sys.stdout.write(
        f"\n### Peak RSS, predicted vs measured ({profile.cpu.brand}, "
        f"{profile.cpu.physical_cores} cores, llama-cpp-python CPU build)\n\n"
    )
    print_markdown_table(
        [
            "model",
            "set",
            "n_ctx",
            "tokens",
            "merges",
            "predicted MiB",
            "measured MiB",
            "error",
            "within -5..+10%",
        ],
        rows,
    )
    for group, values in errors.items():
        if values:
            worst = max(values, key=abs)
            sys.stdout.write(
                f"\n{group}: {len(values)} cells, median |error| "
                f"{median([abs(v) for v in values]):.2f}%, worst {worst:+.2f}%, "
                f"range {min(values):+.2f}%..{max(values):+.2f}%"
            )
    sys.stdout.write("\n")
    if args.fit:
        fit_constants([c for c in cells if c["group"] == "calibration"], profile)

    if not args.no_sizes:
        file_size_tables()

    cache_rows: list[list[object]] = []
    for label, _group, path, _note, _ctxs in demos:
        target = FitTarget.from_gguf(read_gguf(path))
        for cache_type in ("f16", "q8_0", "q4_0"):
            cell = measure(path, 8192, cache_type)
            result = predict(target, profile, cell, cache_type)
            err = error_pct(result.ram_bytes, cell["peak_rss_bytes"])
            cache_rows.append(
                [
                    label,
                    cache_type,
                    f"{result.ram.kv_cache / MIB:.1f}",
                    f"{result.ram_bytes / MIB:.1f}",
                    f"{cell['peak_rss_bytes'] / MIB:.1f}",
                    f"{err:+.1f}%",
                ]
            )
            cells.append({"label": label, "group": "cache", **cell, "predicted": result.to_dict()})
    long_rows: list[list[object]] = []
    for label, _group, path, _note, _ctxs in demos:
        target = FitTarget.from_gguf(read_gguf(path))
        cell = measure(path, 8192, tokens=8, prompt=LONG_PROMPT)
        result = predict(target, profile, cell)
        err = error_pct(result.ram_bytes, cell["peak_rss_bytes"])
        long_rows.append(
            [
                label,
                cell["prompt_tokens"],
                f"{result.ram.compute / MIB:.1f}",
                f"{result.ram_bytes / MIB:.1f}",
                f"{cell['peak_rss_bytes'] / MIB:.1f}",
                f"{err:+.1f}%",
            ]
        )
        cells.append({"label": label, "group": "long", **cell, "predicted": result.to_dict()})
    sys.stdout.write("\n### KV cache types at n_ctx 8192 (flash attention on for q8_0/q4_0)\n\n")
    print_markdown_table(
        ["model", "cache", "KV MiB", "predicted MiB", "measured MiB", "error"], cache_rows
    )

    sys.stdout.write(
        "\n### Long prompt at n_ctx 8192 (the compute buffer pages a run touches grow with it)\n\n"
    )
    print_markdown_table(
        ["model", "prompt tokens", "compute MiB", "predicted MiB", "measured MiB", "error"],
        long_rows,
    )

    if not args.no_speed:
        speed_models = [m for m in models if not m[0].startswith("vocab-probe-")]
        speed_rows = speed_table(speed_models, profile, runs=args.speed_runs)
        sys.stdout.write(
            f"\n### Generation speed, best of {args.speed_runs} runs of 48 tokens at n_ctx 512 "
            f"(CPU bandwidth {profile.cpu.memory_bandwidth_gbps} GB/s, copy benchmark; "
            "shared machine)\n\n"
        )
        print_markdown_table(
            [
                "model",
                "set",
                "measured tok/s",
                "expected tok/s",
                "roofline tok/s",
                "measured/roofline",
            ],
            speed_rows,
        )
    if args.json:
        args.json.write_text(json.dumps(cells, indent=1))
    return 0


def fit_constants(cells: list[dict[str, Any]], profile: HardwareProfile) -> None:
    """Least squares for the runtime constants, on the calibration cells.

    Run state (RSS after generation) minus the exact parts (mapped file, repacked copies, KV
    cache, compute pages touched) = const + per_token x tokens + per_merge x merges + per_cell x
    cells + per_graph_node x max(1024, 8 x tensors). The load's peak (VmHWM after load, where
    it exceeds the RSS after load) minus the file, the repacked copies and the tokenizer's
    tables (as just fitted) = load_const + load_per_string x (tokens + merges).
    """
    import numpy as np

    from desktop.core.fit import memory as fm
    from desktop.core.fit.place import make_setup

    run_x, run_y, load_rows = [], [], []
    for cell in cells:
        info = read_gguf(cell["model"])
        target = FitTarget.from_gguf(info)
        tok = target.tokenizer or guess_tokenizer(info.arch)
        used = int(cell["prompt_tokens"]) + int(cell["completion_tokens"])
        setup = make_setup(
            target, profile, "f16", flash_attn=False, swa_full=True, prompt_tokens=used
        )
        lay, arch, n_ctx = setup.layout, target.arch, int(cell["n_ctx"])
        kv = lay.kv.range_bytes(n_ctx, 0, arch.n_layers)
        cells_max = lay.kv.max_cells(n_ctx)
        reserved = fm.reserved_for_cells(arch, cells_max, flash_attn=False)
        touched = fm.touched_for_cells(
            arch, n_ctx, used, max_cells=cells_max, reserved=reserved, flash_attn=False
        )
        mapped = lay.file_bytes - lay.header_bytes - lay.edge_bytes + lay.repacked_bytes
        n_cells = fm.padded_ctx(n_ctx) * lay.n_caches
        nodes = fm.graph_nodes(len(info.tensors))
        run_x.append([1.0, tok.n_tokens, tok.n_merges, n_cells, nodes])
        run_y.append(cell["rss_after_gen_bytes"] - mapped - kv - touched)
        if cell["peak_after_load_bytes"] > cell["rss_after_load_bytes"] + 2 * MIB:
            load = cell["peak_after_load_bytes"] - lay.file_bytes - lay.repacked_bytes
            load_rows.append((tok.n_tokens, tok.n_merges, load))
    run, *_ = np.linalg.lstsq(np.array(run_x), np.array(run_y), rcond=None)
    runtime = fm.CALIBRATION.runtime_bytes
    sys.stdout.write(
        f"\nFitted on {len(run_y)} calibration cells: const_bytes {run[0] - runtime:,.0f}, "
        f"per_token_bytes {run[1]:.1f}, per_merge_bytes {run[2]:.1f}, "
        f"per_ctx_cell_bytes {run[3]:.1f}, per_graph_node_bytes {run[4]:.1f}"
    )
    if len(load_rows) >= 2:
        load_x = [[1.0, t + m] for t, m, _ in load_rows]
        load_y = [y - runtime - run[1] * t - run[2] * m for t, m, y in load_rows]
        fitted, *_ = np.linalg.lstsq(np.array(load_x), np.array(load_y), rcond=None)
        sys.stdout.write(
            f"; load peak ({len(load_rows)} cells): load_const_bytes {fitted[0]:,.0f}, "
            f"load_per_string_bytes {fitted[1]:.1f}"
        )
    sys.stdout.write("\n")


def file_size_tables() -> None:
    """Shape model vs real files: quantized random-weight models, the demo files, the catalog."""
    rows: list[list[object]] = []
    errs: list[float] = []
    for built in REAL_TOKENIZERS:
        if not built.sizes:
            continue
        source = source_path(built)
        for quant in SIZE_MIXES:
            rows.append(_size_row(built.source_name, quant, quantized_path(source, quant), errs))
    for label, path in (
        ("SmolLM2-135M demo", demo.smollm2_path()),
        ("Gemma 3 270M demo", demo.gemma3_path()),
    ):
        info = read_gguf(path)
        rows.append(_size_row(label, info.quant or "?", path, errs))
    sys.stdout.write(
        "\n### File sizes: shapes and llama.cpp's type choice vs the real file\n\n"
        "Tensor bytes from the architecture's shapes and the quant mix's types; the file adds "
        "an estimated header, with the tokenizer read from the file or, as for a catalog entry, "
        "guessed from the family.\n\n"
    )
    print_markdown_table(
        [
            "model",
            "quant",
            "real MiB",
            "tensors MiB (real / est)",
            "tensor error",
            "types differing",
            "file error (header's tokenizer)",
            "file error (family tokenizer)",
        ],
        rows,
    )
    if errs:
        worst = max(errs, key=abs)
        sys.stdout.write(f"\n{len(errs)} files, worst file error {worst:+.2f}%\n")
    catalog_size_table()


def _size_row(label: str, quant: str, path: Path, errs: list[float]) -> list[object]:
    info = read_gguf(path)
    tied = not any(t.name == "output.weight" for t in info.tensors)
    arch = info.arch
    facts = tokenizer_facts(info.metadata)
    exact = quant_layout(arch, quant, facts, tied=tied)
    family = quant_layout(arch, quant, guess_tokenizer(arch), tied=tied)
    real_types = {t.name: t.type_name for t in info.tensors}
    differing = sum(1 for t in exact.tensors if real_types.get(t.name) != t.type_name)
    differing += sum(1 for name in real_types if name not in {t.name for t in exact.tensors})
    size = info.file_size or 0
    err_exact = error_pct(exact.file_bytes, size)
    err_family = error_pct(family.file_bytes, size)
    errs.append(err_family)
    return [
        label,
        quant,
        f"{size / MIB:.1f}",
        f"{info.tensor_bytes / MIB:.2f} / {exact.tensor_bytes / MIB:.2f}",
        f"{error_pct(exact.tensor_bytes, info.tensor_bytes):+.2f}%",
        differing,
        f"{err_exact:+.2f}%",
        f"{err_family:+.2f}%",
    ]


def catalog_size_table() -> None:
    """Catalog variants whose size is known from a real file: verified against the Hub, or the
    local copy of a demo package; and byte-exact (not rounded) sizes still marked unverified."""
    from desktop.core.catalog import load_catalog

    rows: list[list[object]] = []
    for model, variant in load_catalog().variants():
        if variant.format != "gguf" or variant.size_bytes is None:
            continue
        if variant.verified:
            source, real = "verified on the Hub", variant.size_bytes
        elif variant.local_demo is not None:
            source, real = "demo package copy", variant.local_demo.size_bytes
        elif variant.size_bytes % 1000:
            source, real = "byte count, unverified", variant.size_bytes
        else:
            continue
        estimated = quant_layout(model.arch, variant.quant).file_bytes
        rows.append(
            [
                variant.id,
                source,
                f"{real:,}",
                f"{estimated:,}",
                f"{error_pct(estimated, real):+.2f}%",
            ]
        )
    sys.stdout.write("\n### Catalog entries whose real size is recorded\n\n")
    print_markdown_table(["variant", "size from", "real bytes", "estimated bytes", "error"], rows)


def speed_table(models: list[Entry], profile: HardwareProfile, *, runs: int) -> list[list[object]]:
    """Best generation tokens/s of a few runs per model (robust to other load on the machine)."""
    rows: list[list[object]] = []
    ratios: dict[str, list[float]] = {}
    for label, group, path, _note, _ctxs in models:
        target = FitTarget.from_gguf(read_gguf(path))
        best: dict[str, Any] | None = None
        for _ in range(max(1, runs)):
            cell = measure(path, 512, tokens=48)
            if best is None or (cell.get("tokens_per_s") or 0) > (best.get("tokens_per_s") or 0):
                best = cell
        assert best is not None
        result = predict(target, profile, best)
        measured = best.get("tokens_per_s")
        if measured and result.roofline_tokens_per_s:
            ratios.setdefault(group, []).append(measured / result.roofline_tokens_per_s)
        rows.append(
            [
                label,
                group,
                _num(measured),
                _num(result.tokens_per_s),
                _num(result.roofline_tokens_per_s),
                _ratio(measured, result.roofline_tokens_per_s),
            ]
        )
    for group, values in ratios.items():
        rows.append([f"median {group}", group, "", "", "", f"{median(values):.2f}"])
    return rows


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _ratio(measured: float | None, roof: float | None) -> str:
    if not measured or not roof:
        return "-"
    return f"{measured / roof:.2f}"


def dry_run_table(models: list[Entry], profile: HardwareProfile) -> None:
    """Every model and context: the estimate's terms beside llama.cpp's no_alloc projection."""
    from desktop.core.engine import cross_check

    rows: list[list[object]] = []
    worst: dict[str, float] = {}
    for label, _group, path, _note, ctxs in models:
        target = FitTarget.from_gguf(read_gguf(path))
        sys.stderr.write(f"dry run: {label}\n")
        for n_ctx in ctxs:
            result = estimate(target, profile, n_ctx=n_ctx, n_gpu_layers=0)
            terms = cross_check(path, target, profile, result).terms
            row: list[object] = [label, n_ctx]
            for term in terms:
                pct = term.gap_pct
                if pct is not None:
                    worst[term.term] = max(worst.get(term.term, 0.0), abs(pct))
                row += [
                    f"{term.ours / MIB:.2f}",
                    "-" if term.llama_cpp is None else f"{term.llama_cpp / MIB:.2f}",
                    "-" if pct is None else f"{pct:+.2f}%",
                ]
            rows.append(row)
    sys.stdout.write(
        "\n### Estimate vs llama.cpp's own projection (no_alloc dry run, CPU, MiB; gap = "
        "(estimate - llama.cpp) / llama.cpp)\n\n"
    )
    print_markdown_table(
        [
            "model",
            "n_ctx",
            "weights",
            "llama.cpp",
            "gap",
            "repacked",
            "llama.cpp",
            "gap",
            "KV cache",
            "llama.cpp",
            "gap",
            "compute",
            "llama.cpp",
            "gap",
        ],
        rows,
    )
    summary = ", ".join(f"{term} {value:.2f}%" for term, value in worst.items())
    sys.stdout.write(f"\nLargest absolute gap per term: {summary or '-'}.\n")


if __name__ == "__main__":
    sys.exit(main())
