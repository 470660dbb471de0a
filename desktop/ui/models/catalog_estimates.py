"""The whole catalog estimated off the GUI thread, newest request only.

:class:`CatalogEstimates` runs :meth:`desktop.core.fit.CatalogEstimator.estimate` through
:class:`~desktop.ui.workers.LatestOnly` (a newer request abandons the older one between rows)
and keeps what is expensive to rebuild between requests:

- a new context reuses the estimator (a few milliseconds for the whole catalog);
- a new profile (``profile=True``) makes a new estimator from the same fit targets;
- a changed library (``targets=True``) also rebuilds the fit targets and the list of variants
  on disk, with the state's fresh resolver: a downloaded file's real header replaces the
  catalog's numbers.

What a worker builds is handed back with its rows and kept only when the result is delivered,
so an abandoned run leaves nothing half-made behind. Worker threads get plain values (the
catalog pairs, the profile, the resolver, the table's :class:`CatalogCells`, which turns the rows
into the table's cells there) and never touch a widget or an item model.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.core.catalog import CatalogModel, Variant
from desktop.core.fit import CatalogEstimator, FitRow, FitTarget
from desktop.core.hardware import HardwareProfile
from desktop.core.library import ModelResolver
from desktop.ui.models.catalog_model import CatalogCells, PreparedEstimate
from desktop.ui.state import AppState
from desktop.ui.workers import LatestOnly, TaskControl

log = logging.getLogger(__name__)

Targets = tuple[tuple[CatalogModel, Variant, FitTarget], ...]
#: variant id -> (file or folder on disk, where it came from: "download", "library")
Installed = dict[str, tuple[Path, str]]


@dataclass(frozen=True)
class CatalogEstimate:
    """One delivered estimate: every row at ``n_ctx`` on ``profile``, and what is on disk."""

    n_ctx: int
    profile: HardwareProfile
    rows: list[FitRow]
    installed: Installed
    targets: Targets
    estimator: CatalogEstimator
    #: the rows made into the table's cells on the worker (None: no cells were asked for)
    prepared: PreparedEstimate | None = None


class CatalogEstimates(QObject):
    """Estimates of ``pairs`` for ``state``'s profile, one request at a time.

    Signals:
        estimated(object): a :class:`CatalogEstimate` (the newest request's).
        failed(object): the exception of the newest request.
    """

    estimated = Signal(object)
    failed = Signal(object)

    def __init__(
        self,
        state: AppState,
        pairs: Sequence[tuple[CatalogModel, Variant]],
        parent: QObject | None = None,
        *,
        cells: CatalogCells | None = None,
    ) -> None:
        super().__init__(parent)
        self._state = state
        self._pairs = tuple(pairs)
        self._cells = cells
        self._targets: Targets | None = None
        self._installed: Installed | None = None
        self._estimator: CatalogEstimator | None = None
        self._runner: LatestOnly[CatalogEstimate] = LatestOnly(self._done, self._failed)
        self._closed = False

    @property
    def busy(self) -> bool:
        return self._runner.busy

    def request(self, n_ctx: int, *, targets: bool = False, profile: bool = False) -> bool:
        """Estimate at ``n_ctx``; ``targets``/``profile`` say what changed since the last
        request. False when there is no profile yet (this machine is being probed)."""
        if targets:
            self._targets = self._installed = None
            self._estimator = None
        if profile:
            self._estimator = None
        hardware = self._state.profile
        if self._closed or hardware is None:
            self._runner.cancel()
            return False
        pairs = self._pairs
        known_targets, known_installed = self._targets, self._installed
        known_estimator = self._estimator
        resolver: ModelResolver | None = None
        if known_targets is None or known_installed is None:
            resolver = self._state.resolver  # made on the GUI thread, used by the worker only
        models_dir = self._state.workspace.models_dir
        cells = self._cells

        def work(control: TaskControl) -> CatalogEstimate:
            targets_, installed = known_targets, known_installed
            if targets_ is None or installed is None:
                assert resolver is not None
                installed = {k: (p, str(o)) for k, (p, o) in resolver.installed().items()}
                targets_ = tuple(resolver.fit_targets(pairs))
            estimator = known_estimator or CatalogEstimator(
                targets_, hardware, models_dir=models_dir
            )
            rows = estimator.estimate(n_ctx, should_stop=control.should_stop)
            # The table's cells too: the GUI thread then only stores them.
            prepared = None if cells is None else cells.prepare(rows, installed, n_ctx)
            return CatalogEstimate(n_ctx, hardware, rows, installed, targets_, estimator, prepared)

        self._runner.submit(work)
        return True

    def close(self) -> None:
        """Abandon the running request; nothing is delivered after this."""
        self._closed = True
        self._runner.cancel()

    def _done(self, result: CatalogEstimate) -> None:
        if self._closed or not isValid(self):
            return
        self._targets, self._installed = result.targets, result.installed
        self._estimator = result.estimator
        self.estimated.emit(result)

    def _failed(self, error: Exception) -> None:
        if not self._closed and isValid(self):
            self.failed.emit(error)
