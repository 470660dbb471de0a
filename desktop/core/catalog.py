"""The model catalog: schema, loading, validation, user overlay, filters.

(Types below are the contract other modules use; loading and filters are filled in by the
catalog work.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from desktop.core.modelinfo import ModelArch

VariantFormat = Literal["gguf", "awq"]


@dataclass(frozen=True)
class VariantFile:
    """One file of a variant. ``verified`` is True only when size and sha256 were checked
    against the Hub (``llm-scout catalog refresh``); otherwise numbers are the publisher's or
    estimates and ``sha256`` may be None (never invented)."""

    name: str  # path inside the repo, forward slashes, no "..", not absolute
    size_bytes: int | None
    sha256: str | None = None
    verified: bool = False


@dataclass(frozen=True)
class Variant:
    id: str  # "<model id>:<quant>", e.g. "qwen2.5-7b-instruct:Q4_K_M", "qwen2.5-7b-instruct:AWQ"
    model_id: str
    format: VariantFormat
    quant: str  # "Q4_K_M", "Q8_0", "AWQ"
    repo: str  # Hugging Face repo id
    files: tuple[VariantFile, ...]

    @property
    def size_bytes(self) -> int | None:
        sizes = [f.size_bytes for f in self.files]
        if any(s is None for s in sizes):
            return None
        return sum(s for s in sizes if s is not None)

    @property
    def verified(self) -> bool:
        return all(f.verified for f in self.files)


@dataclass(frozen=True)
class License:
    name: str
    commercial_use: bool
    url: str


@dataclass(frozen=True)
class CatalogModel:
    id: str  # "qwen2.5-7b-instruct"
    family: str  # "qwen", "llama", "phi", "deepseek", "gemma"
    name: str  # display name
    n_params: int
    arch: ModelArch
    license: License
    languages: tuple[str, ...]  # ISO codes, "zh" flags Chinese support
    description: str
    variants: tuple[Variant, ...]
    gated: bool = False  # the Hub asks the user to accept a licence before downloading

    @property
    def supports_chinese(self) -> bool:
        return "zh" in self.languages
