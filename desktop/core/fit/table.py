"""The whole catalog estimated at once: one row per variant, for the CLI table and the window.

:class:`CatalogEstimator` holds the fit targets of every variant (built once by the model
resolver: the real header where a file is on disk, the catalog's numbers otherwise) and a
hardware profile; :meth:`CatalogEstimator.estimate` returns a :class:`FitRow` per variant for a
context length. ``should_stop`` is checked between rows so a newer request (a slider moved
again) can abandon an older one at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.catalog import CatalogModel, Variant
from desktop.core.errors import Cancelled, ScoutError
from desktop.core.fit.estimator import estimate
from desktop.core.fit.types import CacheType, FitResult, FitTarget
from desktop.core.hardware import HardwareProfile

FIT_OK = ("gpu", "partial", "cpu")


@dataclass(frozen=True)
class FitRow:
    """One catalog variant and its estimate (``result`` None with ``error`` when the estimator
    could not place it)."""

    model: CatalogModel
    variant: Variant
    target: FitTarget
    result: FitResult | None
    error: str | None = None

    @property
    def fits(self) -> bool:
        return self.result is not None and self.result.verdict in FIT_OK

    def to_dict(self) -> dict[str, Any]:
        """One row of ``catalog --json``: the variant, its model and the estimate's summary."""
        return {
            **self.model.entry_dict(self.variant),
            "fit": None if self.result is None else self.result.summary_dict(),
        }


class CatalogEstimator:
    """Estimates for every variant of ``targets`` on ``profile``.

    ``targets``: (model, variant, target) triples, e.g. from
    :meth:`desktop.core.library.ModelResolver.fit_targets`.
    """

    def __init__(
        self,
        targets: Sequence[tuple[CatalogModel, Variant, FitTarget]],
        profile: HardwareProfile,
        *,
        models_dir: Path | None = None,
        cache_type: CacheType = "f16",
    ) -> None:
        self.targets = tuple(targets)
        self.profile = profile
        self.models_dir = models_dir
        self.cache_type = cache_type

    def estimate(
        self, n_ctx: int, *, should_stop: Callable[[], bool] | None = None
    ) -> list[FitRow]:
        """One row per target, in order; Cancelled when ``should_stop`` turns True."""
        rows: list[FitRow] = []
        for model, variant, target in self.targets:
            if should_stop is not None and should_stop():
                raise Cancelled("The catalog estimate was abandoned for a newer one.")
            try:
                result = estimate(
                    target,
                    self.profile,
                    n_ctx=n_ctx,
                    cache_type=self.cache_type,
                    models_dir=self.models_dir,
                )
            except ScoutError as exc:
                rows.append(FitRow(model, variant, target, None, exc.message))
                continue
            rows.append(FitRow(model, variant, target, result))
        return rows
