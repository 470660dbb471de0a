"""Fit: will a model run here, where, with how much memory, how fast — predicted, then checked.

For a :class:`FitTarget` (a catalog variant, or the exact header of a file), a hardware profile,
a context length, an offload choice and a KV cache type, :func:`estimate` returns a
:class:`FitResult`: the verdict (GPU / partial N of M / CPU / no), RAM and VRAM split into
weights, KV cache, compute buffers and overhead, the largest context that fits, the expected
generation speed (a memory-bandwidth roofline with calibrated efficiency) and the load time.
:class:`CatalogEstimator` does the same for a whole catalog fast enough for a slider. Depends on
gguf (architecture and quant facts), catalog (variants) and hardware (profiles) only.
"""

from desktop.core.fit.crosscheck import TermGap, compare_terms, with_llama_buffers
from desktop.core.fit.estimator import default_context, estimate
from desktop.core.fit.table import FIT_OK, CatalogEstimator, FitRow
from desktop.core.fit.types import (
    CACHE_TYPES,
    DEFAULT_PROMPT_TOKENS,
    CacheType,
    FitResult,
    FitTarget,
    MemoryBreakdown,
    TargetFormat,
    Verdict,
    past_trained_context,
)

__all__ = [
    "CACHE_TYPES",
    "DEFAULT_PROMPT_TOKENS",
    "FIT_OK",
    "CacheType",
    "CatalogEstimator",
    "FitResult",
    "FitRow",
    "FitTarget",
    "MemoryBreakdown",
    "TargetFormat",
    "TermGap",
    "Verdict",
    "compare_terms",
    "default_context",
    "estimate",
    "past_trained_context",
    "with_llama_buffers",
]
