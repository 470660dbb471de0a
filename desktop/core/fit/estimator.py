"""Fit estimator: will a model run here, where, how much memory, how fast.

For a target (a catalog variant or a local GGUF), a hardware profile, a context length, an
optional offload choice and a KV cache type, :func:`estimate` returns a verdict (``gpu``: fully
offloaded, ``partial``: ``n_gpu_layers`` of ``n_layers`` on the GPU, ``cpu``, ``no``), predicted
RAM and VRAM split into weights, KV cache, compute buffers and runtime overhead, the largest
context that fits, expected generation tokens/s (a memory-bandwidth roofline times an
efficiency factor), the load time and whether the download fits on disk.

The prediction describes a llama-cpp-python process with the engine's defaults (n_batch and
n_ubatch 512, flash attention off, mmap on, threads = physical cores). On the CPU, ``ram_bytes``
is the predicted peak RSS of a run with ``prompt_tokens`` tokens of context in use (default: a
short chat turn), mapped file pages included; with GPU layers it is the host memory the process
keeps (the mapped pages of offloaded layers are page cache the kernel can drop). The verdict and
``max_ctx`` use ``ram_full_context_bytes``: what must fit when the whole context is in use and the
reserved compute buffer is resident, without droppable page cache. Formulas live in
:mod:`desktop.core.fit.memory`, :mod:`desktop.core.fit.place` and :mod:`desktop.core.fit.speed`.
"""

from __future__ import annotations

from pathlib import Path

from desktop.core.errors import FitError
from desktop.core.fit import memory as fm
from desktop.core.fit.awq import estimate_awq
from desktop.core.fit.place import (
    Placement,
    Setup,
    best_placement,
    fit_flags,
    fits_at,
    make_setup,
    place,
    stages,
)
from desktop.core.fit.speed import (
    CPU_LAYER_OVERHEAD_S,
    GPU_LAYER_OVERHEAD_S,
    TargetFacts,
    models_disk,
    roofline,
    target_facts,
    with_threads,
)
from desktop.core.fit.types import (
    DEFAULT_PROMPT_TOKENS,
    FitResult,
    FitTarget,
    Verdict,
    need_of,
    past_trained_context,
)
from desktop.core.gguf import ModelArch
from desktop.core.hardware import DiskInfo, HardwareProfile
from desktop.core.kv_cache import CACHE_TYPES, CacheType, flash_attn_for


def estimate(
    target: FitTarget,
    profile: HardwareProfile,
    *,
    n_ctx: int,
    n_gpu_layers: int | None = None,
    cache_type: CacheType = "f16",
    models_dir: Path | None = None,
    prompt_tokens: int | None = None,
    flash_attn: bool | None = None,
    swa_full: bool = True,
    n_threads: int | None = None,
) -> FitResult:
    """Predict memory, placement and speed of ``target`` on ``profile``.

    ``n_gpu_layers``: None chooses the best; -1 (or more than the model has) offloads all
    layers and the output layer; 0 keeps everything on the CPU. ``prompt_tokens`` is the context
    a run will use (prompt plus generated tokens) for ``ram_bytes``; the verdict always assumes
    the whole context may be used. ``flash_attn`` defaults to the engine's choice: off, on for
    a quantized cache (llama.cpp needs it for a quantized V cache). ``n_threads``: the CPU
    threads of the run (None: one per physical core), which share the CPU's bandwidth.
    """
    estimator = TargetEstimator(
        target,
        with_threads(profile, n_threads),
        cache_type=cache_type,
        models_dir=models_dir,
        flash_attn=flash_attn,
        swa_full=swa_full,
    )
    return estimator.estimate(n_ctx, n_gpu_layers=n_gpu_layers, prompt_tokens=prompt_tokens)


class TargetEstimator:
    """:func:`estimate` for one target, profile, cache type and models folder, at any context.

    The work that does not depend on the context (the placement's prefix sums, the disk facts,
    and for ``n_gpu_layers=None`` the largest context that fits, a search of dozens of
    placements) is done on the first call and kept, so later calls, e.g. one per move of a
    context slider, cost a few placements. Results equal :func:`estimate`'s with the same
    arguments (which is this class, used once). Safe to share between threads: the kept values
    are the same whoever computes them first.
    """

    def __init__(
        self,
        target: FitTarget,
        profile: HardwareProfile,
        *,
        cache_type: CacheType = "f16",
        models_dir: Path | None = None,
        flash_attn: bool | None = None,
        swa_full: bool = True,
    ) -> None:
        self.target = target
        self.profile = profile
        self.cache_type = cache_type
        self.models_dir = models_dir
        self.flash_attn = flash_attn
        self.swa_full = swa_full
        self._disk: tuple[DiskInfo | None] | None = None
        self._facts: TargetFacts | None = None
        self._setups: dict[int, Setup] = {}  # by prompt tokens
        self._best_max_ctx: dict[int, int] = {}  # by prompt tokens, for n_gpu_layers None
        self._at_max_ctx: dict[int, Placement] = {}  # best_placement at that max_ctx

    def estimate(
        self, n_ctx: int, *, n_gpu_layers: int | None = None, prompt_tokens: int | None = None
    ) -> FitResult:
        """:func:`estimate` at ``n_ctx`` (arguments as there)."""
        target, profile, cache_type = self.target, self.profile, self.cache_type
        if n_ctx < 1:
            raise FitError(f"The context length must be at least 1, not {n_ctx}.")
        if cache_type not in CACHE_TYPES:
            raise FitError(f"Unknown KV cache type {cache_type!r}; use {', '.join(CACHE_TYPES)}.")
        if n_gpu_layers is not None and n_gpu_layers < -1:
            raise FitError(f"n_gpu_layers must be -1 or more, not {n_gpu_layers}.")
        if target.arch.n_layers < 1:
            raise FitError(f"{target.label} has no layers to place.")
        used = DEFAULT_PROMPT_TOKENS if prompt_tokens is None else max(1, prompt_tokens)
        used = min(used, fm.padded_ctx(n_ctx))
        fa = flash_attn_for(self.flash_attn, cache_type)
        reasons: list[str] = []
        disk = self._models_disk()
        if target.format == "awq":
            return estimate_awq(
                target,
                profile,
                n_ctx=n_ctx,
                cache_type=cache_type,
                used=used,
                disk=disk,
                reasons=reasons,
            )

        setup = self._setup(used, fa)
        devices = setup.devices
        n_layers = target.arch.n_layers
        if n_gpu_layers is None:
            placement = best_placement(setup, n_ctx)
        else:
            if n_gpu_layers != 0 and not devices:
                reasons.append("This machine has no usable GPU, so every layer stays on the CPU.")
            full = n_gpu_layers == -1 or n_gpu_layers > n_layers
            placement = place(setup, n_ctx, n_layers if full else n_gpu_layers, full)
        best = placement if n_gpu_layers is None else best_placement(setup, n_ctx)

        verdict = _verdict(placement, n_layers)
        reasons.extend(_explain(setup, placement, verdict, asked=n_gpu_layers is not None))
        if n_gpu_layers is not None and best.n_gpu_layers > placement.n_gpu_layers:
            more = "all" if best.n_gpu_layers == n_layers else "up to"
            reasons.append(
                f"You asked for {placement.n_gpu_layers} GPU layers; {more} "
                f"{best.n_gpu_layers} of {n_layers} would fit."
            )
        past = past_trained_context(target.arch, n_ctx)
        if past:
            reasons.append(past)
        if n_gpu_layers is None:
            max_ctx = self._best_max_ctx.get(used)
            if max_ctx is None:
                max_ctx = self._best_max_ctx[used] = _max_ctx(setup, None, placement)
        else:
            max_ctx = _max_ctx(setup, n_gpu_layers, placement)
        if n_gpu_layers is None and setup.devices and max_ctx > n_ctx:
            at_max = self._at_max_ctx.get(used)
            if at_max is None:
                at_max = self._at_max_ctx[used] = best_placement(setup, max_ctx)
            if at_max.n_gpu_layers < placement.n_gpu_layers:
                reasons.append(
                    f"The largest context, {max_ctx} tokens, fits with {at_max.n_gpu_layers} of "
                    f"{n_layers} layers on the GPU."
                )
        overhead = (n_layers - placement.n_gpu_layers) * CPU_LAYER_OVERHEAD_S
        overhead += placement.n_gpu_layers * GPU_LAYER_OVERHEAD_S
        roof, expected = roofline(stages(setup, placement), overhead)
        if roof is None:
            reasons.append("The memory bandwidth is unknown, so no speed is predicted.")
        return FitResult(
            verdict=verdict,
            n_gpu_layers=placement.n_gpu_layers,
            n_layers=n_layers,
            n_ctx=n_ctx,
            cache_type=cache_type,
            ram=placement.ram,
            vram=placement.vram,
            ram_bytes=placement.ram.total,
            vram_bytes=placement.vram.total,
            max_ctx=max_ctx,
            best_n_gpu_layers=best.n_gpu_layers,
            tokens_per_s=expected,
            roofline_tokens_per_s=roof,
            reasons=tuple(reasons),
            prompt_tokens=used,
            ram_full_context_bytes=placement.ram_full,
            compute_reserved_bytes=placement.compute_reserved,
            gpu_vram_bytes=placement.per_gpu,
            offload_output=placement.offload_output,
            flash_attn=fa,
            ram_available_bytes=setup.ram_available,
            vram_free_bytes=tuple(d.capacity for d in devices),
            n_ctx_train=target.arch.n_ctx_train,
            page_cache_bytes=_page_cache(setup, placement),
            unified_memory=setup.unified,
            **self._target_facts(disk),
        )

    def _models_disk(self) -> DiskInfo | None:
        if self._disk is None:
            self._disk = (models_disk(self.profile, self.models_dir),)
        return self._disk[0]

    def _target_facts(self, disk: DiskInfo | None) -> TargetFacts:
        if self._facts is None:
            self._facts = target_facts(self.target, disk)
        return self._facts

    def _setup(self, used: int, flash_attn: bool) -> Setup:
        # flash_attn follows from the cache type and the constructor's choice: fixed here.
        setup = self._setups.get(used)
        if setup is None:
            setup = self._setups[used] = make_setup(
                self.target,
                self.profile,
                self.cache_type,
                flash_attn=flash_attn,
                swa_full=self.swa_full,
                prompt_tokens=used,
            )
        return setup


def default_context(arch: ModelArch, wanted: int) -> int:
    """The context to estimate with when none is asked for: the setting (``wanted``), at most
    the model's trained length."""
    trained = arch.n_ctx_train
    return min(wanted, trained) if trained > 0 else wanted


def _page_cache(setup: Setup, placement: Placement) -> int:
    """The part of the predicted RAM that is clean page cache of the mapped file, which the
    kernel can drop under pressure: on the CPU, what the weights term holds beyond the file's
    tensor data (pages of tensors whose repacked copies are in use, and the load's peak)."""
    if placement.n_gpu_layers:
        return 0
    lay = setup.layout
    return max(0, placement.ram.weights - (lay.file_bytes - lay.header_bytes))


def _verdict(placement: Placement, n_layers: int) -> Verdict:
    if not placement.fits:
        return "no"
    if placement.n_gpu_layers == 0:
        return "cpu"
    if placement.n_gpu_layers == n_layers and placement.offload_output:
        return "gpu"
    return "partial"


def _explain(setup: Setup, placement: Placement, verdict: Verdict, *, asked: bool) -> list[str]:
    """Why the verdict; ``asked``: the GPU layers are the caller's choice, not what fits."""
    out: list[str] = []
    gib = 1024**3
    if not placement.fits_vram:
        out.append(
            f"The GPU layers need {placement.vram.total / gib:.1f} GiB of video memory, more "
            f"than the {sum(d.capacity for d in setup.devices) / gib:.1f} GiB free."
        )
    if not placement.fits_ram:
        need, what = placement.ram_full, "more RAM than is free"
        if setup.unified and placement.n_gpu_layers:
            need += placement.vram.total
            what = "more of the shared memory pool (GPU and CPU together) than is free"
        out.append(
            f"With the whole context in use it needs {what}: {need_of(need, setup.ram_available)}."
        )
    n_layers = setup.target.arch.n_layers
    if verdict == "partial" and placement.n_gpu_layers == n_layers:
        out.append(
            f"All {n_layers} layers fit on the GPU but the output layer stays on the CPU "
            f"(n_gpu_layers {n_layers}, not -1)."
        )
    elif verdict == "partial" and asked:
        out.append(
            f"{placement.n_gpu_layers} of {n_layers} layers on the GPU, as asked; the rest run "
            "on the CPU."
        )
    elif verdict == "partial":
        out.append(
            f"{placement.n_gpu_layers} of {n_layers} layers fit on the GPU; the rest run on "
            "the CPU."
        )
    if setup.swa_full and setup.target.arch.sliding_window and any(setup.target.arch.swa_layers):
        out.append(
            "Sliding-window layers get a full-size cache (llama.cpp's default, which "
            "llama-cpp-python keeps)."
        )
    return out


def _max_ctx(setup: Setup, n_gpu_layers: int | None, placement: Placement) -> int:
    """Largest context (a multiple of 256, at most the trained length) that fits."""
    arch = setup.target.arch
    cap = arch.n_ctx_train if arch.n_ctx_train > 0 else 1 << 20

    def fits(ctx: int) -> bool:
        if n_gpu_layers is None:
            return fits_at(setup, ctx)
        return all(fit_flags(setup, ctx, placement.n_gpu_layers, placement.offload_output))

    step = fm.CTX_PAD
    if cap < step:
        return cap if fits(cap) else 0
    lo, hi = 0, cap // step
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid * step):
            lo = mid
        else:
            hi = mid - 1
    if lo == cap // step and cap % step and fits(cap):
        return cap
    return lo * step
