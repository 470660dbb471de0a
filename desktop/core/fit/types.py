"""Value types of the fit estimator: targets, memory breakdowns and results.

Import them from :mod:`desktop.core.fit`, which re-exports everything public.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from desktop.core.catalog import CatalogModel, Variant
from desktop.core.errors import FitError
from desktop.core.gguf import (
    QUANT_BITS,
    GGUFInfo,
    ModelArch,
    QuantLayout,
    TokenizerFacts,
    guess_tokenizer,
    quant_layout,
    tokenizer_facts,
)
from desktop.core.kv_cache import CacheType

Verdict = Literal["gpu", "partial", "cpu", "no"]
TargetFormat = Literal["gguf", "awq"]

EDGE_RUN = 16
DEFAULT_PROMPT_TOKENS = 128


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes of one memory pool, by what uses them."""

    weights: int = 0
    kv_cache: int = 0
    compute: int = 0
    overhead: int = 0

    @property
    def total(self) -> int:
        return self.weights + self.kv_cache + self.compute + self.overhead

    def __add__(self, other: MemoryBreakdown) -> MemoryBreakdown:
        return MemoryBreakdown(
            self.weights + other.weights,
            self.kv_cache + other.kv_cache,
            self.compute + other.compute,
            self.overhead + other.overhead,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "weights": self.weights,
            "kv_cache": self.kv_cache,
            "compute": self.compute,
            "overhead": self.overhead,
            "total": self.total,
        }


@dataclass(frozen=True)
class FitTarget:
    """What the estimator needs to know about a model file (or a variant not downloaded yet).

    ``layer_bytes``: tensor bytes per repeating block; ``non_layer_bytes``: token embeddings,
    output matrix and norms. For a catalog variant they come from its shapes and llama.cpp's
    type choice for the quant mix (:func:`~desktop.core.gguf.quant_layout`); both are None only
    when the quant is unknown (the estimator then spreads a size over the layers).
    ``file_bytes`` counts the header too. ``weight_types``: (ggml type name, bytes, row
    multiple 8/4/1) of the matrices inside the blocks and the output matrix, which decides what
    llama.cpp's CPU backend repacks. ``tokenizer``: the tokenizer arrays of the header (read,
    or the family's for a catalog variant), whose tables take memory; ``n_tensors`` sizes the
    graph llama.cpp reserves.
    """

    label: str
    format: TargetFormat
    quant: str | None
    arch: ModelArch
    weights_bytes: int
    layer_bytes: tuple[int, ...] | None
    non_layer_bytes: int | None
    file_bytes: int | None
    token_embd_bytes: int | None = None
    output_bytes: int | None = None  # 0 when the output matrix is tied to the embeddings
    expert_bytes: int = 0  # MoE expert tensors (only n_expert_used of n_expert read per token)
    weight_types: tuple[tuple[str, int, int], ...] = ()
    # Tensors at the start and the end of the data, outermost first, as (type name, row
    # multiple, bytes); "" for tensors the CPU never multiplies with. llama.cpp unmaps the file
    # ends that no mapped tensor uses (the header, and repacked tensors at either end).
    head_run: tuple[tuple[str, int, int], ...] = ()
    tail_run: tuple[tuple[str, int, int], ...] = ()
    download_bytes: int | None = None  # what a download would write (None: local file)
    path: str | None = None
    tokenizer: TokenizerFacts | None = None
    n_tensors: int | None = None
    variant: Variant | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_gguf(cls, info: GGUFInfo) -> FitTarget:
        """Exact numbers from a GGUF header (local file or remote header)."""
        token_embd = 0
        output: int | None = None
        experts = 0
        types: dict[tuple[str, int], int] = {}
        for tensor in info.tensors:
            name = tensor.name
            if name == "token_embd.weight":
                token_embd = tensor.n_bytes
            elif name == "output.weight":
                output = tensor.n_bytes
            if name.startswith("blk.") and "_exps" in name:
                experts += tensor.n_bytes
            type_name, multiple, n_bytes = _edge_entry(
                name, tensor.type_name, tensor.shape, tensor.n_bytes
            )
            if type_name:
                key = (type_name, multiple)
                types[key] = types.get(key, 0) + n_bytes
        ordered = sorted(info.tensors, key=lambda t: (t.part, t.offset))
        edge = [_edge_entry(t.name, t.type_name, t.shape, t.n_bytes) for t in ordered]
        return cls(
            label=info.name or Path(info.source).name,
            format="gguf",
            quant=info.quant,
            arch=info.arch,
            weights_bytes=info.tensor_bytes,
            layer_bytes=tuple(info.layer_tensor_bytes),
            non_layer_bytes=info.non_layer_tensor_bytes,
            file_bytes=info.file_size,
            token_embd_bytes=token_embd,
            output_bytes=0 if output is None else output,
            expert_bytes=experts,
            weight_types=tuple(sorted((t, b, m) for (t, m), b in types.items())),
            head_run=tuple(edge[:EDGE_RUN]),
            tail_run=tuple(reversed(edge[-EDGE_RUN:])),
            download_bytes=None,
            path=str(info.source),
            tokenizer=tokenizer_facts(info.metadata),
            n_tensors=len(info.tensors),
        )

    @classmethod
    def from_variant(cls, model: CatalogModel, variant: Variant) -> FitTarget:
        """Estimated numbers for a catalog variant, from its shapes (see :meth:`_build`).

        Kept per (model, variant): both are immutable values and the shapes of a large catalog
        take tens of milliseconds of Python each time, which a library change would otherwise
        pay again on a pool thread while the window draws.
        """
        return _variant_target(model, variant)

    @classmethod
    def _build(cls, model: CatalogModel, variant: Variant) -> FitTarget:
        """Estimated numbers for a catalog variant, from its shapes.

        The tensors the architecture holds get the types llama.cpp's quantizer gives them for
        the variant's quant mix, so the weights, per-layer bytes, embeddings, output matrix and
        repacked types follow the real file's; the file size is those tensors plus an estimated
        header. A size the catalog verified against the Hub is the download size (and the file
        the disk check and the load time count); an unverified catalog size is not used. AWQ
        variants and unknown quants fall back to the catalog size, else params x bits/weight.
        """
        arch = model.arch
        quant = variant.quant.upper()
        layout: QuantLayout | None = None
        if variant.format == "gguf":
            try:
                layout = quant_layout(arch, quant)
            except ValueError:
                layout = None
        if layout is not None:
            return cls._from_layout(variant, arch, layout)
        size = variant.size_bytes
        bits = QUANT_BITS.get(quant)
        if size is None:
            if bits is None:
                raise FitError(
                    f"The size of {variant.id} is unknown and {variant.quant} has no known "
                    "bits per weight."
                )
            size = int(model.n_params * bits / 8)
        if variant.format == "awq":
            return cls(
                label=variant.id,
                format="awq",
                quant=variant.quant,
                arch=arch,
                weights_bytes=size,
                layer_bytes=None,
                non_layer_bytes=None,
                file_bytes=size,
                download_bytes=size,
                variant=variant,
            )
        embd_bits = 8.5 if (bits or 0) < 8.5 else bits or 16.0
        token_embd = int(arch.n_vocab * arch.n_embd * embd_bits / 8)
        output = token_embd if arch.extra.get("tied_embeddings") is False else 0
        non_layer = min(size // 2, token_embd + output)
        layer_total = size - non_layer
        per_layer = layer_total // max(arch.n_layers, 1)
        experts = 0
        if arch.is_moe:
            # Size the expert share so that reading the dense part and n_expert_used of n_expert
            # experts matches the active parameter count; else assume experts are 90% of blocks.
            active = arch.extra.get("n_params_active")
            used = arch.n_expert_used / arch.n_expert
            if isinstance(active, int) and 0 < active < arch.n_params and used < 1:
                share = (1 - active / arch.n_params) / (1 - used)
                experts = int(layer_total * min(share, 1.0))
            else:
                experts = int(layer_total * 0.9)
        return cls(
            label=variant.id,
            format="gguf",
            quant=variant.quant,
            arch=arch,
            weights_bytes=size,
            layer_bytes=(per_layer,) * arch.n_layers,
            non_layer_bytes=non_layer,
            file_bytes=size,
            token_embd_bytes=token_embd,
            output_bytes=output,
            expert_bytes=experts,
            download_bytes=size,
            variant=variant,
            tokenizer=guess_tokenizer(arch),
        )

    @classmethod
    def _from_layout(cls, variant: Variant, arch: ModelArch, layout: QuantLayout) -> FitTarget:
        types: dict[tuple[str, int], int] = {}
        edge: list[tuple[str, int, int]] = []
        for tensor in layout.tensors:
            entry = _edge_entry(tensor.name, tensor.type_name, tensor.shape, tensor.n_bytes)
            edge.append(entry)
            type_name, multiple, n_bytes = entry
            if type_name:
                types[(type_name, multiple)] = types.get((type_name, multiple), 0) + n_bytes
        size = layout.file_bytes
        if variant.verified and variant.size_bytes:
            size = variant.size_bytes
        return cls(
            label=variant.id,
            format="gguf",
            quant=variant.quant,
            arch=arch,
            weights_bytes=layout.tensor_bytes,
            layer_bytes=layout.layer_bytes,
            non_layer_bytes=layout.non_layer_bytes,
            file_bytes=size,
            token_embd_bytes=layout.bytes_of("token_embd.weight"),
            output_bytes=layout.bytes_of("output.weight"),
            expert_bytes=layout.expert_bytes,
            weight_types=tuple(sorted((t, b, m) for (t, m), b in types.items())),
            head_run=tuple(edge[:EDGE_RUN]),
            tail_run=tuple(reversed(edge[-EDGE_RUN:])),
            download_bytes=size,
            variant=variant,
            tokenizer=guess_tokenizer(arch),
            n_tensors=len(layout.tensors),
        )

    def layers(self) -> tuple[int, ...]:
        if self.layer_bytes is not None and len(self.layer_bytes) == self.arch.n_layers:
            return self.layer_bytes
        non_layer = self.non_layer_bytes or 0
        per = max(self.weights_bytes - non_layer, 0) // max(self.arch.n_layers, 1)
        return (per,) * self.arch.n_layers

    def embd_bytes(self) -> int:
        if self.token_embd_bytes is not None:
            return self.token_embd_bytes
        return self.non_layer_bytes or 0

    def out_bytes(self) -> int:
        """Bytes of the output projection read per token (the embeddings when tied)."""
        if self.output_bytes:
            return self.output_bytes
        return self.embd_bytes()

    def header_bytes(self) -> int:
        if self.file_bytes is None:
            return 0
        return max(self.file_bytes - self.weights_bytes, 0)


@dataclass(frozen=True)
class FitResult:
    """One estimate. Bytes are exact integers; speeds and times are None when unknown.

    - ``verdict``: ``gpu`` (every layer and the output layer offloaded), ``partial``
      (``n_gpu_layers`` of ``n_layers`` on GPUs), ``cpu`` or ``no``.
    - ``ram``/``vram``: the breakdowns behind ``ram_bytes``/``vram_bytes`` (see the
      :mod:`desktop.core.fit.estimator` docstring for what RAM means on CPU and with GPU layers).
    - ``ram_full_context_bytes``: what must fit in RAM with the whole context in use; the
      verdict and ``max_ctx`` use it. ``compute_reserved_bytes``: llama.cpp's compute buffer.
    - ``best_n_gpu_layers``: what ``n_gpu_layers=None`` would choose; ``offload_output``: pass
      -1 to llama.cpp (``to_dict()["llama_n_gpu_layers"]``) to offload the output layer too.
    - ``reasons``: plain sentences explaining the verdict and the assumptions behind it.
    - ``n_ctx_train``: the context the model was trained on (0 unknown);
      ``past_trained_ctx`` says the asked context is longer (:func:`past_trained_context`).
    """

    verdict: Verdict
    n_gpu_layers: int
    n_layers: int
    n_ctx: int
    cache_type: CacheType
    ram: MemoryBreakdown
    vram: MemoryBreakdown
    ram_bytes: int
    vram_bytes: int
    max_ctx: int
    best_n_gpu_layers: int
    tokens_per_s: float | None
    roofline_tokens_per_s: float | None
    load_seconds: float | None
    download_bytes: int | None
    fits_disk: bool | None
    reasons: tuple[str, ...]
    label: str = ""
    format: TargetFormat = "gguf"
    quant: str | None = None
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS
    ram_full_context_bytes: int = 0
    compute_reserved_bytes: int = 0
    gpu_vram_bytes: tuple[int, ...] = ()
    offload_output: bool = False
    flash_attn: bool = False
    ram_available_bytes: int = 0
    vram_free_bytes: tuple[int, ...] = ()
    n_ctx_train: int = 0
    page_cache_bytes: int = 0
    unsupported: str = ""  # why this machine cannot run the format at all ("" when it can)
    unified_memory: bool = False  # GPU and CPU share one pool (Apple, Jetson)

    @property
    def past_trained_ctx(self) -> bool:
        return 0 < self.n_ctx_train < self.n_ctx

    @property
    def resident_ram(self) -> MemoryBreakdown:
        """The RAM breakdown without the page cache: the mapped model pages the OS can drop
        are counted in the peak RSS (``ram``), not in what must stay resident."""
        if not self.page_cache_bytes:
            return self.ram
        return MemoryBreakdown(
            max(0, self.ram.weights - self.page_cache_bytes),
            self.ram.kv_cache,
            self.ram.compute,
            self.ram.overhead,
        )

    @property
    def need_ram(self) -> MemoryBreakdown:
        """The RAM the verdict rests on, by part: what must stay resident with the whole context
        in use (``ram_full_context_bytes``, its total), without the droppable page cache. It is
        the resident breakdown with the compute buffer llama.cpp reserves, of which a short
        run touches only part."""
        resident = self.resident_ram
        extra = self.ram_full_context_bytes - resident.total
        if not self.ram_full_context_bytes or not extra:
            return resident
        compute = max(0, resident.compute + extra)
        overhead = resident.overhead + min(0, resident.compute + extra)
        return replace(resident, compute=compute, overhead=max(0, overhead))

    @property
    def must_fit_bytes(self) -> int:
        """Everything the run needs with the whole context in use, RAM and video memory
        together, without the page cache the system can drop: the figure the verdict rests on
        and the one "memory" figure of a variant (the Models page's column and bars, ``fit``,
        ``catalog --json``, ``recommend``)."""
        return self.need_ram.total + self.vram_bytes

    def need_text(self) -> str:
        """ "needs X of Y available" for what the verdict rests on: what must stay resident
        with the whole context in use, against the RAM available (on unified memory the GPU's
        share too, from the same pool), precise enough that "more than" is visibly true."""
        if self.unified_memory and self.vram_bytes:
            pool = self.need_ram.total + self.vram_bytes
            return "needs " + need_of(pool, self.ram_available_bytes)
        ram = need_of(self.need_ram.total, self.ram_available_bytes)
        if self.vram_bytes and self.vram_free_bytes:
            vram = need_of(self.vram_bytes, sum(self.vram_free_bytes)).replace(
                " available", " VRAM free"
            )
            return f"needs {vram} and {ram.replace(' available', ' RAM available')}"
        return "needs " + ram

    def summary_dict(self) -> dict[str, Any]:
        """The estimate in a catalog row (``catalog --json``): the verdict and the big numbers."""
        return {
            "verdict": self.verdict,
            "n_gpu_layers": self.n_gpu_layers,
            "n_layers": self.n_layers,
            "ram_bytes": self.ram_bytes,
            "vram_bytes": self.vram_bytes,
            "tokens_per_s": self.tokens_per_s,
            "max_ctx": self.max_ctx,
            "fits_disk": self.fits_disk,
            "must_fit_bytes": self.must_fit_bytes,
            "past_trained_ctx": self.past_trained_ctx,
            "unsupported": self.unsupported or None,
        }

    def to_dict(self) -> dict[str, Any]:
        """The ``llm-scout fit --json`` document."""
        return {
            "target": self.label,
            "format": self.format,
            "quant": self.quant,
            "verdict": self.verdict,
            "n_gpu_layers": self.n_gpu_layers,
            "n_layers": self.n_layers,
            "n_ctx": self.n_ctx,
            "cache_type": self.cache_type,
            "flash_attn": self.flash_attn,
            "ram_bytes": self.ram_bytes,
            "vram_bytes": self.vram_bytes,
            "breakdown": (self.ram + self.vram).to_dict(),
            "ram_breakdown": self.ram.to_dict(),
            "vram_breakdown": self.vram.to_dict(),
            "gpu_vram_bytes": list(self.gpu_vram_bytes),
            "ram_full_context_bytes": self.ram_full_context_bytes,
            "compute_reserved_bytes": self.compute_reserved_bytes,
            "prompt_tokens": self.prompt_tokens,
            "ram_available_bytes": self.ram_available_bytes,
            "vram_free_bytes": list(self.vram_free_bytes),
            "max_ctx": self.max_ctx,
            "best_n_gpu_layers": self.best_n_gpu_layers,
            "offload_output": self.offload_output,
            "llama_n_gpu_layers": -1 if self.offload_output else self.n_gpu_layers,
            "tokens_per_s": self.tokens_per_s,
            "roofline_tokens_per_s": self.roofline_tokens_per_s,
            "load_seconds": self.load_seconds,
            "download_bytes": self.download_bytes,
            "fits_disk": self.fits_disk,
            "page_cache_bytes": self.page_cache_bytes,
            "must_fit_bytes": self.must_fit_bytes,
            "n_ctx_train": self.n_ctx_train,
            "past_trained_ctx": self.past_trained_ctx,
            "unsupported": self.unsupported or None,
            "unified_memory": self.unified_memory,
            "reasons": list(self.reasons),
        }


def need_decimals(need: int, available: int) -> int:
    """The decimals (1-3) it takes for ``need`` and ``available`` to read differently in the
    unit :func:`need_of` uses; the window formats its "needs X of Y" with as many."""
    gib = 1024**3
    scale = gib if max(need, available) >= gib else 1024 * 1024
    if need == available:
        return 1
    for decimals in (1, 2):
        if f"{need / scale:.{decimals}f}" != f"{available / scale:.{decimals}f}":
            return decimals
    return 3


def need_of(need: int, available: int) -> str:
    """ "X of Y available" in one unit, with as many decimals (1-3) as it takes for two
    different numbers to read differently: "23.24 GiB of 23.19 GiB available"."""
    gib = 1024**3
    unit, scale = ("GiB", gib) if max(need, available) >= gib else ("MiB", 1024 * 1024)
    decimals = need_decimals(need, available)
    a, b = f"{need / scale:.{decimals}f}", f"{available / scale:.{decimals}f}"
    return f"{a} {unit} of {b} {unit} available"


@functools.lru_cache(maxsize=4096)
def _variant_target(model: CatalogModel, variant: Variant) -> FitTarget:
    return FitTarget._build(model, variant)


def past_trained_context(arch: ModelArch, n_ctx: int) -> str | None:
    """One sentence when ``n_ctx`` is longer than the context ``arch`` was trained on, else None.

    llama.cpp loads such a context (it only logs a warning), but past the trained length the
    positions are ones the model never saw: answers there lose coherence unless the model was
    built for context extension (RoPE scaling).
    """
    trained = arch.n_ctx_train
    if trained <= 0 or n_ctx <= trained:
        return None
    return (
        f"The context {n_ctx:,} is past the {trained:,} tokens this model was trained on: "
        f"text beyond {trained:,} tokens may come out garbled."
    )


def _edge_entry(
    name: str, type_name: str, shape: tuple[int, ...], n_bytes: int
) -> tuple[str, int, int]:
    """(type, row multiple, bytes) of a tensor; type "" unless the CPU multiplies with it."""
    # Matrices inside the blocks and the output projection; the embeddings are only gathered.
    matmul = name.startswith("blk.") or name == "output.weight"
    if not (matmul and len(shape) >= 2 and name.endswith(".weight")):
        return "", 1, n_bytes
    rows = shape[1]
    multiple = 8 if rows % 8 == 0 else 4 if rows % 4 == 0 else 1
    return type_name.upper(), multiple, n_bytes
