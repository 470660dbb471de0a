"""The Playground: chat with a model while watching tokens/s, RAM and VRAM live, predicted
next to measured.

Pick a model on this machine (the demos, the library, a file, or "Open in Playground" on the
Models page); its load settings are filled in from the fit for the active profile, with the
prediction for exactly those settings. Load starts one engine worker; the chat runs on it
(:class:`~desktop.ui.widgets.chat_runner.ChatRunner`: a Session and a Conversation, worked off
the GUI thread). After each answer the metrics panel shows its
:class:`~desktop.core.engine.RunReport`, predicted next to measured.

Drawing (STYLE.md: pull, don't push): the engine's threads only fill the session's feed; a GUI
timer drains it — every 33 ms while a model loads or answers, every 500 ms while it waits
(memory keeps moving) — and draws the transcript and the plots once per tick. Text figures
refresh every 500 ms. While an answer runs on llama.cpp threads that take every CPU this process
may use, the tick is 200 ms (and the plots say so; the Live plots setting can choose ~30 or ~5 Hz
always): the window's drawing then comes out of the threads' time, and at ~30 Hz it slowed the
answer being measured by ~8% (benchmarks/RESULTS.md). The tokens/s plot gets a point per batch of
tokens either way.

The model can also run behind an OpenAI-compatible server (the load panel's Source): Connect
checks that the server answers and serves the model, and the chat streams from it into the same
feed. What is known is shown and what is not says so: speed measured on this client (or the
server's own timings, said which), memory unknown unless the server exposes it, no prediction.
A server that refuses, wants a key, lacks the model or dies mid-answer puts the page in the
same error state, the partial answer kept. The last endpoint and model are remembered (the API
key never is: only the name of the variable that holds it). Remote answers do not calibrate this
machine's estimates and are not stored in the history (as ``llm-scout run --endpoint``).

A worker that dies turns the page into an error state: one sentence, llama.cpp's log behind
"Details", the transcript kept (the partial answer too, marked), and Reload. A model that does
not load says why. Esc stops an answer; Unload and closing the window end the worker on the
thread pool.

Signals:
    state_changed(str): ``empty``, ``loading``, ``ready``, ``generating`` or ``error``.
    model_loaded(object): the ``Loaded`` event of a finished load.
    answer_finished(object): the :class:`~desktop.core.engine.Answer` of a finished answer.
    history_changed(): an answer was stored in the history (each finished, stopped or cut-off
        answer is, off the GUI thread).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.engine import (
    Answer,
    Conversation,
    GenerationMeter,
    LoadSettings,
    ProcessMemory,
    RemoteEndpoint,
    RunReport,
    Session,
    Turn,
    WorkerError,
    served_models,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError
from desktop.core.fit import CacheType, FitResult, estimate
from desktop.core.hardware import usable_cpus
from desktop.ui import format as fmt
from desktop.ui.errors import describe, title_for
from desktop.ui.history_recorder import HistoryRecorder, StoredAnswer
from desktop.ui.state import AppState
from desktop.ui.widgets.chat_panel import ChatPanel
from desktop.ui.widgets.chat_runner import ChatRunner
from desktop.ui.widgets.engine_error import EngineErrorBanner
from desktop.ui.widgets.engine_feed import Drained
from desktop.ui.widgets.live_plots import LivePlots
from desktop.ui.widgets.load_panel import LoadPanel
from desktop.ui.widgets.metrics_panel import MetricsPanel, answer_summary, finish_text
from desktop.ui.widgets.model_facts import ModelFacts, local_models, read_model_facts
from desktop.ui.widgets.transcript_files import write_transcript
from desktop.ui.window_settings import window_settings
from desktop.ui.workers import LatestOnly, TaskControl, run_task

log = logging.getLogger(__name__)

ACTIVE_TICK_MS = 33  # ~30 Hz while a model loads or answers
SPARING_TICK_MS = 200  # ~5 Hz while it answers on threads that leave no CPU to the window
IDLE_TICK_MS = 500  # memory readings keep coming while a loaded model waits
TEXT_TICK_MS = 500  # text figures (measured RAM, VRAM, tokens/s) refresh at ~2 Hz
LIVE_WINDOW_S = 1.0  # the tokens/s plot: tokens of the last second
FATAL_KINDS = frozenset({"crashed", "protocol"})  # the worker is gone
# A server that failed in the middle of an answer: gone, or not answering as it should.
REMOTE_FATAL_KINDS = frozenset(
    {
        "refused",
        "disconnected",
        "timeout",
        "server_error",
        "malformed",
        "unauthorized",
        "model_not_found",
        "endpoint_not_found",
    }
)
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
        self.phase = "empty"
        self.model: ModelFacts | None = None
        self.estimate_result: FitResult | None = None
        self.last_answer: Answer | None = None
        self.runner = ChatRunner(self)
        self.recorder = HistoryRecorder(self)
        self.recorder.stored.connect(self._on_recorder_stored)
        self._meter: GenerationMeter | None = None  # the answer being generated, as it arrives
        self._last_memory: ProcessMemory | None = None
        self._shown_system: str | None = None
        self._label = ""
        self._threads: int | None = None  # llama.cpp threads of the local model loaded
        self._sparing = False  # draw at SPARING_TICK_MS while it answers (_update_sparing)
        self._closed = False
        self._resolver: LatestOnly[ModelFacts] = LatestOnly(
            self._on_model_resolved, self._on_model_failed
        )
        self._estimator: LatestOnly[FitResult] = LatestOnly(
            self._on_estimated, self._on_estimate_failed
        )
        self._lister: LatestOnly[list[str]] = LatestOnly(
            self._on_models_listed, self._on_models_list_failed
        )
        self._build()
        self._connect()
        self._restore(window_settings())
        self._set_phase("empty")
        self.reload_models()

    @property
    def session(self) -> Session | None:
        """The current (or last) model's session."""
        return self.runner.session

    @property
    def conversation(self) -> Conversation | None:
        return self.runner.conversation

    @property
    def loaded(self) -> p.Loaded | None:
        return self.runner.loaded_event

    @property
    def remote(self) -> RemoteEndpoint | None:
        """The server of the current (or last) session; None for a model run here."""
        return self.runner.endpoint

    # -- building ---------------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        self.load_panel = LoadPanel()
        outer.addWidget(self.load_panel)
        self.error_banner = EngineErrorBanner()
        outer.addWidget(self.error_banner)

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
        self.splitter.addWidget(self.chat)
        self.splitter.addWidget(side)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([540, 520])
        outer.addWidget(self.splitter, 1)

        self._tick = QTimer(self)
        self._tick.setObjectName("playgroundTick")
        self._text_timer = QTimer(self)
        self._text_timer.setInterval(TEXT_TICK_MS)
        self.setFocusProxy(self.prompt)

    def _connect(self) -> None:
        panel = self.load_panel
        panel.model_activated.connect(self._on_load_panel_model_activated)
        panel.open_file_requested.connect(self._on_load_panel_open_file_requested)
        panel.settings_changed.connect(self._on_load_panel_settings_changed)
        panel.load_requested.connect(self._on_load_panel_load_requested)
        panel.source_changed.connect(self._on_load_panel_source_changed)
        panel.endpoint_changed.connect(self._on_load_panel_endpoint_changed)
        panel.list_models_requested.connect(self.list_served_models)
        panel.unload_requested.connect(self.unload)
        self.error_banner.reload_requested.connect(self.reload)
        chat = self.chat
        chat.send_requested.connect(self._on_chat_send_requested)
        chat.stop_requested.connect(self.stop)
        chat.regenerate_requested.connect(self.regenerate)
        chat.clear_requested.connect(self.clear_conversation)
        chat.copy_requested.connect(self.copy_transcript)
        chat.save_requested.connect(self._on_chat_save_requested)
        runner = self.runner
        runner.loaded.connect(self._on_runner_loaded)
        runner.load_failed.connect(self._on_runner_load_failed)
        runner.answer_finished.connect(self._on_runner_answer_finished)
        runner.answer_failed.connect(self._on_runner_answer_failed)
        self._tick.timeout.connect(self._on_tick_timeout)
        self._text_timer.timeout.connect(self._on_text_timer_timeout)
        self.state.profile_changed.connect(self._on_state_profile_changed)
        self.state.library_changed.connect(self.reload_models)
        self.state.engine_changed.connect(self._on_state_engine_changed)
        self.state.settings_changed.connect(self._on_state_settings_changed)
        self._on_state_engine_changed()

    # -- persistence ------------------------------------------------------------------------------

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

    # -- phase ------------------------------------------------------------------------------------

    def _set_phase(self, phase: str) -> None:
        changed = phase != self.phase
        self.phase = phase
        generating = phase == "generating"
        conversation = self.conversation
        self.load_panel.set_state(
            can_load=self._can_load() and not generating,
            loading=phase == "loading",
            loaded=phase in ("ready", "generating"),
        )
        self.chat.set_state(
            ready=phase == "ready",
            generating=generating,
            has_turns=conversation is not None and bool(conversation.turns),
        )
        if self._closed or phase not in ("loading", "ready", "generating"):
            self._tick.stop()
            self._text_timer.stop()
        else:
            if generating and self._sparing:
                interval = SPARING_TICK_MS
            elif phase in ("loading", "generating"):
                interval = ACTIVE_TICK_MS
            else:
                interval = IDLE_TICK_MS
            if self._tick.interval() != interval or not self._tick.isActive():
                self._tick.start(interval)
            if not self._text_timer.isActive():
                self._text_timer.start()
        if changed:
            self.state_changed.emit(phase)

    def _can_load(self) -> bool:
        if self.load_panel.source == "server":
            _url, model, _key_env = self.load_panel.endpoint_fields()
            return bool(model)
        return self.model is not None

    # -- a server ---------------------------------------------------------------------------------

    def _on_load_panel_source_changed(self, source: str) -> None:
        if source == "server":
            if self.model is None:  # nothing prefilled the context: the settings' default
                self.load_panel.ctx_spin.setValue(self.state.settings.default_ctx)
            self._estimator.cancel()
            self.load_panel.set_prediction_text(self.tr("no prediction: remote"))
        else:
            self.load_panel.set_prediction_text("")
            self._estimate()
        self._set_phase(self.phase)

    def _on_load_panel_endpoint_changed(self) -> None:
        self.load_panel.problem_label.setText("")
        self._set_phase(self.phase)

    def list_served_models(self) -> None:
        """Ask the server in the panel which models it serves (off the GUI thread); they fill
        the model combo, or the panel says in one sentence why the server could not say."""
        if self._closed:
            return
        url, _model, key_env = self.load_panel.endpoint_fields()
        url = url or self.load_panel.url_edit.placeholderText()

        def work(control: TaskControl) -> list[str]:
            return served_models(url, key_env or None)

        self.load_panel.problem_label.setText("")
        self.load_panel.set_listing(True)
        self._lister.submit(work)

    def _on_models_listed(self, names: list[str]) -> None:
        if self._closed or not isValid(self):
            return
        panel = self.load_panel
        panel.set_listing(False)
        panel.set_served_models(names)
        if not names:
            panel.problem_label.setText(self.tr("The server lists no models."))

    def _on_models_list_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        self.load_panel.set_listing(False)
        _title, sentence = describe(error)
        self.load_panel.problem_label.setText(sentence)

    # -- models -----------------------------------------------------------------------------------

    def reload_models(self) -> None:
        """List the demo models and the library's files (read off the GUI thread)."""
        if self._closed:
            return
        demos = [(d.name, str(d.path)) for d in self.state.workspace.demos]
        db = self.state.library_db
        catalog = self.state.workspace.catalog

        def work(control: TaskControl) -> list[tuple[str, str]]:
            return local_models(demos, db, catalog)

        def done(models: list[tuple[str, str]]) -> None:
            if self._closed or not isValid(self):
                return
            current = str(self.model.path) if self.model is not None else None
            self.load_panel.set_models(models, current)

        run_task(work, on_done=done)

    def open_model(self, path: Path | str) -> None:
        """Choose a model file (from "Open in Playground", a file dialog or a test): its facts
        are read and its settings filled in from the fit; nothing loads until Load."""
        path = Path(path)
        self.load_panel.add_model(path.name, str(path))
        self._resolve(path)

    def _on_load_panel_model_activated(self, path: str) -> None:
        self._resolve(Path(path))

    def _on_load_panel_open_file_requested(self) -> None:
        start = str(self.model.path.parent) if self.model is not None else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a model"), start, self.tr("GGUF models (*.gguf)")
        )
        if path:
            self.open_model(Path(path))

    def _resolve(self, path: Path) -> None:
        if self._closed:
            return
        resolver = self.state.resolver  # made on the GUI thread, used by the worker only
        profile = self.state.profile
        default_ctx = self.state.settings.default_ctx
        cache_type = self.cache_type_setting()

        def work(control: TaskControl) -> ModelFacts:
            return read_model_facts(resolver, path, profile, default_ctx, cache_type)

        self.load_panel.set_prediction_text(self.tr("Reading the model file…"))
        self._resolver.submit(work)

    def _update_sparing(self) -> None:
        """Draw less often during answers (``SPARING_TICK_MS``) as the Live plots setting says:
        "auto" does when llama.cpp's threads take every CPU this process may use (each
        millisecond the window draws then stalls them, and the speed being measured), "light"
        always, "smooth" never. The plots say why they move in steps, or warn."""
        mode = self.state.settings.live_redraw
        every_cpu = self._threads is not None and self._threads >= usable_cpus()
        self._sparing = self._threads is not None and (
            mode == "light" or (mode == "auto" and every_cpu)
        )
        hz = str(round(1000 / SPARING_TICK_MS))
        note = ""
        if self._sparing and mode == "auto":
            note = self.tr(
                "Redrawn about %1 times a second while the model answers: llama.cpp's threads "
                "take every CPU, and drawing more often would slow down the speed being "
                "measured (Settings: Live plots)."
            ).replace("%1", hz)
        elif self._sparing:
            note = self.tr(
                "Redrawn about %1 times a second while the model answers (Settings: Live plots)."
            ).replace("%1", hz)
        elif every_cpu:
            note = self.tr(
                "llama.cpp's threads take every CPU: redrawing at ~30 Hz slows down the speed "
                "being measured by a few percent (Settings: Live plots)."
            )
        self.plots.set_note(note)
        if self.phase == "generating":
            self._set_phase(self.phase)  # the tick follows at once

    def _on_state_settings_changed(self, _settings: object) -> None:
        if not self._closed:
            self._update_sparing()

    @property
    def drawing_interval_ms(self) -> int | None:
        """How often the transcript and the plots are drawn now (ms), None when they are not."""
        return self._tick.interval() if self._tick.isActive() else None

    def _physical_cores(self) -> int:
        machine = self.state.this_machine
        if machine is not None and machine.cpu.physical_cores:
            return machine.cpu.physical_cores
        return max(1, (os.cpu_count() or 2) // 2)

    def cache_type_setting(self) -> CacheType:
        """The ``kv_cache_type`` setting (f16, q8_0 or q4_0)."""
        value = self.state.settings.kv_cache_type
        return "q8_0" if value == "q8_0" else "q4_0" if value == "q4_0" else "f16"

    def _default_threads(self) -> int:
        return self.state.settings.default_threads or self._physical_cores()

    def _on_model_resolved(self, info: ModelFacts) -> None:
        if self._closed or not isValid(self):
            return
        self.model = info
        self.load_panel.add_model(info.label, str(info.path))
        self.load_panel.set_template_facts(info.has_template, info.fallback_template)
        self.load_panel.prefill(
            n_layers=info.n_layers,
            n_ctx=info.n_ctx,
            n_ctx_train=info.n_ctx_train,
            gpu_layers=info.gpu_layers,
            threads=self._default_threads(),
            cache_type=self.cache_type_setting(),
        )
        self._set_phase(self.phase)

    def _on_model_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        title, sentence = describe(error)
        self.model = None
        self.load_panel.set_prediction_text(f"{title}: {sentence}")
        self._set_phase(self.phase)

    # -- prediction -------------------------------------------------------------------------------

    def _on_load_panel_settings_changed(self) -> None:
        self._set_phase(self.phase)
        self._estimate()

    def _on_state_profile_changed(self) -> None:
        self._estimate()

    def _on_state_engine_changed(self) -> None:
        info = self.state.engine
        self.load_panel.set_offload_available(info is None or info.gpu_offload)

    def _estimate(self) -> None:
        """The fit for exactly the panel's settings on the active profile (off the GUI thread)."""
        if self._closed or self.model is None or self.load_panel.source == "server":
            return
        target, profile, panel = self.model.target, self.state.profile, self.load_panel
        if target is None or profile is None:
            self._estimator.cancel()
            self.estimate_result = None
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

    def _on_estimated(self, result: FitResult) -> None:
        if self._closed or not isValid(self) or self.load_panel.source == "server":
            return
        self.estimate_result = result
        where = self.state.profile_name if self.state.what_if else self.tr("this machine")
        self.load_panel.show_prediction(result, where)

    def _on_estimate_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        self.estimate_result = None
        _title, sentence = describe(error)
        self.load_panel.set_prediction_text(self.tr("No prediction: %1").replace("%1", sentence))

    # -- load and unload --------------------------------------------------------------------------

    def _on_load_panel_load_requested(self) -> None:
        self.load()

    def load(self, *, confirm: bool = True) -> bool:
        """Load the chosen model with the panel's settings. When the fit says it will not fit,
        ask first (with the numbers); returns whether loading started. With a server as the
        source, connect to it instead."""
        if self._closed or self.phase == "generating":
            return False
        if self.load_panel.source == "server":
            return self.connect_server()
        if self.model is None:
            return False
        try:
            settings = self.load_panel.load_settings()
        except ScoutError as exc:
            self.load_panel.problem_label.setText(exc.message)
            return False
        result = self.estimate_result
        if confirm and result is not None and result.verdict == "no":
            self._confirm_load(result, self.model, settings)
            return False
        self._start_load(self.model, settings)
        return True

    def _confirm_load(self, result: FitResult, model: ModelFacts, settings: LoadSettings) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("This model will probably not fit"),
            self.load_panel.fit_warning(result, model.label),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("fitConfirmBox")
        load = box.addButton(self.tr("Load anyway"), QMessageBox.ButtonRole.AcceptRole)

        def finished(_code: int) -> None:
            if box.clickedButton() is load and not self._closed:
                self._start_load(model, settings)

        box.finished.connect(finished)
        box.open()

    def open_server(self, base_url: str, model: str) -> bool:
        """A server started by the app (vLLM on the Models page): choose it as the source, fill
        its URL and model and connect; returns whether connecting started."""
        self.show_server(base_url, model)
        return self.connect_server()

    def show_server(self, base_url: str, model: str, key_env: str = "") -> None:
        """Choose a server as the source and fill its URL, model and key variable; connecting
        is left to the person (an answer of the history asked again)."""
        panel = self.load_panel
        panel.set_source("server")
        panel.set_endpoint(base_url, model, key_env)

    def connect_server(self) -> bool:
        """Connect to the server in the panel (it must answer and serve the model); returns
        whether connecting started (False with one sentence in the panel when the URL or the
        model name cannot be used)."""
        panel = self.load_panel
        try:
            endpoint = panel.endpoint().with_timeout(self.state.settings.remote_timeout_s)
            settings = LoadSettings(n_ctx=panel.ctx_spin.value())
        except ScoutError as exc:
            panel.problem_label.setText(exc.message)
            return False
        self._start_remote(endpoint, settings)
        return True

    def _start_remote(self, endpoint: RemoteEndpoint, settings: LoadSettings) -> None:
        turns: list[Turn] = []
        conversation = self.conversation
        if conversation is not None and self.remote == endpoint:
            turns = list(conversation.turns)  # the same server and model again: the chat goes on
        elif conversation is not None:
            self._clear_transcript()
        self._end_worker()
        self.error_banner.hide_error()
        self._label = endpoint.label
        self._threads = None  # the server's threads are not ours to spare
        self._update_sparing()
        self.last_answer = None
        now = time.perf_counter()
        self.plots.start_clock(now)
        self.plots.begin_phase("load", now)
        self.load_panel.set_progress(None)  # a connection has no fraction to show
        self.load_panel.set_load_text("")
        self.load_panel.set_prediction_text(self.tr("no prediction: remote"))
        self.runner.load(
            Path(),
            settings,
            target=None,
            profile=None,
            system=self.chat_settings.system(),
            params=self.chat_settings.params(),
            turns=turns,
            endpoint=endpoint,
        )
        self._set_phase("loading")

    def reload(self) -> None:
        """Load the last model with the last settings again (after a failure); the
        conversation stays."""
        session = self.session
        if session is None or self._closed:
            return
        if self.remote is not None:
            self._start_remote(self.remote, session.load_settings)
        elif self.model is not None:
            self._start_load(self.model, session.load_settings)

    def _start_load(self, model: ModelFacts, settings: LoadSettings) -> None:
        turns: list[Turn] = []
        conversation = self.conversation
        if conversation is not None and conversation.session.path == model.path:
            turns = list(conversation.turns)  # the same model again: the chat goes on
        elif conversation is not None:
            self._clear_transcript()
        self._end_worker()
        self.error_banner.hide_error()
        self._label = model.label
        self._threads = settings.n_threads or self._physical_cores()
        self._update_sparing()
        now = time.perf_counter()
        self.plots.start_clock(now)
        self.plots.begin_phase("load", now)
        self.load_panel.set_progress(0.0)
        self.load_panel.set_load_text("")
        self.runner.load(
            model.path,
            settings,
            target=model.target,
            profile=self.state.profile,
            system=self.chat_settings.system(),
            params=self.chat_settings.params(),
            turns=turns,
        )
        self._set_phase("loading")

    def _on_runner_loaded(self, loaded: p.Loaded) -> None:
        if self._closed:
            return
        self._drain()
        self.plots.end_phase(time.perf_counter())
        if self.remote is not None:
            self._on_remote_connected(loaded, self.remote)
            return
        self.plots.set_memory_message("")
        prediction = self.runner.prediction
        if prediction is not None:
            self.plots.set_predictions(
                tokens_per_s=prediction.tokens_per_s,
                ram_bytes=prediction.ram_bytes,
                vram_bytes=prediction.vram_bytes,
            )
        predicted = self.estimate_result.load_seconds if self.estimate_result else None
        text = self.tr("loaded in %1").replace("%1", fmt.seconds(loaded.load_ms / 1000))
        if predicted is not None:
            text += " " + self.tr("(≈%1 predicted)").replace("%1", fmt.seconds(predicted))
        self.load_panel.set_load_text(text)
        source = {
            "embedded": self.tr("the file's own"),
            "family": self.tr("chosen by architecture"),
            "named": self.tr("chosen by you"),
            "jinja": self.tr("your Jinja text"),
        }.get(loaded.template_source or "", loaded.template_source or "")
        self.transcript.add_note(
            self.tr("Loaded %1 (%2) · chat template: %3 (%4)")
            .replace("%1", self._label)
            .replace("%2", self.load_panel.describe_settings())
            .replace("%3", loaded.template_name or "-")
            .replace("%4", source)
        )
        self._set_phase("ready")
        self.prompt.setFocus(Qt.FocusReason.OtherFocusReason)
        self.model_loaded.emit(loaded)

    def _on_remote_connected(self, loaded: p.Loaded, endpoint: RemoteEndpoint) -> None:
        """Connected: the plots say what a server does not tell (memory, GPU), no prediction."""
        self.plots.set_predictions(tokens_per_s=None, ram_bytes=None, vram_bytes=None)
        self.plots.set_memory_message(self.tr("memory unknown: the server does not expose it"))
        self.plots.set_gpu_message(self.tr("not measured: remote"))
        self.load_panel.set_load_text(
            self.tr("connected in %1").replace("%1", fmt.seconds(loaded.load_ms / 1000))
        )
        self.load_panel.set_prediction_text(self.tr("no prediction: remote"))
        self.transcript.add_note(
            self.tr("Connected to %1 at %2 · context %3 tokens")
            .replace("%1", endpoint.model)
            .replace("%2", endpoint.base_url)
            .replace("%3", fmt.integer(loaded.n_ctx))
        )
        self._set_phase("ready")
        self.prompt.setFocus(Qt.FocusReason.OtherFocusReason)
        self.model_loaded.emit(loaded)

    def _on_runner_load_failed(self, error: Exception) -> None:
        if self._closed:
            return
        self._drain()
        self.plots.end_phase(time.perf_counter())
        kind = getattr(error, "kind", "error")
        title, sentence = describe(error)
        result = self.estimate_result
        if kind == "engine.out_of_memory" and result is not None:
            sentence += " " + (
                self.tr("The fit predicts %1 of RAM; %2 is available.")
                .replace("%1", fmt.size(result.ram_bytes))
                .replace("%2", fmt.size(result.ram_available_bytes))
            )
        detail = error.detail if isinstance(error, WorkerError) else ""
        crashed = kind.removeprefix("engine.") in FATAL_KINDS
        self._enter_error(title, sentence, detail or self.runner.stderr_tail(), loading=not crashed)

    def unload(self) -> None:
        """End the worker (also cancels a load); the transcript stays."""
        if self.phase not in ("loading", "ready", "generating"):
            return
        self._end_worker()
        self._threads = None
        self._update_sparing()
        self.transcript.add_note(self.tr("Unloaded %1.").replace("%1", self._label))
        self._set_phase("empty")

    def _end_worker(self) -> None:
        """Draw what came, close the plots' lines and end the worker (on the thread pool)."""
        self._drain()
        if self.transcript.streaming:
            self.transcript.end_answer()
        now = time.perf_counter()
        self.plots.end_phase(now)
        self.plots.end_speed(now)
        self.plots.end_memory(now)
        self.runner.close()

    # -- chat -------------------------------------------------------------------------------------

    def _on_chat_send_requested(self) -> None:
        self.send()

    def send(self, text: str | None = None) -> bool:
        """Ask the prompt box's text (or ``text``); returns whether an answer started."""
        if self.phase != "ready":
            return False
        message = self.chat.take_prompt() if text is None else text.strip()
        if not message:
            return False
        system = self.chat_settings.system()
        if not self.runner.ask(message, system=system, params=self.chat_settings.params()):
            return False
        if system and system != self._shown_system:
            self.transcript.add_system(system)
        self._shown_system = system
        self.transcript.add_user(message)
        self.transcript.begin_answer(self._label)
        self._meter = GenerationMeter()
        self.chat.answer_label.setText(self.tr("Waiting for the first token…"))
        self._set_phase("generating")
        return True

    def stop(self) -> None:
        """Stop the answer being generated (Esc); what came is kept."""
        self.runner.stop()

    def _on_runner_answer_finished(self, answer: Answer) -> None:
        if self._closed:
            return
        self._drain()
        now = time.perf_counter()
        self.plots.end_phase(now)
        self.plots.end_speed(now)
        self.last_answer = answer
        summary = answer_summary(answer.report)
        self.transcript.end_answer(summary, text=answer.text)
        if answer.dropped_turns:
            self.transcript.add_note(
                self.tr(
                    "The conversation outgrew the context: the %1 oldest turns were dropped, "
                    "the system prompt kept."
                ).replace("%1", str(answer.dropped_turns))
            )
        self.chat.answer_label.setText(summary)
        self.metrics_panel.show_report(answer.report)
        self._record(answer.report)
        self._set_phase("ready")
        self.answer_finished.emit(answer)

    def _on_runner_answer_failed(self, error: Exception) -> None:
        if self._closed:
            return
        self._drain()
        now = time.perf_counter()
        self.plots.end_phase(now)
        self.plots.end_speed(now)
        title, sentence = describe(error)
        kind = getattr(error, "kind", "").removeprefix("engine.")
        fatal = kind in FATAL_KINDS or (self.remote is not None and kind in REMOTE_FATAL_KINDS)
        partial = self.transcript.answer
        if partial or fatal:
            metrics = (self._meter or GenerationMeter()).finish()
            cut = RunReport(partial, metrics, finish_reason="crashed" if fatal else None)
            self._record(cut, error=sentence, error_kind=getattr(error, "kind", "error"))
        stopped = self.tr("stop: %1").replace("%1", finish_text("crashed"))
        self.transcript.end_answer(stopped if fatal else "")
        conversation = self.conversation
        if fatal and conversation is not None:
            # What came stays in the history (and in a saved transcript), marked.
            conversation.turns.append(Turn(self.runner.question, partial, "crashed"))
        if fatal:
            detail = error.detail if isinstance(error, WorkerError) else ""
            self._enter_error(title, sentence, detail or self.runner.stderr_tail())
            return
        self.transcript.add_note(f"{title}: {sentence}")
        self.chat.answer_label.setText(sentence)
        self._set_phase("ready")

    def _record(
        self, report: RunReport, *, error: str | None = None, error_kind: str | None = None
    ) -> None:
        """Store the answer just ended in the history (written off the GUI thread)."""
        session, conversation = self.session, self.conversation
        if session is None or conversation is None:
            return
        remote = self.remote
        extra: dict[str, Any] = {}
        loaded = session.loaded
        if remote is not None:
            # A server's answer: stored with its endpoint and model name (never the key); it
            # does not calibrate this machine's estimates.
            extra["remote"] = remote.to_dict()
        elif loaded is not None:
            extra["template"] = loaded.template_name
            extra["n_gpu_layers_loaded"] = loaded.n_gpu_layers
        if self.state.what_if and remote is None:
            extra["predicted_for"] = self.state.profile_name
        calibrates = remote is None and not self.state.what_if and error is None
        self.recorder.record(
            StoredAnswer(
                report=report,
                model=None if remote is not None else Path(session.path),
                label=self._label,
                prompt=self.runner.question,
                system=conversation.system,
                load=session.load_settings,
                params=conversation.params,
                profile=self.state.this_machine,
                extra=extra,
                error=error,
                error_kind=error_kind,
                # The prediction was for this machine: the answer calibrates its estimates.
                loaded=loaded if calibrates else None,
            )
        )

    def _on_recorder_stored(self, _run_id: int) -> None:
        if not self._closed:
            self.history_changed.emit()

    def _enter_error(
        self, title: str, sentence: str, detail: str, *, loading: bool = False
    ) -> None:
        """The worker is gone or refused the model: say so, keep the transcript, offer Reload."""
        if self.phase == "error":
            return
        remote = self.remote is not None
        self.error_banner.show_error(
            title, sentence, detail, can_reload=self.model is not None or remote
        )
        self._end_worker()
        if remote:
            note = self.tr("Connecting failed: %1") if loading else self.tr("The server failed: %1")
        else:
            note = self.tr("Loading failed: %1") if loading else self.tr("The engine stopped: %1")
        self.transcript.add_note(note.replace("%1", sentence))
        self._set_phase("error")

    def regenerate(self) -> bool:
        """Ask the last message again (its answer is replaced)."""
        conversation = self.conversation
        if self.phase != "ready" or conversation is None or not conversation.turns:
            return False
        last = conversation.turns.pop()
        self._redraw_transcript()
        return self.send(last.user)

    def clear_conversation(self) -> None:
        if self.phase == "generating":
            return
        if self.conversation is not None:
            self.conversation.clear()
        self._clear_transcript()
        self._set_phase(self.phase)

    def _clear_transcript(self) -> None:
        self.transcript.clear_all()
        self.metrics_panel.clear_report()
        self.chat.answer_label.setText("")
        self._shown_system = None

    def _redraw_transcript(self) -> None:
        self._clear_transcript()
        conversation = self.conversation
        if conversation is None:
            return
        if conversation.system:
            self.transcript.add_system(conversation.system)
            self._shown_system = conversation.system
        for turn in conversation.turns:
            self.transcript.add_user(turn.user)
            footer = answer_summary(turn.report) if turn.report is not None else ""
            self.transcript.add_answer(self._label, turn.answer, footer)

    # -- transcripts ------------------------------------------------------------------------------

    def transcript_title(self) -> str:
        return self.tr("Chat with %1").replace("%1", self._label or self.tr("a model"))

    def copy_transcript(self) -> None:
        """The conversation as Markdown on the clipboard."""
        if self.conversation is not None:
            text = self.conversation.to_markdown(self.transcript_title())
            QApplication.clipboard().setText(text)

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
        if self.conversation is None:
            return False
        try:
            write_transcript(
                path,
                self.conversation,
                title=self.transcript_title(),
                label=self._label,
                profile=self.state.profile_name,
                fit=self.estimate_result if self.remote is None else None,
            )
        except OSError as exc:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                self.tr("The conversation cannot be saved"),
                self.tr("Cannot write %1: %2.")
                .replace("%1", str(path))
                .replace("%2", exc.strerror or str(exc)),
                QMessageBox.StandardButton.Ok,
                self,
            )
            box.setObjectName("saveErrorBox")
            box.open()
            return False
        return True

    # -- the timers -------------------------------------------------------------------------------

    def _on_tick_timeout(self) -> None:
        self._drain()
        now = time.perf_counter()
        if self.phase == "generating":
            self.runner.repeat_stop(now)
        self.transcript.flush()
        self.plots.refresh(now)

    def _live_speed(self, now: float) -> None:
        """A point of the tokens/s plot: tokens of the last second (the engine's live
        definition); in an answer's first second, the rate so far."""
        meter = self._meter
        if meter is None or meter.t_first is None or meter.generated_tokens < 2:
            return
        if now - meter.t_first < LIVE_WINDOW_S:
            rate = meter.finish().tokens_per_s
        else:
            rate = meter.live_tokens_per_s(now, LIVE_WINDOW_S)
        self.plots.add_speed(now, rate)

    def _drain(self) -> Drained:
        """Take what the engine's threads produced and apply it in time order."""
        drained = self.runner.drain()
        if drained.empty:
            return drained
        items: list[tuple[float, int, Any]] = []
        items.extend((t, 0, ("mark", name)) for name, t in drained.marks)
        items.extend((t, 1, ("tokens", n)) for t, n in drained.tokens)
        items.extend((t, 2, ("event", event)) for t, event in drained.events)
        items.sort(key=lambda item: (item[0], item[1]))
        for t, _order, (what, value) in items:
            if what == "mark" and value == "prompt":
                self.plots.begin_phase("prompt", t)
            elif what == "tokens":
                if self._meter is not None:
                    self._meter.record_tokens(t, value)
                    # The worker sends tokens every 40 ms: a point per batch, at its time,
                    # however often the plots are drawn.
                    self._live_speed(t)
                if self.plots.open_phase == "prompt":
                    self.plots.begin_phase("generation", t)
            elif what == "event":
                self._apply_event(t, value)
        if drained.text:
            self.transcript.append_answer(drained.text)
        if drained.memory:
            self.plots.add_memory(drained.memory)
            self._last_memory = drained.memory[-1]
        return drained

    def _apply_event(self, t: float, event: p.Event) -> None:
        if isinstance(event, p.LoadProgress):
            self.load_panel.set_progress(event.fraction)
        elif isinstance(event, p.Loaded | p.Done):
            self.plots.end_phase(t)  # a load or an answer ended
        elif isinstance(event, p.Error) and event.kind in FATAL_KINDS and self.phase == "ready":
            # The worker died while the model waited. (During a load or an answer, their own
            # failure reports the same error.)
            title = title_for(f"engine.{event.kind}")
            self._enter_error(title, event.message, event.detail or self.runner.stderr_tail())

    def _on_text_timer_timeout(self) -> None:
        if self.remote is not None:
            self._show_remote_measured()
            return
        reading = self._last_memory
        if reading is None or self.phase not in ("loading", "ready", "generating"):
            self.load_panel.show_measured(None, None)
            return
        rate: float | None = None
        meter = self._meter
        if self.phase == "generating" and meter is not None and meter.t_first is not None:
            rate = meter.live_tokens_per_s(time.perf_counter(), LIVE_WINDOW_S)
        elif self.last_answer is not None:
            rate = self.last_answer.report.metrics.tokens_per_s
        self.load_panel.show_measured(reading, rate)

    def _show_remote_measured(self) -> None:
        if self.phase not in ("ready", "generating"):
            self.load_panel.show_measured(None, None)
            return
        meter, rate, source = self._meter, None, "client"
        if self.phase == "generating" and meter is not None and meter.t_first is not None:
            rate = meter.live_tokens_per_s(time.perf_counter(), LIVE_WINDOW_S)
        elif self.last_answer is not None:
            rate = self.last_answer.report.metrics.tokens_per_s
            source = self.last_answer.report.timing_source
        self.load_panel.show_remote_measured(rate, source)

    # -- the end ----------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """The window closes (or is rebuilt): stop the timers, stop following the state and end
        the worker off the GUI thread. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self.runner.close()
        self._resolver.cancel()
        self._estimator.cancel()
        self._lister.cancel()
        self._tick.stop()
        self._text_timer.stop()
        for signal, slot in (
            (self.state.profile_changed, self._on_state_profile_changed),
            (self.state.library_changed, self.reload_models),
            (self.state.engine_changed, self._on_state_engine_changed),
            (self.state.settings_changed, self._on_state_settings_changed),
        ):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
