"""The fit against measured ground truth: tables for ``benchmarks/fit_accuracy.py``.

- GPU: the ten loads measured on an H200 (``tests/fixtures/ground_truth/gpu-h200-*.jsonl``),
  predicted from the catalog variant of each shape (the same numbers as the file's header).
  The GPU speed constants are fitted on the nine full-offload rows and the staging constant on
  the partial one: these rows show the fit, not a held-out check. No GPU row of a held-out
  shape is in the repository (``benchmarks/ground_truth.py --gpu`` measures them).
- CPU: a run of ``benchmarks/ground_truth.py`` (default ``tests/fixtures/ground_truth/
  cpu-2core-dev``): peak RSS of every memory cell (the memory constants were fitted on other
  models, so every cell is held out for memory) and generation speed of every speed cell, the
  shapes marked ``fit`` (what the CPU speed constants are fitted on) apart from the rest.
- ``fit_speed``: the least-squares constants those rows give (``--fit-speed``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from benchmarks._common import median, print_markdown_table
from desktop.core.fit import FitResult, FitTarget, estimate
from desktop.core.fit import memory as fm
from desktop.core.fit.place import make_setup
from desktop.core.fit.speed import (
    CPU_DECODE_RATE_PER_CORE,
    CPU_EXPERT_RATE_PER_CORE,
    block_nodes,
    decode_kernel,
    expert_kernel,
    outside_nodes,
    quant_kernel,
)
from desktop.core.hardware import HardwareProfile
from desktop.core.kv_cache import flash_attn_for
from tests.fixtures.fit_targets import GroundTruthRun, peak_rss, pp_rate, quiet, tg_rate

ROOT = Path(__file__).resolve().parents[1]
GROUND_TRUTH = ROOT / "tests" / "fixtures" / "ground_truth"
GROUND_SHAPES = {
    "qwen25-1p5b-shape.Q8_0.gguf": "qwen2.5-1.5b-instruct:Q8_0",
    "phi35-mini-shape.Q8_0.gguf": "phi-3.5-mini-instruct:Q8_0",
    "llama31-8b-shape.Q8_0.gguf": "llama-3.1-8b-instruct:Q8_0",
}
PYTHON_LOOP_S = 0.00075  # the H200 rows' Python loop, per token, beyond `llm-scout bench`
MIB = 1024 * 1024


def error_pct(predicted: float, measured: float) -> float:
    return (predicted - measured) / measured * 100.0


def h200_rows() -> list[tuple[dict[str, Any], FitTarget, int]]:
    """(row, target, n_layers) of the H200 loads, targets from the catalog variants."""
    from desktop.core.catalog import load_catalog

    catalog = load_catalog()
    out = []
    for line in (GROUND_TRUTH / "gpu-h200-llama-cpp-python.jsonl").read_text().splitlines():
        row = json.loads(line)
        model, variant = catalog.variant(GROUND_SHAPES[row["model"]])
        out.append((row, FitTarget.from_variant(model, variant), model.arch.n_layers))
    return out


def bench_equivalent(row: dict[str, Any]) -> float:
    return float(1 / (1 / row["tg_tok_s"] - PYTHON_LOOP_S))


def gpu_table() -> None:
    profile = HardwareProfile.load(GROUND_TRUTH / "h200-profile.json")
    rows: list[list[object]] = []
    vram_errs: list[float] = []
    speed_errs: list[float] = []
    for row, target, n_layers in h200_rows():
        result = estimate(target, profile, n_ctx=row["n_ctx"], n_gpu_layers=row["ngl"])
        bench = bench_equivalent(row)
        vram_err = error_pct(result.vram_bytes, row["vram_peak"])
        speed_err = error_pct(result.tokens_per_s or 0.0, bench)
        vram_errs.append(vram_err)
        speed_errs.append(speed_err)
        layers = "all" if row["ngl"] == -1 else f"{row['ngl']} of {n_layers}"
        rows.append(
            [
                target.label, row["n_ctx"], layers,
                f"{result.vram_bytes / 1e9:.3f}", f"{row['vram_peak'] / 1e9:.3f}",
                f"{vram_err:+.1f}%", f"{result.tokens_per_s or 0:.0f}", f"{bench:.0f}",
                f"{speed_err:+.1f}%",
            ]
        )  # fmt: skip
    sys.stdout.write(
        "### GPU: predicted vs measured on an H200 (CUDA; tests/fixtures/ground_truth; the GPU "
        "constants are fitted on these rows, no held-out GPU row is in the repository)\n\n"
    )
    print_markdown_table(
        [
            "variant (shape)", "n_ctx", "GPU layers", "predicted VRAM GB", "measured VRAM GB",
            "error", "predicted tok/s", "bench tok/s", "error",
        ],
        rows,
    )  # fmt: skip
    sys.stdout.write(
        f"\nVRAM error {min(vram_errs):+.1f}%..{max(vram_errs):+.1f}% (goal -5..+10%), "
        f"speed error {min(speed_errs):+.1f}%..{max(speed_errs):+.1f}% (goal +-25%)\n\n"
    )


def _run_header(run: GroundTruthRun) -> str:
    cpu = run.machine["profile"]["cpu"]
    build = run.machine["build"]
    return (
        f"{cpu['brand']}, {cpu['physical_cores']} cores, bandwidth "
        f"{cpu['memory_bandwidth_gbps']} GB/s (the profile's copy benchmark), "
        f"llama-cpp-python {build['llama_cpp_python']}, {run.machine['time']}"
    )


def memory_table(run: GroundTruthRun) -> list[float]:
    """Peak RSS against the predicted RAM (CPU runs), or the device memory NVML saw against
    the predicted VRAM (GPU runs)."""
    gpu = run.machine.get("mode") == "gpu"
    rows: list[list[object]] = []
    errors: list[float] = []
    for cell in run.memory_cells():
        result = run.predict(cell)
        predicted = result.vram_bytes if gpu else result.ram_bytes
        measured = int(cell["vram_peak"]) if gpu else peak_rss(cell)
        err = error_pct(predicted, measured)
        errors.append(err)
        where = f"ngl {cell['ngl']}" + (
            f", cpu-moe {cell['n_cpu_moe']}" if cell["n_cpu_moe"] else ""
        )
        rows.append(
            [
                cell["model"], where, cell["n_ctx"], f"{predicted / MIB:.1f}",
                f"{measured / MIB:.1f}", f"{err:+.1f}%", "yes" if -5 <= err <= 10 else "NO",
            ]
        )  # fmt: skip
    what = "VRAM (NVML, device in use minus before)" if gpu else "peak RSS"
    sys.stdout.write(
        f"\n### {what}, ground truth ({_run_header(run)}; every cell held out: the memory "
        "constants were fitted on other models)\n\n"
    )
    print_markdown_table(
        ["model", "layers", "n_ctx", "predicted MiB", "measured MiB", "error", "within -5..+10%"],
        rows,
    )
    if errors:
        sys.stdout.write(
            f"\n{len(errors)} cells, error {min(errors):+.1f}%..{max(errors):+.1f}%, median "
            f"|error| {median([abs(e) for e in errors]):.1f}%\n"
        )
    return errors


def speed_rows(
    run: GroundTruthRun, quiet_only: bool = True
) -> list[tuple[dict[str, Any], FitResult, str]]:
    """(cell, prediction, role) per speed configuration; a cell measured on a loaded machine
    (``quiet_only`` False) has the role ``loaded``: shown, never fitted on nor checked."""
    return [
        (cell, run.predict(cell), run.role(cell["model"]) if quiet(cell) else "loaded")
        for cell in run.speed_cells(quiet_only)
    ]


def speed_table(run: GroundTruthRun) -> dict[str, list[float]]:
    rows: list[list[object]] = []
    errors: dict[str, list[float]] = {}
    for cell, result, role in speed_rows(run, quiet_only=False):
        measured = tg_rate(cell)
        err = error_pct(result.tokens_per_s or 0.0, measured)
        errors.setdefault(role, []).append(err)
        shares = [
            r.get("tg_cpu_share") for c in run.cells if c["id"] == cell["id"] for r in c["runs"]
        ]
        share = min((float(v) for v in shares if v is not None), default=None)
        pp_pred = result.prompt_tokens_per_s
        pp_err = (
            "-"
            if pp_pred is None or cell["depth"]
            else f"{error_pct(pp_pred, pp_rate(cell)):+.1f}%"
        )
        rows.append(
            [
                cell["model"], role, cell["depth"] or "-", f"{measured:.1f}",
                f"{result.tokens_per_s or 0:.1f}", f"{err:+.1f}%",
                f"{result.roofline_tokens_per_s or 0:.1f}", f"{pp_rate(cell):.0f}",
                "-" if pp_pred is None else f"{pp_pred:.0f}", pp_err,
                "-" if share is None else f"{share:.2f}",
            ]
        )  # fmt: skip
    sys.stdout.write(
        f"\n### Generation speed, ground truth ({_run_header(run)}; best of the interleaved "
        "rounds, tg128 after a one-token prompt or after `depth` tokens; CPU share: the lowest "
        "over the cell's rounds of its process's CPU time per thread over the generation's wall "
        "time; set `loaded`: other work took the CPUs (share below 0.8, or without a share a "
        "1-minute load of 3 or more), shown but neither fitted on nor checked)\n\n"
    )
    print_markdown_table(
        [
            "model", "set", "depth", "measured tok/s", "predicted tok/s", "error",
            "roofline tok/s", "pp512 tok/s", "predicted pp512", "error", "CPU share",
        ],
        rows,
    )  # fmt: skip
    for role, values in sorted(errors.items()):
        sys.stdout.write(
            f"\n{role}: {len(values)} cells, error {min(values):+.1f}%..{max(values):+.1f}%, "
            f"median |error| {median([abs(v) for v in values]):.1f}%"
        )
    sys.stdout.write("\n")
    return errors


def _design(result: FitResult, target: FitTarget) -> list[float]:
    """(seconds at full bandwidth, graph nodes) of one GPU estimate."""
    roof = result.roofline_tokens_per_s or 0.0
    nodes = target.arch.n_layers * block_nodes(target.arch) + outside_nodes(target.arch)
    return [1.0 / roof, float(nodes)]


CPU_COLUMNS = (
    *(f"CPU_DECODE_RATE_PER_CORE[{k!r}]" for k in CPU_DECODE_RATE_PER_CORE),
    *(f"CPU_EXPERT_RATE_PER_CORE[{k!r}]" for k in CPU_EXPERT_RATE_PER_CORE),
    "CPU_KV_RATE_PER_CORE",
    "CPU_NODE_S",
)


def cpu_design(run: GroundTruthRun, cell: dict[str, Any]) -> list[float] | None:
    """One CPU speed cell as the speed model reads it (desktop/core/fit/decode.py): the bytes
    per core of each kind of read (the weights outside the experts per weight type's kernel,
    the active experts as F16 or quantized, the KV cache in use) and the graph's nodes. Time per
    token = this row . (1 / rates..., CPU_NODE_S) when compute bounds it, i.e. when what the CPU
    holds fits in its last-level cache (every ground-truth model here does); None otherwise."""
    target = run.target(cell["model"])
    profile = run.profile
    cores = profile.cpu.physical_cores
    used = min(max(1, int(cell["depth"])) + int(cell["tg"]), fm.padded_ctx(int(cell["n_ctx"])))
    setup = make_setup(
        target, profile, "f16", flash_attn=flash_attn_for(None, "f16"), swa_full=True,
        prompt_tokens=used,
    )  # fmt: skip
    lay, n = setup.layout, target.arch.n_layers
    weights = lay.layer_prefix[n] * lay.dense_share + lay.out_read_bytes
    experts = max(0, n - lay.first_moe_layer) * lay.expert_layer_bytes * lay.active_experts
    experts = min(experts, weights)
    kv = lay.used_kv.range_bytes(used, 0, n)
    held = lay.layer_prefix[n] + lay.out_read_bytes + kv
    if profile.cpu.l3_bytes is None or held > profile.cpu.l3_bytes:
        return None
    kernels = list(CPU_DECODE_RATE_PER_CORE)
    row = [0.0] * (len(kernels) + 4)
    types = [(t, b) for t, b, _m in target.weight_types if b > 0]
    total = sum(b for _t, b in types)
    for type_name, n_bytes in types:
        row[kernels.index(decode_kernel(type_name))] += (weights - experts) * n_bytes / total
    if not types:
        row[kernels.index(quant_kernel(target.quant))] += weights - experts
    expert_kinds = list(CPU_EXPERT_RATE_PER_CORE)
    row[len(kernels) + expert_kinds.index(expert_kernel(target.weight_types, target.quant))] = (
        experts
    )
    row[len(kernels) + 2] = kv
    row = [v / cores for v in row]
    row[-1] = float(n * lay.block_nodes + lay.outside_nodes)
    return row


def fit_speed(run: GroundTruthRun, with_token_cost: bool = False) -> None:
    """Least squares for the CPU constants on the ``fit`` speed cells (relative errors: each
    row weighted by its measured speed), CPU_MEMORY_EFFICIENCY from the H200 row whose CPU half
    holds 16 layers of an 8B model (far larger than any cache), and the GPU constants on the
    nine full-offload H200 rows (the model in desktop/core/fit/speed.py)."""
    import numpy as np

    x, y = [], []
    for cell, _result, role in speed_rows(run):
        if role != "fit" or cell["ngl"] != 0:
            continue
        row = cpu_design(run, cell)
        if row is None:
            sys.stdout.write(f"{cell['id']}: larger than the cache, not fitted on\n")
            continue
        x.append(row + ([1.0] if with_token_cost else []))
        y.append(1.0 / tg_rate(cell))
    design, seconds = np.array(x), np.array(y)
    weight = 1.0 / seconds
    coef, *_ = np.linalg.lstsq(design * weight[:, None], seconds * weight, rcond=None)
    names = [*CPU_COLUMNS, *(["CPU_TOKEN_S"] if with_token_cost else [])]
    values = [
        f"{name} {1 / c if 'RATE' in name else c:.4g}" for name, c in zip(names, coef, strict=True)
    ]
    sys.stdout.write(f"\nCPU, {len(y)} fit cells: " + ", ".join(values) + "\n")
    profile = HardwareProfile.load(GROUND_TRUTH / "h200-profile.json")
    _fit_memory_efficiency(profile)
    _fit_prompt(run)
    gx, gy = [], []
    for h200, target, _n in h200_rows():
        if h200["ngl"] != -1:
            continue
        result = estimate(target, profile, n_ctx=h200["n_ctx"], n_gpu_layers=-1)
        gx.append(_design(result, target))
        gy.append(1.0 / bench_equivalent(h200))
    gcoef, *_ = np.linalg.lstsq(np.array(gx), np.array(gy), rcond=None)
    sys.stdout.write(
        f"GPU, {len(gy)} H200 rows: GPU_EFFICIENCY {1 / gcoef[0]:.4g}, GPU_NODE_S {gcoef[1]:.4g}\n"
    )


def _fit_memory_efficiency(profile: HardwareProfile) -> None:
    """CPU_MEMORY_EFFICIENCY that predicts the partial H200 row's measured speed (bisection:
    the prediction rises with it)."""
    from desktop.core.fit import speed

    row, target, _n = next(r for r in h200_rows() if r[0]["ngl"] != -1)
    wanted = bench_equivalent(row)
    kept = speed.CPU_MEMORY_EFFICIENCY
    low, high = 0.01, 4.0
    try:
        for _ in range(60):
            speed.CPU_MEMORY_EFFICIENCY = (low + high) / 2
            result = estimate(target, profile, n_ctx=row["n_ctx"], n_gpu_layers=row["ngl"])
            if (result.tokens_per_s or 0.0) < wanted:
                low = speed.CPU_MEMORY_EFFICIENCY
            else:
                high = speed.CPU_MEMORY_EFFICIENCY
    finally:
        speed.CPU_MEMORY_EFFICIENCY = kept
    sys.stdout.write(
        f"CPU_MEMORY_EFFICIENCY from the H200 row with {row['ngl']} GPU layers "
        f"({wanted:.1f} tok/s): {(low + high) / 2:.4g}\n"
    )


def _fit_prompt(run: GroundTruthRun) -> None:
    """Least squares for CPU_PP_FLOPS_PER_CORE on the fit cells' pp512: seconds per token =
    weight FLOPs / (cores x rate of the weights' kernel) + attention FLOPs / (cores x F16's)."""
    import numpy as np

    from desktop.core.fit.decode import prompt_flops
    from desktop.core.fit.speed import pp_kernel

    kernels = ["F16", "Q8_0", "Q4_K"]
    x, y = [], []
    cores = int(run.machine["profile"]["cpu"]["physical_cores"])
    for cell, _result, role in speed_rows(run):
        if role != "fit" or cell["ngl"] != 0 or cell["depth"]:
            continue
        target = run.target(cell["model"])
        weights, attention = prompt_flops(target)
        row = [0.0, 0.0, 0.0]
        row[kernels.index(pp_kernel(target.quant))] += weights / cores
        row[0] += attention / cores
        x.append(row)
        y.append(1.0 / pp_rate(cell))
    coef, *_ = np.linalg.lstsq(np.array(x), np.array(y), rcond=None)
    rates = ", ".join(f"{k} {1 / c:.4g}" for k, c in zip(kernels, coef, strict=True))
    sys.stdout.write(f"CPU_PP_FLOPS_PER_CORE from {len(y)} fit cells: {rates}\n")


def census_table(run: GroundTruthRun) -> None:
    """llama.cpp's one-token graph per model beside the node count the speed model uses."""
    rows: list[list[object]] = []
    for key, found in sorted(run.census().items()):
        if "error" in found:
            rows.append([key, "-", "-", found["error"]])
            continue
        arch = run.target(found["model"]).arch
        model = arch.n_layers * block_nodes(arch) + outside_nodes(arch)
        rows.append(
            [key, found["tg_ops_total"], model, "yes" if model == found["tg_ops_total"] else "NO"]
        )
    sys.stdout.write(
        "\n### Compute nodes of a one-token graph: llama.cpp (GGML_SCHED_DEBUG=2) vs the model\n\n"
    )
    print_markdown_table(["model", "llama.cpp", "speed model", "equal"], rows)


def report(run_dir: Path | None, *, fit: bool, with_token_cost: bool = False) -> None:
    gpu_table()
    if run_dir is None or not (run_dir / "cells.jsonl").is_file():
        return
    run = GroundTruthRun.load(run_dir)
    memory_table(run)
    speed_table(run)
    if (run_dir / "census.json").is_file():
        census_table(run)
    if fit:
        fit_speed(run, with_token_cost)
