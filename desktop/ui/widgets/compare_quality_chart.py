"""Compare's quality chart: measured quality against measured generation tokens/s, one marker
per model, the Pareto front drawn.

The points are the core's (:meth:`~desktop.core.compare.ComparisonResult.quality_chart`): x the
median generation speed (log scale, as the Recommended view's chart), y the accuracy on the
questions or, for a loss against a reference, the rate at which the model's top token is the
reference's (both in percent; the axis says which). The front, the models nothing else beats on
both, is filled and joined by a line; the others hollow. Up and right is better.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.core.compare import QualityPoint
from desktop.ui.widgets.refcount_guard import guard_refcounts
from desktop.ui.widgets.speed_front import (
    FRONT_COLOR,
    FrontPoint,
    front_line,
    front_spots,
    speed_plot,
)


class QualitySpeedChart(QWidget):
    """Measured quality against measured tokens/s (see the module docstring). ``points``:
    what is drawn."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        guard_refcounts()
        self.setObjectName("compareQualityChart")
        self.setAccessibleName(self.tr("Measured quality against generation speed"))
        self.points: list[QualityPoint] = []
        self.labels: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.plot = speed_plot(
            self,
            "compareQualityChartPlot",
            self.tr("generation tokens/s (log scale)"),
            self.tr("quality (%)"),
        )
        item = self.plot.getPlotItem()
        self.line = pg.PlotDataItem(pen=pg.mkPen(FRONT_COLOR, width=2))
        item.addItem(self.line)
        self.scatter = pg.ScatterPlotItem(pxMode=True, hoverable=False)
        item.addItem(self.scatter)
        self._texts: list[pg.TextItem] = []
        layout.addWidget(self.plot, 1)
        self.caption = QLabel()
        self.caption.setObjectName("compareQualityChartCaption")
        self.caption.setWordWrap(True)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.caption)
        self.set_points([], [])

    def y_title(self, metric: str) -> str:
        if metric == "accuracy":
            return self.tr("accuracy (%)")
        if metric == "same_top_token":
            return self.tr("same top token as the reference (%)")
        return self.tr("quality (%)")

    def set_points(self, points: Sequence[QualityPoint], labels: Sequence[str]) -> None:
        """Draw ``points``, each named by the label at the same position."""
        self.points = list(points)
        self.labels = list(labels)
        item = self.plot.getPlotItem()
        for text in self._texts:
            item.removeItem(text)
        self._texts = []
        marks = [
            FrontPoint(p.contestant, p.tokens_per_s, p.quality * 100, p.pareto) for p in points
        ]
        self.scatter.setData(front_spots(marks))
        self.line.setData(*front_line(marks))
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        xs = [m.x for m in marks]
        # The points sit in the middle third, so that a name fits beside each: to the right of
        # a point in the left half, to the left of one in the right half.
        span = max(max(xs) - min(xs), 0.2) if xs else 0.2
        middle = (min(xs) + max(xs)) / 2 if xs else 0.0
        for mark, label in zip(marks, labels, strict=True):
            anchor = (1.0, 1.2) if mark.x > middle else (0.0, 1.2)
            text = pg.TextItem(label, color=text_color, anchor=anchor)
            text.setPos(mark.x, mark.quality)
            item.addItem(text)
            self._texts.append(text)
        metrics = {p.metric for p in points}
        item.setLabel(
            "left",
            self.y_title(metrics.pop() if len(metrics) == 1 else ""),
            color=text_color.name(),
        )
        if marks:
            ys = [m.quality for m in marks]
            item.setXRange(middle - span * 1.5, middle + span * 1.5, padding=0)
            item.setYRange(max(0.0, min(ys) - 15.0), min(110.0, max(ys) + 15.0), padding=0)
            self.caption.setText(
                self.tr("Up and right is better. The line joins the Pareto front.")
            )
            self.caption.setToolTip(
                self.tr(
                    "Up and right is better. The line joins the Pareto front: no other model "
                    "is both better and faster here."
                )
            )
        else:
            self.caption.setText(
                self.tr("A quality check in the setup puts each model's quality against its speed.")
            )
            self.caption.setToolTip("")
