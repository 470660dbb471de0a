"""Architecture facts the fit estimator needs, whatever their source.

A :class:`ModelArch` comes either from a GGUF header (``desktop.core.gguf``) or from the
architecture numbers in the catalog (``desktop.core.catalog``); ``desktop.core.fit`` only ever
sees this type, so a catalog entry and a file on disk are estimated by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ModelArch:
    """Numbers that decide memory use. Per-layer tuples always have ``n_layers`` entries.

    - ``n_head_kv``: KV heads per layer (0 for a layer without attention, e.g. recurrent).
    - ``swa_layers``: True where the layer uses sliding-window attention of ``sliding_window``.
    - ``kv_lora_rank``/``n_rot``: MLA (DeepSeek V2/V3): the cache holds ``kv_lora_rank + n_rot``
      values per token and layer instead of per-head keys and values.
    - ``ssm_state_bytes``: per-layer recurrent state size (bytes per sequence) for recurrent layers.
    """

    architecture: str
    n_params: int
    n_layers: int
    n_embd: int
    n_head: int
    n_head_kv: tuple[int, ...]
    head_dim_k: int
    head_dim_v: int
    n_ctx_train: int
    n_vocab: int
    n_ff: int = 0
    sliding_window: int = 0
    swa_layers: tuple[bool, ...] = ()
    kv_lora_rank: int = 0
    n_rot: int = 0
    n_expert: int = 0
    n_expert_used: int = 0
    ssm_state_bytes: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_moe(self) -> bool:
        return self.n_expert > 1

    @property
    def uses_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @staticmethod
    def per_layer(value: int | list[int] | tuple[int, ...], n_layers: int) -> tuple[int, ...]:
        """Normalise a scalar-or-array GGUF/catalog value to one entry per layer."""
        if isinstance(value, int):
            return (value,) * n_layers
        values = tuple(int(v) for v in value)
        if len(values) != n_layers:
            raise ValueError(f"expected {n_layers} per-layer values, got {len(values)}")
        return values
