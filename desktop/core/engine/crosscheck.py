"""llama.cpp's own projection beside the fit estimate, for one file on this machine.

llama.cpp loads the model and a context with ``no_alloc`` in a fresh worker (:func:`dry_run`:
seconds, nothing allocated) and says the buffers it would allocate; :func:`cross_check` sets
them beside the estimate's terms (weights, repacked copies, KV cache, compute buffers) with the
gaps, and gives the estimate with llama.cpp's KV cache and compute buffers in place of the
modelled ones. ``llm-scout fit FILE --dry-run`` and the window's Models page both use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.engine.dryrun import DryRun, dry_run
from desktop.core.fit import FitResult, FitTarget, TermGap, compare_terms, with_llama_buffers
from desktop.core.hardware import HardwareProfile


@dataclass(frozen=True)
class CrossCheck:
    projection: DryRun
    terms: tuple[TermGap, ...]
    result: FitResult  # the estimate with llama.cpp's KV cache and compute buffers

    def to_dict(self) -> dict[str, Any]:
        document = self.projection.to_dict()
        document["terms"] = {t.term: t.to_dict() for t in self.terms}
        document["replaced"] = ["kv_cache", "compute"]
        return document


def cross_check(
    path: Path,
    target: FitTarget,
    profile: HardwareProfile,
    result: FitResult,
    *,
    n_threads: int | None = None,
) -> CrossCheck:
    """Ask llama.cpp about the load ``result`` describes (its context, GPU layers, cache type
    and flash attention) of the GGUF file ``path`` on this machine (``profile`` is its probe).
    Raises :class:`~desktop.core.engine.dryrun.DryRunError` with one sentence."""
    n_gpu_layers = -1 if result.offload_output else result.n_gpu_layers
    projection = dry_run(
        path,
        n_ctx=result.n_ctx,
        n_gpu_layers=n_gpu_layers,
        cache_type=result.cache_type,
        flash_attn=result.flash_attn,
        n_threads=n_threads,
    )
    terms = compare_terms(
        result,
        target,
        profile,
        model_bytes=projection.model_bytes,
        repack_bytes=projection.repack_bytes,
        kv_bytes=projection.kv_bytes,
        compute_bytes=projection.compute_bytes,
    )
    combined = with_llama_buffers(
        result,
        host_kv=projection.host_kv_bytes,
        device_kv=projection.device_kv_bytes,
        host_compute=projection.host_compute_bytes,
        device_compute=projection.device_compute_bytes,
    )
    return CrossCheck(projection, terms, combined)
