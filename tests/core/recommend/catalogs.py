"""Fixture catalogs for the recommendation: real catalog models (their real shapes, so the fit
estimate is the real one) with quality records written here.

The scores are fixture data for the ranking's rules, with example.org sources; nothing here is
published data. :func:`fixture_catalog` copies models from the bundled catalog and gives each
the records asked for.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.catalog import Catalog, build_catalog
from desktop.core.fit import CatalogEstimator, FitRow, FitTarget
from desktop.core.hardware import load_profile

SOURCE = "https://example.org/fixture-table"


def record(benchmark: str, score: float, **extra: Any) -> dict[str, Any]:
    """An inline quality record (the catalog's ``quality`` form) from the fixture source."""
    return {
        "benchmark": benchmark,
        "score": score,
        "metric": extra.pop("metric", "accuracy"),
        "source": extra.pop("source", SOURCE),
        "read": "2026-12-01",
        "licence": "CC0 (test fixture)",
        "self_reported": extra.pop("self_reported", False),
        **extra,
    }


def bundled_document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(paths.bundled_catalog_path().read_text(encoding="utf-8"))
    return data


def fixture_catalog(
    scores: Mapping[str, Sequence[dict[str, Any]]], *, quants: Sequence[str] | None = None
) -> Catalog:
    """The bundled models named in ``scores`` (in that order), each with those records only;
    ``quants``: keep only these variants (GGUF quant names)."""
    document = bundled_document()
    by_id = {m["id"]: m for m in document["models"]}
    models = []
    for model_id, records in scores.items():
        model = copy.deepcopy(by_id[model_id])
        model["quality"] = list(records)
        if quants is not None:
            model["variants"] = [v for v in model["variants"] if v["quant"] in quants]
        models.append(model)
    return build_catalog({"schema_version": 1, "models": models})


def rows_for(catalog: Catalog, profile_name: str, n_ctx: int = 4096) -> list[FitRow]:
    """The whole-catalog estimate of ``catalog`` on a bundled what-if profile."""
    targets = [(m, v, FitTarget.from_variant(m, v)) for m, v in catalog.variants()]
    estimator = CatalogEstimator(
        targets, load_profile(profile_name), models_dir=Path("/nonexistent"), calibrated=False
    )
    return estimator.estimate(n_ctx)
