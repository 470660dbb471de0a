"""LiveCurve: a growing curve drawn as a cached history and a small live tail.

Real pyqtgraph items in a real plot widget (offscreen): the points drawn are exactly the data,
the history is given new data about once per ``tail_s`` of data (not per tick), and a tick's
repaint covers the tail, not the plot.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRect
from pytestqt.qtbot import QtBot

from desktop.ui.widgets.live_curve import LiveCurve


class _PaintRegions(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.rects: list[QRect] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.rects.append(event.region().boundingRect())  # type: ignore[attr-defined]
        return False


def _plot(qtbot: QtBot) -> tuple[pg.PlotWidget, LiveCurve]:
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(600, 200)
    plot = widget.getPlotItem()
    plot.setXRange(0, 60, padding=0)
    plot.setYRange(0, 100, padding=0)
    curve = LiveCurve(plot, tail_s=1.0, pen=pg.mkPen("#2f6fd0", width=2))
    widget.show()
    qtbot.waitExposed(widget)
    return widget, curve


def test_the_points_drawn_are_the_data_with_breaks_kept(qtbot: QtBot) -> None:
    _widget, curve = _plot(qtbot)
    x = np.arange(0, 10, 1 / 25)
    y = 50 + 10 * np.sin(x)
    y[100] = math.nan  # a break between two answers
    shown = 0
    for shown in range(2, len(x) + 1, 3):
        curve.set_data(x[:shown], y[:shown])
    drawn_x, drawn_y = curve.points()
    assert np.array_equal(drawn_x, x[:shown])
    assert np.allclose(drawn_y, y[:shown], equal_nan=True)
    # The history is settled points only; the tail holds at most 2 s of the newest.
    assert curve.tail.x[-1] == drawn_x[-1]
    assert curve.tail.x[-1] - curve.tail.x[0] <= 2 * curve.tail_s + 1e-9
    assert len(curve.history.x) > 0


def test_the_history_is_redrawn_about_once_per_tail_not_per_tick(qtbot: QtBot) -> None:
    _widget, curve = _plot(qtbot)
    x = np.arange(0, 20, 1 / 25)  # 20 s at 25 points a second, one call per point
    y = np.full(len(x), 40.0)
    for n in range(1, len(x) + 1):
        curve.set_data(x[:n], y[:n])
    assert len(x) == 500
    assert 8 <= curve.history_updates <= 21  # about one per tail_s of data (20 s), not 500


def test_a_tick_repaints_the_tail_not_the_plot(qtbot: QtBot) -> None:
    widget, curve = _plot(qtbot)
    x = np.arange(0, 30, 1 / 25)
    y = 50 + 20 * np.sin(x / 3)
    curve.set_data(x[:600], y[:600])
    qtbot.wait(50)
    regions = _PaintRegions()
    widget.viewport().installEventFilter(regions)
    for n in range(601, 640):
        curve.set_data(x[:n], y[:n])
        qtbot.wait(5)  # the view repaints what the items marked dirty
    qtbot.wait(50)
    widget.viewport().removeEventFilter(regions)
    assert regions.rects
    narrow = [r for r in regions.rects if r.width() < widget.viewport().width() / 4]
    # Every repaint but the history's occasional one covers a strip at the newest points.
    assert len(narrow) >= len(regions.rects) - 2
