"""Under the columns: the summary table with the votes' Bradley-Terry ratings and the quality
check's results, the charts (speed against memory; measured quality against speed with its
Pareto front, when there is a quality check), and Export.

The table and the chart are set from the core's summary rows and chart points of the
comparison as it stands (:meth:`CompareResults.show_summary`), when an answer finishes or a vote is
cast, never per token. Export writes the core's reports (Markdown, CSV, JSON) and a PNG of the
chart.

Signals:
    export_requested(str): ``md``, ``csv``, ``json`` or ``png``.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.compare import (
    ChartPoint,
    QualityCheck,
    QualityOutcome,
    QualityPoint,
    SummaryRow,
    VoteRatings,
)
from desktop.ui.models.compare_summary import SummaryModel
from desktop.ui.theme import icon
from desktop.ui.widgets.compare_chart import CompareChart
from desktop.ui.widgets.compare_quality import QualityTable
from desktop.ui.widgets.compare_quality_chart import QualitySpeedChart
from desktop.ui.widgets.vote_ratings import VoteRatingsView

EXPORTS = ("md", "csv", "json", "png")


class CompareResults(QWidget):
    """Summary table, chart and export buttons (see the module docstring)."""

    export_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareResults")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        row = QHBoxLayout()
        title = QLabel(self.tr("Summary"))
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        row.addWidget(title)
        self.caption = QLabel()
        self.caption.setObjectName("summaryCaption")
        row.addWidget(self.caption, 1)
        row.addWidget(QLabel(self.tr("Export")))
        self.export_buttons: dict[str, QPushButton] = {}
        texts = {
            "md": self.tr("Markdown"),
            "csv": self.tr("CSV"),
            "json": self.tr("JSON"),
            "png": self.tr("Chart PNG"),
        }
        tips = {
            "md": self.tr("Tables and answers to paste into an issue or a forum post"),
            "csv": self.tr("One row per model and prompt, for a spreadsheet"),
            "json": self.tr("Everything, with the summary and the chart's points"),
            "png": self.tr("The chart as an image"),
        }
        for key in EXPORTS:
            button = QPushButton(icon("save"), texts[key])
            button.setObjectName(f"export_{key}")
            button.setToolTip(tips[key])
            button.setAccessibleName(self.tr("Export %1").replace("%1", texts[key]))
            button.clicked.connect(lambda _checked=False, k=key: self.export_requested.emit(k))
            row.addWidget(button)
            self.export_buttons[key] = button
        outer.addLayout(row)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("resultsSplitter")
        self.model = SummaryModel(self)
        self.table = QTableView()
        self.table.setObjectName("summaryTable")
        self.table.setAccessibleName(self.tr("Summary of the comparison"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The model column takes the room the figures leave; a name longer than that is elided
        # in the middle (its tooltip has it whole), so that the figures stay in sight.
        header.setSectionResizeMode(SummaryModel.COL_MODEL, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(self.table.fontMetrics().horizontalAdvance("M" * 3))
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.chart = CompareChart()
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.table, 1)
        self.ratings = VoteRatingsView()
        column.addWidget(self.ratings)
        self.quality = QualityTable()
        column.addWidget(self.quality)
        self.splitter.addWidget(left)
        # The speed/memory chart, and measured quality against speed when there is a check.
        self.quality_chart = QualitySpeedChart()
        self.charts = QTabWidget()
        self.charts.setObjectName("compareCharts")
        self.charts.setDocumentMode(True)
        self.charts.addTab(self.chart, self.tr("Speed and memory"))
        self.charts.addTab(self.quality_chart, self.tr("Quality and speed"))
        self.charts.setTabEnabled(1, False)
        self.splitter.addWidget(self.charts)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        # The table first: its figures are the comparison's; the chart reads at under a third.
        self.splitter.setSizes([700, 320])
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter, 1)
        self.set_exportable(False)

    def show_summary(
        self,
        rows: Sequence[SummaryRow],
        points: Sequence[ChartPoint],
        *,
        hide_names: bool,
        caption: str,
        ratings: VoteRatings | None = None,
        quality_check: QualityCheck | None = None,
        quality: Sequence[QualityOutcome] = (),
        quality_points: Sequence[QualityPoint] = (),
    ) -> None:
        self.model.set_rows(rows, hide_names=hide_names)
        # Blind and not revealed: the figures that tell the models apart (context, speeds,
        # memory) and the chart of them wait for Reveal; the checks and votes stay.
        empty = self.model.empty_columns()
        for column in range(self.model.columnCount()):
            hidden = column in empty or (hide_names and column in SummaryModel.REVEALING)
            self.table.setColumnHidden(column, hidden)
        if hide_names:
            points = ()
        names = {row.contestant: self.model.name(row) for row in rows}
        self.ratings.show_ratings(ratings, names)
        self.quality.show_quality(
            quality_check, quality, [names.get(i, "") for i in range(len(names))]
        )
        drawn = {p.contestant for p in points}
        # Measured, but a server that keeps its memory to itself cannot be placed on the chart.
        left_out = [
            names[row.contestant]
            for row in rows
            if row.contestant not in drawn and row.generation_tokens_per_s is not None
        ]
        self.chart.set_points(points, [names.get(p.contestant, p.name) for p in points], left_out)
        self.show_quality_chart(() if hide_names else quality_points, names)
        self.caption.setText(caption)

    def show_quality_chart(self, points: Sequence[QualityPoint], names: dict[int, str]) -> None:
        """Measured quality against speed; its tab is chosen the first time it has points."""
        had = bool(self.quality_chart.points)
        self.quality_chart.set_points(points, [names.get(p.contestant, p.name) for p in points])
        self.charts.setTabEnabled(1, bool(points))
        if points and not had:
            self.charts.setCurrentIndex(1)
        elif not points:
            self.charts.setCurrentIndex(0)

    def clear(self) -> None:
        self.model.set_rows([])
        self.chart.set_points([], [])
        self.show_quality_chart((), {})
        self.ratings.show_ratings(None, {})
        self.quality.show_quality(None, (), ())
        self.caption.setText("")
        self.set_exportable(False)

    def set_exportable(self, exportable: bool) -> None:
        for key, button in self.export_buttons.items():
            button.setEnabled(exportable and (key != "png" or bool(self.chart.points)))
