"""The KV cache's types and the flash-attention rule that goes with them, for every part of the app.

llama.cpp keeps the KV cache as f16, or quantized to q8_0 (half the memory) or q4_0 (a quarter,
in blocks of 32 values with a scale). The fit estimator sizes the cache from the block sizes
here, the engine worker and the dry run hand llama.cpp the ggml type ids here, and the settings,
the command line and the window offer :data:`CACHE_TYPES`.

Flash attention: llama.cpp cannot make a quantized V cache without it, so "auto" turns it on
exactly for a quantized cache (:func:`flash_attn_for`), and a quantized cache with flash
attention off is refused in one sentence (:func:`check_flash_attn`). The worker imports this
module: it stays free of anything but the error hierarchy.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from desktop.core.errors import UsageError

CacheType = Literal["f16", "q8_0", "q4_0"]
CACHE_TYPES: tuple[CacheType, ...] = ("f16", "q8_0", "q4_0")

#: ggml's type ids (ggml.h: GGML_TYPE_F16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0).
GGML_TYPE_IDS: Mapping[str, int] = MappingProxyType({"f16": 1, "q8_0": 8, "q4_0": 2})

#: (values per block, bytes per block) of a cache row.
BLOCK_BYTES: Mapping[str, tuple[int, int]] = MappingProxyType(
    {"f16": (1, 2), "q8_0": (32, 34), "q4_0": (32, 18)}
)

#: The choices a front end offers for flash attention.
FLASH_ATTN_CHOICES = ("auto", "on", "off")


def cache_type_of(value: object) -> CacheType:
    """``value`` as a cache type (a setting, a stored comparison, a combo's data); anything that
    is not one of :data:`CACHE_TYPES` is the default, f16."""
    for cache_type in CACHE_TYPES:
        if value == cache_type:
            return cache_type
    return "f16"


def needs_flash_attn(cache_type: str) -> bool:
    """Whether llama.cpp needs flash attention for this cache: for a quantized one."""
    return cache_type != "f16"


def auto_flash_attn(cache_type: str) -> bool:
    """What "auto" turns flash attention to: on exactly where the cache needs it."""
    return needs_flash_attn(cache_type)


def flash_attn_for(choice: str | bool | None, cache_type: str) -> bool:
    """Flash attention for a choice: ``"on"``/True, ``"off"``/False, or ``"auto"``/None (the
    cache type decides, :func:`auto_flash_attn`)."""
    if choice is None or choice == "auto":
        return auto_flash_attn(cache_type)
    return choice is True or choice == "on"


def check_flash_attn(cache_type: str, flash_attn: bool) -> None:
    """UsageError (one sentence) for a quantized cache with flash attention off."""
    if needs_flash_attn(cache_type) and not flash_attn:
        raise UsageError(
            f"A {cache_type} KV cache needs flash attention (llama.cpp cannot make a quantized "
            "V cache without it)."
        )
