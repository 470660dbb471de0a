"""Fit accuracy: predicted vs measured peak RSS of real llama.cpp processes.

Each cell loads a model in a fresh process (``benchmarks/_measure_memory.py``) at one context
length, generates a few tokens and reports VmHWM; the estimator predicts the same run
(``estimate(..., prompt_tokens=prompt + generated)``) on this machine's probed profile. The
demo models are the calibration set; random-weight GGUFs of other architectures (written with
``tests/fixtures/tiny_models.py``, cached between runs) are held out. Also prints the KV cache
types at one context and predicted vs measured generation speed.

    .venv/bin/python benchmarks/fit_accuracy.py [--quick] [--ctx 512 2048 ...] [--no-heldout]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import median, print_markdown_table  # noqa: E402
from desktop.core import demo  # noqa: E402
from desktop.core.fit import FitResult, FitTarget, estimate  # noqa: E402
from desktop.core.gguf import read_gguf  # noqa: E402
from desktop.core.hardware import HardwareProfile  # noqa: E402

CONTEXTS = (512, 2048, 8192, 32768)
MEASURE = ROOT / "benchmarks" / "_measure_memory.py"
MIB = 1024 * 1024


@dataclass(frozen=True)
class HeldOut:
    """A random-weight model of another architecture (sizes chosen so weights dominate)."""

    key: str
    arch: str
    ftype: str
    kwargs: dict[str, Any]
    note: str


HELD_OUT = (
    HeldOut(
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
    HeldOut(
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
    HeldOut(
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


def cache_dir() -> Path:
    base = os.environ.get("LLM_SCOUT_BENCH_CACHE")
    path = Path(base) if base else Path.home() / ".cache" / "llm-scout-bench"
    path.mkdir(parents=True, exist_ok=True)
    return path


def held_out_path(model: HeldOut) -> Path:
    from tests.fixtures.tiny_models import write_tiny_model

    path = cache_dir() / f"{model.key}.gguf"
    stamp = cache_dir() / f"{model.key}.json"
    wanted = {"arch": model.arch, "ftype": model.ftype, "v": 2, **model.kwargs}
    if path.is_file() and stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        return path
    sys.stderr.write(f"writing random-weight model {model.key} ...\n")
    written = write_tiny_model(
        path,
        arch=model.arch,
        ftype=model.ftype,
        n_ctx_train=32768,
        # Not the architecture: llama.cpp special-cases some names ("phi...") in the vocab.
        name="llm-scout held-out model",
        **model.kwargs,
    )
    stamp.write_text(json.dumps(wanted))
    return written


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ctx", type=int, nargs="+", default=list(CONTEXTS))
    parser.add_argument("--quick", action="store_true", help="contexts 512 and 2048 only")
    parser.add_argument("--no-heldout", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every cell to this file")
    parser.add_argument("--speed-runs", type=int, default=3, help="runs per model for speed")
    args = parser.parse_args(argv)
    contexts = (512, 2048) if args.quick else tuple(args.ctx)

    from desktop.core.hardware import cpu_bandwidth_gbps, probe

    profile = probe()
    if profile.cpu.memory_bandwidth_gbps is None:
        from dataclasses import replace

        bandwidth = cpu_bandwidth_gbps(measure_if_missing=True, cpu=profile.cpu)
        profile = replace(profile, cpu=replace(profile.cpu, memory_bandwidth_gbps=bandwidth))

    models: list[tuple[str, str, Path, str]] = [
        ("SmolLM2-135M Q4_1", "calibration", demo.smollm2_path(), "llama, real weights"),
        ("Gemma 3 270M Q4_K_M", "calibration", demo.gemma3_path(), "gemma3, SWA 5:1"),
    ]
    if not args.no_heldout:
        for held in HELD_OUT:
            models.append((f"random {held.key}", "held-out", held_out_path(held), held.note))

    rows: list[list[object]] = []
    cells: list[dict[str, Any]] = []
    errors: dict[str, list[float]] = {"calibration": [], "held-out": []}
    for label, group, path, note in models:
        target = FitTarget.from_gguf(read_gguf(path))
        sys.stderr.write(f"{label}: {note}\n")
        for n_ctx in contexts:
            cell = measure(path, n_ctx)
            result = predict(target, profile, cell)
            err = error_pct(result.ram_bytes, cell["peak_rss_bytes"])
            errors[group].append(err)
            rows.append(
                [
                    label,
                    group,
                    n_ctx,
                    f"{result.ram_bytes / MIB:.1f}",
                    f"{cell['peak_rss_bytes'] / MIB:.1f}",
                    f"{err:+.1f}%",
                    "yes" if abs(err) <= 10 else "NO",
                ]
            )
            cells.append({"label": label, "group": group, **cell, "predicted": result.to_dict()})
    sys.stdout.write(
        f"\n### Peak RSS, predicted vs measured ({profile.cpu.brand}, "
        f"{profile.cpu.physical_cores} cores, llama-cpp-python CPU build)\n\n"
    )
    print_markdown_table(
        ["model", "set", "n_ctx", "predicted MiB", "measured MiB", "error", "within 10%"], rows
    )
    for group, values in errors.items():
        if values:
            worst = max(values, key=abs)
            sys.stdout.write(
                f"\n{group}: {len(values)} cells, median |error| "
                f"{median([abs(v) for v in values]):.2f}%, worst {worst:+.2f}%"
            )
    sys.stdout.write("\n")

    cache_rows: list[list[object]] = []
    for label, _group, path, _note in models[:2]:
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
    for label, _group, path, _note in models[:2]:
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

    speed_rows = speed_table(models, profile, runs=args.speed_runs)
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


def speed_table(
    models: list[tuple[str, str, Path, str]], profile: HardwareProfile, *, runs: int
) -> list[list[object]]:
    """Best generation tokens/s of a few runs per model (robust to other load on the machine)."""
    rows: list[list[object]] = []
    ratios: dict[str, list[float]] = {}
    for label, group, path, _note in models:
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


if __name__ == "__main__":
    sys.exit(main())
