"""A curve of a live plot that grows at one end, redrawn only where it grows, by Qt in one call.

At ~30 Hz with a minute of points in view, ``PlotCurveItem`` cost the Playground more CPU than
the rest of the window together (on a two-core machine, CPU that llama.cpp's threads then wait
for): given new data it repaints its whole length and everything under it, and each paint runs
~0.3 ms of Python (finite checks, bounds, path building) however few points changed.
:class:`LiveCurve` draws the same picture as two :class:`Trace` items with the same pen and
brush:

- the *history*, every point up to a settled one, cached as a pixmap
  (``DeviceCoordinateCache``) and given new data only when the settled point moves on (every
  ``tail_s`` seconds of data) or the view cuts its start;
- the *tail*, from the settled point to the newest, the only item redrawn per tick; it shares
  the settled point with the history, so the line (and the area under it) has no gap.

A :class:`Trace` keeps its points as ``QPolygonF`` (built from numpy in one call) and paints them
with one ``drawPolyline`` (and one ``drawPolygon`` for an area) per unbroken run: no Python per
point, and its bounds are computed once per change of data or view, not per paint.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem


def _runs(x: np.ndarray, y: np.ndarray, finite: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The unbroken runs of ``(x, y)``: NaN in y (``finite`` False) breaks the line
    (``connect="finite"``)."""
    if finite.all():
        return [(x, y)] if len(x) else []
    edges = np.flatnonzero(np.diff(np.concatenate(([0], finite.view(np.int8), [0]))))
    return [(x[a:b], y[a:b]) for a, b in zip(edges[::2], edges[1::2], strict=True)]


class Trace(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """Points in data coordinates drawn as a line with ``pen`` and, with a ``brush``, the area
    between the line and ``fill_level`` (y)."""

    def __init__(self, pen: QPen, brush: QBrush | None = None, fill_level: float = 0.0) -> None:
        super().__init__()
        self._pen = QPen(pen)
        self._brush = brush
        self._fill_level = fill_level
        self._lines: list[QPolygonF] = []
        self._areas: list[QPolygonF] = []
        self._data_rect: QRectF | None = None  # the points' extent (and the fill level's)
        self._bounds: QRectF | None = None  # the extent plus the pen, in data units
        self.x = np.empty(0)
        self.y = np.empty(0)

    def set_points(self, x: np.ndarray, y: np.ndarray) -> None:
        self.prepareGeometryChange()
        self.x, self.y = x, y
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        finite = np.isfinite(y)
        self._lines, self._areas = [], []
        for rx, ry in _runs(x, y, finite):
            self._lines.append(pg.functions.arrayToQPolygonF(rx, ry))
            if self._brush is not None:
                area = pg.functions.arrayToQPolygonF(rx, ry)
                area.append(QPointF(float(rx[-1]), self._fill_level))
                area.append(QPointF(float(rx[0]), self._fill_level))
                self._areas.append(area)
        self._data_rect = None
        if finite.any():
            xs, ys = x[finite], y[finite]
            bottom, top = float(ys.min()), float(ys.max())
            if self._brush is not None:
                bottom, top = min(bottom, self._fill_level), max(top, self._fill_level)
            left, right = float(xs[0]), float(xs[-1])
            self._data_rect = QRectF(left, bottom, right - left, top - bottom)
        self._bounds = None
        self.update()

    def viewTransformChanged(self) -> None:
        super().viewTransformChanged()
        self.prepareGeometryChange()
        self._bounds = None  # the pen's width in data units changed

    def boundingRect(self) -> QRectF:
        if self._data_rect is None:
            return QRectF()
        if self._bounds is None:
            box = self.getViewBox()
            pad_x = pad_y = 0.0
            if box is not None:
                pixel_w, pixel_h = box.viewPixelSize()
                pad = self._pen.widthF() + 1.0
                pad_x, pad_y = pad * pixel_w, pad * pixel_h
            self._bounds = self._data_rect.adjusted(-pad_x, -pad_y, pad_x, pad_y)
        return self._bounds

    def paint(self, painter: QPainter, *args: object) -> None:
        if self._areas and self._brush is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._brush)
            for area in self._areas:
                painter.drawPolygon(area)
        painter.setPen(self._pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for line in self._lines:
            painter.drawPolyline(line)


class LiveCurve:
    """One growing curve on ``plot``, drawn with ``pen`` (and ``brush`` down to 0). Times (x)
    only grow between :meth:`reset` calls."""

    def __init__(
        self, plot: pg.PlotItem, *, tail_s: float, pen: QPen, brush: QBrush | None = None
    ) -> None:
        self.tail_s = tail_s
        self.history = Trace(pen, brush)
        self.history.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.tail = Trace(pen, brush)
        for item in (self.history, self.tail):
            plot.addItem(item, ignoreBounds=True)  # the plots set their ranges themselves
        self._settled: float | None = None  # x of the history's last point
        self._history_key: tuple[int, float, float] | None = None
        self.history_updates = 0  # how often the history was given new data (for tests)

    def setObjectName(self, name: str) -> None:
        self.history.setObjectName(name + "History")
        self.tail.setObjectName(name + "Tail")

    def reset(self) -> None:
        """Every point may have changed (a new scale, a cleared plot): the next
        :meth:`set_data` draws the history again."""
        self._settled = None
        self._history_key = None

    def set_data(self, x: np.ndarray, y: np.ndarray) -> None:
        """Show the points ``(x, y)`` (x ascending; NaN in y breaks the line)."""
        n = len(x)
        if n == 0:
            self.history.set_points(x, y)
            self.tail.set_points(x, y)
            self._settled, self._history_key = None, None
            return
        newest = float(x[-1])
        if (
            self._settled is None
            or self._settled < x[0]
            or newest - self._settled > 2 * self.tail_s
        ):
            # Settle every point older than tail_s: the tail stays between tail_s and 2 tail_s.
            index = int(np.searchsorted(x, newest - self.tail_s, side="right"))
            self._settled = float(x[index - 1]) if index > 0 else None
        split = 0 if self._settled is None else int(np.searchsorted(x, self._settled, "right"))
        key = (split, float(x[0]), self._settled if self._settled is not None else -np.inf)
        if key != self._history_key:
            self._history_key = key
            self.history.set_points(x[:split], y[:split])
            self.history_updates += 1
        start = max(split - 1, 0)
        self.tail.set_points(x[start:], y[start:])

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """The points drawn, history then tail, the shared point once (for tests)."""
        hx, hy = self.history.x, self.history.y
        tx, ty = self.tail.x, self.tail.y
        if len(hx) and len(tx):
            tx, ty = tx[1:], ty[1:]
        return np.concatenate([hx, tx]), np.concatenate([hy, ty])
