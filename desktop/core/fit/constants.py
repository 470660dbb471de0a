"""Every constant of the fit model, with where its value comes from.

Each :class:`Constant` names a value as the code holds it (``speed.CPU_MEMORY_EFFICIENCY``,
``memory.Calibration.runtime_bytes``, ``speed.BLOCK_NODES['qwen3']``), its unit and meaning,
and its source: the measurement file and rows it was fitted on, or the document (with its
address) it was read from; how many data points it rests on and on which machine. ``basis``
says what kind of number it is:

- ``fitted``: least squares (or a bound) over measured rows;
- ``measured``: read off measurements directly (a count, a difference);
- ``llama.cpp``: a fact of the llama.cpp build the engine runs, read in its source;
- ``definition``: a unit or a size fixed by a format;
- ``assumption``: a value no measurement here backs (the row says so and why it is used).

``tests/core/fit/test_constants.py`` fails when a constant in ``memory.py``, ``speed.py`` or
``place.py`` (or the KV cache's block sizes it reads from ``desktop/core/kv_cache.py``) has no
row here, when a row's value differs from the code's, and when
``docs/fit-constants.md`` (``python -m desktop.core.fit.constants`` writes it) is not this
table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

Basis = Literal["fitted", "measured", "llama.cpp", "definition", "assumption"]

# Where the sources are.
H200 = "tests/fixtures/ground_truth/gpu-h200-llama-cpp-python.jsonl"
H200_MACHINE = "NVIDIA H200, CUDA 13.0, driver 580, llama-cpp-python 0.3.36 CUDA build"
CPU_RUN = "tests/fixtures/ground_truth/cpu-2core-dev"
DEV_MACHINE = "x86-64 Xeon VM, 2 cores (AVX-512), shared, llama-cpp-python 0.3.36 CPU build"
LLAMA_CPP = (
    "llama.cpp as vendored in llama-cpp-python 0.3.36 "
    "(https://pypi.org/project/llama-cpp-python/0.3.36/), "
)
MEMORY_FIT = (
    "benchmarks/fit_accuracy.py --fit: the 24 calibration cells (the two demo models at "
    "512-32768 tokens, eight tiny-weight models with real tokenizers at 512 and 8192), listed "
    "in benchmarks/RESULTS.md 'CPU peak RSS'"
)
CPU_SPEED_FIT = (
    f"{CPU_RUN}/cells.jsonl: the generation speed cells of the 'fit' shapes (dense-gqa-deep "
    "at depth 0 and 4096, dense-gqa-wide: F16, Q8_0, Q4_K_M, Q6_K, Q5_K_M; mha-phi3, "
    "swa-gemma2 at depth 0 and 4096, moe-mixtral: F16, Q8_0, Q4_K_M), measured 2026-12-02 "
    "05:05-05:15 UTC with no other work on the machine (each round's tg_cpu_share 0.97-1.00), "
    "best of two interleaved rounds; weighted least squares of the relative error over the ten "
    "CPU decode constants together (benchmarks/fit_accuracy.py --gpu-only --fit-speed; design "
    "in benchmarks/_fit_ground_truth.py cpu_design). Every model there fits in the VM's 504 MB "
    "L3 cache, so compute bounds each cell (speed.cpu_stage)"
)
CPU_SPEED_POINTS = 27
LOAD_FIT = MEMORY_FIT + "; the load terms on those whose load peak was above the run's RSS"


@dataclass(frozen=True)
class Constant:
    """One constant of the fit model and its source (see the module docstring)."""

    name: str
    value: object
    unit: str
    meaning: str
    basis: Basis
    source: str
    points: int = 0
    machine: str = ""


_PP_KERNEL_ROWS: tuple[tuple[str, str, Basis, str], ...] = (
    ("F16", "F16", "definition", "its own rate"),
    ("Q8_0", "Q8_0", "definition", "its own rate"),
    ("F32", "F16", "assumption", "not measured; the float kernels are alike"),
    ("BF16", "F16", "assumption", "not measured; the float kernels are alike"),
)


def _nodes(arch: str, value: int, note: str) -> Constant:
    return Constant(
        f"speed.BLOCK_NODES[{arch!r}]",
        value,
        "nodes",
        f"compute nodes per block of a one-token graph, {note}",
        "measured",
        f"{CPU_RUN}/census.json (GGML_SCHED_DEBUG=2 graph of a ground-truth {arch} model; "
        "nodes per block = difference between two depths, in tests/fixtures/tiny_models.py "
        "models, equal in every model of that architecture counted)",
        1,
        "any (the graph does not depend on the hardware)",
    )


CONSTANTS: tuple[Constant, ...] = (
    # ---------------------------------------------------------------- speed: fitted
    *(
        Constant(
            f"speed.CPU_DECODE_RATE_PER_CORE[{kernel!r}]",
            value,
            "bytes/s per core",
            f"rate at which one core runs llama.cpp's CPU kernel over a generated token's {what}",
            "fitted",
            CPU_SPEED_FIT,
            CPU_SPEED_POINTS,
            DEV_MACHINE,
        )
        for kernel, value, what in (
            ("F16", 7.964e9, "F16 weights"),
            ("Q8_0", 6.049e9, "Q8_0 weights"),
            ("Q5_0", 4.154e9, "Q5_0 (and Q4_1, Q5_1) weights"),
            ("Q6_K", 5.616e9, "Q6_K weights (and types with no row: Q3_K, i-quants)"),
            ("Q5_K", 5.373e9, "Q5_K weights"),
            (
                "Q4_K",
                7.437e9,
                "Q4_K weights (repacked at load; also Q4_0, Q2_K, IQ4_NL)",
            ),
        )
    ),
    *(
        Constant(
            f"speed.CPU_EXPERT_RATE_PER_CORE[{kernel!r}]",
            value,
            "bytes/s per core",
            f"rate at which one core reads a MoE layer's active experts (MUL_MAT_ID) when the "
            f"file's weights are {what}",
            "fitted",
            CPU_SPEED_FIT,
            CPU_SPEED_POINTS,
            DEV_MACHINE,
        )
        for kernel, value, what in (
            ("F16", 8.942e9, "F16, BF16 or F32"),
            ("quantized", 10.29e9, "quantized"),
        )
    ),
    Constant(
        "speed.CPU_KV_RATE_PER_CORE",
        13.36e9,
        "bytes/s per core",
        "rate at which one core reads the KV cache in use for a generated token",
        "fitted",
        CPU_SPEED_FIT,
        CPU_SPEED_POINTS,
        DEV_MACHINE,
    ),
    Constant(
        "speed.CPU_MEMORY_EFFICIENCY",
        0.6939,
        "fraction",
        "share of the CPU's measured copy bandwidth a generated token's reads get when what the "
        "CPU holds is larger than its last-level cache (memory-bound)",
        "fitted",
        f"{H200} row 10 (llama-3.1-8b's shape, Q8_0, 16 of 32 layers on the GPU: 16 layers, "
        "4.3 GB, on a 16-core Xeon host with a 300 MB L3), tokens/s converted to llm-scout "
        "bench's; bisection for the figure that predicts it with the GPU constants "
        "(benchmarks/fit_accuracy.py --gpu-only --fit-speed). The development VM cannot "
        "measure it: every ground-truth model there fits in its 504 MB L3",
        1,
        H200_MACHINE + " (its 16-core host CPU)",
    ),
    Constant(
        "speed.CPU_NODE_S",
        0.000001291,
        "s per node",
        "fixed time of one compute node of the token's graph on the CPU (a barrier of "
        "llama.cpp's threads, small-op overheads)",
        "fitted",
        CPU_SPEED_FIT,
        CPU_SPEED_POINTS,
        DEV_MACHINE,
    ),
    Constant(
        "speed.CPU_TOKEN_S",
        0.0,
        "s per token",
        "per-token cost outside the graph (sampling, the generation loop)",
        "assumption",
        f"{CPU_RUN}/cells.jsonl: as CPU_NODE_S; not fitted (the fit cells cannot tell it from "
        "the per-node term), kept at 0",
        CPU_SPEED_POINTS,
        DEV_MACHINE,
    ),
    *(
        Constant(
            f"speed.DECODE_KERNELS[{type_name!r}]",
            kernel,
            "rate entry",
            f"{type_name} weights are read at the {kernel} kernel's rate",
            "assumption",
            why,
        )
        for type_name, kernel, why in (
            ("F32", "F16", "not measured apart; the float kernels are alike"),
            ("BF16", "F16", "not measured apart; the float kernels are alike"),
            ("Q4_0", "Q4_K", "not measured; repacked on x86 like Q4_K (memory.REPACK_TYPES)"),
            ("Q2_K", "Q4_K", "not measured; repacked on x86 like Q4_K (memory.REPACK_TYPES)"),
            ("IQ4_NL", "Q4_K", "not measured; repacked on x86 like Q4_K (memory.REPACK_TYPES)"),
            (
                "Q4_1",
                "Q5_0",
                "not fitted on; a legacy block quant like Q5_0 (the SmolLM2 demo "
                "is Q4_1 and held out)",
            ),
            ("Q5_1", "Q5_0", "not measured; a legacy block quant like Q5_0"),
        )
    ),
    Constant(
        "speed.GPU_EFFICIENCY",
        0.582,
        "fraction",
        "share of the GPU's memory bandwidth (NVML: bus width x memory clock) a generated "
        "token's reads get",
        "fitted",
        f"{H200} rows 1-9 (full offload, three shapes, 512-32768 tokens), tokens/s converted "
        "to llm-scout bench's (minus 0.75 ms per token of the measuring loop); least squares "
        "with GPU_NODE_S",
        9,
        H200_MACHINE,
    ),
    Constant(
        "speed.GPU_NODE_S",
        0.00000285,
        "s per node",
        "fixed time of one compute node on a GPU (a kernel; CUDA fuses some, so this is an "
        "average over the nodes of the fitted architectures)",
        "fitted",
        f"{H200} rows 1-9: as GPU_EFFICIENCY",
        9,
        H200_MACHINE,
    ),
    Constant(
        "speed.GPU_TOKEN_OVERHEAD_S",
        0.001,
        "s per token",
        "vLLM's per-step cost for AWQ variants",
        "assumption",
        "not measured here (no vLLM run on a GPU yet); 1 ms, the order of a CUDA-graph "
        "decode step's launch and sampling cost",
    ),
    Constant(
        "speed.AWQ_EFFICIENCY",
        0.6,
        "fraction",
        "share of the GPU bandwidth an AWQ (vLLM) decode gets",
        "assumption",
        "not measured here; set near GPU_EFFICIENCY (the llama.cpp figure) until a vLLM run is",
    ),
    *(
        Constant(
            f"speed.CPU_PP_FLOPS_PER_CORE[{kernel!r}]",
            value,
            "FLOP/s per core",
            f"arithmetic rate of llama.cpp's CPU kernel for {what} in a 512-token prompt batch, "
            "per physical core",
            "fitted",
            f"{CPU_RUN}/cells.jsonl: pp512 of the depth-0 speed cells of the 'fit' shapes "
            "(quiet machine, as CPU_NODE_S), best run; least squares over the three rates "
            "together (the attention at the F16 rate)",
            19,
            DEV_MACHINE,
        )
        for kernel, value, what in (
            ("F16", 45.99e9, "F16 weights (and the attention)"),
            ("Q8_0", 53.54e9, "Q8_0 weights"),
            ("Q4_K", 62.47e9, "Q4_K_M's weights (Q4_K repacked, some Q6_K); every type not listed"),
        )
    ),
    *(
        Constant(
            f"speed.PP_KERNELS[{quant!r}]",
            kernel,
            "rate entry",
            f"{quant} weights process prompts at the {kernel} rate",
            basis,
            why,
        )
        for quant, kernel, basis, why in _PP_KERNEL_ROWS
    ),
    # ---------------------------------------------------------------- speed: graph census
    _nodes("llama", 22, "llama (attention, SwiGLU FFN)"),
    _nodes("qwen2", 25, "qwen2 (llama plus q/k/v bias ADDs)"),
    _nodes("qwen3", 26, "qwen3 (llama plus q/k RMS norms)"),
    _nodes("qwen3moe", 26, "qwen3moe before its MoE FFN (as qwen3)"),
    _nodes("phi3", 21, "phi3 (fused qkv and gate/up)"),
    _nodes("gemma2", 30, "gemma2 (post norms, attention soft-capping)"),
    _nodes("gemma3", 31, "gemma3 (q/k norms, post norms)"),
    Constant(
        "speed.DEFAULT_BLOCK_NODES",
        22,
        "nodes",
        "nodes per block of an architecture not counted (llama's)",
        "assumption",
        "llama's count: most architectures without a census row are llama-like; a wrong count "
        "moves only the per-node term",
    ),
    Constant(
        "speed.OUTSIDE_NODES['gemma2']",
        10,
        "nodes",
        "nodes outside the blocks (embedding scale, final soft-capping)",
        "measured",
        f"{CPU_RUN}/census.json (gemma2)",
        1,
        "any",
    ),
    Constant(
        "speed.OUTSIDE_NODES['gemma3']",
        7,
        "nodes",
        "nodes outside the blocks (embedding scale)",
        "measured",
        f"{CPU_RUN}/census.json (gemma3 demo model)",
        1,
        "any",
    ),
    Constant(
        "speed.DEFAULT_OUTSIDE_NODES",
        6,
        "nodes",
        "nodes outside the blocks: embedding rows, the last block's row selection (2), output "
        "norm (2), output matrix",
        "measured",
        f"{CPU_RUN}/census.json (llama, qwen2, qwen3, phi3, MoE models)",
        5,
        "any",
    ),
    Constant(
        "speed.MOE_NODES",
        8,
        "nodes",
        "nodes a MoE FFN adds over a dense one (router, softmax, argsort, rows, weight "
        "normalisation, three MUL_MAT_ID, gated activation, weighting; minus the dense FFN's 4)",
        "measured",
        f"{CPU_RUN}/census.json (moe-mixtral: 2 of 8 experts, moe-qwen3: 4 of 16); one ADD "
        "per expert used beyond the first on top",
        2,
        "any",
    ),
    Constant(
        "speed.MOE_EXPERT_NODES",
        5,
        "nodes",
        "of a MoE block's nodes, those that run where its experts are (three MUL_MAT_ID, the "
        "gated activation, the weighting), plus the ADDs",
        "llama.cpp",
        LLAMA_CPP + "src/llama-graph.cpp build_moe_ffn; placement by ggml-backend.cpp "
        "(operations run where their weights are)",
    ),
    # ---------------------------------------------------------------- speed: disk
    Constant(
        "speed.DISK_READ_DEFAULTS['nvme']",
        2.0e9,
        "bytes/s",
        "sequential read assumed for an NVMe disk whose speed was not measured",
        "assumption",
        "a PCIe 3.0 x4 entry-level NVMe's sequential read (the interface carries ~3.9 GB/s); "
        "`hw --measure-disk` replaces it",
    ),
    Constant(
        "speed.DISK_READ_DEFAULTS['ssd']",
        0.5e9,
        "bytes/s",
        "sequential read assumed for a SATA SSD",
        "assumption",
        "SATA III's 6 Gbit/s line rate is 600 MB/s after 8b/10b coding "
        "(https://sata-io.org/system/files/specifications/SerialATA_Revision_3_0_RC11.pdf); "
        "drives reach ~500-550 MB/s",
    ),
    Constant(
        "speed.DISK_READ_DEFAULTS['hdd']",
        0.15e9,
        "bytes/s",
        "sequential read assumed for a spinning disk",
        "assumption",
        "typical 7200 rpm outer-track sequential read; `hw --measure-disk` replaces it",
    ),
    Constant(
        "speed.DISK_READ_DEFAULTS['unknown']",
        0.3e9,
        "bytes/s",
        "sequential read assumed for a disk of unknown kind (a virtual disk, a network mount)",
        "assumption",
        "between the HDD and SSD figures; `hw --measure-disk` replaces it",
    ),
    Constant(
        "speed.GB", 1e9, "bytes", "one gigabyte (bandwidths are in GB/s)", "definition", "SI prefix"
    ),
    # ---------------------------------------------------------------- placement
    Constant(
        "place.VRAM_MARGIN_BYTES",
        256 * 1024 * 1024,
        "bytes",
        "free VRAM left unplanned on a discrete GPU (other processes, the display, fragmentation)",
        "assumption",
        "a safety margin, not measured; on the H200 rows the prediction was within -1.2%..+0.5% "
        "without it",
    ),
    Constant(
        "place.STAGING_EXTRA_BYTES",
        169_400_000,
        "bytes",
        "GPU compute buffer beyond the largest host weight staged by op offload under partial "
        "offload",
        "fitted",
        f"{H200} row 10 (llama-3.1-8b's shape, 16 of 32 layers at 8192): the whole 231.8 MB "
        "block matched, i.e. the 62.4 MB ffn matrix plus this",
        1,
        H200_MACHINE,
    ),
    # ---------------------------------------------------------------- memory: llama.cpp facts
    Constant("memory.MIB", 1024 * 1024, "bytes", "one mebibyte", "definition", "IEC prefix"),
    Constant("memory.F32", 4, "bytes", "one float32", "definition", "IEEE 754 binary32"),
    Constant(
        "memory.N_BATCH",
        512,
        "tokens",
        "logical batch llama-cpp-python uses (the engine keeps it)",
        "llama.cpp",
        "llama-cpp-python 0.3.36 llama_cpp/llama.py, Llama(n_batch=512)",
    ),
    Constant(
        "memory.N_UBATCH",
        512,
        "tokens",
        "physical batch: the compute buffer is reserved for it",
        "llama.cpp",
        "llama-cpp-python 0.3.36 llama_cpp/llama.py, Llama(n_ubatch=512)",
    ),
    Constant(
        "memory.CTX_PAD",
        256,
        "cells",
        "n_ctx (and a bounded sliding-window cache) is rounded up to a multiple of this",
        "llama.cpp",
        LLAMA_CPP + "src/llama-context.cpp: cparams.n_ctx = GGML_PAD(cparams.n_ctx, 256); "
        "src/llama-kv-cache-iswa.cpp: size_swa = GGML_PAD(min(size, n_swa + n_ubatch), 256)",
    ),
    *(
        Constant(
            f"kv_cache.BLOCK_BYTES[{t!r}]",
            v,
            "(values, bytes)",
            f"values per block and bytes per block of a {t} KV cache row",
            "definition",
            LLAMA_CPP + "ggml/src/ggml.c type_traits (blck_size, type_size)",
        )
        for t, v in (("f16", (1, 2)), ("q8_0", (32, 34)), ("q4_0", (32, 18)))
    ),
    *(
        Constant(
            f"memory.REPACK_TYPES[{family!r}][{t!r}]",
            rows,
            "row multiple",
            f"{t} weights are copied into an interleaved layout at load on {family} CPUs when "
            "their rows are a multiple of this",
            "llama.cpp",
            LLAMA_CPP + "ggml/src/ggml-cpu/repack.cpp ggml_repack_get_optimal_repack_type; "
            "seen in load logs (CPU_REPACK model buffer size) for Q4_0/Q4_K on AVX2",
        )
        for family, table in (
            ("x86", {"Q4_0": 8, "Q4_K": 8, "Q2_K": 8, "IQ4_NL": 8, "MXFP4": 8}),
            (
                "arm",
                {"Q4_0": 4, "Q4_K": 8, "Q2_K": 8, "IQ4_NL": 4, "Q8_0": 4, "Q5_K": 8, "Q6_K": 8},
            ),
        )
        for t, rows in table.items()
    ),
    # ---------------------------------------------------------------- memory: calibration
    *(
        Constant(
            f"memory.Calibration.{name}",
            value,
            unit,
            meaning,
            "fitted",
            MEMORY_FIT,
            points,
            DEV_MACHINE,
        )
        for name, value, unit, meaning, points in (
            (
                "runtime_bytes",
                50_300_000,
                "bytes",
                "the interpreter with llama_cpp and numpy imported, before a load",
                24,
            ),
            ("const_bytes", 3_237_000, "bytes", "a loaded context's fixed memory", 24),
            (
                "per_token_bytes",
                184.0,
                "bytes per token",
                "tokenizer tables per vocabulary entry",
                24,
            ),
            ("per_merge_bytes", 149.5, "bytes per merge", "tokenizer tables per BPE merge", 24),
            (
                "per_ctx_cell_bytes",
                65.4,
                "bytes per cell",
                "cache cell metadata and batch arrays per KV cell of each cache",
                24,
            ),
            (
                "per_graph_node_bytes",
                2469.8,
                "bytes per node",
                "graph and scheduler tables per graph node reserved (max(1024, 8 x tensors))",
                24,
            ),
        )
    ),
    *(
        Constant(
            f"memory.Calibration.{name}", value, unit, meaning, "fitted", LOAD_FIT, 24, DEV_MACHINE
        )
        for name, value, unit, meaning in (
            (
                "load_const_bytes",
                3_258_000,
                "bytes",
                "the load's own fixed memory (instead of const_bytes) at its peak",
            ),
            (
                "load_per_string_bytes",
                13.3,
                "bytes per string",
                "GGUF metadata held per token and merge string during the load",
            ),
        )
    ),
    Constant(
        "memory.Calibration.touched_act_floats",
        6,
        "floats per token x n_embd",
        "activations of the compute buffer a short run touches, per ubatch token",
        "fitted",
        "chosen on the two demo models' measured peak RSS when the memory model was first "
        "calibrated (commit 264d9fa, benchmarks/fit_accuracy.py); checked since by the held-out "
        "rows of benchmarks/RESULTS.md and " + CPU_RUN,
        2,
        DEV_MACHINE,
    ),
    Constant(
        "memory.Calibration.gpu_context_bytes",
        384 * 1024 * 1024 + 340_000_000,
        "bytes",
        "CUDA context, cuBLAS workspace and driver reservations per GPU",
        "fitted",
        f"{H200} rows 1-9: every full-offload load used 321-339 MB more than weights + KV + "
        "compute buffer with 384 MiB; set to the bound 340 MB above it (never under)",
        9,
        H200_MACHINE,
    ),
    Constant(
        "memory.Calibration.gpu_host_runtime_bytes",
        512 * 1024 * 1024,
        "bytes",
        "host memory the CUDA runtime adds to the process",
        "assumption",
        "not measured (the H200 rows record RSS with the mapped file, which hides it); the "
        "CUDA runtime's host allocations are of this order",
    ),
    Constant(
        "memory.Calibration.vllm_overhead_bytes",
        2 * 1024**3,
        "bytes",
        "vLLM's CUDA graphs, activation peak and allocator slack per GPU (AWQ)",
        "assumption",
        "not measured here (no vLLM run); vLLM reserves its KV cache from gpu_memory_utilization "
        "after profiling this much",
    ),
    Constant(
        "memory.Calibration.vllm_host_bytes",
        3 * 1024**3,
        "bytes",
        "host memory of a vLLM server process (torch, CUDA, the engine)",
        "assumption",
        "not measured here (no vLLM run)",
    ),
)


def by_name() -> dict[str, Constant]:
    return {c.name: c for c in CONSTANTS}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _value(value: object) -> str:
    if isinstance(value, float) and (abs(value) < 1e-3 or abs(value) >= 1e6) and value:
        return f"{value:.4g}"
    if isinstance(value, int) and abs(value) >= 10_000:
        return f"{value:,}"
    return str(value)


def markdown() -> str:
    """The table as ``docs/fit-constants.md`` holds it."""
    lines = [
        "# Constants of the fit model",
        "",
        "Every constant the fit estimator uses (`desktop/core/fit/memory.py`, `speed.py`, "
        "`place.py`, and the KV cache's block sizes from `desktop/core/kv_cache.py`), its value, "
        "what it means and where it comes from. Generated from "
        "`desktop/core/fit/constants.py` by `python -m desktop.core.fit.constants`; "
        "`tests/core/fit/test_constants.py` fails when the code has a constant this table lacks, "
        "when a value differs, or when this file is stale. Basis: *fitted* (least squares or a "
        "bound over the rows named), *measured* (read off measurements), *llama.cpp* (a fact of "
        "the build the engine runs, read in its source), *definition*, *assumption* (no "
        "measurement backs it yet: each says why it is used).",
        "",
        "| constant | value | unit | meaning | basis | source | points | machine |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in CONSTANTS:
        cells = (
            f"`{c.name}`",
            _value(c.value),
            c.unit,
            c.meaning,
            c.basis,
            c.source,
            str(c.points) if c.points else "-",
            c.machine or "-",
        )
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    counts: dict[str, int] = {}
    for c in CONSTANTS:
        counts[c.basis] = counts.get(c.basis, 0) + 1
    summary = ", ".join(f"{n} {basis}" for basis, n in counts.items())
    lines += ["", f"{len(CONSTANTS)} constants: {summary}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(markdown())
