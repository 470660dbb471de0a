"""Speed and load-time side of the fit estimator: bytes read per token, and the graph's nodes.

Generating one token reads every weight the token passes through and the KV cache in use: all
layers' attention and dense weights, the router and ``n_expert_used`` of ``n_expert`` experts of
a MoE layer, the output matrix; the cells attention reads (the used context, up to a bounded
sliding-window cache's size). The best possible speed is ``bandwidth / bytes per token``
(:func:`roofline`). On a GPU real runs reach a fraction of the bandwidth; on the CPU the reads
take the longer of compute (each kind of read at its kernel's rate per core) and memory (a
fraction of the bandwidth, once the model is larger than the last-level cache: :func:`cpu_stage`).
Every compute node of the token's graph costs a fixed time besides: on the CPU each ends in a
barrier of llama.cpp's threads, on a GPU each is a kernel. So the expected time per token is,
summed over the devices a token passes, the reads' time ``+ nodes x seconds per node``, plus a
per-token cost (sampling, the generation loop).

The node counts come from llama.cpp's own graphs (:func:`block_nodes`), the constants from
measurements; :mod:`desktop.core.fit.constants` lists every constant with its source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypedDict

from desktop.core.fit.types import FitTarget, TargetFormat
from desktop.core.gguf import ModelArch
from desktop.core.hardware import CpuInfo, DiskInfo, HardwareProfile

GB = 1e9

# Fitted constants (see desktop.core.fit.constants for the rows each rests on). CPU: on the
# 'fit' shapes of the CPU ground truth (dense, MHA, sliding window, MoE); GPU: on the nine
# full-offload H200 loads. Other GPU backends (Metal, ROCm, Vulkan) use the CUDA figures until
# measured.
#
# On the CPU a token's reads take the longer of two times (a roofline):
# - compute: each kind of read at the rate per core of llama.cpp's kernel for it, times the
#   cores the run uses: a weight type's kernel (the interleaved "repacked" Q4_K kernel reads
#   faster than the plain Q6_K one), the active experts of a MoE layer (MUL_MAT_ID, F16 or
#   quantized) and the KV cache (CPU_*_RATE_PER_CORE, bytes/s per core);
# - memory: every byte at CPU_MEMORY_EFFICIENCY of the measured bandwidth, when what the CPU
#   holds for a token (its weights and KV cache) is larger than the last-level cache; a model
#   that fits there is read from the cache, faster than memory, and only compute bounds it.
CPU_DECODE_RATE_PER_CORE: dict[str, float] = {
    "F16": 7.964e9,
    "Q8_0": 6.049e9,
    "Q5_0": 4.154e9,
    "Q6_K": 5.616e9,
    "Q5_K": 5.373e9,
    "Q4_K": 7.437e9,
}
CPU_EXPERT_RATE_PER_CORE: dict[str, float] = {"F16": 8.942e9, "quantized": 10.29e9}
CPU_KV_RATE_PER_CORE = 13.36e9
CPU_MEMORY_EFFICIENCY = 0.6939
GPU_EFFICIENCY = 0.582
CPU_NODE_S = 0.000001291
GPU_NODE_S = 0.00000285
CPU_TOKEN_S = 0.0
# The kernel each ggml weight type runs with, where it has no row of its own: the legacy
# quants with the Q5_0 kernel's rate, the types the x86 CPU backend repacks with Q4_K's, the
# other k-quants and the i-quants with Q6_K's (the slowest measured, so not an optimistic guess).
DECODE_KERNELS: dict[str, str] = {
    "F32": "F16",
    "BF16": "F16",
    "Q4_0": "Q4_K",
    "Q2_K": "Q4_K",
    "IQ4_NL": "Q4_K",
    "Q4_1": "Q5_0",
    "Q5_1": "Q5_0",
}
DEFAULT_DECODE_KERNEL = "Q6_K"
# vLLM (AWQ) pays its per-token costs once per step (CUDA graphs), a literature value.
GPU_TOKEN_OVERHEAD_S = 0.001
AWQ_EFFICIENCY = 0.60

# Compute nodes of a one-token graph (GGML_SCHED_DEBUG=2), per block and outside the blocks
# (embedding lookup, output norm and matrix, the last layer's row selection), by architecture.
BLOCK_NODES: dict[str, int] = {
    "llama": 22,
    "qwen2": 25,  # q/k/v biases
    "qwen3": 26,  # q/k RMS norms
    "qwen3moe": 26,
    "phi3": 21,  # fused qkv
    "gemma2": 30,  # post norms, attention soft-capping
    "gemma3": 31,  # q/k norms, post norms
}
DEFAULT_BLOCK_NODES = 22  # an architecture not counted: llama's
OUTSIDE_NODES: dict[str, int] = {"gemma2": 10, "gemma3": 7}
DEFAULT_OUTSIDE_NODES = 6
# A MoE FFN (router, softmax, top-k, weight normalisation, three MUL_MAT_ID, the gated
# activation, the weighting) has MOE_NODES more nodes than a dense FFN, plus one ADD per
# expert used beyond the first.
MOE_NODES = 8
# Of those, the nodes that run where the expert weights are (three MUL_MAT_ID, the gated
# activation, the weighting), plus the ADDs.
MOE_EXPERT_NODES = 5


# Prompt processing on the CPU is bound by arithmetic: a batch multiplies every weight of the
# blocks it passes through (2 FLOPs per weight and token, a MoE layer's active experts only)
# and computes attention over the batch's cells (2 x heads x (K + V head size) x cells per
# layer and token), at a rate per physical core that depends on llama.cpp's kernel for the
# weights' type (FLOP/s per core; the attention at the F16 rate). Fitted like the generation
# constants; a type not listed uses Q4_K's.
CPU_PP_FLOPS_PER_CORE: dict[str, float] = {"F16": 45.99e9, "Q8_0": 53.54e9, "Q4_K": 62.47e9}
PP_KERNELS: dict[str, str] = {"F32": "F16", "F16": "F16", "BF16": "F16", "Q8_0": "Q8_0"}
DEFAULT_PP_KERNEL = "Q4_K"


def pp_kernel(quant: str | None) -> str:
    """The :data:`CPU_PP_FLOPS_PER_CORE` entry a quant's weights run with."""
    return PP_KERNELS.get((quant or "").upper(), DEFAULT_PP_KERNEL)


def decode_kernel(type_name: str) -> str:
    """The :data:`CPU_DECODE_RATE_PER_CORE` entry a ggml weight type's generation reads run
    with."""
    name = type_name.upper()
    if name in CPU_DECODE_RATE_PER_CORE:
        return name
    return DECODE_KERNELS.get(name, DEFAULT_DECODE_KERNEL)


def quant_kernel(quant: str | None) -> str:
    """The kernel of a file's main weight type, from its quant name (``Q4_K_M`` -> Q4_K)."""
    name = (quant or "").upper()
    for kernel in (*CPU_DECODE_RATE_PER_CORE, *DECODE_KERNELS):
        if name == kernel or name.startswith(kernel + "_"):
            return decode_kernel(kernel)
    return DEFAULT_DECODE_KERNEL


def weight_rate(weight_types: Sequence[tuple[str, int, int]], quant: str | None) -> float:
    """Bytes/s per core of a token's weight reads on the CPU: each type of ``weight_types``
    (type, bytes, row multiple) at its kernel's rate (:func:`mix_rate`); without them, the
    kernel of ``quant``'s main type."""
    parts = [(n, CPU_DECODE_RATE_PER_CORE[decode_kernel(t)]) for t, n, _m in weight_types if n > 0]
    if not parts:
        return CPU_DECODE_RATE_PER_CORE[quant_kernel(quant)]
    return mix_rate(parts)


def expert_kernel(weight_types: Sequence[tuple[str, int, int]], quant: str | None) -> str:
    """The :data:`CPU_EXPERT_RATE_PER_CORE` entry of a file's experts: ``F16`` when its main
    weight type (the most bytes) runs with the F16 kernel (F16, BF16, F32), else ``quantized``."""
    kernel = quant_kernel(quant)
    if weight_types:
        kernel = decode_kernel(max(weight_types, key=lambda row: row[1])[0])
    return "F16" if kernel == "F16" else "quantized"


def expert_rate(weight_types: Sequence[tuple[str, int, int]], quant: str | None) -> float:
    """Bytes/s per core of a MoE layer's active experts on the CPU (:func:`expert_kernel`)."""
    return CPU_EXPERT_RATE_PER_CORE[expert_kernel(weight_types, quant)]


def mix_rate(parts: Sequence[tuple[float, float]]) -> float:
    """The one rate that reads ``parts`` (bytes, rate) in the same time as reading each part
    at its own rate: total bytes over the sum of bytes / rate."""
    total = sum(n for n, _rate in parts)
    seconds = sum(n / rate for n, rate in parts if n > 0)
    return total / seconds if seconds > 0 else 0.0


# Sequential read speeds assumed when the profile has no measured disk speed (bytes/s).
DISK_READ_DEFAULTS: dict[str, float] = {
    "nvme": 2.0e9,
    "ssd": 0.5e9,
    "hdd": 0.15e9,
    "unknown": 0.3e9,
}


def with_threads(profile: HardwareProfile, n_threads: int | None) -> HardwareProfile:
    """``profile`` as a run with ``n_threads`` CPU threads sees it: fewer threads than physical
    cores compute on that many cores and pull a proportional share of the bandwidth (more than
    the physical cores gain nothing). None: the default, one thread per physical core."""
    cpu = profile.cpu
    if n_threads is None or cpu.physical_cores < 1:
        return profile
    cores = max(1, n_threads)
    if cores >= cpu.physical_cores:
        return profile
    bandwidth = cpu.memory_bandwidth_gbps
    if bandwidth is not None:
        bandwidth *= cores / cpu.physical_cores
    return replace(profile, cpu=replace(cpu, memory_bandwidth_gbps=bandwidth, physical_cores=cores))


@dataclass(frozen=True)
class Stage:
    """What one token costs on one device: the bytes it reads there at that device's bandwidth
    and efficiency, and the fixed time of the graph nodes computed there (``fixed_s``)."""

    bytes_per_token: int
    bandwidth_gbps: float | None
    efficiency: float
    fixed_s: float = 0.0


def roofline(stages: Sequence[Stage], overhead_s: float = 0.0) -> tuple[float | None, float | None]:
    """(roofline tokens/s, expected tokens/s); None when a bandwidth is unknown.

    Layers run one after the other, so the time per token is the sum over devices: the
    roofline counts only the bytes at full bandwidth; the expected speed the bytes at the
    device's efficiency, each stage's node costs and the per-token cost ``overhead_s``.
    """
    ideal = 0.0
    real = 0.0
    for stage in stages:
        real += stage.fixed_s
        if stage.bytes_per_token <= 0:
            continue
        if not stage.bandwidth_gbps or stage.bandwidth_gbps <= 0:
            return None, None
        seconds = stage.bytes_per_token / (stage.bandwidth_gbps * GB)
        ideal += seconds
        real += seconds / stage.efficiency
    if ideal <= 0:
        return None, None
    return 1.0 / ideal, 1.0 / (real + overhead_s)


def cpu_stage(
    parts: Sequence[tuple[float, float]],
    held_bytes: float,
    cpu: CpuInfo,
    fixed_s: float,
    *,
    bandwidth_gbps: float | None = None,
) -> Stage:
    """The CPU's :class:`Stage` of a token: ``parts`` (bytes, rate per core) it reads, taking
    the longer of compute (each part at its rate times the cores) and memory (every byte at
    :data:`CPU_MEMORY_EFFICIENCY` of the bandwidth, when ``held_bytes``, what the CPU holds for
    a token, is more than the last-level cache; an unknown cache counts as none). The stage's
    efficiency is the share of the bandwidth that time amounts to. ``bandwidth_gbps``: another
    machine's (an RPC server's) instead of ``cpu``'s; its cores and cache are unknown, so only
    memory bounds it."""
    total = sum(n for n, _rate in parts)
    remote = bandwidth_gbps is not None
    bandwidth = bandwidth_gbps if remote else cpu.memory_bandwidth_gbps
    if total <= 0 or not bandwidth or bandwidth <= 0:
        return Stage(int(total), bandwidth, CPU_MEMORY_EFFICIENCY, fixed_s)
    memory_s = total / (bandwidth * GB * CPU_MEMORY_EFFICIENCY)
    if remote or cpu.physical_cores < 1:
        return Stage(int(total), bandwidth, CPU_MEMORY_EFFICIENCY, fixed_s)
    compute_s = sum(n / (rate * cpu.physical_cores) for n, rate in parts if n > 0)
    in_cache = cpu.l3_bytes is not None and held_bytes <= cpu.l3_bytes
    seconds = compute_s if in_cache else max(compute_s, memory_s)
    return Stage(int(total), bandwidth, total / (bandwidth * GB * seconds), fixed_s)


def block_nodes(arch: ModelArch) -> int:
    """Compute nodes llama.cpp runs per block for one generated token."""
    nodes = BLOCK_NODES.get(arch.architecture, DEFAULT_BLOCK_NODES)
    if arch.is_moe:
        nodes += MOE_NODES + max(arch.n_expert_used - 1, 0)
    return nodes


def expert_nodes(arch: ModelArch) -> int:
    """Of :func:`block_nodes`, those that run where a MoE block's expert weights are."""
    return MOE_EXPERT_NODES + max(arch.n_expert_used - 1, 0) if arch.is_moe else 0


def outside_nodes(arch: ModelArch) -> int:
    """Compute nodes outside the blocks (embeddings, output norm and matrix)."""
    return OUTSIDE_NODES.get(arch.architecture, DEFAULT_OUTSIDE_NODES)


def disk_read_bytes_per_s(disk: DiskInfo | None) -> float | None:
    if disk is None:
        return None
    if disk.read_bytes_per_s:
        return float(disk.read_bytes_per_s)
    return DISK_READ_DEFAULTS.get(disk.kind, DISK_READ_DEFAULTS["unknown"])


def load_seconds(file_bytes: int | None, disk: DiskInfo | None) -> float | None:
    """Time to read the file once from disk (a cold start; a warm page cache is faster)."""
    speed = disk_read_bytes_per_s(disk)
    if file_bytes is None or speed is None:
        return None
    return file_bytes / speed


def models_disk(profile: HardwareProfile, models_dir: Path | None) -> DiskInfo | None:
    """The disk holding the models folder: longest matching mount path, else the first."""
    if not profile.disks:
        return None
    if models_dir is None:
        return profile.disks[0]  # a probe lists the models folder's disk first
    target = str(Path(models_dir).expanduser())
    best: DiskInfo | None = None
    best_len = -1
    for disk in profile.disks:
        root = str(Path(disk.path).expanduser()).rstrip("/") or "/"
        inside = target == root or target.startswith(root.rstrip("/") + "/")
        if inside and len(root) > best_len:
            best, best_len = disk, len(root)
    return best or profile.disks[0]


def disk_check(target: FitTarget, disk: DiskInfo | None) -> tuple[int | None, bool | None]:
    """(bytes a download would write, whether they fit on the models disk)."""
    if not target.download_bytes:
        return 0, True  # a file on disk: nothing to download
    download = target.download_bytes
    if disk is None:
        return download, None
    return download, download <= disk.free_bytes


class TargetFacts(TypedDict):
    """The :class:`~desktop.core.fit.types.FitResult` fields that depend on the target and the
    disk only (the same for every estimator)."""

    label: str
    format: TargetFormat
    quant: str | None
    load_seconds: float | None
    download_bytes: int | None
    fits_disk: bool | None


def target_facts(target: FitTarget, disk: DiskInfo | None) -> TargetFacts:
    """Name, format, quant, load time and download check of ``target``."""
    download, fits_disk = disk_check(target, disk)
    return TargetFacts(
        label=target.label,
        format=target.format,
        quant=target.quant,
        load_seconds=load_seconds(target.file_bytes, disk),
        download_bytes=download,
        fits_disk=fits_disk,
    )
