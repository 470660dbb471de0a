"""AWQ variants: they run on NVIDIA GPUs (compute capability 7.5+) through vLLM, VRAM only."""

from __future__ import annotations

from desktop.core.fit import memory as fm
from desktop.core.fit.place import Device, usable_gpus
from desktop.core.fit.speed import (
    AWQ_EFFICIENCY,
    GPU_TOKEN_OVERHEAD_S,
    Stage,
    roofline,
    target_facts,
)
from desktop.core.fit.types import (
    FitResult,
    FitTarget,
    MemoryBreakdown,
    Verdict,
    past_trained_context,
)
from desktop.core.fit.vllm import (
    AWQ_MIN_COMPUTE_CAPABILITY,
    capable_gpus,
    choose_gpus,
    compute_capability_ok,
)
from desktop.core.hardware import DiskInfo, HardwareProfile
from desktop.core.kv_cache import CacheType

__all__ = ["AWQ_MIN_COMPUTE_CAPABILITY", "compute_capability_ok", "estimate_awq"]


def estimate_awq(
    target: FitTarget,
    profile: HardwareProfile,
    *,
    n_ctx: int,
    cache_type: CacheType,
    used: int,
    disk: DiskInfo | None,
    reasons: list[str],
) -> FitResult:
    """AWQ runs on NVIDIA GPUs (compute capability 7.5+) through vLLM: VRAM only.

    The GPUs are chosen as the vLLM command chooses them (:func:`~desktop.core.fit.vllm.
    choose_gpus`: one GPU, else tensor parallel over a power of two of identical GPUs), so the
    verdict and the command shown beside it agree.
    """
    cal = fm.CALIBRATION
    arch = target.arch
    capable = capable_gpus(profile)
    eligible = [d for d in usable_gpus(profile) if any(d.gpu is g for g in capable)]
    if cache_type != "f16":
        reasons.append("vLLM keeps its own cache type; the AWQ estimate uses an f16 cache.")
    shape = fm.kv_shape(arch, "f16", swa_full=True)
    kv = shape.range_bytes(n_ctx, 0, arch.n_layers)
    need = target.weights_bytes + kv + cal.vllm_overhead_bytes
    chosen: list[Device] = []
    kv_per_gpu = kv
    unsupported = ""
    if not eligible:
        unsupported = "AWQ models need an NVIDIA GPU with compute capability 7.5 or newer (vLLM)"
        reasons.append(f"{unsupported}; this machine has none.")
    else:
        found = choose_gpus(target, profile, n_ctx=n_ctx)
        if found is not None:
            share, gpus = found
            chosen = [d for g in gpus for d in eligible if d.gpu is g]
            kv_per_gpu = share.kv_cache  # fewer KV heads than GPUs: each holds a copy
        if not chosen:
            reasons.append(
                f"The AWQ model needs {need / 1024**3:.1f} GiB of video memory, more than the "
                "GPUs can hold."
            )
    n = max(len(chosen), 1)
    vram = MemoryBreakdown(target.weights_bytes, kv_per_gpu * n, 0, cal.vllm_overhead_bytes * n)
    ram = MemoryBreakdown(0, 0, 0, cal.vllm_host_bytes)
    fits_ram = ram.total <= profile.memory.available_bytes
    if chosen and profile.unified_memory:
        fits_ram = ram.total + vram.total <= profile.memory.available_bytes
    verdict: Verdict = "gpu" if chosen and fits_ram else "no"
    if chosen and not fits_ram:
        reasons.append("The vLLM server process needs more RAM than is available.")
    max_ctx = 0
    if eligible:
        capacity = sum(d.capacity for d in (chosen or eligible[:1]))
        cells = fm.CTX_PAD  # one padded block of cells, divided back to bytes per token
        per_token = shape.range_bytes(cells, 0, arch.n_layers) // cells or 1
        room = capacity - target.weights_bytes - cal.vllm_overhead_bytes * n
        max_ctx = max(0, min(arch.n_ctx_train or (1 << 20), room // per_token))
    bandwidth = min((d.gpu.bandwidth_gbps or 0.0 for d in chosen), default=0.0) * n
    roof, expected = roofline(
        [Stage(target.weights_bytes, bandwidth or None, AWQ_EFFICIENCY)], GPU_TOKEN_OVERHEAD_S
    )
    per_gpu = tuple(vram.total // n for _ in chosen)
    past = past_trained_context(arch, n_ctx)
    if past:
        reasons.append(past)
    return FitResult(
        verdict=verdict,
        n_gpu_layers=arch.n_layers if chosen else 0,
        n_layers=arch.n_layers,
        n_ctx=n_ctx,
        cache_type=cache_type,
        ram=ram,
        vram=vram,
        ram_bytes=ram.total,
        vram_bytes=vram.total,
        max_ctx=int(max_ctx),
        best_n_gpu_layers=arch.n_layers if chosen else 0,
        tokens_per_s=expected,
        roofline_tokens_per_s=roof,
        reasons=tuple(reasons),
        prompt_tokens=used,
        ram_full_context_bytes=ram.total,
        gpu_vram_bytes=per_gpu,
        offload_output=bool(chosen),
        ram_available_bytes=profile.memory.available_bytes,
        vram_free_bytes=tuple(d.capacity for d in eligible),
        n_ctx_train=arch.n_ctx_train,
        unsupported=unsupported,
        **target_facts(target, disk),
    )
