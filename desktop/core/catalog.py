"""The model catalog: schema-checked loading, the user overlay, look-ups, filters and sort keys.

The bundled ``models_catalog.json`` is layered with the refresh overlay (exact sizes and hashes
that ``llm-scout catalog refresh`` read from the Hub) and the user's own catalog:
bundled < refreshed < user. A broken file raises :class:`CatalogError` naming the file and the
JSON pointer of the bad value; :func:`load_catalog_safe` keeps the app working with the bundled
catalog when an overlay is broken.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop.core import paths
from desktop.core.catalog_filters import (
    MODEL_SORT_KEYS,
    VARIANT_SORT_KEYS,
    filter_models,
    filter_variants,
    model_matches,
    quant_bits,
    sort_models,
    sort_variants,
)
from desktop.core.catalog_overlay import (
    REFRESH_FILE_NAME,
    RefreshFacts,
    apply_refresh,
    merge_overlay,
    overlay_pointer,
    refresh_facts,
)
from desktop.core.catalog_schema import (
    file_name_problem,
    invalid,
    schema_problem,
    semantic_problem,
)
from desktop.core.errors import CatalogError
from desktop.core.modelinfo import ModelArch

__all__ = [
    "MODEL_SORT_KEYS",
    "VARIANT_SORT_KEYS",
    "Catalog",
    "CatalogError",
    "CatalogModel",
    "License",
    "LocalDemo",
    "Variant",
    "VariantFile",
    "build_arch",
    "build_catalog",
    "filter_models",
    "filter_variants",
    "load_catalog",
    "load_catalog_safe",
    "model_matches",
    "quant_bits",
    "refresh_overlay_path",
    "sort_models",
    "sort_variants",
]

log = logging.getLogger(__name__)

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


def _suggest(word: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, candidates, n=3, cutoff=0.6)
    if not close:
        lowered = word.lower()
        close = [c for c in candidates if lowered and lowered in c.lower()][:3]
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""


# --- loading ------------------------------------------------------------------------------


def refresh_overlay_path() -> Path:
    """Where ``catalog refresh`` writes the sizes and hashes it read from the Hub."""
    return paths.cache_dir() / REFRESH_FILE_NAME


def read_json(path: Path) -> Any:
    """Parse a JSON file; any failure is a CatalogError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CatalogError(
            f"The catalog file {path} does not exist.", kind="catalog.missing"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CatalogError(
            f"The catalog file {path} cannot be read: {reason}.", kind="catalog.unreadable"
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(
            f"The catalog file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}.",
            kind="catalog.json",
        ) from exc


def check_document(document: Any, path: Path | str) -> dict[str, Any]:
    """Schema and semantic checks on a complete catalog document."""
    problem = schema_problem(document) or semantic_problem(document)
    if problem is not None:
        raise invalid(path, *problem)
    checked: dict[str, Any] = document
    return checked


def load_catalog(
    bundled: Path | None = None,
    user: Path | None = None,
    refreshed: Path | None = None,
    *,
    with_refresh: bool = True,
) -> Catalog:
    """Load the bundled catalog, then the refresh overlay and the user overlay over it.

    Missing overlay files are fine; a broken file of any layer raises CatalogError.
    ``with_refresh=False`` leaves the refresh overlay out (what ``catalog refresh`` starts from).
    """
    bundled = bundled if bundled is not None else paths.bundled_catalog_path()
    user = user if user is not None else paths.user_catalog_path()
    refreshed = refreshed if refreshed is not None else refresh_overlay_path()
    document = check_document(read_json(bundled), bundled)
    sources = [str(bundled)]
    facts = _read_refresh(refreshed) if with_refresh else RefreshFacts()
    if facts:
        apply_refresh(document, facts)
        sources.append(str(refreshed))
    if user.is_file():
        document = _merge_user(document, user, facts)
        sources.append(str(user))
    return build_catalog(document, sources)


def load_catalog_safe(
    bundled: Path | None = None,
    user: Path | None = None,
    refreshed: Path | None = None,
    *,
    with_refresh: bool = True,
) -> tuple[Catalog, list[CatalogError]]:
    """Like :func:`load_catalog`, but never raises: a broken overlay is left out (the bundled
    catalog still loads) and a broken bundled file gives an empty catalog. The errors come back
    for the caller to show."""
    bundled = bundled if bundled is not None else paths.bundled_catalog_path()
    user = user if user is not None else paths.user_catalog_path()
    refreshed = refreshed if refreshed is not None else refresh_overlay_path()
    errors: list[CatalogError] = []
    try:
        document = check_document(read_json(bundled), bundled)
    except CatalogError as exc:
        log.error("%s", exc)
        return Catalog(models=()), [exc]
    sources = [str(bundled)]
    facts = RefreshFacts()
    try:
        facts = _read_refresh(refreshed) if with_refresh else RefreshFacts()
    except CatalogError as exc:
        log.warning("%s", exc)
        errors.append(exc)
    if facts:
        apply_refresh(document, facts)
        sources.append(str(refreshed))
    if user.is_file():
        try:
            document = _merge_user(document, user, facts)
            sources.append(str(user))
        except CatalogError as exc:
            log.warning("%s", exc)
            errors.append(exc)
    return build_catalog(document, sources), errors


def _read_refresh(path: Path) -> RefreshFacts:
    if not path.is_file():
        return RefreshFacts()
    return refresh_facts(read_json(path), path)


def _merge_user(document: dict[str, Any], user: Path, facts: RefreshFacts) -> dict[str, Any]:
    overlay = read_json(user)
    problem = schema_problem(overlay, overlay=True) or file_name_problem(overlay)
    if problem is not None:
        raise invalid(user, *problem)
    merged, origins = merge_overlay(document, overlay)
    if facts:
        # Files the user added without a hash still get the Hub facts a refresh found.
        def from_user(m_index: int, v_index: int, entry: Any) -> bool:
            origin = origins.get(m_index)
            return origin is not None and v_index in origin.variants and entry.get("sha256") is None

        apply_refresh(merged, facts, select=from_user)
    problem = schema_problem(merged) or semantic_problem(merged)
    if problem is not None:
        where, message = problem
        mapped = overlay_pointer(where, origins)
        raise invalid(user, mapped if mapped is not None else where, message)
    return merged


# --- building the dataclasses -------------------------------------------------------------


def build_catalog(document: dict[str, Any], sources: Iterable[str] = ()) -> Catalog:
    """Turn a checked catalog document into the frozen dataclasses."""
    return Catalog(
        models=tuple(_build_model(m) for m in document["models"]),
        schema_version=int(document["schema_version"]),
        sources=tuple(sources),
    )


def _build_model(data: dict[str, Any]) -> CatalogModel:
    lic = data["license"]
    return CatalogModel(
        id=data["id"],
        family=data["family"],
        name=data["name"],
        n_params=int(data["n_params"]),
        arch=build_arch(data["arch"], int(data["n_params"]), data.get("n_params_active")),
        license=License(
            name=lic["name"],
            commercial_use=bool(lic["commercial_use"]),
            url=lic["url"],
            note=lic.get("note", ""),
        ),
        languages=tuple(data["languages"]),
        description=data["description"],
        variants=tuple(_build_variant(data["id"], v) for v in data["variants"]),
        gated=bool(data.get("gated", False)),
        n_params_active=data.get("n_params_active"),
        hf_repo=data.get("hf_repo", ""),
        tags=tuple(data.get("tags", ())),
        params_verified=bool(data.get("params_verified", False)),
    )


def _build_variant(model_id: str, data: dict[str, Any]) -> Variant:
    demo = data.get("local_demo")
    return Variant(
        id=data["id"],
        model_id=model_id,
        format=data["format"],
        quant=data["quant"],
        repo=data["repo"],
        files=tuple(
            VariantFile(
                name=f["name"],
                size_bytes=f.get("size_bytes"),
                sha256=f.get("sha256"),
                verified=bool(f.get("verified", False)),
            )
            for f in data["files"]
        ),
        gated=bool(data.get("gated", False)),
        note=data.get("note", ""),
        local_demo=LocalDemo(
            sha256=demo["sha256"],
            size_bytes=int(demo["size_bytes"]),
            package=demo.get("package", ""),
            note=demo.get("note", ""),
        )
        if demo
        else None,
    )


_EXTRA_ARCH_KEYS = (
    "n_expert_shared",
    "n_ff_exp",
    "n_layer_dense_lead",
    "tied_embeddings",
    "source",
)


def build_arch(
    data: dict[str, Any], n_params: int, n_params_active: int | None = None
) -> ModelArch:
    """The catalog's architecture numbers as the :class:`ModelArch` fit uses."""
    n_layers = int(data["n_layers"])
    head_dim = int(data.get("head_dim", data["n_embd"] // data["n_head"]))
    sliding_window = int(data.get("sliding_window", 0))
    if "swa_layers" in data:
        swa = tuple(bool(x) for x in data["swa_layers"])
    elif "swa_pattern" in data:
        period = int(data["swa_pattern"])
        swa = tuple(i % period < period - 1 for i in range(n_layers))
    elif sliding_window:
        swa = (True,) * n_layers
    else:
        swa = ()
    extra: dict[str, Any] = {k: data[k] for k in _EXTRA_ARCH_KEYS if k in data}
    if n_params_active is not None:
        extra["n_params_active"] = n_params_active
    return ModelArch(
        architecture=data["architecture"],
        n_params=n_params,
        n_layers=n_layers,
        n_embd=int(data["n_embd"]),
        n_head=int(data["n_head"]),
        n_head_kv=ModelArch.per_layer(data["n_head_kv"], n_layers),
        head_dim_k=int(data.get("head_dim_k", head_dim)),
        head_dim_v=int(data.get("head_dim_v", head_dim)),
        n_ctx_train=int(data["n_ctx_train"]),
        n_vocab=int(data["n_vocab"]),
        n_ff=int(data.get("n_ff", 0)),
        sliding_window=sliding_window,
        swa_layers=swa,
        kv_lora_rank=int(data.get("kv_lora_rank", 0)),
        n_rot=int(data.get("n_rot", 0)),
        n_expert=int(data.get("n_expert", 0)),
        n_expert_used=int(data.get("n_expert_used", 0)),
        extra=extra,
    )
