"""Speed and load-time side of the fit estimator: the memory-bandwidth roofline.

Generating one token reads every weight the token passes through (all layers, the output
matrix, only the active experts of a MoE layer) plus the KV cache in use, so the best possible
speed is ``bandwidth / bytes per token``. Real runs reach a fraction of it (kernel efficiency,
threads, cache misses): the expected speed applies an efficiency factor per device kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypedDict

from desktop.core.fit.types import FitTarget, TargetFormat
from desktop.core.hardware import DiskInfo, HardwareProfile

GB = 1e9

# Expected speed: time per token = sum over devices of bytes / (bandwidth x efficiency), plus a
# fixed cost per layer (ggml runs a dozen small ops per layer: on the CPU each ends in a thread
# barrier, on a GPU each is a kernel launch). CPU: both fitted on the demo models' best
# generation speed on this machine (SmolLM2 105.6 and Gemma 3 64.0 tokens/s at n_ctx 512, best
# of nine runs; bandwidth from the hardware probe's copy benchmark): 0.71 of the roofline plus
# 0.137 ms per layer; benchmarks/fit_accuracy.py checks the held-out models. GPU: fitted by
# least squares on the nine full-offload loads of ../shared/ground-truth (H200, CUDA, three
# shapes of 28-32 layers, 1.6-8.5 GB, the bench-equivalent tokens/s): 0.65 of the roofline
# plus 0.071 ms per layer, every row within 6%. Other GPU backends (Metal, ROCm, Vulkan) use
# the CUDA figures until measured.
CPU_EFFICIENCY = 0.71
GPU_EFFICIENCY = 0.65
CPU_LAYER_OVERHEAD_S = 0.000137
GPU_LAYER_OVERHEAD_S = 0.0000706
# vLLM (AWQ) pays its per-token costs once per step (CUDA graphs), a literature value.
GPU_TOKEN_OVERHEAD_S = 0.001
AWQ_EFFICIENCY = 0.60

# Sequential read speeds assumed when the profile has no measured disk speed (bytes/s).
DISK_READ_DEFAULTS: dict[str, float] = {
    "nvme": 2.0e9,
    "ssd": 0.5e9,
    "hdd": 0.15e9,
    "unknown": 0.3e9,
}


def with_threads(profile: HardwareProfile, n_threads: int | None) -> HardwareProfile:
    """``profile`` as a run with ``n_threads`` CPU threads sees it.

    llama.cpp's CPU decode is bandwidth-bound with one thread per physical core; fewer threads
    pull a proportional share of that bandwidth (more than the physical cores gain nothing).
    None: the default, one thread per physical core.
    """
    cpu = profile.cpu
    if n_threads is None or cpu.memory_bandwidth_gbps is None or cpu.physical_cores < 1:
        return profile
    share = min(1.0, max(1, n_threads) / cpu.physical_cores)
    if share >= 1.0:
        return profile
    bandwidth = cpu.memory_bandwidth_gbps * share
    return replace(profile, cpu=replace(cpu, memory_bandwidth_gbps=bandwidth))


@dataclass(frozen=True)
class Stage:
    """Bytes one token reads on one device, and that device's bandwidth."""

    bytes_per_token: int
    bandwidth_gbps: float | None
    efficiency: float


def roofline(stages: Sequence[Stage], overhead_s: float = 0.0) -> tuple[float | None, float | None]:
    """(roofline tokens/s, expected tokens/s); None when a bandwidth is unknown.

    Layers run one after the other, so the time per token is the sum over devices; the expected
    speed adds the fixed per-token cost ``overhead_s``.
    """
    ideal = 0.0
    real = 0.0
    for stage in stages:
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
