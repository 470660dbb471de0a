"""Quantization facts: GGUF file types as quant labels, bits per weight, and the quant mixes.

Beside the GGUF types because a quant is a property of a file; the catalog (sort order) and the
fit estimator (weights of a variant not downloaded yet) read them from here.

A "quant" such as Q4_K_M names a *mix*: llama.cpp's quantizer keeps some tensors in wider types
(the output matrix in Q6_K, every few layers' ``attn_v`` and ``ffn_down`` in Q6_K, ...) and falls
back to 32-block types where a row does not split into 256-value blocks. :func:`mix_types` is a
port of that choice (``llama_tensor_get_type`` in llama.cpp's src/llama-quant.cpp, llama-cpp-python
0.3.36); :mod:`desktop.core.gguf.layout` applies it to the tensors an architecture holds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

_GUESSED_FLAG = 1024  # LLAMA_FTYPE_GUESSED

# Average bits per weight of GGUF quant types (whole file, embeddings included), used when only
# the parameter count is known. From llama.cpp's quantize table (sizes of Llama 3 8B).
QUANT_BITS: dict[str, float] = {
    "F32": 32.0,
    "F16": 16.0,
    "BF16": 16.0,
    "Q8_0": 8.5,
    "Q6_K": 6.56,
    "Q5_K_M": 5.69,
    "Q5_K_S": 5.54,
    "Q5_1": 6.0,
    "Q5_0": 5.5,
    "Q4_K_M": 4.89,
    "Q4_K_S": 4.58,
    "Q4_1": 5.0,
    "Q4_0": 4.55,
    "IQ4_NL": 4.5,
    "IQ4_XS": 4.25,
    "Q3_K_L": 4.27,
    "Q3_K_M": 3.91,
    "Q3_K_S": 3.5,
    "IQ3_M": 3.66,
    "IQ3_XS": 3.3,
    "Q2_K": 3.35,
    "IQ2_M": 2.7,
    "IQ2_XS": 2.31,
    "AWQ": 4.25,
}


def quant_bits(quant: str) -> float | None:
    """Bits per weight of a quant name ("Q4_K_M" -> 4.89; any "AWQ..." -> AWQ), None if unknown."""
    upper = quant.upper()
    if upper.startswith("AWQ"):
        upper = "AWQ"
    return QUANT_BITS.get(upper)


def quant_name(file_type: int | None) -> str | None:
    """``general.file_type`` as the usual quant label ("Q4_K_M", "F16"); None if unknown."""
    if file_type is None:
        return None
    import gguf

    try:
        member = gguf.LlamaFileType(file_type & ~_GUESSED_FLAG)
    except ValueError:
        return None
    label = member.name
    if label == "ALL_F32":
        return "F32"
    return label.removeprefix("MOSTLY_")


# -- quant mixes: llama.cpp's per-tensor type choice ---------------------------------------------

# The ggml type each file type starts from (llama_ftype_get_default_type).
FILE_TYPE_BASE: dict[str, str] = {
    "F32": "F32", "F16": "F16", "BF16": "BF16", "Q8_0": "Q8_0",
    "Q4_0": "Q4_0", "Q4_1": "Q4_1", "Q5_0": "Q5_0", "Q5_1": "Q5_1", "Q1_0": "Q1_0",
    "Q2_K": "Q2_K", "Q2_K_S": "Q2_K", "Q3_K_S": "Q3_K", "Q3_K_M": "Q3_K", "Q3_K_L": "Q3_K",
    "Q4_K_S": "Q4_K", "Q4_K_M": "Q4_K", "Q5_K_S": "Q5_K", "Q5_K_M": "Q5_K", "Q6_K": "Q6_K",
    "TQ1_0": "TQ1_0", "TQ2_0": "TQ2_0", "MXFP4_MOE": "MXFP4",
    "IQ2_XXS": "IQ2_XXS", "IQ2_XS": "IQ2_XS", "IQ2_S": "IQ2_XS", "IQ2_M": "IQ2_S",
    "IQ3_XXS": "IQ3_XXS", "IQ3_XS": "IQ3_S", "IQ3_S": "IQ3_S", "IQ3_M": "IQ3_S",
    "IQ1_S": "IQ1_S", "IQ1_M": "IQ1_M", "IQ4_NL": "IQ4_NL", "IQ4_XS": "IQ4_XS",
}  # fmt: skip
# Types ggml does not quantize (ggml_is_quantized is false): a mix of them keeps its base type.
_PLAIN_TYPES = frozenset({"F32", "F16", "BF16", "F64", "I8", "I16", "I32", "I64"})
# Values per block of each ggml type (ggml_blck_size).
_BLOCK_256 = frozenset({
    "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "Q8_K", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS",
    "IQ3_S", "IQ1_S", "IQ1_M", "IQ4_XS", "TQ1_0", "TQ2_0",
})  # fmt: skip
# tensor_type_fallback: a row that does not split into the type's blocks takes a 32-block type.
_FALLBACK: dict[str, str] = {
    "IQ1_S": "IQ4_NL", "IQ1_M": "IQ4_NL", "IQ2_XXS": "IQ4_NL", "IQ2_XS": "IQ4_NL",
    "IQ2_S": "IQ4_NL", "IQ3_XXS": "IQ4_NL", "IQ3_S": "IQ4_NL", "IQ4_XS": "IQ4_NL",
    "Q2_K": "Q4_0", "Q3_K": "Q4_0", "TQ1_0": "Q4_0", "TQ2_0": "Q4_0", "Q2_0": "Q4_0",
    "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0",
}  # fmt: skip
# llama.cpp's LLM_TYPE_70B: 80-layer models of these architectures (llama only with GQA).
_TYPE_70B_ARCHS = frozenset({"llama", "qwen2", "olmo", "deci"})


def block_size(type_name: str) -> int:
    """Values per block of a ggml type (256 for K- and most IQ types, 1 for plain types)."""
    if type_name in _PLAIN_TYPES:
        return 1
    return 256 if type_name in _BLOCK_256 else 32


@dataclass(frozen=True)
class MixModel:
    """The model facts llama.cpp's type choice looks at (``qs.model`` in llama-quant.cpp)."""

    architecture: str
    n_layers: int
    n_head: int
    n_head_kv: int  # of layer 0
    n_expert: int = 0

    @property
    def n_gqa(self) -> int:
        return self.n_head // self.n_head_kv if self.n_head_kv else 0

    @property
    def is_70b(self) -> bool:
        if self.n_layers != 80 or self.architecture not in _TYPE_70B_ARCHS:
            return False
        return self.architecture != "llama" or self.n_head != self.n_head_kv


def weights_map_key(name: str) -> tuple[int, str]:
    """llama.cpp's tensor order (weight_name_comparer): the layer number, then the name; tensors
    outside the blocks (-1) first. llama-quantize writes its output in this order."""
    layer = -1
    if name.startswith("blk."):
        head = name[4:].split(".", 1)[0]
        if head.isdigit():
            layer = int(head)
    return layer, name


def _suffix(name: str) -> str:
    """The name without its ``blk.N.`` prefix (the rules only look at the rest)."""
    if name.startswith("blk."):
        return name.split(".", 2)[-1]
    return name


@functools.lru_cache(maxsize=1024)
def _category(name: str) -> str:
    """tensor_get_category (of a name or its :func:`_suffix`)."""
    if name == "output.weight":
        return "output"
    if name in ("token_embd.weight", "per_layer_token_embd.weight"):
        return "token_embd"
    for part, category in (
        ("attn_qkv.weight", "attn_qkv"),
        ("attn_kv_b.weight", "attn_kv_b"),
        ("attn_v.weight", "attn_v"),
        ("attn_k.weight", "attn_k"),
        ("attn_q.weight", "attn_q"),
        ("attn_output.weight", "attn_output"),
        ("ffn_up", "ffn_up"),
        ("ffn_gate", "ffn_gate"),
        ("ffn_down", "ffn_down"),
    ):
        if part in name:
            return category
    return "other"


_ATTN_V_LIKE = frozenset({"attn_v", "attn_qkv", "attn_kv_b"})
_NOT_QUANTIZED_PARTS = (
    "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
    "per_layer_model_proj", "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight",
    "indexer.q_proj.weight", "time_mix_first.weight", "time_mix_w0.weight",
    "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_v0.weight", "time_mix_v1.weight",
    "time_mix_v2.weight", "time_mix_a0.weight", "time_mix_a1.weight", "time_mix_a2.weight",
    "time_mix_g1.weight", "time_mix_g2.weight", "time_mix_decay_w1.weight",
    "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight", "attn_rel_b.weight",
    ".position_embd", ".patch_embd",
)  # fmt: skip


def quantizable(name: str, n_dims: int) -> bool:
    """tensor_allows_quantization: 2-D and 3-D ``*weight`` tensors, except norms, MoE routers,
    position embeddings and a few small tensors of other architectures."""
    if n_dims < 2:
        return False
    return _quantizable_name(_suffix(name))


@functools.lru_cache(maxsize=1024)
def _quantizable_name(name: str) -> bool:
    if not name.endswith("weight"):
        return False
    if name in ("position_embd.weight", "token_types.weight"):
        return False
    return not any(part in name for part in _NOT_QUANTIZED_PARTS)


def _use_more_bits(i_layer: int, n_layers: int) -> bool:
    return (
        i_layer < n_layers // 8
        or i_layer >= 7 * n_layers // 8
        or _cpp_mod(i_layer - n_layers // 8, 3) == 2
    )


def _cpp_mod(a: int, b: int) -> int:
    """C++'s ``%`` (the sign of the dividend), which the rules above rely on."""
    return a - b * int(a / b)


class _State:
    """quantize_state_impl's counters."""

    def __init__(self, n_attention_wv: int, n_layers: int, tied: bool) -> None:
        self.n_attention_wv = n_attention_wv
        self.n_ffn = n_layers
        self.i_attention_wv = 0
        self.i_ffn_down = 0
        self.i_ffn_gate = 0
        self.i_ffn_up = 0
        self.tied = tied


_IQ2_MIXES = frozenset({"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"})


def mix_types(
    file_type: str,
    tensors: Sequence[tuple[str, tuple[int, ...], str]],
    model: MixModel,
) -> list[str]:
    """The ggml type llama.cpp's quantizer gives each tensor for ``file_type`` ("Q4_K_M", ...).

    ``tensors``: (name, shape in ggml order (row length first), type in the source file), in
    llama.cpp's order (:func:`weights_map_key`: some rules count tensors). Tensors the quantizer
    leaves alone (norms, biases, routers) keep their source type. No importance matrix, no
    overrides, ``quantize_output_tensor`` on: what llama-quantize does by default.
    """
    ftype = file_type.upper()
    base = FILE_TYPE_BASE.get(ftype)
    if base is None:
        raise ValueError(f"unknown GGUF file type {file_type!r}")
    suffixes = [_suffix(name) for name, _shape, _type in tensors]
    n_attention_wv = sum(1 for suffix in suffixes if _category(suffix) in _ATTN_V_LIKE)
    state = _State(n_attention_wv, model.n_layers, "output.weight" not in suffixes)
    out: list[str] = []
    for (name, shape, source), suffix in zip(tensors, suffixes, strict=True):
        if len(shape) < 2 or not _quantizable_name(suffix):
            out.append(source)
            continue
        if base in _PLAIN_TYPES:
            out.append(base)
            continue
        chosen = _choose(state, ftype, base, name, shape, model, _category(suffix))
        out.append(_fallback(chosen, shape[0]))
    return out


def _fallback(type_name: str, n_cols: int) -> str:
    """tensor_type_fallback."""
    if n_cols % block_size(type_name) == 0:
        return type_name
    if type_name in _FALLBACK:
        wider = _FALLBACK[type_name]
    elif block_size(type_name) <= 32:
        wider = type_name
    else:
        raise ValueError(f"no fallback type for {type_name}")
    return wider if n_cols % block_size(wider) == 0 else "F16"


def _choose(  # noqa: PLR0917 - a port of one long C++ function, kept alike
    qs: _State,
    ftype: str,
    new_type: str,
    name: str,
    shape: tuple[int, ...],
    model: MixModel,
    category: str,
) -> str:
    """llama_tensor_get_type_impl (the GLM5/BailingMoE3-only rules left out; the branches are
    kept as in C++, so the two read side by side)."""
    arch = model.architecture
    n_expert = model.n_expert
    falcon = arch == "falcon"

    def layer_of(counter: int, n_layer: int) -> tuple[int, int]:
        if max(1, n_expert) > 1:
            head = name[4:].split(".", 1)[0] if name.startswith("blk.") else ""
            if not head.isdigit():
                raise ValueError(f"cannot tell the layer of {name}")
            return int(head), n_layer
        return counter, n_layer

    if category == "output" or (qs.tied and category == "token_embd"):
        nx = shape[0]
        if ftype == "MXFP4_MOE":
            return "Q8_0"
        if falcon or nx % block_size(new_type) != 0:
            return "Q8_0"
        if ftype in ("IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"):
            return "Q5_K"
        return "Q6_K" if new_type != "Q8_0" else new_type
    if ftype == "MXFP4_MOE":
        return "MXFP4" if len(shape) > 2 and shape[2] > 1 else "Q8_0"
    if category == "token_embd":
        if ftype in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
            return "Q2_K"
        if ftype in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
            return "IQ3_S"
        if ftype in ("TQ1_0", "TQ2_0", "Q2_0"):
            return "Q4_K"
        return new_type
    if ftype in _IQ2_MIXES:
        if category in _ATTN_V_LIKE:
            if model.n_gqa >= 4 or n_expert >= 4:
                new_type = "Q4_K"
            else:
                new_type = "IQ3_S" if ftype in ("IQ2_S", "IQ2_M") else "Q2_K"
            qs.i_attention_wv += 1
        elif n_expert == 8 and category == "attn_k":
            new_type = "Q4_K"
        elif category == "ffn_down":
            if qs.i_ffn_down < qs.n_ffn // 8:
                new_type = "IQ3_S" if ftype in ("IQ2_S", "IQ2_M") else "Q2_K"
            qs.i_ffn_down += 1
        elif category == "attn_output":
            if n_expert == 8:
                new_type = "Q5_K"
            elif ftype in ("IQ1_S", "IQ1_M"):
                new_type = "IQ2_XXS"
            elif ftype in ("IQ2_S", "IQ2_M"):
                new_type = "IQ3_S"
        return new_type
    if category in _ATTN_V_LIKE:
        i, n = qs.i_attention_wv, qs.n_attention_wv
        if ftype == "Q2_K":
            new_type = "Q4_K" if model.n_gqa >= 4 else "Q3_K"
        elif ftype == "Q2_K_S" and model.n_gqa >= 4:
            new_type = "Q4_K"
        elif ftype == "IQ3_XXS":
            new_type = "Q4_K" if model.n_gqa >= 4 else "IQ3_S"  # no importance matrix
        elif (ftype in ("IQ3_XS", "IQ3_S") and model.n_gqa >= 4) or ftype == "IQ3_M":
            new_type = "Q4_K"
        elif ftype == "Q3_K_M":
            new_type = "Q5_K" if i < 2 else "Q4_K"
        elif ftype == "Q3_K_L" or (ftype in ("IQ4_NL", "IQ4_XS") and model.n_gqa >= 4):
            new_type = "Q5_K"
        elif ftype in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, n):
            new_type = "Q6_K"
        elif ftype == "Q4_K_S" and i < 4:
            new_type = "Q5_K"
        if model.is_70b and new_type in ("Q3_K", "Q4_K"):
            new_type = "Q5_K"
        if n_expert == 8:
            new_type = "Q8_0"
        qs.i_attention_wv += 1
        return new_type
    if category == "attn_k":
        if n_expert == 8:
            return "Q8_0"
        if ftype == "IQ3_XS":
            return "IQ3_XXS"
        if ftype == "IQ3_XXS":
            return "IQ2_S"
        return new_type
    if category == "attn_q":
        if ftype == "IQ3_XS":
            return "IQ3_XXS"
        if ftype == "IQ3_XXS":
            return "IQ2_S"
        return new_type
    if category == "ffn_down":
        i_layer, n_layer = layer_of(qs.i_ffn_down, qs.n_ffn)
        if ftype == "Q2_K":
            new_type = "Q3_K"
        elif ftype == "Q2_K_S":
            if i_layer < n_layer // 8:
                new_type = "Q4_K"
        elif ftype == "IQ3_XXS":
            new_type = "Q4_K" if i_layer < n_layer // 8 else "Q3_K"
        elif ftype == "Q3_K_M":
            if i_layer < n_layer // 16:
                new_type = "Q5_K"
            elif not falcon or _use_more_bits(i_layer, n_layer):
                new_type = "Q4_K"
            else:
                new_type = "Q3_K"
        elif ftype == "IQ3_M" and (
            i_layer < n_layer // 8 or (n_expert == 8 and _use_more_bits(i_layer, n_layer))
        ):
            new_type = "Q4_K"
        elif ftype == "Q3_K_L":
            new_type = "Q4_K" if falcon else "Q5_K"
        elif ftype == "Q4_K_M":
            if falcon:
                if i_layer < n_layer // 16:
                    new_type = "Q6_K"
                elif _use_more_bits(i_layer, n_layer):
                    new_type = "Q5_K"
                else:
                    new_type = "Q4_K"
            elif _use_more_bits(i_layer, n_layer):
                new_type = "Q6_K"
        elif i_layer < n_layer // 8 and ftype in ("IQ4_NL", "IQ4_XS"):
            new_type = "Q5_K"
        elif ftype == "Q5_K_M" and _use_more_bits(i_layer, n_layer):
            new_type = "Q6_K"
        elif ftype == "Q4_K_S" and not falcon and i_layer < n_layer // 8:
            new_type = "Q5_K"
        qs.i_ffn_down += 1
        return new_type
    if category == "attn_output":
        if not falcon:
            if n_expert == 8:
                if ftype in (
                    "Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S",
                    "Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS",
                ):  # fmt: skip
                    new_type = "Q5_K"
            else:
                new_type = {
                    "Q2_K": "Q3_K", "IQ3_XXS": "IQ3_S", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K",
                    "IQ3_M": "Q4_K",
                }.get(ftype, new_type)  # fmt: skip
        elif ftype == "Q3_K_L":
            new_type = "Q4_K"
        return new_type
    if category in ("ffn_gate", "ffn_up"):
        counter = qs.i_ffn_gate if category == "ffn_gate" else qs.i_ffn_up
        i_layer, n_layer = layer_of(counter, qs.n_ffn)
        if ftype == "IQ3_XS" and n_layer // 8 <= i_layer < 7 * n_layer // 8:
            new_type = "IQ3_XXS"
        if category == "ffn_gate":
            qs.i_ffn_gate += 1
        else:
            qs.i_ffn_up += 1
    return new_type
