"""The Library's Quality window: measure one model's quality on this machine.

Two measurements, the same as ``llm-scout quality``:

- *What a quantization loses*: the model against a reference (another model of the library with
  the same tokenizer, a GGUF file, or a reference pack) on the English or Chinese text shipped
  with the app or a text file: KL divergence, same top token, perplexity and ΔPPL.
- *Multiple-choice accuracy*: the GAOKAO-Bench questions shipped with the app, or a folder in
  the C-Eval, CMMLU or MMLU layout.

Both run off the GUI thread (:func:`~desktop.ui.workers.run_task`), the models in their own
engine workers; a time budget and a Stop button end them after the current chunk or question,
and what is done by then is the result. While it runs, the running figure and its 95% interval
are drawn chunk by chunk. The window is not modal: the rest of the app stays usable.

A result with something measured is kept in the history (one measurement of the model on this
machine, ``store_result``), off the GUI thread, unless ``keep`` is False; it then shows in
``llm-scout history list`` and travels with an export.

Signals: ``measured(object)``, the result (a ``LossResult`` or ``ChoiceResult``) when a
measurement ends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.errors import ScoutError
from desktop.core.hardware import HardwareProfile
from desktop.core.quality import (
    BUILTIN_TEXTS,
    ChoiceProgress,
    ChoiceResult,
    ChoiceSettings,
    LossProgress,
    LossResult,
    LossSettings,
    load_items,
    load_text,
    measure_loss,
    score_items,
    store_result,
)
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.i18n import default_quality_text, quality_text_name
from desktop.ui.widgets.quality_results import (
    ResultTable,
    RunningPlot,
    choice_summary,
    interval,
    loss_summary,
    make_label,
)
from desktop.ui.workers import TaskControl, TaskHandle, run_task

DEFAULT_BUDGET_MIN = 5
UNQUANTIZED = ("F32", "F16", "BF16")


@dataclass(frozen=True)
class KeptResult:
    """A result and whether the history took it (``error``: why not; None: stored)."""

    result: LossResult | ChoiceResult
    error: str | None


@dataclass(frozen=True)
class ModelChoice:
    """A model of the library, as the window offers it."""

    label: str
    path: Path
    architecture: str
    quant: str | None
    size_bytes: int
    variant_id: str | None = None


def default_reference(model: ModelChoice, others: Sequence[ModelChoice]) -> ModelChoice | None:
    """The best reference the library has for ``model``: same architecture, another file, an
    unquantized one first, else the largest (the least quantized)."""
    same = [o for o in others if o.architecture == model.architecture and o.path != model.path]
    if not same:
        return None
    return max(same, key=lambda o: ((o.quant or "").upper() in UNQUANTIZED, o.size_bytes))


class QualityDialog(QDialog):
    measured = Signal(object)

    def __init__(
        self,
        model: ModelChoice,
        others: Sequence[ModelChoice],
        *,
        threads: int | None = None,
        profile: HardwareProfile | None = None,
        keep: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("qualityDialog")
        self.setWindowTitle(self.tr("Quality of %1").replace("%1", model.label))
        self.setModal(False)
        self.model = model
        self._threads = threads
        self._profile = profile  # this machine's, for the history
        self._keep = keep
        self.kept_error: str | None = None  # why the last result is not in the history
        self._stop = threading.Event()
        self._task: TaskHandle | None = None
        self._reference_path: Path | None = None
        self._text_path: Path | None = None
        self._items_path: Path | None = None
        self.outcome: LossResult | ChoiceResult | None = None
        self._build(others)
        self.resize(820, 700)
        self._update_controls()

    # -- building -------------------------------------------------------------------------------

    def _build(self, others: Sequence[ModelChoice]) -> None:
        layout = QVBoxLayout(self)
        head = make_label()
        head.setText(f"{self.model.label}\n{self.model.path}")
        layout.addWidget(head)
        form = QFormLayout()
        layout.addLayout(form)
        self.mode_combo = QComboBox()
        self.mode_combo.setObjectName("qualityMode")
        self.mode_combo.addItem(self.tr("What a quantization loses, against a reference"), "loss")
        self.mode_combo.addItem(self.tr("Multiple-choice accuracy"), "choice")
        self.mode_combo.currentIndexChanged.connect(self._on_mode_combo_changed)
        form.addRow(self.tr("Measure"), self.mode_combo)

        self.pages = QStackedWidget()
        layout.addWidget(self.pages)
        loss = QWidget()
        loss_form = QFormLayout(loss)
        loss_form.setContentsMargins(0, 0, 0, 0)
        self.reference_combo = QComboBox()
        self.reference_combo.setObjectName("qualityReference")
        self.reference_combo.setAccessibleName(self.tr("Reference"))
        best = default_reference(self.model, others)
        candidates = [o for o in others if o.path != self.model.path]
        candidates.sort(key=lambda o: (o is not best, o.architecture != self.model.architecture))
        for other in candidates:
            self.reference_combo.addItem(other.label, str(other.path))
        self.reference_combo.addItem(
            self.tr("This model itself (checks the method: 0)"), str(self.model.path)
        )
        self.reference_combo.addItem(self.tr("A reference pack or GGUF file…"), "")
        self.reference_combo.activated.connect(self._on_reference_combo_activated)
        self.reference_combo.setToolTip(
            self.tr(
                "The model to compare with: the same model less quantized (F16, BF16, Q8_0), "
                "with the same tokenizer. A reference pack holds what such a model said, "
                "without the model."
            )
        )
        loss_form.addRow(self.tr("Reference"), self.reference_combo)
        self.text_combo = QComboBox()
        self.text_combo.setObjectName("qualityText")
        for name in BUILTIN_TEXTS:
            self.text_combo.addItem(quality_text_name(name), name)
        self.text_combo.addItem(self.tr("A text file…"), "")
        self.text_combo.setCurrentIndex(self.text_combo.findData(default_quality_text()))
        self.text_combo.activated.connect(self._on_text_combo_activated)
        loss_form.addRow(self.tr("Text"), self.text_combo)
        self.chunk_spin = QSpinBox()
        self.chunk_spin.setObjectName("qualityChunk")
        self.chunk_spin.setRange(64, 4096)
        self.chunk_spin.setSingleStep(64)
        self.chunk_spin.setValue(512)
        self.chunk_spin.setSuffix(" " + self.tr("tokens"))
        self.chunk_spin.setToolTip(
            self.tr(
                "Each chunk's first half is context, its second half "
                "is scored (as llama.cpp's perplexity tool does)."
            )
        )
        loss_form.addRow(self.tr("Chunk length"), self.chunk_spin)
        self.pages.addWidget(loss)

        choice = QWidget()
        choice_form = QFormLayout(choice)
        choice_form.setContentsMargins(0, 0, 0, 0)
        self.items_combo = QComboBox()
        self.items_combo.setObjectName("qualityItems")
        self.items_combo.addItem(self.tr("GAOKAO-Bench, 1,241 questions (shipped)"), "gaokao")
        self.items_combo.addItem(self.tr("A folder in the C-Eval, CMMLU or MMLU layout…"), "")
        self.items_combo.activated.connect(self._on_items_combo_activated)
        choice_form.addRow(self.tr("Questions"), self.items_combo)
        self.method_combo = QComboBox()
        self.method_combo.setObjectName("qualityMethod")
        self.method_combo.addItem(self.tr("Likelihood of the answer letter"), "letter")
        self.method_combo.addItem(self.tr("Likelihood of each option's text"), "text")
        choice_form.addRow(self.tr("Scoring"), self.method_combo)
        self.limit_spin = QSpinBox()
        self.limit_spin.setObjectName("qualityLimit")
        self.limit_spin.setRange(0, 100_000)
        self.limit_spin.setSpecialValueText(self.tr("all"))
        choice_form.addRow(self.tr("At most"), self.limit_spin)
        self.pages.addWidget(choice)

        self.budget_spin = QSpinBox()
        self.budget_spin.setObjectName("qualityBudget")
        self.budget_spin.setRange(0, 600)
        self.budget_spin.setValue(DEFAULT_BUDGET_MIN)
        self.budget_spin.setSuffix(" " + self.tr("min"))
        self.budget_spin.setSpecialValueText(self.tr("no limit"))
        self.budget_spin.setToolTip(
            self.tr(
                "What is measured by then is the result, with its "
                "interval; more time narrows the interval."
            )
        )
        budget_form = QFormLayout()
        budget_form.addRow(self.tr("Time budget"), self.budget_spin)
        layout.addLayout(budget_form)

        bar = QHBoxLayout()
        self.start_button = QPushButton(self.tr("Start"))
        self.start_button.setObjectName("qualityStart")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("qualityStop")
        self.stop_button.clicked.connect(self.stop)
        self.progress = QProgressBar()
        self.progress.setObjectName("qualityProgress")
        self.progress.setTextVisible(False)
        bar.addWidget(self.start_button)
        bar.addWidget(self.stop_button)
        bar.addWidget(self.progress, 1)
        layout.addLayout(bar)
        self.status = make_label()
        self.status.setObjectName("qualityStatus")
        layout.addWidget(self.status)

        split = QSplitter(Qt.Orientation.Vertical)
        self.plot = RunningPlot()
        self.table = ResultTable()
        split.addWidget(self.plot)
        split.addWidget(self.table)
        layout.addWidget(split, 1)
        self.summary = make_label()
        self.summary.setObjectName("qualitySummary")
        layout.addWidget(self.summary)

    # -- choosing -------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return str(self.mode_combo.currentData())

    def _on_mode_combo_changed(self, index: int) -> None:
        self.pages.setCurrentIndex(index)

    def set_reference(self, path: Path) -> None:
        """Use ``path`` (a GGUF file or a reference pack) as the reference."""
        self._reference_path = Path(path)
        index = self.reference_combo.count() - 1
        self.reference_combo.setItemText(index, Path(path).name)
        self.reference_combo.setItemData(index, str(path))
        self.reference_combo.setCurrentIndex(index)

    def set_text(self, path: Path) -> None:
        index = self.text_combo.count() - 1
        self.text_combo.setItemText(index, Path(path).name)
        self.text_combo.setItemData(index, str(path))
        self.text_combo.setCurrentIndex(index)

    def set_items(self, path: Path) -> None:
        index = self.items_combo.count() - 1
        self.items_combo.setItemText(index, str(path))
        self.items_combo.setItemData(index, str(path))
        self.items_combo.setCurrentIndex(index)

    def _on_reference_combo_activated(self, index: int) -> None:
        if index == self.reference_combo.count() - 1:
            path, _ = QFileDialog.getOpenFileName(
                self,
                self.tr("Reference"),
                "",
                self.tr("Models and reference packs (*.gguf *.refpack);;All files (*)"),
            )
            if path:
                self.set_reference(Path(path))

    def _on_text_combo_activated(self, index: int) -> None:
        if index == self.text_combo.count() - 1:
            path, _ = QFileDialog.getOpenFileName(
                self, self.tr("Text"), "", self.tr("Text files (*.txt *.md);;All files (*)")
            )
            if path:
                self.set_text(Path(path))

    def _on_items_combo_activated(self, index: int) -> None:
        if index == self.items_combo.count() - 1:
            path = QFileDialog.getExistingDirectory(self, self.tr("Questions"))
            if path:
                self.set_items(Path(path))

    # -- running --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done

    def _update_controls(self) -> None:
        running = self.running
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running and not self._stop.is_set())
        for widget in (self.mode_combo, self.pages, self.budget_spin):
            widget.setEnabled(not running)

    def start(self) -> None:
        if self.running:
            return
        budget = self.budget_spin.value() * 60.0 or None
        self._stop = threading.Event()
        stop = self._stop
        model, label = self.model.path, self.model.label
        keep = self._keeper()
        self.outcome = None
        self.table.setRowCount(0)
        self.summary.setText("")
        self.progress.setRange(0, 0)
        if self.mode == "loss":
            reference = Path(str(self.reference_combo.currentData() or ""))
            if not str(self.reference_combo.currentData() or ""):
                self.status.setText(self.tr("Choose a reference first."))
                self.progress.setRange(0, 1)
                return
            text_key = str(self.text_combo.currentData() or "en")
            settings = LossSettings(
                ctx=self.chunk_spin.value(), n_threads=self._threads, max_seconds=budget
            )
            ref_label = self.reference_combo.currentText()
            self.plot.reset(self.tr("chunks"), self.tr("KL divergence"))
            self.status.setText(self.tr("Starting…"))

            def work(control: TaskControl) -> object:
                text = None if reference.suffix.lower() == ".refpack" else load_text(text_key)
                return keep(
                    measure_loss(
                        model,
                        reference,
                        text,
                        settings,
                        model_label=label,
                        reference_label=ref_label,
                        on_progress=control.progress,
                        should_stop=stop.is_set,
                    )
                )
        else:
            source = str(self.items_combo.currentData() or "gaokao")
            limit = self.limit_spin.value() or None
            choice = ChoiceSettings(
                method=str(self.method_combo.currentData()),  # type: ignore[arg-type]
                n_threads=self._threads,
                max_seconds=budget,
            )
            self.plot.reset(self.tr("questions"), self.tr("accuracy"))
            self.status.setText(self.tr("Starting…"))

            def work(control: TaskControl) -> object:
                items = load_items(source, limit=limit)
                return keep(
                    score_items(
                        model,
                        items,
                        choice,
                        label=label,
                        on_progress=control.progress,
                        should_stop=stop.is_set,
                    )
                )

        self._task = run_task(
            work,
            on_done=self._on_task_done,
            on_failed=self._on_task_failed,
            on_progress=self._on_task_progress,
        )
        self._update_controls()

    def _keeper(self) -> Callable[[LossResult | ChoiceResult], object]:
        """What the worker thread does with a result: store it in the history (a failure to
        store is said beside the result, never instead of it)."""
        wanted, choice, profile = self._keep, self.model, self._profile

        def keep(result: LossResult | ChoiceResult) -> object:
            done = result.n if isinstance(result, ChoiceResult) else result.chunks
            if not wanted or not done:
                return result
            try:
                store_result(
                    result,
                    model=choice.path,
                    label=choice.label,
                    variant_id=choice.variant_id,
                    profile=profile,
                )
            except ScoutError as exc:
                return KeptResult(result, describe(exc)[1])
            return KeptResult(result, None)

        return keep

    def stop(self) -> None:
        """Stop after the current chunk or question; what is done is the result."""
        if self.running:
            self._stop.set()
            self.status.setText(self.tr("Stopping after the current step…"))
            self._update_controls()

    def _on_task_progress(self, value: object) -> None:
        if not isValid(self):
            return
        if isinstance(value, LossProgress):
            self._show_loss_progress(value)
        elif isinstance(value, ChoiceProgress):
            r = value.result
            self.progress.setRange(0, value.total)
            self.progress.setValue(value.done)
            self.plot.add(
                value.done, r.accuracy * 100, (r.accuracy_ci[0] * 100, r.accuracy_ci[1] * 100)
            )
            if self.plot.points == 1:
                self.plot.reference.setValue(r.chance * 100)
                self.plot.reference.setVisible(True)
            self.status.setText(
                self.tr("Question %1 of %2 · accuracy %3 % (95% interval %4) · %5")
                .replace("%1", fmt.integer(value.done))
                .replace("%2", fmt.integer(value.total))
                .replace("%3", fmt.number(r.accuracy * 100, 1))
                .replace("%4", interval(r.accuracy_ci[0], r.accuracy_ci[1], 1, 100, " %"))
                .replace("%5", fmt.seconds(value.elapsed_s))
            )

    def _show_loss_progress(self, value: LossProgress) -> None:
        if value.phase == "vocabulary":
            self.status.setText(self.tr("Checking that the two models share a vocabulary…"))
            return
        self.progress.setRange(0, value.total)
        self.progress.setValue(value.done)
        if value.phase == "reference":
            self.status.setText(
                self.tr("Reference pass: chunk %1 of %2 · %3")
                .replace("%1", fmt.integer(value.done))
                .replace("%2", fmt.integer(value.total))
                .replace("%3", fmt.seconds(value.elapsed_s))
            )
            return
        r = value.result
        if r is None:
            return
        self.plot.add(value.done, r.kld, r.kld_ci)
        ci = interval(*r.kld_ci, 5) if r.kld_ci is not None else "–"
        self.status.setText(
            self.tr("Model: chunk %1 of %2 · KL divergence %3 (95% interval %4) · %5")
            .replace("%1", fmt.integer(value.done))
            .replace("%2", fmt.integer(value.total))
            .replace("%3", fmt.number(r.kld, 5))
            .replace("%4", ci)
            .replace("%5", fmt.seconds(value.elapsed_s))
        )

    def _on_task_done(self, done: object) -> None:
        if not isValid(self):
            return
        result = done.result if isinstance(done, KeptResult) else done
        stored = isinstance(done, KeptResult) and done.error is None
        self.kept_error = done.error if isinstance(done, KeptResult) else None
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        if isinstance(result, LossResult):
            self.table.show_loss(result)
            self.summary.setText(loss_summary(result))
            self.status.setText(
                self.tr("Done: %1 against %2.")
                .replace("%1", result.model)
                .replace("%2", result.reference)
            )
        elif isinstance(result, ChoiceResult):
            self.table.show_choice(result)
            self.summary.setText(choice_summary(result))
            self.status.setText(
                self.tr("Done: %1 questions answered.").replace("%1", fmt.integer(result.n))
            )
        if stored:
            self.status.setText(
                self.status.text() + " " + self.tr("Kept in the history (this machine).")
            )
        elif self.kept_error:
            self.status.setText(
                self.status.text()
                + " "
                + self.tr("Not kept in the history: %1").replace("%1", self.kept_error)
            )
        self.outcome = result  # type: ignore[assignment]
        self._update_controls()
        self.measured.emit(result)

    def _on_task_failed(self, error: Exception) -> None:
        if not isValid(self):
            return
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        title, sentence = describe(error)
        self.status.setText(f"{title}: {sentence}")
        self._update_controls()

    def closeEvent(self, event: object) -> None:
        """Closing stops the measurement; its worker ends after the current step."""
        if self._task is not None and not self._task.done:
            self._stop.set()
            self._task.stop()
        super().closeEvent(event)  # type: ignore[arg-type]
