"""The model catalog: schema-checked loading, overlays, look-ups, filters, sort keys, Hub refresh.

The bundled ``models_catalog.json`` is layered with the refresh overlay (exact sizes and hashes
that ``llm-scout catalog refresh`` read from the Hub, or a first verified download recorded)
and the user's own catalog: bundled < refreshed < user, with the published quality scores of
``resources/quality/published.json`` (:class:`QualityRecord`, each with its source) added to
the bundled models. A broken file raises :class:`~desktop.core.errors.CatalogError`
naming the file and the JSON pointer of the bad value; :func:`load_catalog_safe` keeps the app
working with the bundled catalog when an overlay is broken. Depends on gguf (architecture
facts, quant bits) and hub (names, the refresh).
"""

from desktop.core.catalog.filters import (
    MODEL_SORT_KEYS,
    VARIANT_SORT_KEYS,
    filter_models,
    filter_variants,
    model_matches,
    sort_models,
    sort_variants,
)
from desktop.core.catalog.load import (
    build_catalog,
    load_catalog,
    load_catalog_safe,
    read_json,
    refresh_overlay_path,
)
from desktop.core.catalog.quality import QualityRecord, bundled_quality_path
from desktop.core.catalog.record import record_verified_download
from desktop.core.catalog.refresh import RefreshReport, RepoReport, refresh_catalog
from desktop.core.catalog.types import (
    Catalog,
    CatalogModel,
    FileMatch,
    License,
    LocalDemo,
    Variant,
    VariantFile,
    VariantFormat,
)

__all__ = [
    "MODEL_SORT_KEYS",
    "VARIANT_SORT_KEYS",
    "Catalog",
    "CatalogModel",
    "FileMatch",
    "License",
    "LocalDemo",
    "QualityRecord",
    "RefreshReport",
    "RepoReport",
    "Variant",
    "VariantFile",
    "VariantFormat",
    "build_catalog",
    "bundled_quality_path",
    "filter_models",
    "filter_variants",
    "load_catalog",
    "load_catalog_safe",
    "model_matches",
    "read_json",
    "record_verified_download",
    "refresh_catalog",
    "refresh_overlay_path",
    "sort_models",
    "sort_variants",
]
