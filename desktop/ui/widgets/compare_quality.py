"""Compare's quality check: the setup's choice (none, the shipped GAOKAO-Bench questions,
questions from a folder, or the loss against a reference on one of the shipped texts, English
or Chinese, the Chinese one first when the window is in Chinese; a reference pack brings its
own), with a small budget, a column's quality line and the results' quality table.

Presentation only: :meth:`QualityChoice.check` gives the core's
:class:`~desktop.core.compare.QualityCheck` (the same one ``llm-scout compare --quality`` makes),
which the runner measures after the answers; the figures shown are the core's
:class:`~desktop.core.compare.QualityOutcome`, written with the report's decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from desktop.core.compare import (
    DEFAULT_ITEMS,
    DEFAULT_LIMIT,
    DEFAULT_MAX_SECONDS,
    ColumnState,
    QualityCheck,
    QualityOutcome,
)
from desktop.core.quality import ACCURACY_DECIMALS, BUILTIN_TEXTS, KLD_DECIMALS
from desktop.ui import format as fmt
from desktop.ui.i18n import default_quality_text, quality_text_name
from desktop.ui.widgets.compare_column import FAILED_COLOR

NONE = "none"
SHIPPED = "shipped"
FOLDER = "folder"
REFERENCE = "reference"


def is_pack(path: Path) -> bool:
    """A reference pack brings its own text (the core's rule)."""
    return QualityCheck("text", str(path)).pack


class QualityChoice(QWidget):
    """A combo (none, shipped questions, a folder…, a reference…), the chosen file's name, the
    number of questions or the text a loss is measured on, and the minutes per model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareQuality")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        label = QLabel(self.tr("Quality check"))
        row.addWidget(label)
        self.combo = QComboBox()
        self.combo.setObjectName("qualityCombo")
        self.combo.setAccessibleName(self.tr("Quality check after the answers"))
        self.combo.setToolTip(
            self.tr(
                "After the answers, measure every model on the same questions or text, one after "
                "another; the results are kept in History."
            )
        )
        self.combo.addItem(self.tr("None"), NONE)
        self.combo.addItem(self.tr("GAOKAO-Bench questions (shipped)"), SHIPPED)
        self.combo.addItem(self.tr("Questions from a folder…"), FOLDER)
        self.combo.addItem(self.tr("Loss against a reference…"), REFERENCE)
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.combo.activated.connect(self._on_activated)
        label.setBuddy(self.combo)
        row.addWidget(self.combo)
        self.source_label = QLabel()
        self.source_label.setObjectName("qualitySource")
        row.addWidget(self.source_label)
        self.limit_label = QLabel(self.tr("Questions"))
        self.limit = QSpinBox()
        self.limit.setObjectName("qualityLimit")
        self.limit.setAccessibleName(self.tr("Most questions per model"))
        self.limit.setRange(1, 1000)
        self.limit.setValue(DEFAULT_LIMIT)
        self.limit_label.setBuddy(self.limit)
        row.addWidget(self.limit_label)
        row.addWidget(self.limit)
        self.text_label = QLabel(self.tr("on"))
        self.text_combo = QComboBox()
        self.text_combo.setObjectName("qualityText")
        self.text_combo.setAccessibleName(self.tr("Text the loss is measured on"))
        self.text_combo.setToolTip(
            self.tr("The reference and every model are scored on this text, in chunks.")
        )
        for key in BUILTIN_TEXTS:
            self.text_combo.addItem(quality_text_name(key), key)
        self.text_combo.setCurrentIndex(max(0, self.text_combo.findData(default_quality_text())))
        self.text_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.text_label.setBuddy(self.text_combo)
        row.addWidget(self.text_label)
        row.addWidget(self.text_combo)
        self.pack_note = QLabel(self.tr("on the pack's own text"))
        self.pack_note.setObjectName("qualityPackText")
        self.pack_note.setToolTip(
            self.tr("A reference pack holds what its model said on its own text: that one.")
        )
        row.addWidget(self.pack_note)
        self.minutes_label = QLabel(self.tr("Minutes per model"))
        self.minutes = QDoubleSpinBox()
        self.minutes.setObjectName("qualityMinutes")
        self.minutes.setAccessibleName(self.tr("Time budget per model, in minutes"))
        self.minutes.setToolTip(self.tr("What is measured by then counts."))
        self.minutes.setRange(0.5, 120.0)
        self.minutes.setSingleStep(0.5)
        self.minutes.setDecimals(1)
        self.minutes.setValue(DEFAULT_MAX_SECONDS / 60)
        self.minutes_label.setBuddy(self.minutes)
        row.addWidget(self.minutes_label)
        row.addWidget(self.minutes)
        row.addStretch(1)
        self._paths: dict[str, Path] = {}
        self._update()

    # -- choosing ---------------------------------------------------------------------------------

    def _on_activated(self, _index: int) -> None:
        key = self.combo.currentData()
        if key == FOLDER:
            folder = QFileDialog.getExistingDirectory(
                self, self.tr("A folder of questions (C-Eval, CMMLU or MMLU layout)")
            )
            if not folder:
                self._back()
                return
            self.choose(FOLDER, Path(folder))
        elif key == REFERENCE:
            path, _ = QFileDialog.getOpenFileName(
                self,
                self.tr("The reference: a GGUF model or a reference pack"),
                "",
                self.tr("Reference (*.gguf *.refpack);;All files (*)"),
            )
            if not path:
                self._back()
                return
            self.choose(REFERENCE, Path(path))
        self._update()

    def _back(self) -> None:
        """A file dialog cancelled: the choice before it, or none."""
        for key in (FOLDER, REFERENCE):
            if self.combo.currentData() == key and key not in self._paths:
                self.combo.setCurrentIndex(0)
        self._update()

    def choose(self, key: str, path: Path | None = None) -> None:
        """Choose ``none``, ``shipped``, ``folder`` (with its path) or ``reference`` (with
        its path), as the combo and its file dialogs do."""
        if path is not None:
            self._paths[key] = path
        self.combo.setCurrentIndex(max(0, self.combo.findData(key)))
        self._update()

    def show_check(self, check: QualityCheck | None) -> None:
        """Show the check a stored comparison ran (its questions and minutes too)."""
        if check is None:
            self.choose(NONE)
            return
        if check.kind == "text":
            self.choose(REFERENCE, Path(check.source))
            self.choose_text(check.text)
        elif check.source == DEFAULT_ITEMS:
            self.choose(SHIPPED)
        else:
            self.choose(FOLDER, Path(check.source))
        self.limit.setValue(check.limit)
        if check.max_seconds is not None:
            self.minutes.setValue(check.max_seconds / 60)

    def choose_text(self, text: str) -> None:
        """The text a loss is measured on: ``en``, ``zh`` or a file (a stored comparison's;
        it joins the list)."""
        index = self.text_combo.findData(text)
        if index < 0:
            self.text_combo.addItem(quality_text_name(text), text)
            index = self.text_combo.count() - 1
            self.text_combo.setItemData(index, text, Qt.ItemDataRole.ToolTipRole)
        self.text_combo.setCurrentIndex(index)

    def _update(self) -> None:
        key = self.combo.currentData()
        path = self._paths.get(key) if key in (FOLDER, REFERENCE) else None
        self.source_label.setText(path.name if path is not None else "")
        self.source_label.setToolTip(str(path) if path is not None else "")
        self.source_label.setVisible(path is not None)
        questions = key in (SHIPPED, FOLDER)
        self.limit_label.setVisible(questions)
        self.limit.setVisible(questions)
        pack = key == REFERENCE and path is not None and is_pack(path)
        text = key == REFERENCE and path is not None and not pack
        self.text_label.setVisible(text)
        self.text_combo.setVisible(text)
        self.pack_note.setVisible(pack)
        self.minutes_label.setVisible(key != NONE)
        self.minutes.setVisible(key != NONE)

    def set_enabled(self, enabled: bool) -> None:
        for widget in (self.combo, self.limit, self.text_combo, self.minutes):
            widget.setEnabled(enabled)

    # -- the check --------------------------------------------------------------------------------

    def check(self) -> QualityCheck | None:
        """The quality check chosen (None: none)."""
        key = self.combo.currentData()
        budget = self.minutes.value() * 60
        if key == SHIPPED:
            return QualityCheck(
                "items", DEFAULT_ITEMS, limit=self.limit.value(), max_seconds=budget
            )
        path = self._paths.get(key)
        if key == FOLDER and path is not None:
            return QualityCheck("items", str(path), limit=self.limit.value(), max_seconds=budget)
        if key == REFERENCE and path is not None:
            text = str(self.text_combo.currentData() or default_quality_text())
            return QualityCheck("text", str(path), text=text, max_seconds=budget)
        return None


# -- what a column and the results show ------------------------------------------------------------


def figure_text(outcome: QualityOutcome) -> str:
    """``accuracy 62.0 % (51.0 % – 72.3 %)`` or ``KLD 0.01234 (0.01100 – 0.01400)``: the
    figures the report and ``llm-scout compare`` print, in the UI's locale."""
    value, interval = outcome.value, outcome.interval
    if value is None:
        return ""
    choice = outcome.metric == "accuracy"

    def number(x: float) -> str:
        if choice:
            return fmt.number(x * 100, ACCURACY_DECIMALS) + " %"
        return fmt.number(x, KLD_DECIMALS)

    text = (
        QCoreApplication.translate("CompareQuality", "accuracy %1")
        if choice
        else QCoreApplication.translate("CompareQuality", "KLD %1")
    ).replace("%1", number(value))
    if interval is not None:
        text += f" ({number(interval[0])} – {number(interval[1])})"
    return text


def size_text(outcome: QualityOutcome) -> str:
    """``20 questions`` / ``1,024 tokens``, and whether it was cut short."""
    if outcome.count is None:
        return ""
    unit = (
        QCoreApplication.translate("CompareQuality", "%1 questions")
        if outcome.metric == "accuracy"
        else QCoreApplication.translate("CompareQuality", "%1 tokens")
    )
    text = unit.replace("%1", fmt.integer(outcome.count))
    if outcome.result is not None and not outcome.result.complete:
        text += " " + QCoreApplication.translate("CompareQuality", "(stopped early)")
    return text


def outcome_text(outcome: QualityOutcome) -> str:
    """One contestant's quality in words: its figure, or why there is none."""
    if outcome.status == "done":
        return figure_text(outcome)
    if outcome.status == "skipped":
        return QCoreApplication.translate(
            "CompareQuality", "not measured: a model on a server gives no logits to score here"
        )
    if outcome.status == "cancelled":
        return QCoreApplication.translate("CompareQuality", "stopped before it was measured")
    return QCoreApplication.translate("CompareQuality", "failed: %1").replace(
        "%1", outcome.reason or QCoreApplication.translate("CompareQuality", "no reason given")
    )


def quality_line(state: ColumnState, check: QualityCheck | None) -> str:
    """The column's quality line: how far the check is, its figure, or why it failed ("" when
    the comparison has no check or it has not started)."""
    if check is None:
        return ""
    if state.quality is not None:
        return QCoreApplication.translate("CompareQuality", "Quality: %1").replace(
            "%1", outcome_text(state.quality)
        )
    progress = state.quality_progress
    if progress is None:
        return ""
    done, total, value = progress
    unit = (
        QCoreApplication.translate("CompareQuality", "question")
        if check.kind == "items"
        else QCoreApplication.translate("CompareQuality", "chunk")
    )
    text = QCoreApplication.translate("CompareQuality", "Quality: measuring, %1 %2 of %3").replace(
        "%1", unit
    )
    text = text.replace("%2", fmt.integer(done)).replace("%3", "?" if total is None else str(total))
    if value is not None:
        shown = (
            fmt.number(value * 100, ACCURACY_DECIMALS) + " %"
            if check.kind == "items"
            else fmt.number(value, KLD_DECIMALS)
        )
        text += " · " + shown
    return text


class QualityTable(QTableWidget):
    """The results' quality rows: model, result with its 95% interval, measured on; hidden when
    the comparison has no quality check."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 3, parent)
        self.setObjectName("compareQualityTable")
        self.setAccessibleName(self.tr("Quality of every model"))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.verticalHeader().setVisible(False)
        self.setWordWrap(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setVisible(False)

    def show_quality(
        self, check: QualityCheck | None, outcomes: Sequence[QualityOutcome], names: Sequence[str]
    ) -> None:
        self.setVisible(check is not None)
        if check is None:
            self.setRowCount(0)
            return
        source = Path(check.source)
        if check.kind == "items":
            kind = self.tr("multiple choice")
        elif is_pack(source):
            kind = self.tr("loss against %1").replace("%1", source.name)
        else:
            kind = (
                self.tr("loss against %1 on %2")
                .replace("%1", source.name)
                .replace("%2", quality_text_name(check.text))
            )
        what = self.tr("Quality (%1)").replace("%1", kind)
        self.setHorizontalHeaderLabels(
            [what, self.tr("Result (95% interval)"), self.tr("Measured on")]
        )
        by = {o.contestant: o for o in outcomes}
        self.setRowCount(len(names))
        for i, name in enumerate(names):
            o = by.get(i)
            cells = [name, outcome_text(o) if o else self.tr("not measured yet"), ""]
            if o is not None:
                cells[2] = size_text(o)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if o is not None and o.status == "failed" and c == 1:
                    item.setForeground(QColor(FAILED_COLOR))
                self.setItem(i, c, item)
        self.resizeRowsToContents()
        header = max(self.horizontalHeader().height(), self.horizontalHeader().sizeHint().height())
        rows = sum(self.rowHeight(r) for r in range(self.rowCount()))
        self.setFixedHeight(header + rows + 2 * self.frameWidth() + 2)
