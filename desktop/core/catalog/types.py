"""The catalog's frozen dataclasses and its look-ups (by id, variant id, sha256, file name).

Import them from :mod:`desktop.core.catalog`, which re-exports them with the loading functions
of :mod:`desktop.core.catalog.load`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.catalog.quality import QualityRecord
from desktop.core.errors import CatalogError
from desktop.core.gguf import ModelArch

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
class LocalDemo:
    sha256: str
    size_bytes: int
    package: str = ""
    note: str = ""


@dataclass(frozen=True)
class Variant:
    id: str  # "<model id>:<quant>", e.g. "qwen2.5-7b-instruct:Q4_K_M", "qwen2.5-7b-instruct:AWQ"
    model_id: str
    format: VariantFormat
    quant: str  # "Q4_K_M", "Q8_0", "AWQ"
    repo: str  # Hugging Face repo id
    files: tuple[VariantFile, ...]
    gated: bool = False  # this variant's repo asks for licence acceptance (a Hub token)
    note: str = ""
    # A copy of this variant that ships as a demo package: its local size and sha256 (not a
    # Hub check, so kept apart from ``files``); find_by_sha256 recognises it too.
    local_demo: LocalDemo | None = None

    @property
    def size_bytes(self) -> int | None:
        sizes = [f.size_bytes for f in self.files]
        if any(s is None for s in sizes):
            return None
        return sum(s for s in sizes if s is not None)

    @property
    def verified(self) -> bool:
        return all(f.verified for f in self.files)

    @property
    def is_split(self) -> bool:
        """A GGUF published as ``-00001-of-0000N.gguf`` parts (or an AWQ shard set)."""
        return len(self.files) > 1

    def to_dict(self) -> dict[str, Any]:
        """The variant's own fields in ``catalog --json`` (the model's come from its model)."""
        return {
            "format": self.format,
            "quant": self.quant,
            "repo": self.repo,
            "gated": self.gated,
            "size_bytes": self.size_bytes,
            "verified": self.verified,
            "files": [
                {
                    "name": f.name,
                    "size_bytes": f.size_bytes,
                    "sha256": f.sha256,
                    "verified": f.verified,
                }
                for f in self.files
            ],
        }


@dataclass(frozen=True)
class License:
    name: str
    commercial_use: bool
    url: str
    note: str = ""  # conditions that come with commercial use (e.g. Llama's 700M MAU clause)


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
    # The original repo (hf_repo) asks the user to accept a licence; downloads go to the
    # variant's repo, whose own flag is Variant.gated (GGUF re-uploads are usually open).
    gated: bool = False
    n_params_active: int | None = None  # mixture of experts: parameters used per token
    hf_repo: str = ""  # the original (unquantised) model repo
    tags: tuple[str, ...] = ()  # "reasoning", "coder", "moe", "demo" ...
    params_verified: bool = False  # n_params and arch checked against the Hub's config.json
    # Published quality scores of this model (issue 24), each with its source.
    quality: tuple[QualityRecord, ...] = field(default=(), compare=False, repr=False)

    @property
    def supports_chinese(self) -> bool:
        return "zh" in self.languages

    @property
    def context_length(self) -> int:
        return self.arch.n_ctx_train

    @property
    def is_moe(self) -> bool:
        return self.arch.is_moe

    @property
    def formats(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v.format for v in self.variants))

    def variant_for(self, quant: str) -> Variant | None:
        wanted = quant.lower()
        return next((v for v in self.variants if v.quant.lower() == wanted), None)

    def entry_dict(self, variant: Variant) -> dict[str, Any]:
        """One row of ``catalog --json``: a variant with the model it belongs to."""
        return {
            "id": variant.id,
            "model_id": self.id,
            "family": self.family,
            "name": self.name,
            "n_params": self.n_params,
            "n_params_active": self.n_params_active,
            "context_length": self.context_length,
            **variant.to_dict(),
            "license": {
                "name": self.license.name,
                "commercial_use": self.license.commercial_use,
                "url": self.license.url,
            },
            "languages": list(self.languages),
            "zh": self.supports_chinese,
            "description": self.description,
        }


FileMatch = tuple[CatalogModel, Variant, VariantFile]


@dataclass(frozen=True)
class Catalog:
    """The merged catalog. ``sources`` lists the files it was built from, lowest layer first."""

    models: tuple[CatalogModel, ...]
    schema_version: int = 1
    sources: tuple[str, ...] = ()
    _by_id: dict[str, CatalogModel] = field(init=False, repr=False, compare=False)
    _by_variant: dict[str, tuple[CatalogModel, Variant]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {m.id: m for m in self.models})
        object.__setattr__(
            self, "_by_variant", {v.id: (m, v) for m in self.models for v in m.variants}
        )

    def __len__(self) -> int:
        return len(self.models)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(sorted({m.family for m in self.models}))

    def get(self, model_id: str) -> CatalogModel | None:
        return self._by_id.get(model_id)

    def model(self, model_id: str) -> CatalogModel:
        found = self.get(model_id)
        if found is None:
            raise CatalogError(
                f"There is no model {model_id!r} in the catalog{_suggest(model_id, self._ids())}.",
                kind="catalog.unknown_model",
            )
        return found

    def variants(self) -> tuple[tuple[CatalogModel, Variant], ...]:
        """Every (model, variant) pair, in catalog order."""
        return tuple((m, v) for m in self.models for v in m.variants)

    def variant(self, variant_id: str) -> tuple[CatalogModel, Variant]:
        """Look up ``"<model id>:<quant>"``; the quant is matched case-insensitively."""
        found = self._by_variant.get(variant_id)
        if found is None and ":" in variant_id:
            model_id, quant = variant_id.rsplit(":", 1)
            model = self.get(model_id)
            variant = model.variant_for(quant) if model is not None else None
            if model is not None and variant is not None:
                found = (model, variant)
        if found is None:
            raise CatalogError(
                f"There is no variant {variant_id!r} in the catalog"
                f"{_suggest(variant_id, list(self._by_variant))}.",
                kind="catalog.unknown_variant",
            )
        return found

    def find_by_sha256(self, sha256: str) -> FileMatch | None:
        """The file with this hash (a Hub-verified hash or a demo package's local copy)."""
        wanted = sha256.strip().lower()
        if not wanted:
            return None
        for model in self.models:
            for variant in model.variants:
                for entry in variant.files:
                    if entry.sha256 is not None and entry.sha256.lower() == wanted:
                        return model, variant, entry
                demo = variant.local_demo
                if demo is not None and demo.sha256 == wanted and len(variant.files) == 1:
                    return model, variant, variant.files[0]
        return None

    def find_by_file_name(self, name: str) -> FileMatch | None:
        """The first file whose base name matches ``name`` (case-insensitive), or None.

        Split parts match too (``...-00002-of-00003.gguf``); :meth:`find_all_by_file_name`
        lists every match when several publishers use the same name.
        """
        matches = self.find_all_by_file_name(name)
        return matches[0] if matches else None

    def find_all_by_file_name(self, name: str) -> list[FileMatch]:
        wanted = name.replace("\\", "/").rsplit("/", 1)[-1].lower()
        return [
            (model, variant, entry)
            for model in self.models
            for variant in model.variants
            for entry in variant.files
            if entry.name.rsplit("/", 1)[-1].lower() == wanted
        ]

    def _ids(self) -> list[str]:
        return [m.id for m in self.models]

    def suggestions(self, word: str) -> str:
        """The tail ' (did you mean ...?)' with model and variant ids close to ``word``, or ""."""
        return _suggest(word, [*self._ids(), *self._by_variant])


def _suggest(word: str, candidates: Sequence[str]) -> str:
    """Up to three ids close to ``word``: those that begin with its model part (a shortened id,
    "qwen2.5-7b:Q4_K_M" -> "qwen2.5-7b-instruct:Q4_K_M") first, then close spellings."""
    lowered = word.lower()
    model, _, quant = lowered.partition(":")
    close = [
        c
        for c in candidates
        if model and c.lower().startswith(model) and (not quant or c.lower().endswith(":" + quant))
    ]
    close += difflib.get_close_matches(word, candidates, n=3, cutoff=0.6)
    if not close:
        close = [c for c in candidates if lowered and lowered in c.lower()]
    close = list(dict.fromkeys(close))[:3]
    return did_you_mean(close)


def did_you_mean(ids: Sequence[str]) -> str:
    """The tail ' (did you mean 'a', 'b'?)' for the end of a sentence, "" when there is nothing."""
    return f" (did you mean {', '.join(repr(c) for c in ids)}?)" if ids else ""
