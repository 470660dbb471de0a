"""Filters and sort keys over the catalog, shared by the CLI and the UI.

Re-exported by :mod:`desktop.core.catalog`; import them from there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from desktop.core.catalog.types import Catalog, CatalogModel, Variant
from desktop.core.gguf import quant_bits


def _models(source: Catalog | Iterable[CatalogModel]) -> list[CatalogModel]:
    if isinstance(source, Catalog):
        return list(source.models)
    return list(source)


_SEPARATORS = re.compile(r"[\s\-/:,;()]+")


def _tokens(*texts: str) -> list[str]:
    """Lower-case words of names: "Qwen2.5-7B-Instruct" -> ["qwen2.5", "7b", "instruct"]."""
    return [t for text in texts for t in _SEPARATORS.split(text.lower()) if t]


def _words(text: str | None) -> list[str]:
    return _tokens(text or "")


def _matches(words: Sequence[str], tokens: Sequence[str]) -> bool:
    """Every word begins one of the tokens: "qwen" finds "qwen2.5", "7b" finds "7b" but not
    "1.7b", "q8" finds "q8_0"."""
    return all(any(token.startswith(word) for token in tokens) for word in words)


def _model_tokens(model: CatalogModel) -> list[str]:
    """What a search looks at: ids, names, family, tags, licence and repos (not the
    description, whose "distilled from a 7B model" would make every search noisy)."""
    return _tokens(
        model.id,
        model.name,
        model.family,
        model.license.name,
        *model.tags,
        *(v.repo for v in model.variants),
    )


def _variant_tokens(variant: Variant) -> list[str]:
    return _tokens(variant.quant, variant.format, *(f.name for f in variant.files))


def _family_set(family: str | Iterable[str] | None) -> set[str] | None:
    if family is None:
        return None
    items = [family] if isinstance(family, str) else list(family)
    wanted = {f.strip().lower() for f in items if f.strip()}
    return wanted or None


def model_matches(
    model: CatalogModel,
    *,
    family: str | Iterable[str] | None = None,
    fmt: str | None = None,
    lang: str | None = None,
    commercial: bool | None = None,
    text: str | None = None,
) -> bool:
    """Whether one model passes the filters (None means "any")."""
    families = _family_set(family)
    if families is not None and model.family.lower() not in families:
        return False
    if fmt is not None and not any(v.format == fmt.lower() for v in model.variants):
        return False
    if lang is not None:
        wanted = lang.lower().split("-")[0].split("_")[0]
        if wanted not in model.languages:
            return False
    if commercial is not None and model.license.commercial_use != commercial:
        return False
    words = _words(text)
    if not words:
        return True
    tokens = _model_tokens(model)
    return _matches(words, tokens + [t for v in model.variants for t in _variant_tokens(v)])


def filter_models(
    catalog: Catalog | Iterable[CatalogModel],
    *,
    family: str | Iterable[str] | None = None,
    fmt: str | None = None,
    lang: str | None = None,
    commercial: bool | None = None,
    text: str | None = None,
) -> list[CatalogModel]:
    """Models that pass every given filter, in catalog order.

    - ``family``: one family or several ("qwen", ["llama", "phi"]), case-insensitive;
    - ``fmt``: "gguf" or "awq": the model has at least one variant of that format;
    - ``lang``: ISO code ("zh", also "zh-CN"): the model lists that language;
    - ``commercial``: True keeps licences that allow commercial use, False the others;
    - ``text``: every word must begin a word of the id, name, family, licence, tags, repos or
      a variant's quant and file names.
    """
    return [
        m
        for m in _models(catalog)
        if model_matches(m, family=family, fmt=fmt, lang=lang, commercial=commercial, text=text)
    ]


def filter_variants(
    catalog: Catalog | Iterable[CatalogModel],
    *,
    family: str | Iterable[str] | None = None,
    fmt: str | None = None,
    lang: str | None = None,
    commercial: bool | None = None,
    text: str | None = None,
    quant: str | None = None,
) -> list[tuple[CatalogModel, Variant]]:
    """(model, variant) pairs of the models :func:`filter_models` keeps, restricted to the
    variants of format ``fmt`` and quant ``quant`` when given. Search words match the model's
    names and the variant's quant and files together ("qwen 7b q8" finds the Q8_0 variants of
    Qwen 7B models only)."""
    words = _words(text)
    pairs = []
    for model in filter_models(catalog, family=family, fmt=fmt, lang=lang, commercial=commercial):
        tokens = _model_tokens(model)
        for variant in model.variants:
            if fmt is not None and variant.format != fmt.lower():
                continue
            if quant is not None and variant.quant.lower() != quant.lower():
                continue
            if words and not _matches(words, tokens + _variant_tokens(variant)):
                continue
            pairs.append((model, variant))
    return pairs


def _smallest_size(model: CatalogModel) -> int:
    sizes = [v.size_bytes for v in model.variants if v.size_bytes is not None]
    return min(sizes) if sizes else 0


MODEL_SORT_KEYS: dict[str, Callable[[CatalogModel], Any]] = {
    "name": lambda m: m.name.lower(),
    "id": lambda m: m.id,
    "params": lambda m: (m.n_params, m.id),
    "family": lambda m: (m.family, m.n_params, m.id),
    "context": lambda m: (m.context_length, m.n_params, m.id),
    "size": lambda m: (_smallest_size(m), m.id),
}

VARIANT_SORT_KEYS: dict[str, Callable[[tuple[CatalogModel, Variant]], Any]] = {
    "name": lambda p: (p[0].name.lower(), quant_bits(p[1].quant) or 99.0, p[1].quant),
    "params": lambda p: (p[0].n_params, p[0].id, quant_bits(p[1].quant) or 99.0, p[1].quant),
    "family": lambda p: (p[0].family, p[0].n_params, p[0].id, quant_bits(p[1].quant) or 99.0),
    "size": lambda p: (p[1].size_bytes or 0, p[1].id),
    "quant": lambda p: (quant_bits(p[1].quant) or 99.0, p[1].quant, p[0].n_params),
}


def sort_models(
    models: Iterable[CatalogModel], key: str = "params", *, descending: bool = False
) -> list[CatalogModel]:
    """Sort by one of :data:`MODEL_SORT_KEYS`; an unknown key raises KeyError."""
    return sorted(models, key=MODEL_SORT_KEYS[key], reverse=descending)


def sort_variants(
    pairs: Iterable[tuple[CatalogModel, Variant]], key: str = "params", *, descending: bool = False
) -> list[tuple[CatalogModel, Variant]]:
    """Sort (model, variant) pairs by one of :data:`VARIANT_SORT_KEYS`."""
    return sorted(pairs, key=VARIANT_SORT_KEYS[key], reverse=descending)
