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
    CacheType,
    FitResult,
    FitTarget,
    MemoryBreakdown,
    Verdict,
    past_trained_context,
)
from desktop.core.hardware import DiskInfo, HardwareProfile

AWQ_MIN_COMPUTE_CAPABILITY = (7, 5)


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
    """AWQ runs on NVIDIA GPUs (compute capability 7.5+) through vLLM: VRAM only."""
    cal = fm.CALIBRATION
    arch = target.arch
    eligible = [
        d
        for d in usable_gpus(profile)
        if d.gpu.vendor == "nvidia" and _cc_ok(d.gpu.compute_capability)
    ]
    if cache_type != "f16":
        reasons.append("vLLM keeps its own cache type; the AWQ estimate uses an f16 cache.")
    shape = fm.kv_shape(arch, "f16", swa_full=True)
    kv = shape.range_bytes(n_ctx, 0, arch.n_layers)
    need = target.weights_bytes + kv + cal.vllm_overhead_bytes
    chosen: list[Device] = []
    unsupported = ""
    if not eligible:
        unsupported = "AWQ models need an NVIDIA GPU with compute capability 7.5 or newer (vLLM)"
        reasons.append(f"{unsupported}; this machine has none.")
    else:
        by_free = sorted(eligible, key=lambda d: d.capacity, reverse=True)
        if need <= by_free[0].capacity:
            chosen = [by_free[0]]
        else:
            # Tensor parallel: an even share per GPU, over a power-of-two number of GPUs.
            n = 2
            while n <= len(by_free):
                share = target.weights_bytes // n + kv // n + cal.vllm_overhead_bytes
                if share <= by_free[n - 1].capacity:
                    chosen = by_free[:n]
                    break
                n *= 2
        if not chosen:
            reasons.append(
                f"The AWQ model needs {need / 1024**3:.1f} GiB of video memory, more than the "
                "GPUs can hold."
            )
    n = max(len(chosen), 1)
    vram = MemoryBreakdown(target.weights_bytes, kv, 0, cal.vllm_overhead_bytes * n)
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


def _cc_ok(capability: str | None) -> bool:
    if not capability:
        return False
    try:
        major, _, minor = capability.partition(".")
        return (int(major), int(minor or 0)) >= AWQ_MIN_COMPUTE_CAPABILITY
    except ValueError:
        return False
