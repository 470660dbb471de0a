"""Across machines: one model with the same settings side by side on every machine that ran it.

A table with a column per machine (this one first) and a row per figure: answers counted,
generation and prompt tokens/s, TTFT, peak memory and VRAM, threads, the newest quality
measurements, then the machine's hardware (CPU, memory, GPU, bandwidth) and what calibrates
its estimates. The figures are the core's (``desktop.core.history.across_machines``: medians of
the stored answers), the same ``llm-scout history across`` prints. Each imported machine has an
"Estimates for NAME" button: its profile, calibrated by its own runs, becomes the profile
every page estimates for. Read off the GUI thread whenever the view is shown or asked to.

Signals:
    view_changed(): a new reading is shown (tests wait on it).
    profile_requested(str): estimate for this machine (its key in the history).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.hardware import THIS_MACHINE
from desktop.core.history import (
    AcrossMachines,
    History,
    MachineFigures,
    ModelChoice,
    SettingsKey,
    across_machines,
    models_across_machines,
)
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.widgets.empty_state import EmptyState
from desktop.ui.workers import LatestOnly, TaskControl


@dataclass(frozen=True)
class AcrossReading:
    """What one read of the history gives the view."""

    choices: tuple[ModelChoice, ...]
    view: AcrossMachines | None


class AcrossMachinesView(QWidget):
    """The cross-machine comparison (see the module docstring)."""

    view_changed = Signal()
    profile_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.reading = AcrossReading((), None)
        self._closed = False
        self._reader: LatestOnly[AcrossReading] = LatestOnly(self._on_reading, self._on_failed)
        self._build()

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 6, 0, 0)
        bar = QHBoxLayout()
        model_label = QLabel(self.tr("Model"))
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("acrossModel")
        self.model_combo.setAccessibleName(self.tr("Model to compare across machines"))
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        model_label.setBuddy(self.model_combo)
        settings_label = QLabel(self.tr("Settings"))
        self.settings_combo = QComboBox()
        self.settings_combo.setObjectName("acrossSettings")
        self.settings_combo.setAccessibleName(self.tr("Settings the answers ran with"))
        self.settings_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        settings_label.setBuddy(self.settings_combo)
        for widget in (model_label, self.model_combo, settings_label, self.settings_combo):
            bar.addWidget(widget)
        bar.addStretch(1)
        outer.addLayout(bar)

        self.table = QTableWidget()
        self.table.setObjectName("acrossTable")
        self.table.setAccessibleName(self.tr("The same model on each machine"))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # As tall as its rows: the note and the buttons sit right under the figures.
        self.table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.note = QLabel()
        self.note.setObjectName("acrossNote")
        self.note.setWordWrap(True)
        self.buttons = QHBoxLayout()
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table)
        column.addWidget(self.note)
        column.addLayout(self.buttons)
        column.addStretch(1)

        self.empty = EmptyState(
            self.tr(
                "Nothing to put side by side yet. Import results from another machine "
                "(Import… on the list, or drop the file there), and run the same model here "
                "with the same settings: each machine gets a column."
            )
        )
        self.empty.setObjectName("acrossEmpty")
        self.stack = QStackedWidget()
        self.stack.addWidget(body)
        self.stack.addWidget(self.empty)
        self.stack.setCurrentWidget(self.empty)
        outer.addWidget(self.stack, 1)
        self.model_combo.activated.connect(self._on_model_combo_activated)
        self.settings_combo.activated.connect(self._on_settings_combo_activated)

    # -- reading ---------------------------------------------------------------------------------

    def refresh(self, *, keep_settings: bool = True) -> None:
        """Read the history again for the chosen model and settings (off the GUI thread)."""
        if self._closed:
            return
        model = str(self.model_combo.currentData() or "")
        settings = self.settings_combo.currentData() if keep_settings else None
        wanted = settings if isinstance(settings, SettingsKey) else None

        def work(control: TaskControl) -> AcrossReading:
            with History.open() as history:
                choices = tuple(models_across_machines(history))
                keys = [c.key for c in choices]
                if not choices:
                    return AcrossReading(choices, None)
                key = model if model in keys else choices[0].key
                choice = choices[keys.index(key)]
                known = [s for s, _ in choice.settings]
                view = across_machines(history, key, wanted if wanted in known else None)
                return AcrossReading(choices, view)

        self._reader.submit(work)

    def _on_model_combo_activated(self, _index: int) -> None:
        self.refresh(keep_settings=False)

    def _on_settings_combo_activated(self, _index: int) -> None:
        self.refresh()

    def _on_failed(self, error: Exception) -> None:
        if self._closed or not isValid(self):
            return
        title, sentence = describe(error)
        self.note.setText(f"{title}: {sentence}")

    def _on_reading(self, reading: AcrossReading) -> None:
        if self._closed or not isValid(self):
            return
        self.reading = reading
        view = reading.view
        self._fill_combos(reading)
        if view is None:
            self.stack.setCurrentWidget(self.empty)
            self.view_changed.emit()
            return
        self.stack.setCurrentIndex(0)
        rows = self.figure_rows(view)
        self.table.clear()
        self.table.setColumnCount(len(view.columns))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels(
            [self.machine_title(c.machine.name) for c in view.columns]
        )
        self.table.setVerticalHeaderLabels([title for title, _ in rows])
        for r, (_, cells) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(r, c, item)
        if len(view.columns) < 2:
            self.note.setText(
                self.tr(
                    "Only %1 ran this model with these settings. Medians of its stored answers."
                ).replace("%1", self.machine_title(view.columns[0].machine.name))
            )
        else:
            self.note.setText(
                self.tr(
                    "Medians of the stored answers of this model with these settings on each "
                    "machine; each machine's own threads."
                )
            )
        self._fill_buttons(view)
        self.view_changed.emit()

    def _fill_combos(self, reading: AcrossReading) -> None:
        view = reading.view
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        for option in reading.choices:
            count = len(option.machines)
            text = (
                option.label
                if count < 2
                else self.tr("%1 (%2 machines)")
                .replace("%1", option.label)
                .replace("%2", str(count))
            )
            self.model_combo.addItem(text, option.key)
        if view is not None:
            self.model_combo.setCurrentIndex(max(self.model_combo.findData(view.model_key), 0))
        self.model_combo.blockSignals(False)
        self.settings_combo.blockSignals(True)
        self.settings_combo.clear()
        choice = next((c for c in reading.choices if view and c.key == view.model_key), None)
        if choice is not None and view is not None:
            for settings, machines in choice.settings:
                text = self.settings_text(settings)
                if len(machines) > 1:
                    text = (
                        self.tr("%1 (%2 machines)")
                        .replace("%1", text)
                        .replace("%2", str(len(machines)))
                    )
                self.settings_combo.addItem(text, settings)
            for i in range(self.settings_combo.count()):
                if self.settings_combo.itemData(i) == view.settings:
                    self.settings_combo.setCurrentIndex(i)
        self.settings_combo.blockSignals(False)

    def _fill_buttons(self, view: AcrossMachines) -> None:
        while self.buttons.count():
            item = self.buttons.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setParent(None)  # gone from the view now, deleted later
                widget.deleteLater()
        for column in view.columns:
            machine = column.machine
            if machine.local or machine.profile is None:
                continue
            button = QPushButton(self.tr("Estimates for %1").replace("%1", machine.name))
            button.setObjectName("estimateForMachine")
            button.setToolTip(
                self.tr(
                    "Make %1 the profile every page estimates for, calibrated by its own runs."
                ).replace("%1", machine.name)
            )
            button.clicked.connect(
                lambda _checked=False, key=machine.key: self.profile_requested.emit(key)
            )
            self.buttons.addWidget(button)
        self.buttons.addStretch(1)

    # -- the cells (translated here, so lupdate finds every string) -----------------------------

    def machine_title(self, name: str) -> str:
        return self.tr("This machine") if name == THIS_MACHINE else name

    def settings_text(self, settings: SettingsKey) -> str:
        """``context 4096 · GPU layers 0 · KV f16 · flash attention off``."""
        parts = []
        if settings.n_ctx is not None:
            parts.append(self.tr("context %1").replace("%1", fmt.integer(settings.n_ctx)))
        if settings.n_gpu_layers is not None:
            layers = self.tr("all") if settings.n_gpu_layers < 0 else str(settings.n_gpu_layers)
            parts.append(self.tr("GPU layers %1").replace("%1", layers))
        if settings.cache_type:
            parts.append(self.tr("KV %1").replace("%1", settings.cache_type))
        if settings.flash_attn is not None:
            parts.append(
                self.tr("flash attention on")
                if settings.flash_attn
                else self.tr("flash attention off")
            )
        return " · ".join(parts) or self.tr("settings not recorded")

    def _ms(self, value: float | None) -> str:
        return "-" if value is None else fmt.number(value, 0) + " " + self.tr("ms")

    def figure_rows(self, view: AcrossMachines) -> list[tuple[str, list[str]]]:
        """(row title, one cell per machine) of the table, as shown."""
        columns = view.columns
        rows: list[tuple[str, list[str]]] = [
            (self.tr("Answers"), [fmt.integer(c.runs) for c in columns]),
            (self.tr("Generation"), [fmt.rate(c.generation_tokens_per_s) for c in columns]),
            (self.tr("Prompt processing"), [fmt.rate(c.prompt_tokens_per_s) for c in columns]),
            (self.tr("Time to first token"), [self._ms(c.ttft_ms) for c in columns]),
            (self.tr("Peak memory (RSS)"), [fmt.size(c.rss_peak_bytes) for c in columns]),
            (self.tr("Peak VRAM"), [fmt.size(c.vram_peak_bytes) for c in columns]),
            (self.tr("Threads"), [", ".join(map(str, c.threads)) or "-" for c in columns]),
        ]
        metrics = sorted({(q.kind, q.metric) for c in columns for q in c.quality})
        for kind, metric in metrics:
            cells = []
            for c in columns:
                found = next((q for q in c.quality if (q.kind, q.metric) == (kind, metric)), None)
                value = found.value if found is not None else None
                cells.append(self.tr("not measured") if value is None else fmt.number(value, 4))
            rows.append((self.tr("Quality: %1").replace("%1", metric), cells))
        if not metrics:
            rows.append((self.tr("Quality"), [self.tr("not measured") for _ in columns]))
        return rows + self.hardware_rows(columns)

    def hardware_rows(self, columns: tuple[MachineFigures, ...]) -> list[tuple[str, list[str]]]:
        cpu: list[str] = []
        memory: list[str] = []
        gpu: list[str] = []
        bandwidth: list[str] = []
        calibrated: list[str] = []
        for c in columns:
            profile = c.machine.profile
            if profile is None:
                for cells in (cpu, memory, gpu, bandwidth):
                    cells.append("-")
            else:
                cpu.append(
                    self.tr("%1, %2 threads")
                    .replace("%1", profile.cpu.brand)
                    .replace("%2", str(profile.cpu.logical_cores))
                )
                memory.append(fmt.size(profile.memory.total_bytes))
                gpu.append(
                    ", ".join(f"{g.name} {fmt.size(g.memory_total_bytes)}" for g in profile.gpus)
                    or self.tr("none")
                )
                gbps = profile.cpu.memory_bandwidth_gbps
                bandwidth.append(
                    "-" if gbps is None else fmt.number(gbps, 1) + " " + self.tr("GB/s")
                )
            cal = c.machine.calibration
            if c.machine.local:
                calibrated.append(self.tr("by its own runs here"))
            elif cal is None or not cal.applies:
                calibrated.append(self.tr("not yet (no runs)"))
            else:
                calibrated.append(
                    self.tr("from %1 runs measured there").replace("%1", str(cal.runs))
                )
        return [
            (self.tr("CPU"), cpu),
            (self.tr("Memory"), memory),
            (self.tr("GPU"), gpu),
            (self.tr("Memory bandwidth"), bandwidth),
            (self.tr("Estimates calibrated"), calibrated),
        ]

    def shutdown(self) -> None:
        self._closed = True
        self._reader.cancel()
