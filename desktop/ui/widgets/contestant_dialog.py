"""The settings of one contestant: which file (another quant of the model is another file), a
name, context, GPU layers, threads, KV cache type, temperature and seed.

Every field starts at "default" (the comparison's shared value); only what is set differs from
the others, and the column's name says so (``SmolLM2 135M (temp 0.2)``), as
``llm-scout compare smollm2@temp=0.2`` does.

A contestant can also run on a server ("Runs on": an OpenAI-compatible endpoint): its base URL,
the model name ("List models" asks the server, off the GUI thread) and the name of the
environment variable with its API key (never the key). The llama.cpp settings (GPU layers,
threads, KV cache) are then the server's business and are disabled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.engine import served_models
from desktop.core.errors import ScoutError
from desktop.core.kv_cache import CACHE_TYPES
from desktop.ui.errors import describe
from desktop.ui.models.compare_entries import ContestantEntry, remote_entry
from desktop.ui.widgets.server_fields import DEFAULT_ENDPOINT
from desktop.ui.workers import TaskControl, run_task

MAX_CONTEXT = 1 << 20


class ContestantDialog(QDialog):
    """Edit a :class:`ContestantEntry`; :meth:`entry` is the result once accepted.

    ``models``: ``(label, spec)`` of the models on this machine, to swap the file (a
    different quant of the same model, say)."""

    def __init__(
        self,
        entry: ContestantEntry,
        models: Sequence[tuple[str, str]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contestantDialog")
        self.setWindowTitle(self.tr("Contestant settings"))
        self._entry = entry
        layout = QVBoxLayout(self)
        hint = QLabel(
            self.tr(
                "Settings left at “default” use the comparison's own. Add the same model twice "
                "with different settings to compare them."
            )
        )
        hint.setWordWrap(True)
        layout.addWidget(hint)
        form = QFormLayout()
        layout.addLayout(form)

        self.source_combo = QComboBox()
        self.source_combo.setObjectName("contestantSource")
        self.source_combo.setAccessibleName(self.tr("Where the model runs"))
        self.source_combo.addItem(self.tr("this machine"), "local")
        self.source_combo.addItem(self.tr("a server (OpenAI-compatible)"), "server")
        self.source_combo.setCurrentIndex(1 if entry.remote else 0)
        form.addRow(self.tr("Runs on"), self.source_combo)

        self.url_edit = QLineEdit(entry.spec if entry.remote else "")
        self.url_edit.setObjectName("contestantEndpoint")
        self.url_edit.setPlaceholderText(DEFAULT_ENDPOINT)
        self.url_edit.setAccessibleName(self.tr("Server base URL"))
        self.url_edit.setToolTip(
            self.tr("The server's OpenAI-compatible base URL; it usually ends in /v1.")
        )
        form.addRow(self.tr("URL"), self.url_edit)
        self.served_combo = QComboBox()
        self.served_combo.setObjectName("contestantServedModel")
        self.served_combo.setEditable(True)
        self.served_combo.setAccessibleName(self.tr("Model name on the server"))
        if entry.served_model:
            self.served_combo.addItem(entry.served_model)
        self.list_button = QPushButton(self.tr("List models"))
        self.list_button.setObjectName("contestantListModels")
        self.list_button.setToolTip(self.tr("Ask the server which models it serves."))
        self.list_button.clicked.connect(self.list_models)
        served = QWidget()
        served_row = QHBoxLayout(served)
        served_row.setContentsMargins(0, 0, 0, 0)
        served_row.addWidget(self.served_combo, 1)
        served_row.addWidget(self.list_button)
        form.addRow(self.tr("Model name"), served)
        self.key_edit = QLineEdit(entry.key_env)
        self.key_edit.setObjectName("contestantKeyEnv")
        self.key_edit.setPlaceholderText("LLM_SCOUT_API_KEY")
        self.key_edit.setAccessibleName(self.tr("Environment variable with the API key"))
        self.key_edit.setToolTip(
            self.tr(
                "The name of the environment variable that holds the API key (the key itself "
                "is never typed or stored here); empty: LLM_SCOUT_API_KEY, else the keyring."
            )
        )
        form.addRow(self.tr("API key variable"), self.key_edit)
        self._server_rows = (self.url_edit, served, self.key_edit)
        self._form = form

        self.model_combo = QComboBox()
        self.model_combo.setObjectName("contestantModel")
        self.model_combo.setAccessibleName(self.tr("Model file"))
        known = dict((spec, label) for label, spec in models)
        if not entry.remote:
            known.setdefault(entry.spec, entry.label)
        for spec, label in known.items():
            self.model_combo.addItem(label, spec)
        self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(entry.spec)))
        form.addRow(self.tr("Model"), self.model_combo)

        self.name_edit = QLineEdit(entry.name)
        self.name_edit.setObjectName("contestantName")
        self.name_edit.setPlaceholderText(self.tr("the model's name and what differs"))
        form.addRow(self.tr("Name"), self.name_edit)

        default = self.tr("default")
        self.ctx_spin = QSpinBox()
        self.ctx_spin.setObjectName("contestantCtx")
        self.ctx_spin.setRange(0, MAX_CONTEXT)
        self.ctx_spin.setSingleStep(512)
        self.ctx_spin.setSpecialValueText(default)
        self.ctx_spin.setGroupSeparatorShown(True)
        self.ctx_spin.setValue(entry.ctx or 0)
        self.ctx_spin.setAccessibleName(self.tr("Context length in tokens"))
        form.addRow(self.tr("Context"), self.ctx_spin)

        self.ngl_spin = QSpinBox()
        self.ngl_spin.setObjectName("contestantGpuLayers")
        self.ngl_spin.setRange(-2, 999)
        self.ngl_spin.setSpecialValueText(default)
        self.ngl_spin.setValue(entry.ngl if entry.ngl is not None else -2)
        self.ngl_spin.setToolTip(self.tr("Layers on the GPU; -1 puts every layer there."))
        self.ngl_spin.setAccessibleName(self.tr("GPU layers"))
        form.addRow(self.tr("GPU layers"), self.ngl_spin)

        self.threads_spin = QSpinBox()
        self.threads_spin.setObjectName("contestantThreads")
        self.threads_spin.setRange(0, 1024)
        self.threads_spin.setSpecialValueText(default)
        self.threads_spin.setValue(entry.threads or 0)
        self.threads_spin.setAccessibleName(self.tr("CPU threads"))
        form.addRow(self.tr("Threads"), self.threads_spin)

        self.cache_combo = QComboBox()
        self.cache_combo.setObjectName("contestantCache")
        self.cache_combo.setAccessibleName(self.tr("KV cache type"))
        for cache in CACHE_TYPES:
            self.cache_combo.addItem(cache, cache)
        self.cache_combo.setCurrentIndex(max(0, self.cache_combo.findData(entry.cache)))
        self.cache_combo.setToolTip(
            self.tr("A quantized KV cache takes less memory and turns flash attention on.")
        )
        form.addRow(self.tr("KV cache"), self.cache_combo)

        self.temp_spin = QDoubleSpinBox()
        self.temp_spin.setObjectName("contestantTemperature")
        self.temp_spin.setRange(-0.05, 2.0)
        self.temp_spin.setSingleStep(0.05)
        self.temp_spin.setDecimals(2)
        self.temp_spin.setSpecialValueText(default)
        self.temp_spin.setValue(entry.temp if entry.temp is not None else -0.05)
        self.temp_spin.setAccessibleName(self.tr("Temperature"))
        form.addRow(self.tr("Temperature"), self.temp_spin)

        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("contestantSeed")
        self.seed_spin.setRange(-1, 2**31 - 1)
        self.seed_spin.setSpecialValueText(default)
        self.seed_spin.setValue(entry.seed if entry.seed is not None else -1)
        self.seed_spin.setAccessibleName(self.tr("Seed"))
        form.addRow(self.tr("Seed"), self.seed_spin)

        self.problem_label = QLabel()
        self.problem_label.setObjectName("contestantProblem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #c0392b;")
        self.problem_label.setVisible(False)
        layout.addWidget(self.problem_label)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.source_combo.currentIndexChanged.connect(self._on_source_combo_changed)
        self._on_source_combo_changed()

    # -- a server ---------------------------------------------------------------------------------

    @property
    def server(self) -> bool:
        return str(self.source_combo.currentData()) == "server"

    def _on_source_combo_changed(self, _index: int = 0) -> None:
        server = self.server
        for widget in self._server_rows:
            self._form.setRowVisible(widget, server)
        self._form.setRowVisible(self.model_combo, not server)
        # What only a llama.cpp worker here takes; a server has its own.
        for widget in (self.ngl_spin, self.threads_spin, self.cache_combo):
            widget.setEnabled(not server)
        self._show_problem("")
        self.adjustSize()

    def _show_problem(self, text: str) -> None:
        self.problem_label.setText(text)
        self.problem_label.setVisible(bool(text))

    def _endpoint_fields(self) -> tuple[str, str, str]:
        return (
            self.url_edit.text().strip() or DEFAULT_ENDPOINT,
            self.served_combo.currentText().strip(),
            self.key_edit.text().strip(),
        )

    def list_models(self) -> None:
        """Fill the model names from the server (off the GUI thread); a sentence if it cannot."""
        url, _model, key_env = self._endpoint_fields()

        def work(control: TaskControl) -> list[str]:
            return served_models(url, key_env or None)

        def done(names: list[str]) -> None:
            if not isValid(self):
                return
            self.list_button.setEnabled(True)
            typed = self.served_combo.currentText().strip()
            self.served_combo.clear()
            self.served_combo.addItems(names)
            index = self.served_combo.findText(typed) if typed else -1
            self.served_combo.setCurrentIndex(index if index >= 0 else (0 if names else -1))
            self._show_problem("" if names else self.tr("The server lists no models."))

        def failed(error: Exception) -> None:
            if isValid(self):
                self.list_button.setEnabled(True)
                self._show_problem(describe(error)[1])

        self.list_button.setEnabled(False)
        self._show_problem("")
        run_task(work, on_done=done, on_failed=failed)

    def accept(self) -> None:
        """OK: a server's URL and model name must be usable (else one sentence, still open)."""
        if self.server:
            try:
                remote_entry(*self._endpoint_fields())
            except ScoutError as exc:
                self._show_problem(exc.message)
                return
        elif self.model_combo.currentData() is None:
            self._show_problem(self.tr("Pick a model on this machine."))
            return
        super().accept()

    # -- the result -------------------------------------------------------------------------------

    def entry(self) -> ContestantEntry:
        """The entry with the dialog's values (UsageError for a server that cannot be used)."""
        ngl = self.ngl_spin.value()
        temp = self.temp_spin.value()
        if self.server:
            server = remote_entry(*self._endpoint_fields())
            return replace(
                server,
                name=self.name_edit.text().strip(),
                ctx=self.ctx_spin.value() or None,
                temp=None if temp < 0 else round(temp, 2),
                seed=None if self.seed_spin.value() < 0 else self.seed_spin.value(),
            )
        spec = str(self.model_combo.currentData())
        label = self.model_combo.currentText()
        quant = self._entry.quant if spec == self._entry.spec else None
        return replace(
            self._entry,
            spec=spec,
            label=label,
            quant=quant,
            served_model="",
            key_env="",
            name=self.name_edit.text().strip(),
            ctx=self.ctx_spin.value() or None,
            ngl=None if ngl == self.ngl_spin.minimum() else ngl,
            threads=self.threads_spin.value() or None,
            cache=str(self.cache_combo.currentData()),
            temp=None if temp < 0 else round(temp, 2),
            seed=None if self.seed_spin.value() < 0 else self.seed_spin.value(),
        )
