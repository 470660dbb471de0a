"""What a quality measurement shows while it runs and when it ends: a plot of the running figure
with its 95% interval narrowing chunk by chunk (or question by question), and a table of the
result.

Presentation only: the figures are the core's (:class:`~desktop.core.quality.LossResult`,
:class:`~desktop.core.quality.ChoiceResult`), the same the CLI and ``--json`` print.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.quality import ChoiceResult, LossResult, place_on_scale
from desktop.ui import format as fmt
from desktop.ui.theme import is_dark


def interval(low: float, high: float, decimals: int, scale: float = 1.0, suffix: str = "") -> str:
    """``low – high`` in the UI's locale."""
    first = fmt.number(low * scale, decimals) + suffix
    return f"{first} – {fmt.number(high * scale, decimals)}{suffix}"


class RunningPlot(QWidget):
    """The running estimate (line) and its 95% interval (band) against chunks or questions."""

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(background=None)
        self.plot.setObjectName("qualityPlot")
        self.plot.setMinimumHeight(150)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(x=False, y=True, alpha=0.2)
        colour = "#6cb4ff" if is_dark() else "#1f6fb2"
        self.low = pg.PlotDataItem(pen=pg.mkPen(None))
        self.high = pg.PlotDataItem(pen=pg.mkPen(None))
        self.band = pg.FillBetweenItem(self.low, self.high, brush=pg.mkBrush(colour + "40"))
        self.line = pg.PlotDataItem(
            pen=pg.mkPen(colour, width=2),
            symbol="o",
            symbolSize=5,
            symbolBrush=colour,
            symbolPen=None,
        )
        self.reference = pg.InfiniteLine(
            angle=0, pen=pg.mkPen("#888888", style=Qt.PenStyle.DashLine)
        )
        self.reference.setVisible(False)
        for item in (self.band, self.low, self.high, self.line, self.reference):
            self.plot.addItem(item)
        layout.addWidget(self.plot)
        self._x: list[float] = []
        self._y: list[float] = []
        self._lo: list[float] = []
        self._hi: list[float] = []

    def reset(self, x_title: str, y_title: str, chance: float | None = None) -> None:
        self._x, self._y, self._lo, self._hi = [], [], [], []
        self.plot.setLabel("bottom", x_title)
        self.plot.setLabel("left", y_title)
        self.reference.setVisible(chance is not None)
        if chance is not None:
            self.reference.setValue(chance)
        self._redraw()

    def add(self, x: float, y: float, ci: tuple[float, float] | None) -> None:
        self._x.append(x)
        self._y.append(y)
        low, high = ci if ci is not None else (y, y)
        self._lo.append(low)
        self._hi.append(high)
        self._redraw()

    @property
    def points(self) -> int:
        return len(self._x)

    def _redraw(self) -> None:
        self.line.setData(self._x, self._y)
        self.low.setData(self._x, self._lo)
        self.high.setData(self._x, self._hi)


class ResultTable(QTableWidget):
    """The result: metric, value and 95% interval (loss); subject, questions, accuracy and
    interval (multiple choice)."""

    def __init__(self) -> None:
        super().__init__(0, 3)
        self.setObjectName("qualityResultTable")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.verticalHeader().setVisible(False)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)

    def _fill(self, headers: list[str], rows: list[list[str]]) -> None:
        self.clear()
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(headers)
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.setItem(r, c, item)

    def show_loss(self, r: LossResult) -> None:
        def ci(
            value: tuple[float, float] | None, decimals: int, scale: float = 1.0, suffix: str = ""
        ) -> str:
            if value is None:
                return QCoreApplication.translate("QualityResults", "needs two chunks")
            return interval(value[0], value[1], decimals, scale, suffix)

        sign = "+" if r.delta_ppl >= 0 else ""
        rows = [
            [
                QCoreApplication.translate("QualityResults", "KL divergence"),
                fmt.number(r.kld, 5),
                ci(r.kld_ci, 5),
            ],
            [
                QCoreApplication.translate("QualityResults", "Same top token"),
                fmt.number(r.same_top_token * 100, 2) + " %",
                ci(r.same_top_token_ci, 2, 100, " %"),
            ],
            [
                QCoreApplication.translate("QualityResults", "Perplexity"),
                fmt.number(r.ppl, 3),
                ci(r.ppl_ci, 3),
            ],
            [
                QCoreApplication.translate("QualityResults", "Reference perplexity"),
                fmt.number(r.reference_ppl, 3),
                ci(r.reference_ppl_ci, 3),
            ],
            [
                QCoreApplication.translate("QualityResults", "ΔPPL"),
                sign + fmt.number(r.delta_ppl, 4),
                ci(r.delta_ppl_ci, 4),
            ],
            [
                QCoreApplication.translate("QualityResults", "KLD 99th percentile"),
                fmt.number(r.kld_p99, 4),
                "",
            ],
            [
                QCoreApplication.translate("QualityResults", "Tokens scored"),
                fmt.integer(r.tokens),
                "",
            ],
            [QCoreApplication.translate("QualityResults", "Speed"), fmt.rate(r.tokens_per_s), ""],
        ]
        self._fill(
            [
                QCoreApplication.translate("QualityResults", "Measure"),
                QCoreApplication.translate("QualityResults", "Value"),
                QCoreApplication.translate("QualityResults", "95% interval"),
            ],
            rows,
        )

    def show_choice(self, r: ChoiceResult) -> None:
        rows = [
            [
                s.subject,
                fmt.integer(s.n),
                fmt.number(s.accuracy * 100, 1) + " %",
                interval(s.low, s.high, 1, 100, " %"),
            ]
            for s in r.subjects
        ]
        rows.append(
            [
                QCoreApplication.translate("QualityResults", "All"),
                fmt.integer(r.n),
                fmt.number(r.accuracy * 100, 1) + " %",
                interval(r.accuracy_ci[0], r.accuracy_ci[1], 1, 100, " %"),
            ]
        )
        self._fill(
            [
                QCoreApplication.translate("QualityResults", "Subject"),
                QCoreApplication.translate("QualityResults", "Questions"),
                QCoreApplication.translate("QualityResults", "Accuracy"),
                QCoreApplication.translate("QualityResults", "95% interval"),
            ],
            rows,
        )


def loss_summary(r: LossResult) -> str:
    """One paragraph under the table: where the KLD sits on llama.cpp's scale, and whether the
    run was cut short."""
    place = place_on_scale(r.kld)
    if place.below is None and place.above is not None:
        where = (
            QCoreApplication.translate("QualityResults", "below %1 (%2)")
            .replace("%1", place.above[0])
            .replace("%2", fmt.number(place.above[1], 4))
        )
    elif place.above is None and place.below is not None:
        where = (
            QCoreApplication.translate("QualityResults", "above %1 (%2)")
            .replace("%1", place.below[0])
            .replace("%2", fmt.number(place.below[1], 4))
        )
    else:
        assert place.below is not None
        assert place.above is not None
        where = (
            QCoreApplication.translate("QualityResults", "between %1 (%2) and %3 (%4)")
            .replace("%1", place.below[0])
            .replace("%2", fmt.number(place.below[1], 4))
            .replace("%3", place.above[0])
            .replace("%4", fmt.number(place.above[1], 4))
        )
    text = QCoreApplication.translate(
        "QualityResults",
        "On llama.cpp's published scale (Llama 3 8B against F16) this KL divergence lies %1. "
        "How much a quant loses depends on the model: read it as an order of magnitude.",
    ).replace("%1", where)
    return text + _stopped(
        r.stopped,
        r.chunks,
        r.chunks_planned,
        QCoreApplication.translate("QualityResults", "chunks"),
    )


def choice_summary(r: ChoiceResult) -> str:
    text = (
        QCoreApplication.translate(
            "QualityResults", "Accuracy %1 % (95% interval %2); random answers would score %3 %."
        )
        .replace("%1", fmt.number(r.accuracy * 100, 1))
        .replace("%2", interval(r.accuracy_ci[0], r.accuracy_ci[1], 1, 100, " %"))
        .replace("%3", fmt.number(r.chance * 100, 0))
    )
    if r.skipped:
        text += " " + QCoreApplication.translate(
            "QualityResults", "%1 questions were longer than the context and skipped."
        ).replace("%1", fmt.integer(r.skipped))
    return text + _stopped(
        r.stopped, r.n, r.planned, QCoreApplication.translate("QualityResults", "questions")
    )


def _stopped(stopped: str | None, done: int, planned: int, unit: str) -> str:
    if stopped is None:
        return ""
    reason = (
        QCoreApplication.translate("QualityResults", "the time budget ran out")
        if stopped == "budget"
        else QCoreApplication.translate("QualityResults", "it was stopped")
    )
    return " " + (
        QCoreApplication.translate("QualityResults", "Measured on %1 of %2 %3 (%4).")
        .replace("%1", fmt.integer(done))
        .replace("%2", fmt.integer(planned))
        .replace("%3", unit)
        .replace("%4", reason)
    )


def make_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
