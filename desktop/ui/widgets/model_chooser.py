"""Which model file the Playground will load, and the fit's prediction for the panel's settings.

:class:`ModelChooser` lists the models on this machine in the load panel (the demos and the
library's files), reads a chosen file's facts off the GUI thread
(:func:`~desktop.core.playground.read_model_facts`: layers, trained context, chat template, the
fit's best GPU layers), fills the panel's settings from them, and asks the fit for exactly the
panel's settings on the active profile whenever they change (only the newest answer counts).
A model on a server has no prediction: while the panel's source is a server nothing is asked.

Signals:
    changed(): the model or its prediction changed (the page's controls may follow).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.core.engine import default_threads
from desktop.core.fit import FitResult, estimate
from desktop.core.kv_cache import CacheType, cache_type_of
from desktop.core.playground import ModelFacts, local_models, read_model_facts
from desktop.ui.errors import describe
from desktop.ui.state import AppState
from desktop.ui.widgets.load_panel import LoadPanel
from desktop.ui.workers import LatestOnly, TaskControl, run_task


class ModelChooser(QObject):
    """The model and its prediction for one load panel (see the module docstring)."""

    changed = Signal()

    def __init__(self, state: AppState, panel: LoadPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.panel = panel
        self.model: ModelFacts | None = None
        self.result: FitResult | None = None  # the fit for the panel's settings
        self._closed = False
        self._resolver: LatestOnly[ModelFacts] = LatestOnly(self._on_resolved, self._on_failed)
        self._estimator: LatestOnly[FitResult] = LatestOnly(
            self._on_estimated, self._on_estimate_failed
        )

    def cache_type_setting(self) -> CacheType:
        """The ``kv_cache_type`` setting (f16, q8_0 or q4_0)."""
        return cache_type_of(self.state.settings.kv_cache_type)

    def reload_models(self) -> None:
        """List the demo models and the library's files (read off the GUI thread)."""
        if self._closed:
            return
        demos = [(d.name, str(d.path)) for d in self.state.workspace.demos]
        db, catalog = self.state.library_db, self.state.workspace.catalog

        def work(control: TaskControl) -> list[tuple[str, str]]:
            return local_models(demos, db, catalog)

        def done(models: list[tuple[str, str]]) -> None:
            if self._closed or not isValid(self):
                return
            current = str(self.model.path) if self.model is not None else None
            self.panel.set_models(models, current)

        run_task(work, on_done=done)

    def choose(self, path: Path) -> None:
        """Read ``path``'s facts (off the GUI thread); the panel's settings follow."""
        if self._closed:
            return
        resolver = self.state.resolver  # made on the GUI thread, used by the worker only
        profile = self.state.profile
        default_ctx = self.state.settings.default_ctx
        cache_type = self.cache_type_setting()

        def work(control: TaskControl) -> ModelFacts:
            return read_model_facts(resolver, path, profile, default_ctx, cache_type)

        self.panel.set_prediction_text(self.tr("Reading the model file…"))
        self._resolver.submit(work)

    def _on_resolved(self, info: ModelFacts) -> None:
        if self._closed or not isValid(self):
            return
        self.model = info
        panel = self.panel
        panel.add_model(info.label, str(info.path))
        panel.set_template_facts(info.has_template, info.fallback_template)
        panel.prefill(
            n_layers=info.n_layers,
            n_ctx=info.n_ctx,
            n_ctx_train=info.n_ctx_train,
            gpu_layers=info.gpu_layers,
            threads=default_threads(self.state.settings.default_threads),
            cache_type=self.cache_type_setting(),
        )
        self.changed.emit()

    def _on_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        title, sentence = describe(error)
        self.model = None
        self.panel.set_prediction_text(f"{title}: {sentence}")
        self.changed.emit()

    # -- the prediction -------------------------------------------------------------------------

    def estimate(self) -> None:
        """The fit for exactly the panel's settings on the active profile (off the GUI thread)."""
        if self._closed or self.model is None or self.panel.source == "server":
            return
        target, profile, panel = self.model.target, self.state.profile, self.panel
        if target is None or profile is None:
            self._estimator.cancel()
            self.result = None
            reason = self.model.problem or self.tr("waiting for the hardware probe")
            panel.set_prediction_text(self.tr("No prediction: %1").replace("%1", reason))
            return
        n_ctx = panel.ctx_spin.value()
        n_gpu_layers = panel.layers_spin.llama_value if panel.layers_spin.isEnabled() else 0
        cache_type, flash_attn = panel.cache_type, panel.flash_attn

        def work(control: TaskControl) -> FitResult:
            return estimate(
                target,
                profile,
                n_ctx=n_ctx,
                n_gpu_layers=n_gpu_layers,
                cache_type=cache_type,
                flash_attn=flash_attn,
            )

        self._estimator.submit(work)

    def cancel_estimate(self) -> None:
        self._estimator.cancel()

    def _on_estimated(self, result: FitResult) -> None:
        if self._closed or not isValid(self) or self.panel.source == "server":
            return
        self.result = result
        where = self.state.profile_name if self.state.what_if else self.tr("this machine")
        self.panel.show_prediction(result, where)
        self.changed.emit()

    def _on_estimate_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        self.result = None
        _title, sentence = describe(error)
        self.panel.set_prediction_text(self.tr("No prediction: %1").replace("%1", sentence))

    def close(self) -> None:
        self._closed = True
        self._resolver.cancel()
        self._estimator.cancel()
