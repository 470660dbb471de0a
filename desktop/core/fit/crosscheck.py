"""The estimate beside llama.cpp's own projection of the same load (issue 13).

When the file is on this machine, llama.cpp can say what it would allocate (a ``no_alloc`` dry
run, :func:`desktop.core.engine.dryrun.dry_run`). The estimator stays pure: this module takes
llama.cpp's figures as plain numbers, lines them up with the estimate's terms
(:func:`compare_terms`) and puts llama.cpp's KV cache and compute buffers in place of the
modelled ones (:func:`with_llama_buffers`). Weights stay ours: llama.cpp counts tensor bytes,
the estimate counts what stays resident of a mapped file (page cache, repacked copies).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from desktop.core.fit import memory as fm
from desktop.core.fit.types import FitResult, FitTarget
from desktop.core.hardware import HardwareProfile


@dataclass(frozen=True)
class TermGap:
    """One memory term: the estimate's bytes, llama.cpp's (None: it did not say), the gap."""

    term: str  # weights | repacked | kv_cache | compute
    ours: int
    llama_cpp: int | None

    @property
    def gap_bytes(self) -> int | None:
        return None if self.llama_cpp is None else self.ours - self.llama_cpp

    @property
    def gap_pct(self) -> float | None:
        """(ours - llama.cpp) / llama.cpp in percent; None when either is unknown or zero."""
        if not self.llama_cpp:
            return None
        return 100.0 * (self.ours - self.llama_cpp) / self.llama_cpp

    def to_dict(self) -> dict[str, object]:
        pct = self.gap_pct
        return {
            "ours_bytes": self.ours,
            "llama_cpp_bytes": self.llama_cpp,
            "gap_bytes": self.gap_bytes,
            "gap_pct": None if pct is None else round(pct, 3),
        }


def our_compute_bytes(result: FitResult) -> int:
    """The compute buffers the estimate reserves: one per GPU holding layers, and the host's
    when layers stay on the CPU (its small staging buffers otherwise)."""
    if result.n_gpu_layers == 0:
        return result.compute_reserved_bytes
    host = result.compute_reserved_bytes if result.n_gpu_layers < result.n_layers else 0
    return result.vram.compute + (host or result.ram.compute)


def compare_terms(
    result: FitResult,
    target: FitTarget,
    profile: HardwareProfile,
    *,
    model_bytes: int | None,
    repack_bytes: int | None,
    kv_bytes: int | None,
    compute_bytes: int | None,
) -> tuple[TermGap, ...]:
    """The estimate's terms beside llama.cpp's: tensor bytes, the CPU's repacked copies, the
    whole KV cache and the reserved compute buffers (all devices together)."""
    family = fm.cpu_family(profile.cpu.arch, profile.cpu.flags)
    repacked = fm.repacked_bytes(target.weight_types, family) if result.n_gpu_layers == 0 else 0
    return (
        TermGap("weights", target.weights_bytes, model_bytes),
        TermGap("repacked", repacked, repack_bytes),
        TermGap("kv_cache", result.ram.kv_cache + result.vram.kv_cache, kv_bytes),
        TermGap("compute", our_compute_bytes(result), compute_bytes),
    )


def with_llama_buffers(
    result: FitResult,
    *,
    host_kv: int | None,
    device_kv: int | None,
    host_compute: int | None,
    device_compute: int | None,
) -> FitResult:
    """``result`` with llama.cpp's KV cache and compute buffers in place of the modelled ones
    (None keeps ours). RAM and VRAM totals, what must fit with the whole context in use and,
    for a CPU-only load, the verdict follow; the speed and the largest context stay modelled."""
    ram, vram = result.ram, result.vram
    ram_full = result.ram_full_context_bytes
    reserved = result.compute_reserved_bytes
    cpu_only = result.n_gpu_layers == 0
    if host_kv is not None:
        ram_full += host_kv - ram.kv_cache
        ram = replace(ram, kv_cache=host_kv)
    if device_kv is not None and not cpu_only:
        vram = replace(vram, kv_cache=device_kv)
    if host_compute is not None and (cpu_only or result.n_gpu_layers < result.n_layers):
        # The host reserves a whole compute buffer when it computes layers; a run touches part
        # of it (the RAM term), never more than all of it.
        ram_full += host_compute - reserved
        ram = replace(ram, compute=min(ram.compute, host_compute))
        if cpu_only:
            reserved = host_compute
    if device_compute is not None and not cpu_only:
        vram = replace(vram, compute=device_compute)
        reserved = device_compute
    vram_delta = vram.total - result.vram.total
    gpu_vram = result.gpu_vram_bytes
    if vram_delta and len(gpu_vram) == 1:
        gpu_vram = (gpu_vram[0] + vram_delta,)
    verdict = result.verdict
    if cpu_only and verdict in ("cpu", "no"):
        verdict = "cpu" if ram_full <= result.ram_available_bytes else "no"
    reasons = (
        *result.reasons,
        "The KV cache and compute buffers are llama.cpp's own projection for this file "
        "(a dry run that allocated nothing).",
    )
    return replace(
        result,
        verdict=verdict,
        ram=ram,
        vram=vram,
        ram_bytes=result.ram_bytes + ram.total - result.ram.total,
        vram_bytes=result.vram_bytes + vram_delta,
        ram_full_context_bytes=ram_full,
        compute_reserved_bytes=reserved,
        gpu_vram_bytes=gpu_vram,
        reasons=reasons,
    )
