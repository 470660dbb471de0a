"""The GGUF file of a model that is not on disk: its tensors, their types and bytes, its header.

From the architecture numbers alone (a :class:`~desktop.core.gguf.arch.ModelArch`, e.g. from
the catalog), :func:`tensor_shapes` lists the tensors llama.cpp's loader expects for the
architecture (``src/models/<arch>.cpp`` in llama.cpp: ``create_tensor`` calls, ggml order,
row length first), :func:`quant_layout` gives each the type llama.cpp's quantizer chooses for a
quant mix (:func:`~desktop.core.gguf.quants.mix_types`) and its exact bytes, in the order
llama-quantize writes them, and estimates the header (metadata, tokenizer, tensor list).

:class:`TokenizerFacts` describes the tokenizer arrays a header holds (token count, BPE merges,
string bytes): read from a header (:func:`tokenizer_facts`) or, for a catalog entry, taken from
the real tokenizer of the model family (:func:`guess_tokenizer`). The header estimate and the fit
estimator's tokenizer memory use them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from desktop.core.gguf.arch import ModelArch
from desktop.core.gguf.format import DEFAULT_ALIGNMENT, GGUFArraySummary, ggml_type_table
from desktop.core.gguf.quants import MixModel, mix_types

F32 = "F32"
WEIGHT = "F16"  # the source type of matrices (what convert_hf_to_gguf writes for llama-quantize)


@dataclass(frozen=True)
class TokenizerFacts:
    """What the tokenizer arrays of a GGUF hold: ``model`` ("gpt2" BPE, "llama" SentencePiece,
    ...), ``n_tokens``, ``n_merges`` (BPE), the bytes of all token and merge strings, whether
    per-token scores are stored, and whether the numbers were read from a file or guessed."""

    model: str
    n_tokens: int
    n_merges: int
    token_text_bytes: int
    merge_text_bytes: int
    has_scores: bool
    known: bool = True

    def header_bytes(self) -> int:
        """Bytes of the tokenizer arrays in a GGUF header (tokens, types, scores, merges)."""
        array = 4 + 8 + 8  # key length prefix is counted with the key below; type + count
        total = _kv_bytes("tokenizer.ggml.tokens", array + 8 * self.n_tokens)
        total += self.token_text_bytes
        total += _kv_bytes("tokenizer.ggml.token_type", array + 4 * self.n_tokens)
        if self.has_scores:
            total += _kv_bytes("tokenizer.ggml.scores", array + 4 * self.n_tokens)
        if self.n_merges:
            total += _kv_bytes("tokenizer.ggml.merges", array + 8 * self.n_merges)
            total += self.merge_text_bytes
        return total


def _kv_bytes(key: str, value_bytes: int) -> int:
    return 8 + len(key) + value_bytes


def _array_len(value: Any) -> int:
    if isinstance(value, (tuple, GGUFArraySummary)):
        return len(value)
    return 0


def tokenizer_facts(metadata: Mapping[str, Any], data_offset: int | None = None) -> TokenizerFacts:
    """The tokenizer of a header (``GGUFInfo.metadata``). String bytes are not walked: they are
    the family's average (:func:`guess_tokenizer`), which only the header estimate uses."""
    model = metadata.get("tokenizer.ggml.model")
    n_tokens = _array_len(metadata.get("tokenizer.ggml.tokens"))
    n_merges = _array_len(metadata.get("tokenizer.ggml.merges"))
    has_scores = "tokenizer.ggml.scores" in metadata
    token_avg, merge_avg = _TEXT_BYTES.get(str(model), _TEXT_BYTES["gpt2"])
    return TokenizerFacts(
        model=str(model) if isinstance(model, str) else "none",
        n_tokens=n_tokens,
        n_merges=n_merges,
        token_text_bytes=int(n_tokens * token_avg),
        merge_text_bytes=int(n_merges * merge_avg),
        has_scores=has_scores,
    )


# Average bytes of a token string and of a merge string ("a b"), measured on llama.cpp's vocab
# files (ggml-vocab-*.gguf) and the demo models: BPE 7.1-10.8 / 8.1-11.9, SentencePiece 6.6-8.8.
_TEXT_BYTES: dict[str, tuple[float, float]] = {"gpt2": (8.9, 10.2), "llama": (8.0, 0.0)}

# Real tokenizers of the catalog's families: (architectures, vocabulary sizes) -> facts, from
# llama.cpp's vocab files (ggml-vocab-llama-bpe, -qwen2, -deepseek-llm, -phi-3, -llama-spm) and the
# demo models (SmolLM2, Gemma 3).
_KNOWN: tuple[tuple[frozenset[str], frozenset[int], TokenizerFacts], ...] = (
    (
        frozenset({"llama"}),
        frozenset({128256}),
        TokenizerFacts("gpt2", 128256, 280147, 1073445, 2963589, False),  # Llama 3
    ),
    (
        frozenset({"qwen2", "qwen3", "qwen3moe", "qwen2moe"}),
        frozenset({151936, 152064}),
        TokenizerFacts("gpt2", 151936, 151387, 1372708, 1520452, False),  # Qwen 2 / 2.5 / 3
    ),
    (
        frozenset({"deepseek2", "deepseek", "llama"}),
        frozenset({102400}),
        TokenizerFacts("gpt2", 102400, 99757, 934635, 1007683, False),  # DeepSeek LLM / V2
    ),
    (
        frozenset({"llama"}),
        frozenset({49152}),
        TokenizerFacts("gpt2", 49152, 48900, 369170, 417477, False),  # SmolLM2
    ),
    (
        frozenset({"gemma", "gemma2", "gemma3", "gemma3n"}),
        frozenset({256000, 262144, 262208}),
        TokenizerFacts("llama", 262144, 0, 2315366, 0, True),  # Gemma (SentencePiece)
    ),
    (
        frozenset({"phi3", "llama"}),
        frozenset({32000, 32064}),
        TokenizerFacts("llama", 32064, 0, 211596, 0, True),  # Phi-3 / Llama 2 (SentencePiece)
    ),
)
_SPM_ARCHS = frozenset({"gemma", "gemma2", "gemma3", "gemma3n"})


def guess_tokenizer(arch: ModelArch) -> TokenizerFacts:
    """The tokenizer a model of ``arch`` most likely ships: the family's real one where known
    (token count scaled to ``n_vocab``), else BPE with about one merge per token (what GPT-2
    style tokenizers of 32k-256k tokens have), SentencePiece for Gemma and small Llama/Phi
    vocabularies."""
    n_vocab = arch.n_vocab
    for archs, sizes, facts in _KNOWN:
        if arch.architecture in archs and n_vocab in sizes:
            return _scaled(facts, n_vocab)
    if arch.architecture in _SPM_ARCHS or (
        arch.architecture in ("llama", "phi3") and n_vocab <= 32064
    ):
        token_avg, _ = _TEXT_BYTES["llama"]
        return TokenizerFacts("llama", n_vocab, 0, int(n_vocab * token_avg), 0, True, False)
    token_avg, merge_avg = _TEXT_BYTES["gpt2"]
    n_merges = int(n_vocab * 0.99)
    return TokenizerFacts(
        "gpt2", n_vocab, n_merges, int(n_vocab * token_avg), int(n_merges * merge_avg), False, False
    )


def _scaled(facts: TokenizerFacts, n_vocab: int) -> TokenizerFacts:
    if facts.n_tokens == n_vocab:
        return facts
    scale = n_vocab / facts.n_tokens
    return TokenizerFacts(
        facts.model,
        n_vocab,
        facts.n_merges,
        int(facts.token_text_bytes * scale),
        facts.merge_text_bytes,
        facts.has_scores,
        facts.known,
    )


class PlannedTensor(NamedTuple):
    """One tensor of a planned file: name, shape (ggml order), ggml type name, bytes, and the
    block (``blk.N``) it belongs to (None outside the blocks)."""

    name: str
    shape: tuple[int, ...]
    type_name: str
    n_bytes: int
    layer: int | None = None


@dataclass(frozen=True)
class QuantLayout:
    """The tensors of a model's GGUF file for one quant mix, in file order, and its header.

    ``header_bytes`` is an estimate (metadata, tokenizer arrays, tensor list, padding); the
    tensor bytes are exact for the shapes and types listed."""

    quant: str
    tensors: tuple[PlannedTensor, ...]
    header_bytes: int
    n_layers: int
    tensor_bytes: int
    file_bytes: int
    layer_bytes: tuple[int, ...]  # per block

    @property
    def non_layer_bytes(self) -> int:
        return self.tensor_bytes - sum(self.layer_bytes)

    def bytes_of(self, name: str) -> int:
        return sum(t.n_bytes for t in self.tensors if t.name == name)

    @property
    def expert_bytes(self) -> int:
        return sum(
            t.n_bytes for t in self.tensors if t.name.startswith("blk.") and "_exps" in t.name
        )

    def types(self) -> dict[str, int]:
        """Bytes per ggml type."""
        out: dict[str, int] = {}
        for tensor in self.tensors:
            out[tensor.type_name] = out.get(tensor.type_name, 0) + tensor.n_bytes
        return out


def _padded(n_bytes: int) -> int:
    return -(-n_bytes // DEFAULT_ALIGNMENT) * DEFAULT_ALIGNMENT


@functools.lru_cache(maxsize=1)
def _type_sizes() -> dict[str, tuple[int, int]]:
    return {name: (block, size) for name, block, size in ggml_type_table().values()}


def tensor_bytes(shape: tuple[int, ...], type_name: str) -> int:
    """Bytes of a tensor of ``shape`` (ggml order) stored as ``type_name``."""
    return _tensor_bytes(shape, type_name)


@functools.lru_cache(maxsize=4096)
def _tensor_bytes(shape: tuple[int, ...], type_name: str) -> int:
    block, size = _type_sizes()[type_name]
    if shape[0] % block:
        raise ValueError(f"a row of {shape[0]} values does not split into {type_name} blocks")
    total = shape[0] // block * size
    for dim in shape[1:]:
        total *= dim
    return total


def _n_ff_expert(arch: ModelArch) -> int:
    for key in ("n_ff_expert", "n_ff_exp"):
        value = arch.extra.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return arch.n_ff


def tied_embeddings(arch: ModelArch) -> bool:
    """Whether the output projection reuses the token embeddings (no ``output.weight``)."""
    if arch.architecture in ("gemma", "gemma2", "gemma3", "gemma3n"):
        return True
    return bool(arch.extra.get("tied_embeddings", False))


def tensor_shapes(
    arch: ModelArch, *, tied: bool | None = None
) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape in ggml order, source type) of every tensor a GGUF of ``arch`` holds.

    Follows llama.cpp's loader for llama, mistral, qwen2, qwen3, qwen3moe, qwen2moe, phi3,
    gemma, gemma2, gemma3 and deepseek2 (MLA, with the ``attn_kv_b`` tensor of the published
    DeepSeek-V2 files); other architectures are treated like llama (q/k/v/o and a gated FFN).
    Vectors (norms, biases) are F32, MoE routers F32 (convert_hf_to_gguf keeps them so),
    matrices F16. Small tensors llama.cpp does not require (rope factors) are left out.
    ``tied``: whether the file has no ``output.weight`` (default: :func:`tied_embeddings`).
    In llama.cpp's order (:func:`~desktop.core.gguf.weights_map_key`): the tensors outside the
    blocks by name, then block by block, by name.
    """
    return [(name, shape, source) for name, shape, source, _layer in _rows(arch, tied)]


def _rows(arch: ModelArch, tied: bool | None) -> list[tuple[str, tuple[int, ...], str, int]]:
    """:func:`tensor_shapes` with each tensor's block (-1 outside the blocks)."""
    name = arch.architecture
    n_embd, n_vocab = arch.n_embd, arch.n_vocab
    head: list[tuple[str, tuple[int, ...], str]] = [
        ("token_embd.weight", (n_embd, n_vocab), WEIGHT),
        ("output_norm.weight", (n_embd,), F32),
    ]
    if not (tied_embeddings(arch) if tied is None else tied):
        head.append(("output.weight", (n_embd, n_vocab), WEIGHT))
    out = [(n, shape, source, -1) for n, shape, source in sorted(head)]
    for il in range(arch.n_layers):
        out.extend((n, shape, source, il) for n, shape, source in sorted(_block(arch, name, il)))
    return out


def _block(arch: ModelArch, name: str, il: int) -> list[tuple[str, tuple[int, ...], str]]:
    b = f"blk.{il}."
    n_embd = arch.n_embd
    n_head = _per_layer(arch, "n_head_per_layer", il, arch.n_head)
    n_kv = arch.n_head_kv[il] if il < len(arch.n_head_kv) else arch.n_head
    hk, hv = arch.head_dim_k, arch.head_dim_v
    n_ff = _per_layer(arch, "n_ff_per_layer", il, arch.n_ff)
    t: list[tuple[str, tuple[int, ...], str]] = [(b + "attn_norm.weight", (n_embd,), F32)]
    if name == "deepseek2" or (arch.uses_mla and name.startswith("deepseek")):
        t += _mla_attention(arch, b, n_head)
    elif name == "phi3":
        t.append((b + "attn_qkv.weight", (n_embd, n_head * hk + n_kv * (hk + hv)), WEIGHT))
        t.append((b + "attn_output.weight", (n_head * hv, n_embd), WEIGHT))
    else:
        t += [
            (b + "attn_q.weight", (n_embd, n_head * hk), WEIGHT),
            (b + "attn_k.weight", (n_embd, n_kv * hk), WEIGHT),
            (b + "attn_v.weight", (n_embd, n_kv * hv), WEIGHT),
            (b + "attn_output.weight", (n_head * hv, n_embd), WEIGHT),
        ]
        if name in ("qwen2", "qwen2moe"):
            t += [
                (b + "attn_q.bias", (n_head * hk,), F32),
                (b + "attn_k.bias", (n_kv * hk,), F32),
                (b + "attn_v.bias", (n_kv * hv,), F32),
            ]
        if name in ("qwen3", "qwen3moe", "gemma3", "gemma3n"):
            t += [
                (b + "attn_q_norm.weight", (hk,), F32),
                (b + "attn_k_norm.weight", (hk,), F32),
            ]
    if name in ("gemma2", "gemma3", "gemma3n"):
        t.append((b + "post_attention_norm.weight", (n_embd,), F32))
        t.append((b + "post_ffw_norm.weight", (n_embd,), F32))
    t.append((b + "ffn_norm.weight", (n_embd,), F32))
    dense_lead = arch.extra.get("n_layer_dense_lead", 0)
    moe = arch.is_moe and not (isinstance(dense_lead, int) and il < dense_lead)
    if moe:
        n_ff_exp, n_exp = _n_ff_expert(arch), arch.n_expert
        t += [
            (b + "ffn_gate_inp.weight", (n_embd, n_exp), F32),
            (b + "ffn_gate_exps.weight", (n_embd, n_ff_exp, n_exp), WEIGHT),
            (b + "ffn_up_exps.weight", (n_embd, n_ff_exp, n_exp), WEIGHT),
            (b + "ffn_down_exps.weight", (n_ff_exp, n_embd, n_exp), WEIGHT),
        ]
        shared = arch.extra.get("n_expert_shared", 0)
        if isinstance(shared, int) and shared > 0:
            n_sh = n_ff_exp * shared
            t += [
                (b + "ffn_gate_shexp.weight", (n_embd, n_sh), WEIGHT),
                (b + "ffn_up_shexp.weight", (n_embd, n_sh), WEIGHT),
                (b + "ffn_down_shexp.weight", (n_sh, n_embd), WEIGHT),
            ]
    elif name == "phi3":
        t += [
            (b + "ffn_up.weight", (n_embd, 2 * n_ff), WEIGHT),
            (b + "ffn_down.weight", (n_ff, n_embd), WEIGHT),
        ]
    else:
        t += [
            (b + "ffn_gate.weight", (n_embd, n_ff), WEIGHT),
            (b + "ffn_up.weight", (n_embd, n_ff), WEIGHT),
            (b + "ffn_down.weight", (n_ff, n_embd), WEIGHT),
        ]
    return t


def _mla_attention(arch: ModelArch, b: str, n_head: int) -> list[tuple[str, tuple[int, ...], str]]:
    n_embd = arch.n_embd
    hk = int(arch.extra.get("head_dim_k_mla") or arch.head_dim_k)
    hv = int(arch.extra.get("head_dim_v_mla") or arch.head_dim_v)
    rope = arch.n_rot or 64
    nope = hk - rope
    kv_lora = arch.kv_lora_rank
    q_lora = int(arch.extra.get("q_lora_rank") or 0)
    t: list[tuple[str, tuple[int, ...], str]] = []
    if q_lora > 0:
        t += [
            (b + "attn_q_a_norm.weight", (q_lora,), F32),
            (b + "attn_q_a.weight", (n_embd, q_lora), WEIGHT),
            (b + "attn_q_b.weight", (q_lora, n_head * hk), WEIGHT),
        ]
    else:
        t.append((b + "attn_q.weight", (n_embd, n_head * hk), WEIGHT))
    t += [
        (b + "attn_kv_a_norm.weight", (kv_lora,), F32),
        (b + "attn_kv_a_mqa.weight", (n_embd, kv_lora + rope), WEIGHT),
        (b + "attn_kv_b.weight", (kv_lora, n_head * (nope + hv)), WEIGHT),
        (b + "attn_output.weight", (n_head * hv, n_embd), WEIGHT),
    ]
    return t


def _per_layer(arch: ModelArch, key: str, il: int, default: int) -> int:
    values = arch.extra.get(key)
    if isinstance(values, tuple) and il < len(values):
        return int(values[il])
    return default


def mix_model(arch: ModelArch) -> MixModel:
    """The facts :func:`~desktop.core.gguf.quants.mix_types` needs about ``arch``."""
    n_kv = arch.n_head_kv[0] if arch.n_head_kv else arch.n_head
    return MixModel(arch.architecture, arch.n_layers, arch.n_head, n_kv, arch.n_expert)


# Metadata besides the tokenizer arrays: general.*, the hyperparameters and a chat template.
_OTHER_METADATA_BYTES = 8192
_HEADER_FIXED = 4 + 4 + 8 + 8  # magic, version, tensor count, key/value count


def header_bytes(tensors: list[tuple[str, tuple[int, ...], str]], tokenizer: TokenizerFacts) -> int:
    """Estimated bytes before the tensor data: fixed fields, metadata, the tokenizer arrays,
    one entry per tensor (name, dimensions, type, offset), padded to the data alignment."""
    infos = sum(8 + len(name) + 4 + 8 * len(shape) + 4 + 8 for name, shape, _ in tensors)
    total = _HEADER_FIXED + _OTHER_METADATA_BYTES + tokenizer.header_bytes() + infos
    return _padded(total)


def quant_layout(
    arch: ModelArch,
    quant: str,
    tokenizer: TokenizerFacts | None = None,
    *,
    tied: bool | None = None,
) -> QuantLayout:
    """The file llama-quantize writes for ``arch`` and the quant mix ``quant`` (from an F16
    conversion): tensors in its order with llama.cpp's type choice, and the header estimate.
    ``tokenizer`` defaults to :func:`guess_tokenizer`, ``tied`` to :func:`tied_embeddings`.
    Raises ValueError for an unknown quant or shapes no ggml type can hold."""
    tok = tokenizer or guess_tokenizer(arch)
    extra = tuple(sorted((k, v) for k, v in arch.extra.items() if k in _SHAPE_KEYS))
    try:
        return _layout(arch, extra, quant.upper(), tok, tied)
    except TypeError:  # an architecture built with lists is not hashable
        return _layout.__wrapped__(arch, extra, quant.upper(), tok, tied)


# The ModelArch.extra entries tensor_shapes reads (the cache key: extra is not hashed).
_SHAPE_KEYS = frozenset({
    "tied_embeddings", "n_ff_exp", "n_ff_expert", "n_expert_shared", "n_layer_dense_lead",
    "q_lora_rank", "head_dim_k_mla", "head_dim_v_mla", "n_head_per_layer", "n_ff_per_layer",
})  # fmt: skip


@functools.lru_cache(maxsize=256)
def _layout(
    arch: ModelArch,
    extra: tuple[tuple[str, Any], ...],
    quant: str,
    tokenizer: TokenizerFacts,
    tied: bool | None,
) -> QuantLayout:
    del extra  # part of the cache key only
    rows = _rows(arch, tied)
    shapes = [(name, shape, source) for name, shape, source, _layer in rows]
    types = mix_types(quant, shapes, mix_model(arch))
    per_layer = [0] * arch.n_layers
    planned: list[PlannedTensor] = []
    data = 0
    for (name, shape, _source, index), type_name in zip(rows, types, strict=True):
        n_bytes = _tensor_bytes(shape, type_name)
        layer = index if 0 <= index < arch.n_layers else None
        if layer is not None:
            per_layer[layer] += n_bytes
        planned.append(PlannedTensor(name, shape, type_name, n_bytes, layer))
        data += _padded(n_bytes)
    header = header_bytes(shapes, tokenizer)
    return QuantLayout(
        quant=quant,
        tensors=tuple(planned),
        header_bytes=header,
        n_layers=arch.n_layers,
        tensor_bytes=sum(t.n_bytes for t in planned),
        file_bytes=header + data,
        layer_bytes=tuple(per_layer),
    )
