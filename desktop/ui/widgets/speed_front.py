"""What the two quality-against-speed charts share: the log-scale tokens/s axis, the axes'
colours, and the markers of a Pareto front (filled and joined by a line) and of the points off
it (hollow).

The Recommended view's chart (:mod:`~desktop.ui.widgets.pareto_chart`: published quality
against predicted speed) and Compare's quality chart
(:mod:`~desktop.ui.widgets.compare_quality_chart`: measured quality against measured speed) draw
with these; which points are on the front is the core's (``desktop.core.recommend.pareto_keys``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QGraphicsItem, QWidget

from desktop.ui import format as fmt

FRONT_COLOR = "#2f6fd0"
OTHER_COLOR = "#8a8f96"
STEPS = (1.0, 2.0, 5.0)  # tick marks at 1, 2, 5, 10, 20, 50 ... tokens/s


class SpeedAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph is untyped
    """The x axis: points sit at log10(tokens/s); ticks read in tokens/s (1, 2, 5, 10, ...)."""

    def tickValues(
        self, minVal: float, maxVal: float, size: float
    ) -> list[tuple[float, list[float]]]:
        ticks = []
        for exponent in range(math.floor(minVal) - 1, math.ceil(maxVal) + 1):
            for step in STEPS:
                value = math.log10(step) + exponent
                if minVal <= value <= maxVal:
                    ticks.append(value)
        return [(1.0, ticks)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = []
        for value in values:
            speed = 10.0**value
            out.append(fmt.number(speed, 1 if speed < 1 else 0))
        return out


def speed_plot(widget: QWidget, name: str, x_label: str, y_label: str) -> pg.PlotWidget:
    """A still plot with the tokens/s axis at the bottom, its axes in the widget's colours."""
    plot = pg.PlotWidget(background=None, axisItems={"bottom": SpeedAxis(orientation="bottom")})
    plot.setObjectName(name)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMinimumHeight(150)
    plot.setMouseEnabled(x=False, y=False)
    item = plot.getPlotItem()
    text_color = widget.palette().color(QPalette.ColorRole.WindowText)
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        axis.enableAutoSIPrefix(False)  # tokens/s read as they are, never "(x0.001)"
        axis.setTextPen(text_color)
        axis.setPen(widget.palette().color(QPalette.ColorRole.Mid))
        # The grid lines are the axis' own: blitted from a pixmap, not replayed per redraw.
        axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    item.setLabel("bottom", x_label, color=text_color.name())
    item.setLabel("left", y_label, color=text_color.name())
    item.showGrid(x=True, y=True, alpha=0.15)
    return plot


@dataclass(frozen=True)
class FrontPoint:
    """One marker: its key (handed back by hover and click), speed (tokens/s), quality, and
    whether it is on the front."""

    key: Hashable
    tokens_per_s: float
    quality: float
    pareto: bool

    @property
    def x(self) -> float:
        return math.log10(self.tokens_per_s or 1.0)


def front_spots(points: Sequence[FrontPoint]) -> list[dict[str, Any]]:
    """The scatter's spots: the front filled and larger, the others hollow."""
    spots = []
    for point in points:
        color = FRONT_COLOR if point.pareto else OTHER_COLOR
        spots.append(
            {
                "pos": (point.x, point.quality),
                "size": 11 if point.pareto else 8,
                "brush": pg.mkBrush(color if point.pareto else color + "40"),
                "pen": pg.mkPen(color, width=1.5),
                "data": point.key,
            }
        )
    return spots


def front_line(points: Sequence[FrontPoint]) -> tuple[list[float], list[float]]:
    """The line joining the front, slowest first."""
    front = sorted((p for p in points if p.pareto), key=lambda p: p.tokens_per_s)
    return [p.x for p in front], [p.quality for p in front]
