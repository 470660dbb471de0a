"""Fit: will a model run here, where, with how much memory, how fast — predicted, then checked.

For a :class:`FitTarget` (a catalog variant, or the exact header of a file), a hardware profile,
a context length, an offload choice and a KV cache type, :func:`estimate` returns a
:class:`FitResult`: the verdict (GPU / partial N of M / CPU / no), RAM and VRAM split into
weights, KV cache, compute buffers and overhead, the largest context that fits, the expected
generation speed (a memory-bandwidth roofline with calibrated efficiency) and the load time.
:class:`CatalogEstimator` does the same for a whole catalog fast enough for a slider. Depends on
gguf (architecture and quant facts), catalog (variants) and hardware (profiles) only.
:func:`estimate_split` splits a GGUF model's layers across this machine and llama.cpp RPC
servers (each described by its saved profile) and counts the network in the speed.
:func:`plan_vllm` turns an AWQ estimate into the ``vllm serve`` command that matches it, and
:func:`per_gpu_memory` gives what one GPU holds for a tensor/pipeline parallel size.
"""

from desktop.core.fit.calibration import (
    AppliedCalibration,
    CalibrationEntry,
    CalibrationStore,
    MachineCalibration,
    apply_calibration,
    calibrates,
    calibration_for,
    compute_calibration,
    device_of,
    machine_fingerprint,
    record_bench,
    record_run,
    with_calibration,
)
from desktop.core.fit.calibration_review import (
    CalibrationReview,
    ReviewedRun,
    reset_calibration,
    review_calibration,
    undo_last_run,
)
from desktop.core.fit.crosscheck import TermGap, compare_terms, with_llama_buffers
from desktop.core.fit.estimator import default_context, estimate
from desktop.core.fit.split import Holder, Link, RpcBox, SplitResult, estimate_split
from desktop.core.fit.table import FIT_OK, CatalogEstimator, FitRow, download_size
from desktop.core.fit.types import (
    DEFAULT_PROMPT_TOKENS,
    FitResult,
    FitTarget,
    MemoryBreakdown,
    TargetFormat,
    Verdict,
    need_decimals,
    past_trained_context,
)
from desktop.core.fit.vllm import (
    GpuShare,
    VllmPlan,
    capable_gpus,
    per_gpu_memory,
    plan_vllm,
    what_if_plan,
)

__all__ = [
    "DEFAULT_PROMPT_TOKENS",
    "FIT_OK",
    "AppliedCalibration",
    "CalibrationEntry",
    "CalibrationReview",
    "CalibrationStore",
    "CatalogEstimator",
    "FitResult",
    "FitRow",
    "FitTarget",
    "GpuShare",
    "Holder",
    "Link",
    "MachineCalibration",
    "MemoryBreakdown",
    "ReviewedRun",
    "RpcBox",
    "SplitResult",
    "TargetFormat",
    "TermGap",
    "Verdict",
    "VllmPlan",
    "apply_calibration",
    "calibrates",
    "calibration_for",
    "capable_gpus",
    "compare_terms",
    "compute_calibration",
    "default_context",
    "device_of",
    "download_size",
    "estimate",
    "estimate_split",
    "machine_fingerprint",
    "need_decimals",
    "past_trained_context",
    "per_gpu_memory",
    "plan_vllm",
    "record_bench",
    "record_run",
    "reset_calibration",
    "review_calibration",
    "undo_last_run",
    "what_if_plan",
    "with_calibration",
    "with_llama_buffers",
]
