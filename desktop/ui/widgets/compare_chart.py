"""The comparison's chart: generation tokens/s against peak memory, one marker per model.

The points are the core's (:meth:`~desktop.core.compare.ComparisonResult.chart`): x is the peak
resident memory plus VRAM, y the median generation speed, the marker's size the score (checks
passed, else the win rate; a small hollow marker when neither is known). Up and to the left is
better: fast and small. Set once when the summary changes, never per token. A model whose
memory is unknown (a server that does not expose it) cannot be placed: it is left out and the
caption names it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGraphicsItem, QLabel, QVBoxLayout, QWidget

from desktop.core.compare import ChartPoint
from desktop.ui.widgets.refcount_guard import guard_refcounts

MIB = 1024 * 1024
POINT_COLORS = ("#2f6fd0", "#2e9d57", "#c98a12", "#7a4fd0", "#168a8a", "#c0392b")
MIN_SIZE = 10.0
MAX_SIZE = 34.0


def marker_size(score: float | None) -> float:
    """The marker's diameter in pixels for a score in 0..1 (None: the smallest)."""
    if score is None:
        return MIN_SIZE
    return MIN_SIZE + (MAX_SIZE - MIN_SIZE) * max(0.0, min(1.0, score))


class CompareChart(QWidget):
    """Tokens/s against peak memory (see the module docstring). ``points``: what is drawn."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        guard_refcounts()
        self.setObjectName("compareChart")
        self.setAccessibleName(self.tr("Generation speed against peak memory"))
        self.points: list[ChartPoint] = []
        self.labels: list[str] = []
        self.left_out: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.plot = pg.PlotWidget(background=None)
        self.plot.setObjectName("compareChartPlot")
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(150)
        item = self.plot.getPlotItem()
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.setTextPen(text_color)
            axis.setPen(self.palette().color(QPalette.ColorRole.Mid))
            # The grid lines are the axis' own: blitted from a pixmap, not replayed per redraw.
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        item.setLabel("bottom", self.tr("peak memory (MiB, RAM + VRAM)"), color=text_color.name())
        item.setLabel("left", self.tr("generation tokens/s"), color=text_color.name())
        item.showGrid(x=True, y=True, alpha=0.15)
        self.scatter = pg.ScatterPlotItem(pxMode=True)
        item.addItem(self.scatter)
        self._texts: list[pg.TextItem] = []
        layout.addWidget(self.plot, 1)
        self.caption = QLabel()
        self.caption.setObjectName("compareChartCaption")
        self.caption.setWordWrap(True)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.caption)
        self.set_points([], [])

    def set_points(
        self, points: Sequence[ChartPoint], labels: Sequence[str], left_out: Sequence[str] = ()
    ) -> None:
        """Draw ``points``, each named by the label at the same position; ``left_out``: the
        names of measured models without a known memory (not drawn, named in the caption)."""
        self.points = list(points)
        self.labels = list(labels)
        self.left_out = list(left_out)
        item = self.plot.getPlotItem()
        for text in self._texts:
            item.removeItem(text)
        self._texts = []
        spots = []
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        xs = [p.memory_bytes / MIB for p in points]
        middle = (min(xs) + max(xs)) / 2 if xs else 0.0
        for point, label in zip(points, labels, strict=True):
            color = POINT_COLORS[point.contestant % len(POINT_COLORS)]
            x, y = point.memory_bytes / MIB, point.tokens_per_s
            hollow = point.score is None
            spots.append(
                {
                    "pos": (x, y),
                    "size": marker_size(point.score),
                    "brush": pg.mkBrush(color + ("30" if hollow else "b0")),
                    "pen": pg.mkPen(color, width=2),
                    "data": point.contestant,
                }
            )
            # Names of points right of the middle go to their left: they stay in the plot.
            anchor = (1.0, 1.2) if len(points) > 1 and x > middle else (0.0, 1.2)
            text = pg.TextItem(label, color=text_color, anchor=anchor)
            text.setPos(x, y)
            item.addItem(text)
            self._texts.append(text)
        self.scatter.setData(spots)
        if points:
            ys = [p.tokens_per_s for p in points]
            pad_x = max(max(xs) - min(xs), max(xs) * 0.2, 1.0) * 0.35
            pad_y = max(max(ys) - min(ys), max(ys) * 0.2, 1.0) * 0.35
            item.setXRange(max(0.0, min(xs) - pad_x), max(xs) + pad_x * 1.6, padding=0)
            item.setYRange(max(0.0, min(ys) - pad_y), max(ys) + pad_y * 1.4, padding=0)
            # One line under the plot (it shares the results' height with the table); how
            # the markers are sized is said on hovering.
            caption = self.tr("Up and left is better: faster and smaller.")
            legend = self.tr(
                "Up and left is better: faster and smaller. Marker size: checks passed, "
                "else the win rate (hollow: neither known)."
            )
        else:
            caption = self.tr("The chart fills in as answers are measured.")
            legend = ""
        self.caption.setToolTip(legend)
        self.plot.setToolTip(legend)
        if self.left_out:
            caption += " " + self.tr("Not drawn, memory unknown: %1.").replace(
                "%1", ", ".join(self.left_out)
            )
        self.caption.setText(caption)
