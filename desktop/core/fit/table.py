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
from desktop.core.fit.calibration import (
    AppliedCalibration,
    CalibrationStore,
    MachineCalibration,
    apply_calibration,
    calibration_for,
)
from desktop.core.fit.estimator import TargetEstimator
from desktop.core.fit.types import FitResult, FitTarget
from desktop.core.hardware import HardwareProfile
from desktop.core.kv_cache import CacheType

FIT_OK = ("gpu", "partial", "cpu")


def download_size(model: CatalogModel, variant: Variant) -> tuple[int | None, bool]:
    """The one size of ``variant``'s download, and whether it is known: the catalog's size when
    it was verified against the Hub, else the size estimated from the model's shapes that the
    fit counts (the disk check, the load time). The catalog's unverified size is not used
    anywhere: every page, button and command says this one."""
    if variant.verified and variant.size_bytes:
        return variant.size_bytes, True
    try:
        target = FitTarget.from_variant(model, variant)
    except ScoutError:
        return variant.size_bytes, False
    return target.download_bytes or target.file_bytes or variant.size_bytes, False


@dataclass(frozen=True)
class FitRow:
    """One catalog variant and its estimate (``result`` None with ``error`` when the estimator
    could not place it)."""

    model: CatalogModel
    variant: Variant
    target: FitTarget
    result: FitResult | None
    error: str | None = None
    calibration: AppliedCalibration | None = None  # what this machine's runs changed

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

    Each row is a :class:`~desktop.core.fit.estimator.TargetEstimator` that keeps what does
    not depend on the context (above all the largest context that fits, which takes dozens of
    placements to find), so after the first call a new context costs a few placements per row:
    the whole catalog in a few milliseconds. The first call on a new profile does the searches
    too. Rows equal :func:`~desktop.core.fit.estimate` with the same arguments. Make a new
    estimator when the targets, the profile or the cache type change.

    ``calibrated``: apply the profile's calibration from its machine's own runs
    (:func:`~desktop.core.fit.calibration.calibration_for`, kept in :attr:`calibration`); False
    gives the raw model.
    """

    def __init__(
        self,
        targets: Sequence[tuple[CatalogModel, Variant, FitTarget]],
        profile: HardwareProfile,
        *,
        models_dir: Path | None = None,
        cache_type: CacheType = "f16",
        calibrated: bool = True,
    ) -> None:
        self.targets = tuple(targets)
        self.calibrated = calibrated
        self._calibration_version = CalibrationStore().version() if calibrated else None
        self.calibration: tuple[MachineCalibration, str] | None = (
            calibration_for(profile) if calibrated else None
        )
        self.profile = profile
        self.models_dir = models_dir
        self.cache_type = cache_type
        self._estimators = tuple(
            TargetEstimator(target, profile, cache_type=cache_type, models_dir=models_dir)
            for _model, _variant, target in self.targets
        )

    def estimate(
        self, n_ctx: int, *, should_stop: Callable[[], bool] | None = None
    ) -> list[FitRow]:
        """One row per target, in order; Cancelled when ``should_stop`` turns True (checked
        before every row). What an abandoned call computed is kept for the next one. A run
        recorded (or the calibration undone or reset) since the last call, here or by another
        process, is followed: the calibration is read again when its file changed."""
        self.refresh_calibration()
        return [
            self.estimate_one(index, n_ctx, should_stop=should_stop)
            for index in range(len(self.targets))
        ]

    def refresh_calibration(self) -> bool:
        """Read the calibration again if its file changed since; True when it did."""
        if not self.calibrated:
            return False
        version = CalibrationStore().version()
        if version == self._calibration_version:
            return False
        self._calibration_version = version
        self.calibration = calibration_for(self.profile)
        return True

    def estimate_one(
        self, index: int, n_ctx: int, *, should_stop: Callable[[], bool] | None = None
    ) -> FitRow:
        """The row of ``targets[index]`` at ``n_ctx``."""
        if should_stop is not None and should_stop():
            raise Cancelled("The catalog estimate was abandoned for a newer one.")
        model, variant, target = self.targets[index]
        try:
            result = self._estimators[index].estimate(n_ctx)
        except ScoutError as exc:
            return FitRow(model, variant, target, None, exc.message)
        result, applied = apply_calibration(result, self.calibration)
        return FitRow(model, variant, target, result, calibration=applied)
