"""One column of the Compare page: a contestant's name, live figures, sparkline and answer.

The page sets what the column shows (:meth:`CompareColumn.set_header`, ``set_status``,
``set_figures``, ``set_spark``, ``show_answer``) once per timer tick, and only what changed.
:class:`AnswerView` appends streamed text as it is (cheap) and renders an answer as Markdown
once it is finished (Qt's md4c, raw HTML off: a model cannot inject markup).
:class:`Sparkline` is a tiny pyqtgraph curve of the column's tokens/s, set once per tick.

Signals (of :class:`CompareColumn`):
    vote_requested(int): "this answer is better" (the contestant's index).
    edit_requested(int), remove_requested(int): the setup's buttons (the entry's position).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.theme import icon
from desktop.ui.widgets.refcount_guard import guard_refcounts

MARKDOWN = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)
SPARK_COLOR = "#2f6fd0"
FAILED_COLOR = "#c0392b"
DONE_COLOR = "#2e9d57"
MIN_COLUMN_WIDTH = 250


class AnswerView(QTextBrowser):
    """An answer: streamed as plain text, shown as Markdown once finished."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setReadOnly(True)
        self.document().setUndoRedoEnabled(False)
        self.document().setDocumentMargin(8)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._shown = ""
        self._streaming = False

    @property
    def text(self) -> str:
        return self._shown

    def show_answer(self, text: str, *, streaming: bool, placeholder: str = "") -> None:
        """Show ``text``; while ``streaming`` only the new end is appended."""
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        if streaming and self._streaming and text.startswith(self._shown):
            new = text[len(self._shown) :]
            if new:
                cursor = QTextCursor(self.document())
                cursor.movePosition(QTextCursor.MoveOperation.End)
                cursor.insertText(new)
        elif streaming:
            self.setPlainText(text)
        elif text:
            self.document().setMarkdown(text, MARKDOWN)
        else:
            self.setPlainText(placeholder)
        if streaming != self._streaming or not streaming:
            color = self.palette().color(
                QPalette.ColorRole.PlaceholderText if not text else QPalette.ColorRole.Text
            )
            self.setStyleSheet("" if text else f"QTextBrowser {{ color: {color.name()}; }}")
        self._shown = text
        self._streaming = streaming
        if streaming and at_end:
            bar.setValue(bar.maximum())


class Sparkline(pg.PlotWidget):  # type: ignore[misc]  # pyqtgraph is untyped
    """The column's tokens/s over time, without axes; fixed height."""

    def __init__(self, parent: QWidget | None = None) -> None:
        guard_refcounts()
        super().__init__(parent, background=None)
        self.setFixedHeight(34)
        self.setMouseEnabled(False, False)
        self.hideButtons()
        self.setMenuEnabled(False)
        item = self.getPlotItem()
        item.hideAxis("left")
        item.hideAxis("bottom")
        item.setContentsMargins(0, 0, 0, 0)
        item.getViewBox().setDefaultPadding(0.05)
        self.curve = item.plot(pen=pg.mkPen(SPARK_COLOR, width=1.5))
        self.points = 0
        self.setToolTip(self.tr("Generation tokens/s while the answers streamed"))

    def set_points(self, points: Sequence[tuple[float, float]]) -> None:
        self.points = len(points)
        if not points:
            self.curve.setData([], [])
            return
        data = np.asarray(points, dtype=float)
        self.curve.setData(data[:, 0] - data[0, 0], data[:, 1])


class CompareColumn(QFrame):
    """One contestant (see the module docstring)."""

    vote_requested = Signal(int)
    edit_requested = Signal(int)
    remove_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(MIN_COLUMN_WIDTH)
        self.contestant = -1  # the contestant shown (its index in the plan)
        self.position = -1  # the setup entry it was made from
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 6, 8, 6)
        outer.setSpacing(3)
        head = QHBoxLayout()
        head.setSpacing(4)
        self.title = QLabel()
        self.title.setObjectName("columnTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.edit_button = QToolButton()
        self.edit_button.setObjectName("editContestantButton")
        self.edit_button.setIcon(icon("settings"))
        self.edit_button.setToolTip(self.tr("Change this model's settings"))
        self.edit_button.setAccessibleName(self.tr("Change settings"))
        self.edit_button.clicked.connect(lambda: self.edit_requested.emit(self.position))
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("removeContestantButton")
        self.remove_button.setIcon(icon("remove"))
        self.remove_button.setToolTip(self.tr("Take this model out of the comparison"))
        self.remove_button.setAccessibleName(self.tr("Remove"))
        self.remove_button.clicked.connect(lambda: self.remove_requested.emit(self.position))
        head.addWidget(self.title, 1)
        head.addWidget(self.edit_button, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)
        outer.addLayout(head)
        self.settings_label = self._small_label("columnSettings")
        outer.addWidget(self.settings_label)
        self.status_label = self._small_label("columnStatus")
        outer.addWidget(self.status_label)
        self.figures_label = QLabel()
        self.figures_label.setObjectName("columnFigures")
        self.figures_label.setWordWrap(True)
        outer.addWidget(self.figures_label)
        self.quality_label = self._small_label("columnQuality")
        self.quality_label.setVisible(False)
        outer.addWidget(self.quality_label)
        self.sparkline = Sparkline()
        self.sparkline.setObjectName("columnSparkline")
        outer.addWidget(self.sparkline)
        self.answer = AnswerView()
        self.answer.setObjectName("columnAnswer")
        outer.addWidget(self.answer, 1)
        self.vote_button = QPushButton(icon("add"), "")
        self.vote_button.setObjectName("voteButton")
        self.vote_button.setCheckable(True)
        self.vote_button.clicked.connect(lambda: self.vote_requested.emit(self.contestant))
        self.vote_button.setVisible(False)
        outer.addWidget(self.vote_button)
        self.status = ""

    def _small_label(self, name: str) -> QLabel:
        label = QLabel()
        label.setObjectName(name)
        label.setWordWrap(True)
        font = label.font()
        font.setPointSizeF(font.pointSizeF() * 0.92)
        label.setFont(font)
        return label

    def set_header(self, title: str, settings: str, tooltip: str = "") -> None:
        self.title.setText(title)
        self.title.setToolTip(tooltip)
        self.settings_label.setText(settings)
        self.settings_label.setVisible(bool(settings))
        self.setAccessibleName(title)

    def set_editable(self, editable: bool) -> None:
        self.edit_button.setVisible(editable)
        self.remove_button.setVisible(editable)

    def set_status(self, status: str, text: str, *, tooltip: str = "") -> None:
        """``status``: one of the live model's statuses (colours the text); ``text``: words."""
        self.status = status
        self.status_label.setText(text)
        self.status_label.setToolTip(tooltip or text)
        color = {"failed": FAILED_COLOR, "done": DONE_COLOR}.get(status)
        self.status_label.setStyleSheet(f"color: {color};" if color else "")
        font = self.status_label.font()
        font.setBold(status == "failed")
        self.status_label.setFont(font)

    def set_figures(self, text: str) -> None:
        self.figures_label.setText(text)

    def set_quality(self, text: str, *, failed: bool = False) -> None:
        """The quality check's line ("" hides it); a failure in the failure colour."""
        self.quality_label.setText(text)
        self.quality_label.setToolTip(text)
        self.quality_label.setVisible(bool(text))
        self.quality_label.setStyleSheet(f"color: {FAILED_COLOR};" if failed else "")

    def set_vote(self, text: str, *, visible: bool, checked: bool, enabled: bool) -> None:
        self.vote_button.setText(text)
        self.vote_button.setAccessibleName(text)
        self.vote_button.setVisible(visible)
        self.vote_button.setChecked(checked)
        self.vote_button.setEnabled(enabled)
        font = QFont(self.vote_button.font())
        font.setBold(checked)
        self.vote_button.setFont(font)
