"""Architecture facts from GGUF metadata, the way llama.cpp reads them.

The rules follow llama.cpp's ``llama_model::load_hparams`` (src/llama-model.cpp) and
``llama_hparams`` (src/llama-hparams.cpp):

- ``{arch}.attention.head_count`` / ``head_count_kv`` / ``feed_forward_length`` may be a scalar or
  one value per layer; ``head_count_kv`` defaults to ``head_count``.
- key/value head lengths default to ``n_embd / n_head`` (layer 0); ``n_rot`` defaults to the key
  length.
- ``n_vocab`` is ``{arch}.vocab_size`` or the length of ``tokenizer.ggml.tokens``.
- Sliding-window layers: ``{arch}.attention.sliding_window_pattern`` when present (a period or a
  per-layer array), else the pattern llama.cpp hard-codes for the architecture (gemma3: 5 local
  layers then 1 global, ``set_swa_pattern(6)``). llama.cpp ignores the window of architectures
  it does not list (e.g. Mistral files under ``llama``), and so does this module.
- Recurrent layers (Mamba, RWKV, hybrids) carry their per-sequence state size in bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from desktop.core.errors import Sentence
from desktop.core.gguf.arch import ModelArch
from desktop.core.gguf.format import (
    GGUFArraySummary,
    GGUFFormatError,
    GGUFNotAModelError,
    GGUFStringSummary,
    TensorInfo,
)

MAX_LAYERS = 512  # LLAMA_MAX_LAYERS

# arch -> (period, dense_first, window when the key is absent, swa type), from the
# set_swa_pattern() calls in llama.cpp's load_hparams. A window of 0 disables SWA.
_SWA_PATTERNS: dict[str, tuple[int, bool, int, str]] = {
    "gemma2": (2, False, 4096, "standard"),
    "gemma3": (6, False, 0, "standard"),
    "gemma3n": (5, False, 0, "standard"),
    "gemma-embedding": (6, False, 0, "symmetric"),
    "cohere2": (4, False, 0, "standard"),
    "olmo2": (4, False, 0, "standard"),
    "exaone4": (4, False, 0, "standard"),
    "gpt-oss": (2, False, 0, "standard"),
    "afmoe": (4, False, 0, "standard"),
    "smallthinker": (4, True, 0, "standard"),
}
# llama4 uses chunked attention of 8192 on 3 of every 4 layers unless sliding_window is 0.
_LLAMA4_CHUNK = 8192

_RECURRENT_ARCHS = {"mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"}
# Hybrids: a layer without KV heads is recurrent (llama.cpp: recurrent_layer_arr = n_head_kv == 0).
_HYBRID_ARCHS = {"jamba", "falcon-h1", "granitehybrid", "nemotron_h", "plamo2", "qwen3next", "lfm2"}
_STATE_FLOAT_BYTES = 4  # recurrent states are kept in f32


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a true/false value"
    if isinstance(value, str):
        return "text"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, (tuple, GGUFArraySummary)):
        return "a list"
    if isinstance(value, GGUFStringSummary):
        return "an overlong text"
    return type(value).__name__


class _Keys:
    """Typed access to metadata with plain-sentence errors."""

    def __init__(
        self, metadata: Mapping[str, Any], name: str, offsets: Mapping[str, int] | None = None
    ) -> None:
        self.md = metadata
        self.name = name
        self.offsets = offsets or {}

    def invalid(self, key: str, problem: str) -> GGUFFormatError:
        return GGUFFormatError(
            f"{self.name} has {problem}",
            offset=self.offsets.get(key),
            sentence=Sentence("gguf.bad_entry", {"name": self.name, "key": key}),
        )

    def _bad(self, key: str, value: Any, expected: str) -> GGUFFormatError:
        return GGUFFormatError(
            f"{self.name} has {_describe(value)} under {key} where {expected} belongs",
            offset=self.offsets.get(key),
            sentence=Sentence("gguf.bad_entry", {"name": self.name, "key": key}),
        )

    def integer(self, key: str, default: int | None = None) -> int:
        value = self.md.get(key)
        if value is None:
            if default is None:
                raise GGUFNotAModelError(
                    f"{self.name} is not a language model file: it has no {key} entry",
                    sentence=Sentence("gguf.no_entry", {"name": self.name, "key": key}),
                )
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._bad(key, value, "a whole number")
        if value < 0:
            raise self.invalid(key, f"a negative {key} ({value})")
        return value

    def per_layer(self, key: str, n_layers: int, default: Sequence[int]) -> tuple[int, ...]:
        value = self.md.get(key)
        if value is None:
            return tuple(default)
        if isinstance(value, int) and not isinstance(value, bool):
            if value < 0:
                raise self.invalid(key, f"a negative {key} ({value})")
            return (value,) * n_layers
        if isinstance(value, tuple) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
        ):
            if len(value) != n_layers:
                raise self.invalid(key, f"{len(value)} values under {key} for {n_layers} layers")
            return tuple(int(v) for v in value)
        raise self._bad(key, value, "a whole number or one per layer")

    def text(self, key: str) -> str | None:
        value = self.md.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._bad(key, value, "text")
        return value


def vocab_size(metadata: Mapping[str, Any], arch: str, tensors: Sequence[TensorInfo]) -> int:
    value = metadata.get(f"{arch}.vocab_size")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    tokens = metadata.get("tokenizer.ggml.tokens")
    if isinstance(tokens, (tuple, GGUFArraySummary)) and len(tokens) > 0:
        return len(tokens)
    for tensor in tensors:
        if tensor.name == "token_embd.weight" and len(tensor.shape) >= 2:
            return tensor.shape[1]
    return 0


def _swa(
    keys: _Keys, arch: str, n_layers: int, n_head_kv: tuple[int, ...]
) -> tuple[int, tuple[bool, ...], str]:
    """(window, per-layer flags, swa type) as llama.cpp sets them."""
    p = f"{arch}."
    window_key = p + "attention.sliding_window"
    has_window_key = window_key in keys.md
    window = keys.integer(window_key, 0)
    none: tuple[int, tuple[bool, ...], str] = (0, (False,) * n_layers, "none")
    pattern = keys.md.get(p + "attention.sliding_window_pattern")
    if pattern is not None and window > 0:
        if isinstance(pattern, tuple):
            if len(pattern) != n_layers or not all(isinstance(v, (bool, int)) for v in pattern):
                raise keys.invalid(
                    p + "attention.sliding_window_pattern",
                    f"a sliding_window_pattern that does not list {n_layers} layers",
                )
            flags = tuple(bool(v) for v in pattern)
        else:
            period = keys.integer(p + "attention.sliding_window_pattern")
            flags = tuple(period == 0 or il % period < period - 1 for il in range(n_layers))
        return (window, flags, "standard") if any(flags) else none
    if arch == "llama4":
        if has_window_key and window == 0:
            return none
        flags = tuple(il % 4 < 3 for il in range(n_layers))
        return _LLAMA4_CHUNK, flags, "chunked"
    rule = _SWA_PATTERNS.get(arch)
    if rule is None:
        return none
    period, dense_first, default_window, swa_type = rule
    if not has_window_key:
        window = default_window
    if window <= 0:
        return none
    if dense_first:
        flags = tuple(il % period != 0 for il in range(n_layers))
    else:
        flags = tuple(il % period < period - 1 for il in range(n_layers))
    return window, flags, swa_type


def _recurrent_state_bytes(
    keys: _Keys, arch: str, n_layers: int, n_embd: int, n_head_kv: tuple[int, ...]
) -> tuple[int, ...]:
    if arch not in _RECURRENT_ARCHS and arch not in _HYBRID_ARCHS:
        return (0,) * n_layers
    p = f"{arch}."
    if arch in _RECURRENT_ARCHS:
        recurrent = (True,) * n_layers
    else:
        recurrent = tuple(kv == 0 for kv in n_head_kv)
    wkv_head = keys.integer(p + "wkv.head_size", 0)
    if wkv_head:
        shift = keys.integer(p + "token_shift_count", 2)
        floats = shift * n_embd + n_embd * wkv_head
    else:
        l_cache = keys.integer(p + "shortconv.l_cache", 0)
        d_conv = keys.integer(p + "ssm.conv_kernel", 0)
        d_inner = keys.integer(p + "ssm.inner_size", 0)
        d_state = keys.integer(p + "ssm.state_size", 0)
        n_group = keys.integer(p + "ssm.group_count", 0)
        if l_cache:
            conv = n_embd * (l_cache - 1)
        else:
            conv = max(d_conv - 1, 0) * (d_inner + 2 * n_group * d_state)
        floats = conv + d_state * d_inner
    per_layer = floats * _STATE_FLOAT_BYTES
    return tuple(per_layer if r else 0 for r in recurrent)


def derive_arch(
    metadata: Mapping[str, Any],
    tensors: Sequence[TensorInfo],
    name: str,
    offsets: Mapping[str, int] | None = None,
) -> ModelArch:
    """Build a fully filled :class:`ModelArch` (per-layer tuples of ``n_layers``).

    ``offsets`` (key -> byte offset of the value) lets errors point at the offending value.

    ``extra`` holds: ``swa_type`` ("none", "standard", "chunked", "symmetric"); where the file
    has them ``n_head_per_layer`` / ``n_ff_per_layer`` (when they vary), ``n_ff_expert``,
    ``n_expert_shared``, ``n_layer_dense_lead``, ``q_lora_rank``, ``head_dim_k_swa``,
    ``head_dim_v_swa``, ``head_dim_k_mla``, ``head_dim_v_mla``, ``n_layer_kv_shared`` and
    ``rope_freq_base``."""
    keys = _Keys(metadata, name, offsets)
    arch = keys.text("general.architecture")
    if not arch:
        raise GGUFNotAModelError(
            f"{name} is not a language model file: it has no general.architecture entry",
            sentence=Sentence("gguf.no_entry", {"name": name, "key": "general.architecture"}),
        )
    p = f"{arch}."
    n_layers = keys.integer(p + "block_count")
    if n_layers > MAX_LAYERS:
        raise keys.invalid(
            p + "block_count", f"{n_layers} layers, more than llama.cpp allows ({MAX_LAYERS})"
        )
    n_embd = keys.integer(p + "embedding_length")
    n_ctx_train = keys.integer(p + "context_length")

    heads = keys.per_layer(p + "attention.head_count", n_layers, (0,) * n_layers)
    heads_kv = keys.per_layer(p + "attention.head_count_kv", n_layers, heads)
    ffs = keys.per_layer(p + "feed_forward_length", n_layers, (0,) * n_layers)
    n_head = heads[0] if heads else 0
    default_head_dim = n_embd // n_head if n_head else 0
    head_dim_k = keys.integer(p + "attention.key_length", default_head_dim)
    head_dim_v = keys.integer(p + "attention.value_length", default_head_dim)
    n_rot = keys.integer(p + "rope.dimension_count", head_dim_k)
    window, swa_layers, swa_type = _swa(keys, arch, n_layers, heads_kv)

    extra: dict[str, Any] = {"swa_type": swa_type}
    if len(set(heads)) > 1:
        extra["n_head_per_layer"] = heads
    if len(set(ffs)) > 1:
        extra["n_ff_per_layer"] = ffs
    for field, key in (
        ("n_ff_expert", "expert_feed_forward_length"),
        ("n_expert_shared", "expert_shared_count"),
        ("n_layer_dense_lead", "leading_dense_block_count"),
        ("q_lora_rank", "attention.q_lora_rank"),
        ("head_dim_k_swa", "attention.key_length_swa"),
        ("head_dim_v_swa", "attention.value_length_swa"),
        ("head_dim_k_mla", "attention.key_length_mla"),
        ("head_dim_v_mla", "attention.value_length_mla"),
        ("n_layer_kv_shared", "attention.shared_kv_layers"),
    ):
        if p + key in metadata:
            extra[field] = keys.integer(p + key)
    rope_base = metadata.get(p + "rope.freq_base")
    if isinstance(rope_base, float):
        extra["rope_freq_base"] = rope_base

    return ModelArch(
        architecture=arch,
        n_params=sum(t.n_elements for t in tensors),
        n_layers=n_layers,
        n_embd=n_embd,
        n_head=n_head,
        n_head_kv=heads_kv,
        head_dim_k=head_dim_k,
        head_dim_v=head_dim_v,
        n_ctx_train=n_ctx_train,
        n_vocab=vocab_size(metadata, arch, tensors),
        n_ff=ffs[0] if ffs else 0,
        sliding_window=window,
        swa_layers=swa_layers,
        kv_lora_rank=keys.integer(p + "attention.kv_lora_rank", 0),
        n_rot=n_rot,
        n_expert=keys.integer(p + "expert_count", 0),
        n_expert_used=keys.integer(p + "expert_used_count", 0),
        ssm_state_bytes=_recurrent_state_bytes(keys, arch, n_layers, n_embd, heads_kv),
        extra=extra,
    )
