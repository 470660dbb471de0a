"""Loading the Playground's model, or connecting to its server, and saying how it went.

:class:`ModelLoader` starts what the load panel asks for on the page's
:class:`~desktop.core.playground.ChatSession`: the chosen file with the panel's settings —
after asking, with the numbers, when the fit says it will not fit — or the server in the panel;
Reload starts the last one again, Unload ends it. Once loaded it says how long it took next to
the prediction and which chat template the model got (a server: what it does not tell); a load
that fails, or a run the engine ends, turns the page into its error state: one sentence,
llama.cpp's log behind "Details", a note in the transcript, and Reload.

Signals:
    started(): a load or a connection started (the page's drawing follows the new model).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError
from desktop.core.fit import FitResult
from desktop.core.playground import ChatSession, Failure, ModelFacts, Phase, RunContext
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.state import AppState
from desktop.ui.widgets.chat_transcript import ChatTranscript
from desktop.ui.widgets.engine_error import EngineErrorBanner
from desktop.ui.widgets.live_drawer import LiveDrawer
from desktop.ui.widgets.model_chooser import ModelChooser
from desktop.ui.widgets.remote_source import RemoteSource


class ModelLoader(QObject):
    """The load flow of one page (see the module docstring)."""

    started = Signal()

    def __init__(  # noqa: PLR0917  (the parts of the page it drives)
        self,
        state: AppState,
        session: ChatSession,
        chooser: ModelChooser,
        server: RemoteSource,
        drawer: LiveDrawer,
        banner: EngineErrorBanner,
        chat_view: ChatTranscript,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.session = session
        self.chooser = chooser
        self.server = server
        self.drawer = drawer
        self.banner = banner
        self.chat_view = chat_view
        self.panel = chooser.panel
        self.transcript = chat_view.transcript
        self._window = parent
        self._closed = False

    def load(self, *, confirm: bool = True) -> bool:
        """Load the chosen model with the panel's settings. When the fit says it will not fit,
        ask first (with the numbers); returns whether loading started. With a server as the
        source, connect to it instead."""
        if self._closed or self.session.phase is Phase.GENERATING:
            return False
        if self.server.chosen:
            return self.connect_server()
        model = self.chooser.model
        if model is None:
            return False
        try:
            settings = self.panel.load_settings()
        except ScoutError as exc:
            self.panel.problem_label.setText(exc.message)
            return False
        result = self.chooser.result
        if confirm and result is not None and result.verdict == "no":
            self._confirm(result, model, settings)
            return False
        self._start_load(model, settings)
        return True

    def _confirm(self, result: FitResult, model: ModelFacts, settings: LoadSettings) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("This model will probably not fit"),
            self.panel.fit_warning(result, model.label),
            QMessageBox.StandardButton.Cancel,
            self._window,
        )
        box.setObjectName("fitConfirmBox")
        load = box.addButton(self.tr("Load anyway"), QMessageBox.ButtonRole.AcceptRole)

        def finished(_code: int) -> None:
            if box.clickedButton() is load and not self._closed:
                self._start_load(model, settings)

        box.finished.connect(finished)
        box.open()

    def connect_server(self) -> bool:
        """Connect to the server in the panel (it must answer and serve the model); returns
        whether connecting started (False with one sentence in the panel when the URL or the
        model name cannot be used)."""
        try:
            endpoint, settings = self.server.endpoint()
            endpoint = endpoint.with_timeout(self.state.settings.remote_timeout_s)
        except ScoutError as exc:
            self.panel.problem_label.setText(exc.message)
            return False
        self._begin()
        settings_panel = self.chat_view.chat.settings
        dropped = self.session.connect(
            endpoint,
            settings,
            context=self._run_context(),
            system=settings_panel.system(),
            params=settings_panel.params(),
        )
        self._started(dropped)
        return True

    def _start_load(self, model: ModelFacts, settings: LoadSettings) -> None:
        self._begin()
        settings_panel = self.chat_view.chat.settings
        dropped = self.session.load(
            model.path,
            settings,
            label=model.label,
            target=model.target,
            profile=self.state.profile,
            context=self._run_context(),
            system=settings_panel.system(),
            params=settings_panel.params(),
        )
        self._started(dropped)

    def reload(self) -> None:
        """Load the last model with the last settings again (after a failure); the
        conversation stays."""
        session = self.session
        if self._closed or session.engine is None or session.phase is Phase.GENERATING:
            return
        self._begin()
        self._started(dropped=False, reloaded=session.reload())

    def unload(self) -> None:
        """End the worker (also cancels a load); the transcript stays."""
        if not self.session.phase.engaged:
            return
        self.drawer.end()
        self.session.unload()
        self.started.emit()  # the pace follows: no model
        self.transcript.add_note(self.tr("Unloaded %1.").replace("%1", self.session.label))

    def _run_context(self) -> RunContext:
        what_if = self.state.profile_name if self.state.what_if else None
        return RunContext(machine=self.state.this_machine, predicted_for=what_if)

    def _begin(self) -> None:
        """Before a load or a connection: what was drawn ends, the plots' clock starts over."""
        self.drawer.end()
        self.banner.hide_error()
        self.drawer.start_clock()

    def _started(self, dropped: bool, *, reloaded: bool = True) -> None:
        if dropped:  # another model: the conversation so far does not carry over
            self.chat_view.clear()
        if reloaded and self.session.remote is not None:
            self.server.connecting()
        elif reloaded:
            self.panel.set_progress(0.0)
            self.panel.set_load_text("")
        self.started.emit()

    # -- how it went ----------------------------------------------------------------------------

    def show_loaded(self, loaded: p.Loaded) -> None:
        """Loaded (or connected): the time next to the prediction, the chat template."""
        self.drawer.draw()
        plots = self.drawer.plots
        remote = self.session.remote
        if remote is not None:
            self.server.show_connected(loaded, remote)
            return
        plots.set_memory_message("")
        prediction = self.session.prediction
        if prediction is not None:
            plots.set_predictions(
                tokens_per_s=prediction.tokens_per_s,
                ram_bytes=prediction.ram_bytes,
                vram_bytes=prediction.vram_bytes,
            )
        predicted = self.chooser.result.load_seconds if self.chooser.result else None
        text = self.tr("loaded in %1").replace("%1", fmt.seconds(loaded.load_ms / 1000))
        if predicted is not None:
            text += " " + self.tr("(≈%1 predicted)").replace("%1", fmt.seconds(predicted))
        self.panel.set_load_text(text)
        source = {
            "embedded": self.tr("the file's own"),
            "family": self.tr("chosen by architecture"),
            "named": self.tr("chosen by you"),
            "jinja": self.tr("your Jinja text"),
        }.get(loaded.template_source or "", loaded.template_source or "")
        self.transcript.add_note(
            self.tr("Loaded %1 (%2) · chat template: %3 (%4)")
            .replace("%1", self.session.label)
            .replace("%2", self.panel.describe_settings())
            .replace("%3", loaded.template_name or "-")
            .replace("%4", source)
        )

    def show_load_failed(self, failure: Failure) -> None:
        title, sentence = describe(failure.error)
        result = self.chooser.result
        if failure.kind == "engine.out_of_memory" and result is not None:
            sentence += " " + (
                self.tr("The fit predicts %1 of RAM; %2 is available.")
                .replace("%1", fmt.size(result.ram_bytes))
                .replace("%2", fmt.size(result.ram_available_bytes))
            )
        self.show_error(title, sentence, failure.detail, loading=True)

    def show_error(self, title: str, sentence: str, detail: str, *, loading: bool = False) -> None:
        """The engine is gone or refused the model: say so, keep the transcript, offer Reload."""
        remote = self.session.remote is not None
        self.banner.show_error(
            title, sentence, detail, can_reload=self.chooser.model is not None or remote
        )
        self.drawer.end()
        if remote:
            note = self.tr("Connecting failed: %1") if loading else self.tr("The server failed: %1")
        else:
            note = self.tr("Loading failed: %1") if loading else self.tr("The engine stopped: %1")
        self.transcript.add_note(note.replace("%1", sentence))

    def close(self) -> None:
        self._closed = True
