"""The Playground's model behind an OpenAI-compatible server: the load panel's Source "server".

:class:`RemoteSource` handles the server side of the panel: choosing it (no prediction: a server
is not this machine; the context starts from the settings' default), listing the models the
server serves (off the GUI thread; one sentence in the panel when it cannot say), the endpoint
to connect to, and what the page shows once connected — what is known and that the rest is not
(memory unknown unless the server exposes it, no GPU reading, no prediction) — and the speed
measured on this client or by the server itself, said which.

Signals:
    changed(): the source or the server's fields changed (the page's controls may follow).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.core.engine import Answer, LoadSettings, RemoteEndpoint, served_models
from desktop.core.engine import protocol as p
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.state import AppState
from desktop.ui.widgets.live_plots import LivePlots
from desktop.ui.widgets.load_panel import LoadPanel
from desktop.ui.widgets.model_chooser import ModelChooser
from desktop.ui.widgets.transcript import TranscriptView
from desktop.ui.workers import LatestOnly, TaskControl


class RemoteSource(QObject):
    """The server side of one load panel (see the module docstring)."""

    changed = Signal()

    def __init__(
        self,
        state: AppState,
        panel: LoadPanel,
        chooser: ModelChooser,
        plots: LivePlots,
        transcript: TranscriptView,
        *,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.panel = panel
        self.chooser = chooser
        self.plots = plots
        self.transcript = transcript
        self._closed = False
        self._lister: LatestOnly[list[str]] = LatestOnly(self._on_listed, self._on_list_failed)
        panel.source_changed.connect(self._on_panel_source_changed)
        panel.endpoint_changed.connect(self._on_panel_endpoint_changed)
        panel.list_models_requested.connect(self.list_served_models)

    @property
    def chosen(self) -> bool:
        """Whether the panel's source is a server."""
        return self.panel.source == "server"

    def can_connect(self) -> bool:
        _url, model, _key_env = self.panel.endpoint_fields()
        return bool(model)

    def _on_panel_source_changed(self, source: str) -> None:
        if source == "server":
            if self.chooser.model is None:  # nothing prefilled the context: the default
                self.panel.ctx_spin.setValue(self.state.settings.default_ctx)
            self.chooser.cancel_estimate()
            self.panel.set_prediction_text(self.tr("no prediction: remote"))
        else:
            self.panel.set_prediction_text("")
            self.chooser.estimate()
        self.changed.emit()

    def _on_panel_endpoint_changed(self) -> None:
        self.panel.problem_label.setText("")
        self.changed.emit()

    def show(self, base_url: str, model: str, key_env: str = "") -> None:
        """Choose a server as the source and fill its URL, model and key variable."""
        self.panel.set_source("server")
        self.panel.set_endpoint(base_url, model, key_env)

    def endpoint(self) -> tuple[RemoteEndpoint, LoadSettings]:
        """The server and model to connect to, with the context to trim the chat to;
        ScoutError (one sentence) when the URL or the model name cannot be used."""
        return self.panel.endpoint(), LoadSettings(n_ctx=self.panel.ctx_spin.value())

    # -- the models a server serves -------------------------------------------------------------

    def list_served_models(self) -> None:
        """Ask the server in the panel which models it serves (off the GUI thread); they fill
        the model combo, or the panel says in one sentence why the server could not say."""
        if self._closed:
            return
        url, _model, key_env = self.panel.endpoint_fields()
        url = url or self.panel.url_edit.placeholderText()

        def work(control: TaskControl) -> list[str]:
            return served_models(url, key_env or None)

        self.panel.problem_label.setText("")
        self.panel.set_listing(True)
        self._lister.submit(work)

    def _on_listed(self, names: list[str]) -> None:
        if self._closed or not isValid(self):
            return
        self.panel.set_listing(False)
        self.panel.set_served_models(names)
        if not names:
            self.panel.problem_label.setText(self.tr("The server lists no models."))

    def _on_list_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        self.panel.set_listing(False)
        _title, sentence = describe(error)
        self.panel.problem_label.setText(sentence)

    # -- connected ------------------------------------------------------------------------------

    def connecting(self) -> None:
        """A connection starts: there is no fraction to show, and no prediction."""
        self.panel.set_progress(None)
        self.panel.set_load_text("")
        self.panel.set_prediction_text(self.tr("no prediction: remote"))

    def show_connected(self, loaded: p.Loaded, endpoint: RemoteEndpoint) -> None:
        """Connected: the plots say what a server does not tell (memory, GPU), no prediction."""
        self.plots.set_predictions(tokens_per_s=None, ram_bytes=None, vram_bytes=None)
        self.plots.set_memory_message(self.tr("memory unknown: the server does not expose it"))
        self.plots.set_gpu_message(self.tr("not measured: remote"))
        self.panel.set_load_text(
            self.tr("connected in %1").replace("%1", fmt.seconds(loaded.load_ms / 1000))
        )
        self.panel.set_prediction_text(self.tr("no prediction: remote"))
        self.transcript.add_note(
            self.tr("Connected to %1 at %2 · context %3 tokens")
            .replace("%1", endpoint.model)
            .replace("%2", endpoint.base_url)
            .replace("%3", fmt.integer(loaded.n_ctx))
        )

    def show_measured(self, live_rate: float | None, last: Answer | None) -> None:
        """The speed measured now (live while it answers) or of the last answer, and where it
        was measured (this client, or the server's own timings)."""
        rate, source = live_rate, "client"
        if rate is None and last is not None:
            rate = last.report.metrics.tokens_per_s
            source = last.report.timing_source
        self.panel.show_remote_measured(rate, source)

    def close(self) -> None:
        self._closed = True
        self._lister.cancel()
