"""The model catalog: schema-checked loading, the user overlay, look-ups, filters and sort keys.

The bundled ``models_catalog.json`` is layered with the refresh overlay (exact sizes and hashes
that ``llm-scout catalog refresh`` read from the Hub) and the user's own catalog:
bundled < refreshed < user. A broken file raises :class:`CatalogError` naming the file and the
JSON pointer of the bad value; :func:`load_catalog_safe` keeps the app working with the bundled
catalog when an overlay is broken.

This module is the one to import from. The parts live in :mod:`desktop.core.catalog_types` (the
dataclasses and look-ups), :mod:`desktop.core.catalog_load` (reading, merging, building) and
:mod:`desktop.core.catalog_filters` (filters and sort keys).
"""

from __future__ import annotations

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
from desktop.core.catalog_load import (
    build_arch,
    build_catalog,
    check_document,
    load_catalog,
    load_catalog_safe,
    read_json,
    refresh_overlay_path,
)
from desktop.core.catalog_types import (
    Catalog,
    CatalogModel,
    FileMatch,
    License,
    LocalDemo,
    Variant,
    VariantFile,
    VariantFormat,
)
from desktop.core.errors import CatalogError

__all__ = [
    "MODEL_SORT_KEYS",
    "VARIANT_SORT_KEYS",
    "Catalog",
    "CatalogError",
    "CatalogModel",
    "FileMatch",
    "License",
    "LocalDemo",
    "Variant",
    "VariantFile",
    "VariantFormat",
    "build_arch",
    "build_catalog",
    "check_document",
    "filter_models",
    "filter_variants",
    "load_catalog",
    "load_catalog_safe",
    "model_matches",
    "quant_bits",
    "read_json",
    "refresh_overlay_path",
    "sort_models",
    "sort_variants",
]
