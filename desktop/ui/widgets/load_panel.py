"""How to load a model in the Playground: the model, its load settings and the fit's prediction.

Three rows: the model (with the chat template it will get) and Load/Unload with the load's
progress; the load settings (context, GPU layers with "all"/"none", threads, KV cache type, flash
attention auto/on/off); the prediction for exactly these settings next to what was measured.
The panel only holds values and says when they change; the page estimates, loads and unloads.

The model can also be a server (``Source``: an OpenAI-compatible endpoint): its base URL, the
model name (a combo that "List models" fills from the server) and the name of the environment
variable that holds the API key (never the key itself). The llama.cpp settings are then the
server's business and are hidden; only the context stays (the conversation is trimmed to it).

Signals:
    model_activated(str): a model was picked in the list (its file's path).
    open_file_requested(): the person wants to pick a GGUF file on disk.
    settings_changed(): a load setting changed (the prediction is stale).
    source_changed(str): ``local`` or ``server`` was chosen.
    endpoint_changed(): the server's URL, model or key variable changed.
    list_models_requested(): "List models" for the server's URL.
    load_requested(), unload_requested(): the buttons.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine import (
    LoadSettings,
    ProcessMemory,
    RemoteEndpoint,
    template_names,
)
from desktop.core.fit import FitResult
from desktop.core.kv_cache import (
    CACHE_TYPES,
    FLASH_ATTN_CHOICES,
    CacheType,
    cache_type_of,
    flash_attn_for,
    needs_flash_attn,
)
from desktop.ui import format as fmt
from desktop.ui.theme import icon
from desktop.ui.widgets import load_texts as texts
from desktop.ui.widgets.layers_spin import LayersSpin
from desktop.ui.widgets.server_fields import ServerFields

MIN_CONTEXT = 256
MAX_CONTEXT = 1 << 20
SOURCES = ("local", "server")


class LoadPanel(QWidget):
    """The Playground's load bar (see the module docstring)."""

    model_activated = Signal(str)
    open_file_requested = Signal()
    settings_changed = Signal()
    source_changed = Signal(str)
    endpoint_changed = Signal()
    list_models_requested = Signal()
    load_requested = Signal()
    unload_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("loadPanel")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(6)
        # A file without a chat template is most likely a base model: said where it is chosen.
        self.base_note = QLabel()
        self.base_note.setObjectName("baseModelNote")
        self.base_note.setWordWrap(True)
        self.base_note.setVisible(False)
        outer.addLayout(self._model_row())
        outer.addLayout(self._settings_row())
        outer.addLayout(self._prediction_row())
        outer.addWidget(self.base_note)
        for signal in (
            self.ctx_spin.valueChanged,
            self.layers_spin.valueChanged,
            self.threads_spin.valueChanged,
            self.cache_combo.currentIndexChanged,
            self.flash_combo.currentIndexChanged,
            self.template_combo.currentIndexChanged,
        ):
            signal.connect(self._on_setting_changed)

    # -- building ---------------------------------------------------------------------------------

    def _label(self, text: str, buddy: QWidget) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        return label

    def _model_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.source_combo = QComboBox()
        self.source_combo.setObjectName("sourceCombo")
        self.source_combo.setAccessibleName(self.tr("Where the model runs"))
        self.source_combo.addItem(self.tr("this machine"), "local")
        self.source_combo.addItem(self.tr("a server (OpenAI-compatible)"), "server")
        self.source_combo.setToolTip(
            self.tr(
                "Run a model file here, or talk to a model behind an OpenAI-compatible server "
                "(llama-server, vLLM, Ollama, LM Studio)."
            )
        )
        self.source_combo.currentIndexChanged.connect(self._on_source_combo_changed)
        self.local_box = QWidget()
        self.local_box.setObjectName("localModelBox")
        local = QHBoxLayout(self.local_box)
        local.setContentsMargins(0, 0, 0, 0)
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("modelCombo")
        self.model_combo.setAccessibleName(self.tr("Model"))
        self.model_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.model_combo.setMinimumContentsLength(24)
        self.model_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.model_combo.setPlaceholderText(self.tr("Pick a model on this machine"))
        self.model_combo.activated.connect(self._on_model_combo_activated)
        self.open_button = QPushButton(icon("open"), self.tr("Open…"))
        self.open_button.setObjectName("openModelButton")
        self.open_button.setToolTip(self.tr("Open a GGUF file from disk."))
        self.open_button.clicked.connect(self.open_file_requested)
        self.template_combo = QComboBox()
        self.template_combo.setObjectName("templateCombo")
        self.template_combo.setAccessibleName(self.tr("Chat template"))
        # Its first item changes with the file ("by architecture: gemma"): never cut off.
        self.template_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # Minimum: the row's stretch never squeezes it below its contents (the model box takes
        # the room to spare).
        self.template_combo.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.template_combo.setToolTip(
            self.tr(
                "The chat template that turns the conversation into the model's prompt: the "
                "file's own, or one chosen by architecture when the file has none, or one you "
                "pick."
            )
        )
        self.set_template_facts(None, None)
        self.load_button = QPushButton(icon("play"), self.tr("Load"))
        self.load_button.setObjectName("loadButton")
        self.load_button.setEnabled(False)
        self.load_button.clicked.connect(self.load_requested)
        self.unload_button = QPushButton(icon("stop"), self.tr("Unload"))
        self.unload_button.setObjectName("unloadButton")
        self.unload_button.setToolTip(
            self.tr("End the model's worker process and free its memory.")
        )
        self.unload_button.setEnabled(False)
        self.unload_button.clicked.connect(self.unload_requested)
        self.progress = QProgressBar()
        self.progress.setObjectName("loadProgress")
        self.progress.setRange(0, 100)
        self.progress.setFixedWidth(110)
        self.progress.setVisible(False)
        self.progress.setAccessibleName(self.tr("Loading"))
        self.load_label = QLabel()
        self.load_label.setObjectName("loadLabel")
        local.addWidget(self._label(self.tr("Model"), self.model_combo))
        local.addWidget(self.model_combo, 3)
        local.addWidget(self.open_button)
        local.addSpacing(8)
        local.addWidget(self._label(self.tr("Template"), self.template_combo))
        local.addWidget(self.template_combo)
        self.server = ServerFields(self)
        self.server.changed.connect(self.endpoint_changed)
        self.server.list_requested.connect(self.list_models_requested)
        self.server_box, self.key_box = self.server.box, self.server.key_box
        self.url_edit, self.served_combo = self.server.url_edit, self.server.served_combo
        self.list_button, self.key_edit = self.server.list_button, self.server.key_edit
        row.addWidget(self.source_combo)
        row.addWidget(self.local_box, 1)
        row.addWidget(self.server_box, 1)
        row.addSpacing(8)
        row.addWidget(self.load_button)
        row.addWidget(self.unload_button)
        row.addWidget(self.progress)
        row.addWidget(self.load_label)
        return row

    def _settings_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.ctx_spin = QSpinBox()
        self.ctx_spin.setObjectName("ctxSpin")
        self.ctx_spin.setAccessibleName(self.tr("Context length in tokens"))
        self.ctx_spin.setRange(MIN_CONTEXT, MAX_CONTEXT)
        self.ctx_spin.setSingleStep(1024)
        self.ctx_spin.setGroupSeparatorShown(True)
        self.ctx_spin.setKeyboardTracking(False)
        self.ctx_spin.setToolTip(
            self.tr("Tokens of conversation the model keeps; the KV cache grows with it.")
        )
        self.layers_spin = LayersSpin()
        self.layers_spin.setObjectName("gpuLayersSpin")
        self.layers_spin.setAccessibleName(self.tr("GPU layers"))
        self.layers_spin.setKeyboardTracking(False)
        self.all_button = QToolButton()
        self.all_button.setObjectName("allLayersButton")
        self.all_button.setText(self.tr("all"))
        self.all_button.setToolTip(self.tr("Every layer and the output layer on the GPU."))
        self.all_button.clicked.connect(
            lambda: self.layers_spin.setValue(self.layers_spin.maximum())
        )
        self.none_button = QToolButton()
        self.none_button.setObjectName("noLayersButton")
        self.none_button.setText(self.tr("none"))
        self.none_button.setToolTip(self.tr("Everything on the CPU."))
        self.none_button.clicked.connect(lambda: self.layers_spin.setValue(0))
        self.threads_spin = QSpinBox()
        self.threads_spin.setObjectName("threadsSpin")
        self.threads_spin.setAccessibleName(self.tr("CPU threads"))
        self.threads_spin.setRange(1, max(os.cpu_count() or 1, 1) * 4)
        self.threads_spin.setToolTip(
            self.tr("CPU threads; llama.cpp runs best with one per physical core.")
        )
        self.cache_combo = QComboBox()
        self.cache_combo.setObjectName("cacheTypeCombo")
        self.cache_combo.setAccessibleName(self.tr("KV cache type"))
        for cache in CACHE_TYPES:
            self.cache_combo.addItem(cache, cache)
        self.cache_combo.setToolTip(
            self.tr(
                "The KV cache's type: q8_0 halves and q4_0 quarters its memory, at a small cost "
                "in quality; a quantized cache needs flash attention."
            )
        )
        self.flash_combo = QComboBox()
        self.flash_combo.setObjectName("flashAttnCombo")
        self.flash_combo.setAccessibleName(self.tr("Flash attention"))
        for key, text in zip(
            FLASH_ATTN_CHOICES, (self.tr("auto"), self.tr("on"), self.tr("off")), strict=True
        ):
            self.flash_combo.addItem(text, key)
        self.flash_combo.setToolTip(
            self.tr("auto: on for a quantized KV cache (llama.cpp needs it there), else off.")
        )
        self.problem_label = QLabel()
        self.problem_label.setObjectName("loadProblem")
        self.problem_label.setStyleSheet("color: #c0392b;")
        self.problem_label.setWordWrap(True)
        row.addWidget(self._label(self.tr("Context"), self.ctx_spin))
        row.addWidget(self.ctx_spin)
        row.addSpacing(8)
        # What only a local llama.cpp worker takes (a server has its own settings).
        self.local_settings = QWidget()
        self.local_settings.setObjectName("localSettings")
        local = QHBoxLayout(self.local_settings)
        local.setContentsMargins(0, 0, 0, 0)
        local.addWidget(self._label(self.tr("GPU layers"), self.layers_spin))
        local.addWidget(self.layers_spin)
        local.addWidget(self.all_button)
        local.addWidget(self.none_button)
        local.addSpacing(8)
        local.addWidget(self._label(self.tr("Threads"), self.threads_spin))
        local.addWidget(self.threads_spin)
        local.addSpacing(8)
        local.addWidget(self._label(self.tr("KV cache"), self.cache_combo))
        local.addWidget(self.cache_combo)
        local.addSpacing(8)
        local.addWidget(self._label(self.tr("Flash attention"), self.flash_combo))
        local.addWidget(self.flash_combo)
        row.addWidget(self.local_settings)
        row.addWidget(self.key_box)
        row.addSpacing(8)
        row.addWidget(self.problem_label, 1)
        return row

    def _prediction_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.prediction_label = QLabel()
        self.prediction_label.setObjectName("predictionLabel")
        self.prediction_label.setToolTip(
            self.tr("What the fit estimator predicts for these settings on the active profile.")
        )
        self.measured_label = QLabel()
        self.measured_label.setObjectName("measuredLabel")
        self.measured_label.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.measured_label.setToolTip(
            self.tr("What the loaded model's worker uses now (refreshed twice a second).")
        )
        row.addWidget(self.prediction_label, 1)
        row.addWidget(self.measured_label, 1)
        return row

    # -- models -----------------------------------------------------------------------------------

    def set_models(self, models: list[tuple[str, str]], current: str | None) -> None:
        """``(label, path)`` pairs; ``current`` stays selected when it is one of them."""
        combo = self.model_combo
        combo.blockSignals(True)
        combo.clear()
        for label, path in models:
            combo.addItem(label, path)
            combo.setItemData(combo.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        index = combo.findData(current) if current else -1
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def add_model(self, label: str, path: str) -> None:
        """Add (or select) one model and make it current."""
        combo = self.model_combo
        index = combo.findData(path)
        if index < 0:
            combo.addItem(label, path)
            index = combo.count() - 1
            combo.setItemData(index, path, Qt.ItemDataRole.ToolTipRole)
        combo.blockSignals(True)
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def current_path(self) -> str | None:
        data = self.model_combo.currentData()
        return str(data) if data else None

    def _on_model_combo_activated(self, index: int) -> None:
        path = self.model_combo.itemData(index)
        if path:
            self.model_activated.emit(str(path))

    # -- a server ---------------------------------------------------------------------------------

    @property
    def source(self) -> str:
        """``local`` (a file run here) or ``server`` (an OpenAI-compatible endpoint)."""
        return str(self.source_combo.currentData() or "local")

    def set_source(self, source: str) -> None:
        self.source_combo.setCurrentIndex(max(0, self.source_combo.findData(source)))

    def _on_source_combo_changed(self, _index: int) -> None:
        server = self.source == "server"
        self.local_box.setVisible(not server)
        self.local_settings.setVisible(not server)
        self.server.set_visible(server)
        self.measured_label.setToolTip(
            self.tr("What the server's answers measured here (memory: what the server exposes).")
            if server
            else self.tr("What the loaded model's worker uses now (refreshed twice a second).")
        )
        self.unload_button.setToolTip(
            self.tr("Close the connection to the server (the server keeps running).")
            if server
            else self.tr("End the model's worker process and free its memory.")
        )
        self.source_changed.emit(self.source)

    def set_endpoint(self, url: str, model: str, key_env: str = "") -> None:
        """Fill the server's fields (a remembered endpoint); the key itself is never here."""
        self.server.set_endpoint(url, model, key_env)

    def endpoint_fields(self) -> tuple[str, str, str]:
        """(URL, model, key variable) as typed (stripped)."""
        return self.server.fields()

    def endpoint(self) -> RemoteEndpoint:
        """The server as typed; UsageError for a URL that is not http(s) or no model name."""
        return self.server.endpoint()

    def set_served_models(self, names: list[str]) -> None:
        """What the server lists (the typed name stays chosen when the server has it)."""
        self.server.set_served_models(names)

    def set_listing(self, listing: bool) -> None:
        self.server.set_listing(listing)

    # -- facts and prefill ------------------------------------------------------------------------

    def set_template_facts(self, has_template: bool | None, fallback: str | None) -> None:
        """The first item says what "automatic" means for this file."""
        combo = self.template_combo
        chosen = combo.currentData() if combo.count() else None
        combo.blockSignals(True)
        combo.clear()
        if has_template is None:
            auto = self.tr("automatic")
        elif has_template:
            auto = self.tr("the file's own")
        else:
            auto = self.tr("by architecture: %1").replace("%1", fallback or "chatml")
        self.base_note.setText(
            self.tr(
                "⚠ Base model, not for chat: this file has no chat template, so it was most "
                "likely trained to continue text, not to answer. Its replies to questions may "
                "be nonsense; for a chat pick an Instruct model, or give it text to continue."
            )
        )
        self.base_note.setVisible(has_template is False)
        combo.addItem(auto, "")
        combo.insertSeparator(1)
        for name in template_names():
            combo.addItem(name, name)
        index = combo.findData(chosen) if chosen else 0
        combo.setCurrentIndex(max(index, 0))
        combo.blockSignals(False)

    def prefill(
        self,
        *,
        n_layers: int,
        n_ctx: int,
        n_ctx_train: int | None,
        gpu_layers: int,
        threads: int,
        cache_type: str = "f16",
    ) -> None:
        """The settings for a newly chosen model (one change signal at the end)."""
        widgets = (self.ctx_spin, self.layers_spin, self.threads_spin, self.cache_combo)
        for widget in widgets:
            widget.blockSignals(True)
        self.cache_combo.setCurrentIndex(max(self.cache_combo.findData(cache_type), 0))
        self.layers_spin.set_layers(n_layers)
        self.layers_spin.set_llama_value(gpu_layers)
        if n_ctx_train:
            self.ctx_spin.setMaximum(max(MIN_CONTEXT, min(MAX_CONTEXT, n_ctx_train)))
        else:
            self.ctx_spin.setMaximum(MAX_CONTEXT)
        self.ctx_spin.setValue(n_ctx)
        self.threads_spin.setValue(threads)
        for widget in widgets:
            widget.blockSignals(False)
        self._on_setting_changed()

    def set_offload_available(self, available: bool) -> None:
        """A CPU-only llama.cpp build cannot offload: the GPU layer controls say so."""
        for widget in (self.layers_spin, self.all_button, self.none_button):
            widget.setEnabled(available)
        self.layers_spin.setToolTip(
            self.tr("Layers on the GPU: the fit's best value is filled in.")
            if available
            else self.tr("This llama.cpp build runs on the CPU only: nothing is offloaded.")
        )

    # -- values -----------------------------------------------------------------------------------

    @property
    def cache_type(self) -> CacheType:
        return cache_type_of(self.cache_combo.currentData())

    @property
    def flash_attn(self) -> bool:
        return flash_attn_for(str(self.flash_combo.currentData()), self.cache_type)

    @property
    def template(self) -> str | None:
        return str(self.template_combo.currentData() or "") or None

    def load_settings(self) -> LoadSettings:
        """The settings as the engine takes them; UsageError for a combination it refuses."""
        return LoadSettings(
            n_ctx=self.ctx_spin.value(),
            n_gpu_layers=self.layers_spin.llama_value if self.layers_spin.isEnabled() else 0,
            n_threads=self.threads_spin.value(),
            flash_attn=self.flash_attn,
            template=self.template,
            cache_type=self.cache_type,
        )

    def problem(self) -> str:
        """Why these settings cannot be loaded ("" when they can)."""
        if needs_flash_attn(self.cache_type) and not self.flash_attn:
            return self.tr("A quantized KV cache needs flash attention (auto or on).")
        return ""

    def _on_setting_changed(self) -> None:
        problem = self.problem()
        self.problem_label.setText(problem)
        self.settings_changed.emit()

    # -- state ------------------------------------------------------------------------------------

    def set_state(self, *, can_load: bool, loading: bool, loaded: bool) -> None:
        server = self.source == "server"
        self.load_button.setEnabled(can_load and not loading and (server or not self.problem()))
        self.load_button.setText(self.tr("Connect") if server else self.tr("Load"))
        self.unload_button.setEnabled(loading or loaded)
        if loading:
            self.unload_button.setText(self.tr("Cancel"))
        else:
            self.unload_button.setText(self.tr("Disconnect") if server else self.tr("Unload"))
        self.progress.setVisible(loading)
        # Not while a load runs (another Load or Connect ends the model loaded before).
        self.source_combo.setEnabled(not loading)
        self.server.set_enabled(not loading)

    def set_progress(self, fraction: float | None) -> None:
        if fraction is None:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 100)
            self.progress.setValue(int(fraction * 100))

    def set_prediction_text(self, text: str) -> None:
        self.prediction_label.setText(text)

    def show_prediction(self, result: FitResult | None, where: str) -> None:
        """``predicted for this machine: CPU · RAM ≈210 MiB · VRAM ≈0 B · ≈105 t/s · load
        ≈0.2 s`` (``where``: the profile the fit was for)."""
        self.prediction_label.setText(texts.prediction(result, where) if result else "")

    def fit_warning(self, result: FitResult, label: str) -> str:
        """Why the fit says a model will not fit, with the numbers (asked before loading)."""
        return texts.fit_warning(result, label)

    def show_measured(self, reading: ProcessMemory | None, tokens_per_s: float | None) -> None:
        """The worker's memory now and the speed (live, or the last answer's); nothing
        without a reading."""
        self.measured_label.setText(texts.measured(reading, tokens_per_s) if reading else "")

    def show_remote_measured(self, tokens_per_s: float | None, timing_source: str) -> None:
        """A server's figures: memory unknown unless it said, the speed and where it came
        from (measured on this client, or the server's own timings)."""
        self.measured_label.setText(texts.remote_measured(tokens_per_s, timing_source))

    def set_load_text(self, text: str) -> None:
        self.load_label.setText(text)

    def describe_settings(self) -> str:
        """The settings in a few words, for notes in the transcript."""
        return (
            self.tr("context %1, GPU layers %2, %3 threads, KV %4")
            .replace("%1", fmt.integer(self.ctx_spin.value()))
            .replace("%2", self.layers_spin.textFromValue(self.layers_spin.value()))
            .replace("%3", str(self.threads_spin.value()))
            .replace("%4", self.cache_type)
        )
