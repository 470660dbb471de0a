"""Memory formulas of the fit estimator: what llama.cpp allocates and what a run touches.

Everything here describes a llama-cpp-python process with the engine's defaults: n_batch and
n_ubatch 512, one sequence, mmap on, flash attention off (on for a quantized KV cache, which
llama.cpp requires), full-size sliding-window caches (llama.cpp's ``swa_full`` default, which
llama-cpp-python keeps). The numbers were checked against llama.cpp's own log lines ("KV buffer
size", "compute buffer size", "CPU_REPACK model buffer size") and against measured peak RSS; the
calibrated constants and how they were obtained are in :data:`CALIBRATION`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from desktop.core.gguf import ModelArch, TokenizerFacts, guess_tokenizer
from desktop.core.kv_cache import BLOCK_BYTES

MIB = 1024 * 1024
N_BATCH = 512
N_UBATCH = 512
CTX_PAD = 256  # llama.cpp rounds n_ctx (and SWA cache sizes) up to a multiple of 256
F32 = 4

# Bytes per block and values per block of the KV cache types llama.cpp accepts here.

# Weight types llama.cpp's CPU backend copies into an interleaved ("repacked") layout at load,
# by CPU family, with the row multiple each needs. The copy lives in anonymous memory next to the
# mapped file, so it adds to RSS. Seen here (x86-64 AVX2 build): Q4_K tensors repacked, Q5_0,
# Q6_K and Q8_0 left mapped (ggml-cpu/repack.cpp, ggml_repack_get_optimal_repack_type).
REPACK_TYPES: dict[str, dict[str, int]] = {
    "x86": {"Q4_0": 8, "Q4_K": 8, "Q2_K": 8, "IQ4_NL": 8, "MXFP4": 8},
    "arm": {"Q4_0": 4, "Q4_K": 8, "Q2_K": 8, "IQ4_NL": 4, "Q8_0": 4, "Q5_K": 8, "Q6_K": 8},
}


@dataclass(frozen=True)
class Calibration:
    """Constants fitted on measurements (see ``benchmarks/fit_accuracy.py``).

    Measured on x86-64 (2 cores, Linux, Python 3.11, llama-cpp-python 0.3.36 CPU build) with
    one fresh process per cell: peak RSS (VmHWM) minus the parts computed exactly (mapped file,
    repacked copies, KV cache from llama.cpp's formula, compute pages touched) leaves the
    runtime: the interpreter with llama_cpp and numpy imported (``runtime_bytes``, measured
    directly before loading), a constant, the tokenizer, the graph and the cache cell metadata.

    The tokenizer costs per token (``per_token_bytes``: llama.cpp's id_to_token entry, the
    token_to_id hash node, the cached piece, the GGUF metadata copy of the string, and the
    per-token logits and sampler arrays) and per BPE merge (``per_merge_bytes``: the bpe_ranks
    hash node holding two strings, and the metadata copy); a Llama 3 vocabulary (128,256 tokens,
    280,147 merges) takes about 65 MB, Gemma 3's (262,144 tokens, no merges) 48 MB. The cache
    cell metadata and batch arrays grow with the context (``per_ctx_cell_bytes`` per cell of
    each KV cache); the graph metadata and the scheduler's tables with the graph llama.cpp
    reserves, ``max(1024, 8 x tensors)`` nodes (``per_graph_node_bytes``).

    The load has its own peak: the whole file is mapped and populated (the header too) and the
    GGUF metadata is held while the tokenizer tables are built (``load_per_string_bytes`` per
    token and merge string on top of the tables, ``load_const_bytes`` instead of the context's
    constant); both are released after the load, before the KV cache arrives. It sets the peak
    of small models with large vocabularies at short contexts.

    Fitted by least squares (``benchmarks/fit_accuracy.py --fit``) on the two demo models (4
    contexts each) and eight tiny-weight models with the real tokenizers of gpt-2, falcon,
    deepseek-llm, deepseek-coder, command-r, aquila, llama-spm and baichuan (llama.cpp's vocab
    files; 32k-256k tokens, 0-253k merges) at 512 and 8192; models with the Llama 3, Qwen 2,
    Phi-3 and Gemma 4 tokenizers are held out.
    """

    runtime_bytes: int = 50_300_000
    const_bytes: int = 3_237_000
    per_token_bytes: float = 184.0
    per_merge_bytes: float = 149.5
    per_ctx_cell_bytes: float = 65.4
    per_graph_node_bytes: float = 2469.8
    load_const_bytes: int = 3_258_000
    load_per_string_bytes: float = 13.3
    # The part of the compute buffer a short run touches, per ubatch token of activations.
    touched_act_floats: int = 6
    # The CUDA context, cuBLAS workspace and the driver's reservations per device: measured on
    # an H200 (driver 580, CUDA 13.0, llama-cpp-python 0.3.36; ../shared/ground-truth): every
    # full-offload load used 321-339 MB more than predicted with 384 MiB here (weights + KV
    # cache + compute buffer + 384 MiB), so the figure is those 384 MiB plus 340 MB (never
    # under on those rows).
    # Smaller GPUs and older drivers take less: the estimate errs towards "needs more".
    # The host memory the CUDA runtime adds to the process is a literature value.
    gpu_context_bytes: int = 384 * MIB + 340_000_000
    gpu_host_runtime_bytes: int = 512 * MIB
    # vLLM (AWQ): CUDA graphs, activation peak and the torch allocator, per device.
    vllm_overhead_bytes: int = 2 * 1024 * MIB
    vllm_host_bytes: int = 3 * 1024 * MIB


CALIBRATION = Calibration()


def pad(value: int, multiple: int) -> int:
    return ((value + multiple - 1) // multiple) * multiple


def cache_row_bytes(n_values: int, cache_type: str) -> int:
    """Bytes of one cache row of ``n_values`` values (quantized types round up to blocks)."""
    block, size = BLOCK_BYTES[cache_type]
    return ((n_values + block - 1) // block) * size


def padded_ctx(n_ctx: int) -> int:
    return pad(max(n_ctx, 1), CTX_PAD)


def _layer_kind(arch: ModelArch, layer: int, *, swa_full: bool) -> str:
    """``"none"`` (no attention, no cells), ``"full"`` (cells = the padded context) or
    ``"swa"`` (a sliding-window layer whose cells stop at the window)."""
    if arch.n_head_kv[layer] == 0 and not arch.uses_mla:
        return "none"
    is_swa = bool(arch.swa_layers) and arch.swa_layers[layer] and arch.sliding_window > 0
    return "swa" if is_swa and not swa_full else "full"


def swa_cells(arch: ModelArch) -> int:
    """Cells of a bounded sliding-window cache (``swa_full`` off), at most the context's."""
    return pad(arch.sliding_window + N_UBATCH, CTX_PAD)


def layer_cells(arch: ModelArch, layer: int, n_ctx: int, *, swa_full: bool) -> int:
    """KV cells llama.cpp allocates for one layer (0 for a layer without attention)."""
    kind = _layer_kind(arch, layer, swa_full=swa_full)
    if kind == "none":
        return 0
    cells = padded_ctx(n_ctx)
    if kind == "swa":
        cells = min(cells, swa_cells(arch))
    return cells


def _layer_row_bytes(arch: ModelArch, layer: int, cache_type: str) -> int:
    """K + V cache bytes per cell of one layer with attention."""
    if arch.uses_mla:
        # MLA keeps the compressed latent and the rope part per token; V is a view of it.
        return cache_row_bytes(arch.kv_lora_rank + arch.n_rot, cache_type)
    n_kv = arch.n_head_kv[layer]
    k = cache_row_bytes(arch.head_dim_k * n_kv, cache_type)
    v = cache_row_bytes(arch.head_dim_v * n_kv, cache_type)
    return k + v


def _layer_state_bytes(arch: ModelArch, layer: int) -> int:
    return arch.ssm_state_bytes[layer] if arch.ssm_state_bytes else 0


def layer_kv_bytes(
    arch: ModelArch, layer: int, n_ctx: int, cache_type: str, *, swa_full: bool = True
) -> int:
    """K + V cache bytes of one layer, plus its recurrent state if it has one."""
    state = _layer_state_bytes(arch, layer)
    cells = layer_cells(arch, layer, n_ctx, swa_full=swa_full)
    if cells == 0:
        return state
    return cells * _layer_row_bytes(arch, layer, cache_type) + state


def kv_bytes_per_layer(
    arch: ModelArch, n_ctx: int, cache_type: str, *, swa_full: bool = True
) -> tuple[int, ...]:
    return tuple(
        layer_kv_bytes(arch, i, n_ctx, cache_type, swa_full=swa_full) for i in range(arch.n_layers)
    )


def prefix_sums(values: Sequence[int]) -> tuple[int, ...]:
    """``out[i]`` = the sum of ``values[:i]`` (``len(values) + 1`` entries), so the sum of any
    range ``values[a:b]`` is ``out[b] - out[a]``."""
    out = [0]
    total = 0
    for value in values:
        total += value
        out.append(total)
    return tuple(out)


@dataclass(frozen=True)
class KvShape:
    """The KV cache of one architecture and cache type, as prefix sums over the layers.

    A layer's cache is ``cells x row bytes + state``, where the cells are the padded context
    (``full``), the padded context capped at the window (bounded sliding-window layers) or none.
    Summing rows and states per kind once makes the bytes of any layer range at any context an
    O(1) computation, equal to summing :func:`kv_bytes_per_layer` over that range (the fit
    estimator's searches evaluate thousands of such ranges).
    """

    full_rows: tuple[int, ...]  # prefix sums of the row bytes of "full" layers
    swa_rows: tuple[int, ...]  # prefix sums of the row bytes of bounded sliding-window layers
    states: tuple[int, ...]  # prefix sums of recurrent state bytes
    swa_cells: int
    has_full: bool
    has_swa: bool

    def range_bytes(self, n_ctx: int, start: int, stop: int) -> int:
        """KV cache bytes of layers ``start..stop-1`` at ``n_ctx``."""
        cells = padded_ctx(n_ctx)
        return self.range_at(cells, min(cells, self.swa_cells), start, stop)

    def range_at(self, cells: int, swa_cells: int, start: int, stop: int) -> int:
        """:meth:`range_bytes` given the cells of a full layer (the padded context) and of a
        bounded sliding-window layer (``min(cells, self.swa_cells)``)."""
        return (
            cells * (self.full_rows[stop] - self.full_rows[start])
            + swa_cells * (self.swa_rows[stop] - self.swa_rows[start])
            + self.states[stop]
            - self.states[start]
        )

    def max_cells(self, n_ctx: int) -> int:
        """The most cells any layer has at ``n_ctx`` (:func:`max_kv_cells`)."""
        if self.has_full:
            return padded_ctx(n_ctx)
        if self.has_swa:
            return min(padded_ctx(n_ctx), self.swa_cells)
        return 0


def kv_shape(arch: ModelArch, cache_type: str, *, swa_full: bool = True) -> KvShape:
    """The :class:`KvShape` of ``arch`` with ``cache_type`` cache rows (kept per architecture:
    the variants of one model share it)."""
    try:
        return _kv_shape_cached(arch, cache_type, swa_full)
    except TypeError:  # an architecture built with lists is not hashable
        return _kv_shape(arch, cache_type, swa_full)


def _kv_shape(arch: ModelArch, cache_type: str, swa_full: bool) -> KvShape:
    kinds = [_layer_kind(arch, i, swa_full=swa_full) for i in range(arch.n_layers)]
    row_cache: dict[int, int] = {}  # most models have one or two KV head counts
    full = [0] * arch.n_layers
    swa = [0] * arch.n_layers
    for i, kind in enumerate(kinds):
        if kind == "none":
            continue
        n_kv = arch.n_head_kv[i]
        row = row_cache.get(n_kv)
        if row is None:
            row = row_cache[n_kv] = _layer_row_bytes(arch, i, cache_type)
        if kind == "full":
            full[i] = row
        else:
            swa[i] = row
    return KvShape(
        full_rows=prefix_sums(full),
        swa_rows=prefix_sums(swa),
        states=prefix_sums([_layer_state_bytes(arch, i) for i in range(arch.n_layers)]),
        swa_cells=swa_cells(arch),
        has_full="full" in kinds,
        has_swa="swa" in kinds,
    )


_kv_shape_cached = functools.lru_cache(maxsize=512)(_kv_shape)


def kv_cache_count(arch: ModelArch) -> int:
    """How many separate KV caches llama.cpp builds (two for interleaved SWA models)."""
    has_swa = bool(arch.swa_layers) and any(arch.swa_layers) and arch.sliding_window > 0
    has_full = not arch.swa_layers or not all(arch.swa_layers)
    return 2 if has_swa and has_full else 1


def max_kv_cells(arch: ModelArch, n_ctx: int, *, swa_full: bool) -> int:
    cells = [layer_cells(arch, i, n_ctx, swa_full=swa_full) for i in range(arch.n_layers)]
    return max(cells, default=0)


def _activation_floats(arch: ModelArch) -> int:
    n_ff = arch.n_ff * max(1, arch.n_expert_used) if arch.n_ff else 4 * arch.n_embd
    return 3 * arch.n_embd + n_ff


def compute_reserved_bytes(
    arch: ModelArch, n_ctx: int, *, flash_attn: bool, swa_full: bool = True
) -> int:
    """The compute buffer llama.cpp reserves for the worst-case ubatch (one device).

    The graph allocator keeps the largest set of tensors alive at once: either the attention
    scores of a full ubatch against the whole cache (``n_kv x n_ubatch x (n_head + 1)`` f32 with
    the mask, without flash attention) with the layer activations, or the output logits
    (``n_vocab x n_batch`` f32) at the end of the graph. Matches llama.cpp's "compute buffer
    size" log line within 1.5 MiB on both demo models at every context measured.
    """
    n_kv = max_kv_cells(arch, n_ctx, swa_full=swa_full)
    return reserved_for_cells(arch, n_kv, flash_attn=flash_attn)


def reserved_for_cells(arch: ModelArch, n_kv: int, *, flash_attn: bool) -> int:
    """:func:`compute_reserved_bytes` for a cache of ``n_kv`` cells (its largest layer's)."""
    act = _activation_floats(arch) * N_UBATCH * F32
    # With flash attention only the f16 mask is materialised, not the scores.
    per_cell = 2 if flash_attn else (arch.n_head + 1) * F32
    attention = n_kv * N_UBATCH * per_cell
    logits = arch.n_vocab * N_BATCH * F32 + 2 * arch.n_embd * N_UBATCH * F32
    return max(attention + act, logits)


def compute_touched_bytes(
    arch: ModelArch, n_ctx: int, prompt_tokens: int, *, flash_attn: bool, swa_full: bool = True
) -> int:
    """The part of the CPU compute buffer a run with ``prompt_tokens`` tokens really touches.

    The buffer is reserved for the worst case but its pages become resident only when a graph
    writes them. llama-cpp-python asks for one output row per batch, so the logits term stays
    small; the attention scores of the largest ubatch (scores and softmax, ``2 x n_kv x
    n_tokens x n_head`` f32, with n_kv the used cells rounded up to 256) dominate long prompts.
    """
    max_cells = max_kv_cells(arch, n_ctx, swa_full=swa_full)
    reserved = reserved_for_cells(arch, max_cells, flash_attn=flash_attn)
    return touched_for_cells(
        arch, n_ctx, prompt_tokens, max_cells=max_cells, reserved=reserved, flash_attn=flash_attn
    )


def touched_for_cells(
    arch: ModelArch,
    n_ctx: int,
    prompt_tokens: int,
    *,
    max_cells: int,
    reserved: int,
    flash_attn: bool,
) -> int:
    """:func:`compute_touched_bytes` given the largest layer's cells and the reserved buffer."""
    used = min(padded_ctx(n_ctx), max(prompt_tokens, 1))
    n_tokens = min(used, N_UBATCH)
    n_kv = pad(used, CTX_PAD)
    n_kv = min(n_kv, max_cells)
    per_cell = 2 if flash_attn else (2 * arch.n_head + 1) * F32
    attention = n_kv * n_tokens * per_cell
    act = CALIBRATION.touched_act_floats * arch.n_embd * n_tokens * F32
    return min(reserved, attention + act + arch.n_vocab * F32)


def tokenizer_bytes(tokenizer: TokenizerFacts) -> int:
    """Memory the tokenizer of a loaded model keeps (see :class:`Calibration`)."""
    cal = CALIBRATION
    return int(cal.per_token_bytes * tokenizer.n_tokens + cal.per_merge_bytes * tokenizer.n_merges)


def graph_nodes(n_tensors: int) -> int:
    """The graph size llama.cpp reserves for a model of ``n_tensors`` tensors
    (``llama_context::graph_max_nodes``)."""
    return max(1024, 8 * n_tensors)


def model_overhead_bytes(tokenizer: TokenizerFacts, n_tensors: int) -> int:
    """The model's share of the runtime: its tokenizer's tables and its graph's nodes."""
    return tokenizer_bytes(tokenizer) + int(
        CALIBRATION.per_graph_node_bytes * graph_nodes(n_tensors)
    )


def load_overhead_bytes(tokenizer: TokenizerFacts) -> int:
    """The process's memory besides the mapped file and repacked copies at the load's peak."""
    cal = CALIBRATION
    strings = tokenizer.n_tokens + tokenizer.n_merges
    return int(
        cal.runtime_bytes
        + cal.load_const_bytes
        + tokenizer_bytes(tokenizer)
        + cal.load_per_string_bytes * strings
    )


def estimated_tensor_count(arch: ModelArch) -> int:
    """Tensors of a model whose list is unknown: about a dozen per block."""
    return 3 + 12 * arch.n_layers


def runtime_overhead_bytes(
    arch: ModelArch,
    n_ctx: int,
    tokenizer: TokenizerFacts | None = None,
    n_tensors: int | None = None,
) -> int:
    """Interpreter, libraries, tokenizer tables, graph and per-cell metadata of a CPU process
    (``tokenizer`` defaults to the family's, :func:`~desktop.core.gguf.guess_tokenizer`)."""
    fixed = model_overhead_bytes(
        tokenizer or guess_tokenizer(arch), n_tensors or estimated_tensor_count(arch)
    )
    return overhead_for_caches(arch, n_ctx, kv_cache_count(arch), fixed)


def overhead_for_caches(
    arch: ModelArch, n_ctx: int, n_caches: int, model_bytes: int | None = None
) -> int:
    """:func:`runtime_overhead_bytes` given :func:`kv_cache_count` and
    :func:`model_overhead_bytes`."""
    cal = CALIBRATION
    if model_bytes is None:
        model_bytes = model_overhead_bytes(guess_tokenizer(arch), estimated_tensor_count(arch))
    cells = padded_ctx(n_ctx) * n_caches
    return int(cal.runtime_bytes + cal.const_bytes + model_bytes + cal.per_ctx_cell_bytes * cells)


def cpu_family(arch_name: str, flags: Sequence[str]) -> str | None:
    """``"x86"`` or ``"arm"`` when llama.cpp's CPU backend repacks weights there, else None."""
    machine = arch_name.lower()
    flagset = {f.lower() for f in flags}
    if machine in ("x86_64", "amd64", "i686", "x86"):
        return "x86" if "avx2" in flagset else None
    if machine in ("aarch64", "arm64"):
        # Apple and recent ARM cores all have NEON with dot product.
        return "arm" if ("neon" in flagset or "asimd" in flagset or not flagset) else None
    return None


def repacked_bytes(by_type: Sequence[tuple[str, int, int]], family: str | None) -> int:
    """Bytes copied into repacked buffers: ``by_type`` rows are (type, bytes, row multiple)."""
    return sum(n for t, n, multiple in by_type if is_repacked(t, multiple, family))


def is_repacked(type_name: str, row_multiple: int, family: str | None) -> bool:
    if family is None or not type_name:
        return False
    need = REPACK_TYPES[family].get(type_name.upper())
    return need is not None and row_multiple % need == 0


def unmapped_edge_bytes(
    head: Sequence[tuple[str, int, int]], tail: Sequence[tuple[str, int, int]], family: str | None
) -> int:
    """Bytes of repacked tensors at either end of the data, which llama.cpp unmaps after load."""
    total = 0
    for run in (head, tail):
        for type_name, multiple, n_bytes in run:
            if not is_repacked(type_name, multiple, family):
                break
            total += n_bytes
    return total
