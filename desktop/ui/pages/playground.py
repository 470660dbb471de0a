"""The Playground: chat with a model while watching tokens/s, RAM and VRAM live, predicted
next to measured.

Pick a model on this machine (the demos, the library, a file, or "Open in Playground" on the
Models page); its load settings are filled in from the fit for the active profile, with the
prediction for exactly those settings (:class:`~desktop.ui.widgets.model_chooser.ModelChooser`).
Load starts one engine worker; the chat runs on it. The model can also run behind an
OpenAI-compatible server (the load panel's Source,
:class:`~desktop.ui.widgets.remote_source.RemoteSource`): Connect checks that the server answers
and serves the model; what a server does not tell (memory, a prediction) says so. After each
answer the metrics panel shows its :class:`~desktop.core.engine.RunReport`, predicted next to
measured.

The conversation itself is the core's :class:`~desktop.core.playground.ChatSession` (load,
send, stop, regenerate; which failures end a run; what is stored in the history and what
calibrates this machine's estimates); its blocking work runs on the thread pool. This page lays
out the panels, wires them to the session and draws what the session says. Drawing pulls
(STYLE.md): the engine's threads fill the session's feed, and on each tick of the
:class:`~desktop.ui.widgets.live_drawer.LiveDrawer` the page drains it and draws the transcript
and the plots once.

A failure that ends a run (a worker that dies, a server that goes away) turns the page into an
error state: one sentence, llama.cpp's log behind "Details", the transcript kept (the partial
answer too, marked), and Reload. A model that does not load says why. Esc stops an answer;
Unload and closing the window end the worker on the thread pool. The last server and model are
remembered (the API key never is: only the name of the variable that holds it).

Signals:
    state_changed(str): ``empty``, ``loading``, ``ready``, ``generating`` or ``error``.
    model_loaded(object): the ``Loaded`` event of a finished load.
    answer_finished(object): the :class:`~desktop.core.engine.Answer` of a finished answer.
    history_changed(): an answer was stored in the history (each finished, stopped or cut-off
        answer is, off the GUI thread).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QSplitter, QVBoxLayout, QWidget

from desktop.core.engine import Answer, Conversation, RemoteEndpoint
from desktop.core.engine import Session as EngineSession
from desktop.core.engine import protocol as p
from desktop.core.fit import FitResult
from desktop.core.hardware import usable_cpus
from desktop.core.playground import (
    AnswerStatus,
    ChatSession,
    Failure,
    ModelFacts,
    Phase,
    SessionEvents,
    drawing_pace,
)
from desktop.ui.errors import describe
from desktop.ui.history_recorder import HistoryRecorder
from desktop.ui.state import AppState
from desktop.ui.widgets.chat_panel import ChatPanel
from desktop.ui.widgets.chat_transcript import ChatTranscript
from desktop.ui.widgets.confirm import ConfirmBox
from desktop.ui.widgets.engine_error import EngineErrorBanner
from desktop.ui.widgets.live_drawer import LiveDrawer
from desktop.ui.widgets.live_plots import LivePlots
from desktop.ui.widgets.load_panel import LoadPanel
from desktop.ui.widgets.metrics_panel import MetricsPanel, finish_text
from desktop.ui.widgets.model_chooser import ModelChooser
from desktop.ui.widgets.model_loader import ModelLoader
from desktop.ui.widgets.remote_source import RemoteSource
from desktop.ui.window_settings import window_settings
from desktop.ui.workers import pool_background

GROUP = "playground"


class PlaygroundPage(QWidget):
    """The Playground (see the module docstring)."""

    state_changed = Signal(str)
    model_loaded = Signal(object)
    answer_finished = Signal(object)
    history_changed = Signal()

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self._closed = False
        self.recorder = HistoryRecorder(self)
        self._build()
        self.chat_session = ChatSession(
            pool_background,
            SessionEvents(
                phase_changed=self._on_session_phase_changed,
                loaded=self._on_session_loaded,
                load_failed=self._on_session_load_failed,
                answer_finished=self._on_session_answer_finished,
                answer_failed=self._on_session_answer_failed,
                engine_stopped=self._on_session_engine_stopped,
                answer_status_changed=self._on_session_answer_status_changed,
                record=self.recorder.record,
            ),
        )
        self.chooser = ModelChooser(state, self.load_panel, self)
        self.server = RemoteSource(
            state, self.load_panel, self.chooser, self.plots, self.transcript, parent=self
        )
        self.drawer = LiveDrawer(
            self.chat_session, self.plots, self.transcript, self.load_panel, self.server
        )
        self.chat_view = ChatTranscript(self.chat, self.metrics_panel, self.chat_session, self)
        self.loader = ModelLoader(
            state,
            self.chat_session,
            self.chooser,
            self.server,
            self.drawer,
            self.error_banner,
            self.chat_view,
            self,
        )
        self._connect()
        self._restore(window_settings())
        self._show_phase()
        self.chooser.reload_models()

    # -- what tests and other pages read ----------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.chat_session.phase

    @property
    def model(self) -> ModelFacts | None:
        return self.chooser.model

    @property
    def estimate_result(self) -> FitResult | None:
        return self.chooser.result

    @property
    def session(self) -> EngineSession | None:
        """The current (or last) model's engine session."""
        return self.chat_session.engine

    @property
    def conversation(self) -> Conversation | None:
        return self.chat_session.conversation

    @property
    def loaded(self) -> p.Loaded | None:
        return self.chat_session.loaded

    @property
    def remote(self) -> RemoteEndpoint | None:
        """The server of the current (or last) session; None for a model run here."""
        return self.chat_session.remote

    @property
    def last_answer(self) -> Answer | None:
        return self.chat_session.last_answer

    @property
    def drawing_interval_ms(self) -> int | None:
        """How often the transcript and the plots are drawn now (ms), None when they are not."""
        return self.drawer.interval_ms

    # -- building ---------------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        self.load_panel = LoadPanel()
        outer.addWidget(self.load_panel)
        self.chat = ChatPanel()
        self.transcript = self.chat.transcript
        self.prompt = self.chat.prompt
        self.chat_settings = self.chat.settings
        side = QWidget()
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(0, 0, 0, 0)
        side_column.setSpacing(6)
        self.plots = LivePlots()
        self.metrics_panel = MetricsPanel()
        side_column.addWidget(self.plots, 1)
        side_column.addWidget(self.metrics_panel)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("playgroundSplitter")
        # The error banner (and its log) sits over the chat it is about: opening Details takes
        # height from the transcript, which scrolls, not from the plots and figures beside it.
        self.error_banner = EngineErrorBanner()
        chat_side = QWidget()
        chat_column = QVBoxLayout(chat_side)
        chat_column.setContentsMargins(0, 0, 0, 0)
        chat_column.setSpacing(6)
        chat_column.addWidget(self.error_banner)
        chat_column.addWidget(self.chat, 1)
        self.splitter.addWidget(chat_side)
        self.splitter.addWidget(side)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([540, 520])
        outer.addWidget(self.splitter, 1)
        self.setFocusProxy(self.prompt)

    def _connect(self) -> None:
        panel = self.load_panel
        panel.model_activated.connect(self._on_load_panel_model_activated)
        panel.open_file_requested.connect(self._on_load_panel_open_file_requested)
        panel.settings_changed.connect(self._on_load_panel_settings_changed)
        panel.load_requested.connect(self._on_load_panel_load_requested)
        panel.unload_requested.connect(self.unload)
        self.loader.started.connect(self._update_pace)
        self.chooser.changed.connect(self._show_phase)
        self.server.changed.connect(self._show_phase)
        self.error_banner.reload_requested.connect(self.reload)
        chat = self.chat
        chat.send_requested.connect(self._on_chat_send_requested)
        chat.stop_requested.connect(self.stop)
        chat.regenerate_requested.connect(self.regenerate)
        chat.clear_requested.connect(self.ask_clear)
        chat.copy_requested.connect(self.copy_transcript)
        chat.save_requested.connect(self._on_chat_save_requested)
        self.recorder.stored.connect(self._on_recorder_stored)
        state = self.state
        state.profile_changed.connect(self.chooser.estimate)
        state.library_changed.connect(self.chooser.reload_models)
        state.engine_changed.connect(self._on_state_engine_changed)
        state.settings_changed.connect(self._on_state_settings_changed)
        self._on_state_engine_changed()

    def _restore(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        sizes = settings.value("splitter")
        if sizes is not None:
            self.splitter.restoreState(sizes)
        self.chat_settings.set_system(str(settings.value("system", "") or ""))
        # The last server (never its key: only the name of the variable that holds it).
        self.load_panel.set_endpoint(
            str(settings.value("endpoint", "") or ""),
            str(settings.value("endpoint_model", "") or ""),
            str(settings.value("endpoint_key_env", "") or ""),
        )
        self.load_panel.set_source(str(settings.value("source", "local") or "local"))
        settings.endGroup()

    def save_state(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        settings.setValue("splitter", self.splitter.saveState())
        settings.setValue("system", self.chat_settings.system() or "")
        url, model, key_env = self.load_panel.endpoint_fields()
        settings.setValue("source", self.load_panel.source)
        settings.setValue("endpoint", url)
        settings.setValue("endpoint_model", model)
        settings.setValue("endpoint_key_env", key_env)
        settings.endGroup()

    # -- the phase --------------------------------------------------------------------------------

    def _show_phase(self) -> None:
        phase = self.phase
        generating = phase is Phase.GENERATING
        can_load = self.server.can_connect() if self.server.chosen else self.model is not None
        self.load_panel.set_state(
            can_load=can_load and not generating,
            loading=phase is Phase.LOADING,
            loaded=phase in (Phase.READY, Phase.GENERATING),
        )
        self.chat_view.show_phase(phase)
        self.drawer.follow(phase)

    def _on_session_phase_changed(self, phase: Phase) -> None:
        self._show_phase()
        self.state_changed.emit(phase.value)

    def _update_pace(self) -> None:
        """Draw as the Live plots setting says for the model's llama.cpp threads."""
        setting = self.state.settings.live_redraw
        self.drawer.set_pace(drawing_pace(setting, self.chat_session.threads, usable_cpus()))

    def _on_state_settings_changed(self, _settings: object) -> None:
        if not self._closed:
            self._update_pace()

    def _on_state_engine_changed(self) -> None:
        info = self.state.engine
        self.load_panel.set_offload_available(info is None or info.gpu_offload)

    # -- the model --------------------------------------------------------------------------------

    def reload_models(self) -> None:
        """List the demo models and the library's files (read off the GUI thread)."""
        self.chooser.reload_models()

    def open_model(self, path: Path | str) -> None:
        """Choose a model file (from "Open in Playground", a file dialog or a test): its facts
        are read and its settings filled in from the fit; nothing loads until Load."""
        path = Path(path)
        self.load_panel.add_model(path.name, str(path))
        self.chooser.choose(path)

    def _on_load_panel_model_activated(self, path: str) -> None:
        self.chooser.choose(Path(path))

    def _on_load_panel_open_file_requested(self) -> None:
        model = self.model
        start = str(model.path.parent) if model is not None else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a model"), start, self.tr("GGUF models (*.gguf)")
        )
        if path:
            self.open_model(Path(path))

    def _on_load_panel_settings_changed(self) -> None:
        self._show_phase()
        self.chooser.estimate()

    # -- load, connect, unload --------------------------------------------------------------------

    def _on_load_panel_load_requested(self) -> None:
        self.load()

    def load(self, *, confirm: bool = True) -> bool:
        """Load the chosen model with the panel's settings (asking first, with the numbers,
        when the fit says it will not fit); returns whether loading started. With a server as
        the source, connect to it instead."""
        return self.loader.load(confirm=confirm)

    def open_server(self, base_url: str, model: str) -> bool:
        """A server started by the app (vLLM on the Models page): choose it as the source, fill
        its URL and model and connect; returns whether connecting started."""
        self.show_server(base_url, model)
        return self.loader.connect_server()

    def show_server(self, base_url: str, model: str, key_env: str = "") -> None:
        """Choose a server as the source and fill its URL, model and key variable; connecting
        is left to the person (an answer of the history asked again)."""
        self.server.show(base_url, model, key_env)

    def reload(self) -> None:
        """Load the last model with the last settings again; the conversation stays."""
        self.loader.reload()

    def unload(self) -> None:
        """End the worker (also cancels a load); the transcript stays."""
        self.loader.unload()

    def _on_session_loaded(self, loaded: p.Loaded) -> None:
        self.loader.show_loaded(loaded)
        self.prompt.setFocus(Qt.FocusReason.OtherFocusReason)
        self.model_loaded.emit(loaded)

    def _on_session_load_failed(self, failure: Failure) -> None:
        self.loader.show_load_failed(failure)

    def _on_session_answer_status_changed(self, status: AnswerStatus) -> None:
        self.chat_view.show_status(status)
        if status in (AnswerStatus.ENGINE_GONE, AnswerStatus.UNLOADED):
            # "loaded in …" and the measured memory were the engine's that is gone.
            self.load_panel.set_load_text("")
            self.load_panel.show_measured(None, None)

    def _on_session_engine_stopped(self, failure: Failure) -> None:
        title, sentence = describe(failure.error)
        self.loader.show_error(title, sentence, failure.detail)

    # -- chat -------------------------------------------------------------------------------------

    def _on_chat_send_requested(self) -> None:
        self.send()

    def send(self, text: str | None = None) -> bool:
        """Ask the prompt box's text (or ``text``); returns whether an answer started."""
        if self.phase is not Phase.READY:
            return False
        message = self.chat.take_prompt() if text is None else text.strip()
        system = self.chat_settings.system()
        if not self.chat_session.send(message, system=system, params=self.chat_settings.params()):
            return False
        self.chat_view.show_question(message, system)
        return True

    def stop(self) -> None:
        """Stop the answer being generated (Esc); what came is kept."""
        self.chat_session.stop()

    def regenerate(self) -> bool:
        """Ask the last message again (its answer is replaced)."""
        system = self.chat_settings.system()
        question = self.chat_session.regenerate(system=system, params=self.chat_settings.params())
        if question is None:
            return False
        self.chat_view.redraw()
        self.chat_view.show_question(question, system)
        return True

    def ask_clear(self) -> QMessageBox | None:
        """Clear asks first when there is a conversation to lose (window-modal, not blocking);
        an empty one is cleared at once (None)."""
        conversation = self.chat_session.conversation
        if conversation is None or not conversation.turns:
            self.clear_conversation()
            return None
        n = len(conversation.turns)
        box = ConfirmBox(self, "clearBox")
        box.setup(
            title=self.tr("Clear the conversation"),
            text=(
                self.tr("Clear the conversation (one answer)?")
                if n == 1
                else self.tr("Clear the conversation (%1 answers)?").replace("%1", str(n))
            ),
            info=self.tr("Each answer stays in History; Copy or Save… keeps the conversation."),
            action=self.tr("Clear"),
            action_name="confirmClearButton",
        )
        return box.ask(self.clear_conversation)

    def clear_conversation(self) -> None:
        if self.chat_session.clear():
            self.chat_view.clear()
            self._show_phase()

    def _on_session_answer_finished(self, answer: Answer) -> None:
        self.drawer.end_answer()
        self.chat_view.show_answer(answer)
        self.metrics_panel.show_report(answer.report)
        self.answer_finished.emit(answer)

    def _on_session_answer_failed(self, failure: Failure) -> None:
        self.drawer.end_answer()
        title, sentence = describe(failure.error)
        stopped = self.tr("stop: %1").replace("%1", finish_text("crashed"))
        self.transcript.end_answer(stopped if failure.fatal else "")
        if failure.fatal:
            self.loader.show_error(title, sentence, failure.detail)
            return
        self.transcript.add_note(f"{title}: {sentence}")
        self.chat.answer_label.setText(sentence)

    def _on_recorder_stored(self, _run_id: int) -> None:
        if not self._closed:
            self.history_changed.emit()

    # -- transcripts ------------------------------------------------------------------------------

    def transcript_title(self) -> str:
        return self.chat_view.title()

    def copy_transcript(self) -> None:
        """The conversation as Markdown on the clipboard."""
        self.chat_view.copy()

    def _on_chat_save_requested(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self,
            self.tr("Save the conversation"),
            str(Path.home() / "chat.md"),
            self.tr("Markdown (*.md);;JSON with settings and metrics (*.json)"),
        )
        if path:
            target = Path(path)
            if not target.suffix:
                target = target.with_suffix(".json" if "json" in chosen.lower() else ".md")
            self.save_transcript(target)

    def save_transcript(self, path: Path) -> bool:
        """Write the conversation as Markdown (``.md``) or JSON (``.json``) with the settings
        and the metrics; a sentence in a message box when it cannot be written."""
        fit = self.estimate_result if self.remote is None else None
        return self.chat_view.save(path, profile=self.state.profile_name, fit=fit)

    # -- the end ----------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """The window closes (or is rebuilt): stop the timers, stop following the state and end
        the worker off the GUI thread. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self.chat_session.close()
        self.chooser.close()
        self.server.close()
        self.loader.close()
        self.drawer.stop()
        for signal, slot in (
            (self.state.profile_changed, self.chooser.estimate),
            (self.state.library_changed, self.chooser.reload_models),
            (self.state.engine_changed, self._on_state_engine_changed),
            (self.state.settings_changed, self._on_state_settings_changed),
        ):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
