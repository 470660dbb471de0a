"""The Recommended view's chart: quality against predicted tokens/s, the Pareto front drawn.

Each point is a ranked variant with a published score (from the core's
:class:`~desktop.core.recommend.Recommendation`): x its predicted generation speed (log scale,
the same figure as the table), y its ranking score (0-100). The front, the variants nothing else
beats on both, is drawn filled and joined by a line; the others hollow. Hovering a point names
it; clicking it asks for that variant. Up and right is better. Set once per ranking.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.core.recommend import Pick
from desktop.ui import format as fmt
from desktop.ui.widgets.refcount_guard import guard_refcounts
from desktop.ui.widgets.speed_front import (
    FRONT_COLOR,
    FrontPoint,
    front_line,
    front_spots,
    speed_plot,
)

HOVER_PIXELS = 14  # how near the pointer must be to name a point


class ParetoChart(QWidget):
    """Quality against predicted tokens/s (see the module docstring).

    Signals:
        variant_clicked(str): a point was clicked (its variant id).
    """

    variant_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        guard_refcounts()
        self.setObjectName("paretoChart")
        self.setAccessibleName(self.tr("Quality against predicted speed"))
        self.picks: list[Pick] = []
        self.hovered: str = ""  # the variant id named under the pointer ("" for none)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.plot = speed_plot(
            self,
            "paretoChartPlot",
            self.tr("predicted tokens/s (log scale)"),
            self.tr("quality (0-100)"),
        )
        self.plot.setMinimumHeight(160)
        item = self.plot.getPlotItem()
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        self.front_line = pg.PlotDataItem(pen=pg.mkPen(FRONT_COLOR, width=2))
        item.addItem(self.front_line)
        self.scatter = pg.ScatterPlotItem(pxMode=True, hoverable=False)
        item.addItem(self.scatter)
        self.label = pg.TextItem("", color=text_color, anchor=(0.5, 1.3), fill=self._fill())
        self.label.setZValue(10)
        self.label.hide()
        item.addItem(self.label)
        layout.addWidget(self.plot, 1)
        self.caption = QLabel()
        self.caption.setObjectName("paretoChartCaption")
        self.caption.setWordWrap(True)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.caption)
        self.plot.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        self.set_picks([])

    def _fill(self) -> pg.QtGui.QBrush:
        color = self.palette().color(QPalette.ColorRole.Base)
        color.setAlpha(220)
        return pg.mkBrush(color)

    def set_picks(self, picks: Sequence[Pick]) -> None:
        """Draw the ranked picks that have a quality and a predicted speed."""
        self.picks = [p for p in picks if p.quality is not None and (p.tokens_per_s or 0.0) > 0.0]
        points = [
            FrontPoint(p.variant_id, p.tokens_per_s or 1.0, p.quality or 0.0, p.pareto)
            for p in self.picks
        ]
        self.scatter.setData(front_spots(points))
        self.front_line.setData(*front_line(points))
        self._hover("")
        item = self.plot.getPlotItem()
        if self.picks:
            xs = [math.log10(p.tokens_per_s or 1.0) for p in self.picks]
            ys = [p.quality or 0.0 for p in self.picks]
            item.setXRange(min(xs) - 0.15, max(xs) + 0.15, padding=0)
            item.setYRange(max(0.0, min(ys) - 8.0), min(105.0, max(ys) + 12.0), padding=0)
            self.caption.setText(
                self.tr(
                    "%1 variants; the line joins the Pareto front: no other variant is both "
                    "better and faster. Up and right is better. Point at a dot to name it."
                ).replace("%1", fmt.integer(len(self.picks)))
            )
        else:
            self.caption.setText(self.tr("No variant with a published score fits here."))

    # -- hover and click ------------------------------------------------------------------------

    def pick_at(self, scene_pos: QPointF) -> Pick | None:
        """The point nearest ``scene_pos`` within a few pixels, or None."""
        vb = self.plot.getPlotItem().getViewBox()
        best: tuple[float, Pick] | None = None
        for pick in self.picks:
            view = QPointF(math.log10(pick.tokens_per_s or 1.0), pick.quality or 0.0)
            where = vb.mapViewToScene(view)
            distance = math.hypot(where.x() - scene_pos.x(), where.y() - scene_pos.y())
            if distance <= HOVER_PIXELS and (best is None or distance < best[0]):
                best = (distance, pick)
        return None if best is None else best[1]

    def point_position(self, variant_id: str) -> QPointF | None:
        """Where ``variant_id``'s point is, in the plot widget's viewport coordinates."""
        vb = self.plot.getPlotItem().getViewBox()
        for pick in self.picks:
            if pick.variant_id == variant_id:
                scene = vb.mapViewToScene(
                    QPointF(math.log10(pick.tokens_per_s or 1.0), pick.quality or 0.0)
                )
                return QPointF(self.plot.mapFromScene(scene))
        return None

    def _on_scene_mouse_moved(self, scene_pos: QPointF) -> None:
        pick = self.pick_at(scene_pos)
        self._hover(pick.variant_id if pick is not None else "")

    def _on_scene_mouse_clicked(self, event: object) -> None:
        pos = getattr(event, "scenePos", None)
        pick = self.pick_at(pos()) if callable(pos) else None
        if pick is not None:
            self.variant_clicked.emit(pick.variant_id)

    def _hover(self, variant_id: str) -> None:
        self.hovered = variant_id
        pick = next((p for p in self.picks if p.variant_id == variant_id), None)
        if pick is None:
            self.label.hide()
            self.plot.setToolTip("")
            return
        text = self.tr("%1 · quality %2 · %3").replace("%1", pick.variant_id)
        text = text.replace("%2", fmt.number(pick.quality, 1)).replace(
            "%3", fmt.rate(pick.tokens_per_s, predicted=True)
        )
        self.label.setText(text)
        x = math.log10(pick.tokens_per_s or 1.0)
        (left, right), _ = self.plot.getPlotItem().getViewBox().viewRange()
        # The name stays inside the plot: right of a point in the left half, left of one in
        # the right half.
        self.label.setAnchor((0.0, 1.2) if x < (left + right) / 2 else (1.0, 1.2))
        self.label.setPos(x, pick.quality or 0.0)
        self.label.show()
        self.plot.setToolTip(text)
