"""Live plots of a running model: generation tokens/s, process memory and GPU utilisation.

Three pyqtgraph plots, each in its own view, stacked over one shared (linked) time axis
(seconds since the page began measuring). The page's timer hands new points to
:class:`LivePlots` (``add_speed``, ``add_memory``), which keeps them in numpy ring buffers
(:class:`RingBuffer`); :meth:`LivePlots.refresh` then draws once per tick, giving each curve
that changed its points once, never per token. A curve redraws only its newest second or two
(:class:`~desktop.ui.widgets.live_curve.LiveCurve`): on a machine whose CPUs all run the decode,
every millisecond the window draws is one llama.cpp waits for.

Measured values are solid; predicted ones dashed horizontal lines (UI.md: predictions are
marked). The phases of a run — load, prompt processing, generation — are shaded bands on every
plot. GPU utilisation and VRAM are drawn only from readings that carry them (NVML): without
them the GPU plot says "no GPU" instead of drawing zeros nobody measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QGraphicsItem, QLabel, QSizePolicy, QVBoxLayout, QWidget

from desktop.core.engine import ProcessMemory
from desktop.ui.widgets.live_curve import LiveCurve
from desktop.ui.widgets.refcount_guard import guard_refcounts

MIB = 1024 * 1024
GIB = 1024 * MIB
WINDOW_S = 60.0  # the time axis shows a minute
STEP_S = 5.0  # and moves on in steps: a moving axis would repaint all three plots every tick
BAND_INTERVAL_S = 0.5  # the open phase's band grows at 2 Hz (it spans all three plots)
SPEED_CAPACITY = 30 * 60 * 30  # half an hour of points at 30 Hz
MEMORY_CAPACITY = 10 * 60 * 30  # half an hour of readings at up to 10 Hz
MAX_PHASES = 60  # bands kept on the plots (older ones are scrolled far out of view anyway)
TAIL_S = 1.0  # a curve's newest second is redrawn per tick, the rest blitted (LiveCurve)

SPEED_COLOR = "#2f6fd0"
PRIVATE_COLOR = "#c98a12"
FILE_COLOR = "#e3c27a"
VRAM_COLOR = "#2e9d57"
GPU_COLOR = "#7a4fd0"
PHASE_COLORS = {"load": "#8a8f96", "prompt": "#d08a2f", "generation": "#2e9d57"}
PHASE_ALPHA = 48


class RingBuffer:
    """The last ``capacity`` rows of ``columns`` floats, readable as one contiguous array.

    Every row is written twice (at ``i`` and ``i + capacity``), so :meth:`view` is a slice,
    never a copy or a roll.
    """

    def __init__(self, capacity: int, columns: int) -> None:
        self.capacity = capacity
        self._data = np.full((2 * capacity, columns), np.nan)
        self._next = 0
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def append(self, row: Sequence[float]) -> None:
        index = self._next
        self._data[index] = row
        self._data[index + self.capacity] = row
        self._next = (index + 1) % self.capacity
        self._count = min(self._count + 1, self.capacity)

    def view(self) -> np.ndarray:
        """The rows kept, oldest first (a view: do not keep it past the next append)."""
        if self._count < self.capacity:
            return self._data[: self._count]
        return self._data[self._next : self._next + self.capacity]

    def last(self) -> np.ndarray | None:
        if not self._count:
            return None
        row: np.ndarray = self._data[(self._next - 1) % self.capacity]
        return row

    def clear(self) -> None:
        self._data.fill(np.nan)
        self._next = self._count = 0


class PhaseBands(pg.GraphicsObject):  # type: ignore[misc]  # pyqtgraph is untyped
    """Phases' shaded spans of the time axis on one plot, the plot's full height, drawn by one
    item. Each plot has two: the ended phases' bands, cached as a pixmap (a redraw of the plot
    at ~30 Hz blits it instead of calling Python to fill each band: after twenty answers there
    are sixty of them), and the open phase's band, which grows at 2 Hz and so repaints only its
    own span.

    (pyqtgraph's LinearRegionItem computes its bounds from ``viewRect()``, which is None while
    a view is being laid out, and ``QRectF(None)`` corrupts a reference count in PySide6: this
    item asks the ViewBox for its range instead.)
    """

    def __init__(self, *, cached: bool) -> None:
        super().__init__()
        self._spans: list[tuple[float, float, QBrush]] = []
        self._bounds: QRectF | None = None
        self.setZValue(-10)
        if cached:
            self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_spans(self, spans: Sequence[tuple[float, float, QBrush]]) -> None:
        spans = list(spans)
        if spans != self._spans:
            self.prepareGeometryChange()
            self._spans = spans
            self._bounds = None
            self.update()

    @property
    def spans(self) -> list[tuple[float, float]]:
        return [(x0, x1) for x0, x1, _brush in self._spans]

    def view_range_changed(self) -> None:
        self.prepareGeometryChange()
        self._bounds = None

    def boundingRect(self) -> QRectF:
        if self._bounds is None:
            box = self.getViewBox()
            if box is None or not self._spans:
                return QRectF()
            (_left, _right), (bottom, top) = box.viewRange()
            left = min(x0 for x0, _x1, _b in self._spans)
            right = max(x1 for _x0, x1, _b in self._spans)
            self._bounds = QRectF(left, bottom, max(right - left, 0.0), top - bottom)
        return self._bounds

    def paint(self, painter: QPainter, *args: object) -> None:
        box = self.getViewBox()
        if box is None:
            return
        (_left, _right), (bottom, top) = box.viewRange()
        painter.setPen(Qt.PenStyle.NoPen)
        for x0, x1, brush in self._spans:
            if x1 > x0:
                painter.setBrush(brush)
                painter.drawRect(QRectF(x0, bottom, x1 - x0, top - bottom))


@dataclass
class _Phase:
    kind: str
    start: float
    end: float | None
    brush: QBrush


def _color(hex_color: str, alpha: int = 255) -> QColor:
    color = QColor(hex_color)
    color.setAlpha(alpha)
    return color


def _value(number: float | int | None) -> float:
    return math.nan if number is None else float(number)


def _dashed(color: str) -> pg.QtGui.QPen:
    pen = pg.mkPen(color, width=1.5)
    pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class LivePlots(QWidget):
    """Tokens/s, memory and GPU plots on one time axis, with predictions and phase bands."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        guard_refcounts()  # see refcount_guard: redrawing 30 times a second drains None and True
        self.setObjectName("livePlots")
        self.setAccessibleName(self.tr("Live measurements"))
        self.t0: float | None = None
        self._speed = RingBuffer(SPEED_CAPACITY, 2)  # t, tokens/s
        self._memory = RingBuffer(MEMORY_CAPACITY, 6)  # t, rss, private, file, vram, gpu %
        self._speed_dirty = self._memory_dirty = False
        self._phases: list[_Phase] = []
        self._gpu_seen = False
        self._vram_seen = False
        self._scale = MIB
        self._x_range: tuple[float, float] | None = None
        self._band_drawn_at = -math.inf
        self._y_max: dict[str, float] = {}
        self._predicted_speed: float | None = None
        self._predicted_ram: int | None = None
        self._predicted_vram: int | None = None
        self._gpu_message = ""
        self._memory_message = ""

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        # One view (scene) per plot: a redraw of the tokens/s line then visits that plot's few
        # items, not all three plots' (each item's bounds are a Python call per frame), and
        # the memory and GPU plots are drawn only when their readings come.
        self.view = QWidget()
        self.view.setObjectName("plotsView")
        self.view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.view.setMinimumHeight(240)
        self._column = QVBoxLayout(self.view)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(0)
        self._views: list[pg.PlotWidget] = []
        layout.addWidget(self.view, 1)
        self.legend = QLabel()
        self.legend.setObjectName("plotsLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.legend)
        self.note = QLabel()  # why the plots are drawn less often (set_note)
        self.note.setObjectName("plotsNote")
        self.note.setWordWrap(True)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.note.hide()
        layout.addWidget(self.note)

        self.speed_plot = self._plot(self.tr("tokens/s"))
        self.memory_plot = self._plot(self.tr("memory (MiB)"))
        self.gpu_plot = self._plot(self.tr("GPU %"))
        self.gpu_plot.setLabel("bottom", self.tr("seconds"))
        self.gpu_plot.getAxis("bottom").setStyle(showValues=True)
        for plot in (self.memory_plot, self.gpu_plot):
            plot.setXLink(self.speed_plot)
        self.gpu_plot.setYRange(0, 100, padding=0)
        self.bands: list[PhaseBands] = []  # per plot: the ended phases' bands (cached)
        self._open_bands: list[PhaseBands] = []  # per plot: the open phase's band
        for plot in (self.speed_plot, self.memory_plot, self.gpu_plot):
            for cached, kept in ((True, self.bands), (False, self._open_bands)):
                bands = PhaseBands(cached=cached)
                plot.addItem(bands, ignoreBounds=True)
                plot.getViewBox().sigRangeChanged.connect(bands.view_range_changed)
                kept.append(bands)

        self.speed_curve = self._curve(self.speed_plot, pen=pg.mkPen(SPEED_COLOR, width=2))
        self.speed_curve.setObjectName("speedCurve")
        self.predicted_speed_line = self._predicted_line(self.speed_plot, SPEED_COLOR)
        # The RSS area (filled from 0) shows the file-backed pages above the private area drawn
        # over it: the top edge is the RSS that the predicted RAM is compared with.
        self.rss_curve = self._curve(
            self.memory_plot,
            pen=pg.mkPen(FILE_COLOR, width=1),
            brush=_color(FILE_COLOR, 150),
        )
        self.private_curve = self._curve(
            self.memory_plot,
            pen=pg.mkPen(PRIVATE_COLOR, width=1.5),
            brush=_color(PRIVATE_COLOR, 170),
        )
        self.vram_curve = self._curve(self.memory_plot, pen=pg.mkPen(VRAM_COLOR, width=2))
        self.predicted_ram_line = self._predicted_line(self.memory_plot, PRIVATE_COLOR)
        self.predicted_vram_line = self._predicted_line(self.memory_plot, VRAM_COLOR)
        self.gpu_curve = self._curve(self.gpu_plot, pen=pg.mkPen(GPU_COLOR, width=2))
        self.gpu_text = pg.TextItem(anchor=(0.5, 0.5))
        self.gpu_text.setParentItem(self.gpu_plot.getViewBox())
        self.gpu_plot.getViewBox().sigResized.connect(self._place_gpu_text)
        self.memory_text = pg.TextItem(anchor=(0.5, 0.5))
        self.memory_text.setParentItem(self.memory_plot.getViewBox())
        self.memory_text.setVisible(False)
        self.memory_plot.getViewBox().sigResized.connect(self._place_memory_text)
        self.apply_palette()
        self._write_legend()
        self.set_gpu_message(self.tr("no readings yet"))
        self._set_x_range(0.0)

    # -- building ---------------------------------------------------------------------------------

    def _plot(self, label: str) -> pg.PlotItem:
        widget = pg.PlotWidget()
        widget.setMinimumHeight(60)
        self._column.addWidget(widget, 1)
        self._views.append(widget)
        plot = widget.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.showGrid(x=False, y=True, alpha=0.15)
        plot.setLabel("left", label)
        plot.getAxis("left").setWidth(58)
        plot.getAxis("bottom").setStyle(showValues=False)
        plot.getViewBox().setDefaultPadding(0.0)
        for name in ("left", "bottom"):
            # An axis item also draws its grid lines across the plot: cached as a pixmap, a
            # redraw blits it instead of replaying every line (11 -> 3 ms per frame of the
            # three plots; the cache is rebuilt only when the axis' range or size changes).
            plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        return plot

    def _curve(self, plot: pg.PlotItem, pen: QPen, brush: QColor | None = None) -> LiveCurve:
        """A curve (an area down to 0 with ``brush``). The data handed to it is already cut to
        the visible minute (``_visible``)."""
        fill = None if brush is None else QBrush(brush)
        return LiveCurve(plot, tail_s=TAIL_S, pen=pen, brush=fill)

    def _predicted_line(self, plot: pg.PlotItem, color: str) -> pg.InfiniteLine:
        line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=_dashed(color),
            label=self.tr("predicted"),
            labelOpts={"position": 0.98, "color": color, "anchors": [(1, 1), (1, 1)]},
        )
        line.setVisible(False)
        plot.addItem(line, ignoreBounds=True)
        return line

    def apply_palette(self) -> None:
        """Follow the window's palette (light or dark)."""
        palette = self.palette()
        background = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        for view in self._views:
            view.setBackground(background)
        for plot in (self.speed_plot, self.memory_plot, self.gpu_plot):
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(text.name()))
                axis.setTextPen(pg.mkPen(text.name()))
        self.gpu_text.setColor(palette.color(QPalette.ColorRole.PlaceholderText))
        self.memory_text.setColor(palette.color(QPalette.ColorRole.PlaceholderText))

    def _write_legend(self) -> None:
        def swatch(color: str, text: str, dashed: bool = False) -> str:
            mark = "┅" if dashed else "■"
            return f'<span style="color:{color}">{mark}</span>&nbsp;{text}'

        def band(kind: str, text: str) -> str:
            return f'<span style="color:{PHASE_COLORS[kind]}">▮</span>&nbsp;{text}'

        parts = [
            swatch(SPEED_COLOR, self.tr("tokens/s (last second)")),
            swatch(PRIVATE_COLOR, self.tr("private RAM")),
            swatch(FILE_COLOR, self.tr("file-backed RAM (model pages)")),
            swatch(VRAM_COLOR, self.tr("VRAM")),
            swatch("#8a8f96", self.tr("predicted"), dashed=True),
            band("load", self.tr("load")),
            band("prompt", self.tr("prompt")),
            band("generation", self.tr("generation")),
        ]
        self.legend.setText(" &nbsp; ".join(parts))

    # -- data -------------------------------------------------------------------------------------

    def start_clock(self, t: float) -> None:
        """Times are shown as seconds since the first ``t`` given here."""
        if self.t0 is None:
            self.t0 = t

    def _x(self, t: float) -> float:
        if self.t0 is None:
            self.t0 = t
        return t - self.t0

    def add_speed(self, t: float, tokens_per_s: float | None) -> None:
        """One point of the live generation speed; None breaks the line (between answers)."""
        self._speed.append((self._x(t), _value(tokens_per_s)))
        self._speed_dirty = True

    def end_speed(self, t: float) -> None:
        """Break the speed line (an answer ended): the next answer starts a new segment."""
        last = self._speed.last()
        if last is not None and not math.isnan(last[1]):
            self.add_speed(t, None)

    def add_memory(self, readings: Sequence[ProcessMemory]) -> None:
        for r in readings:
            private = r.private_bytes
            file_backed = r.file_bytes
            if private is None:  # no split on this platform: the whole RSS counts as private
                private, file_backed = r.rss_bytes, 0
            self._memory.append(
                (
                    self._x(r.t),
                    float(r.rss_bytes),
                    float(private),
                    _value(file_backed),
                    _value(r.vram_bytes),
                    _value(r.gpu_util_pct),
                )
            )
            self._gpu_seen = self._gpu_seen or r.gpu_util_pct is not None
            self._vram_seen = self._vram_seen or r.vram_bytes is not None
        if readings:
            self._memory_dirty = True
            last = readings[-1]
            if last.gpu_util_pct is None and last.gpu_total_bytes is None:
                self.set_gpu_message(self.tr("no GPU"))
            else:
                self.set_gpu_message("")

    def end_memory(self, t: float) -> None:
        """Break the memory lines (the worker ended)."""
        last = self._memory.last()
        if last is not None and not math.isnan(last[1]):
            nan = math.nan
            self._memory.append((self._x(t), nan, nan, nan, nan, nan))
            self._memory_dirty = True

    def set_predictions(
        self,
        *,
        tokens_per_s: float | None,
        ram_bytes: int | None,
        vram_bytes: int | None,
    ) -> None:
        """The fit's prediction for the loaded settings (None hides a line)."""
        self._predicted_speed = tokens_per_s
        self._predicted_ram = ram_bytes
        self._predicted_vram = vram_bytes or None  # 0 VRAM predicted: nothing to draw
        self._memory_dirty = self._speed_dirty = True

    def set_gpu_message(self, text: str) -> None:
        """A sentence in the GPU plot instead of a curve ("no GPU"); empty shows the curve."""
        if text == self._gpu_message:
            return
        self._gpu_message = text
        self.gpu_text.setText(text)
        self.gpu_text.setVisible(bool(text))
        self.gpu_plot.getAxis("left").setStyle(showValues=not text)
        self._place_gpu_text()

    @property
    def gpu_message(self) -> str:
        return self._gpu_message

    def set_memory_message(self, text: str) -> None:
        """A sentence in the memory plot instead of curves (a server that does not expose its
        memory: unknown, never drawn as 0); empty shows the curves."""
        if text == self._memory_message:
            return
        self._memory_message = text
        self.memory_text.setText(text)
        self.memory_text.setVisible(bool(text))
        self.memory_plot.getAxis("left").setStyle(showValues=not text)
        self._place_memory_text()

    def set_note(self, text: str) -> None:
        """A line under the legend about how the plots are drawn ("" hides it)."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    @property
    def memory_message(self) -> str:
        return self._memory_message

    def _place_memory_text(self) -> None:
        self.memory_text.setPos(self.memory_plot.getViewBox().boundingRect().center())

    def _place_gpu_text(self) -> None:
        box = self.gpu_plot.getViewBox()
        rect = box.boundingRect()
        self.gpu_text.setPos(rect.center())

    # -- phases -----------------------------------------------------------------------------------

    def begin_phase(self, kind: str, t: float) -> None:
        """Shade from ``t`` on as ``kind`` (load, prompt, generation); ends the open phase."""
        self.end_phase(t)
        brush = pg.mkBrush(_color(PHASE_COLORS.get(kind, "#8a8f96"), PHASE_ALPHA))
        x = self._x(t)
        self._phases.append(_Phase(kind, x, None, brush))
        while len(self._phases) > MAX_PHASES:
            self._phases.pop(0)
        self._draw_bands(x)

    def end_phase(self, t: float) -> None:
        if self._phases and self._phases[-1].end is None:
            phase = self._phases[-1]
            phase.end = max(self._x(t), phase.start)
            self._draw_bands(phase.end)

    def _draw_bands(self, x_now: float) -> None:
        # Bands that ended left of the time axis are not drawn: times only grow, so they never
        # come back into view, and a long chat would otherwise repaint dozens of them.
        left = self._x_range[0] if self._x_range is not None else -math.inf
        ended = [
            (ph.start, ph.end, ph.brush)
            for ph in self._phases
            if ph.end is not None and ph.end > left
        ]
        running = [
            (ph.start, max(x_now, ph.start), ph.brush) for ph in self._phases if ph.end is None
        ]
        for bands, open_bands in zip(self.bands, self._open_bands, strict=True):
            bands.set_spans(ended)
            open_bands.set_spans(running)

    @property
    def phases(self) -> list[tuple[str, float, float | None]]:
        """(kind, start, end) of the bands shown, in seconds on the time axis."""
        return [(ph.kind, ph.start, ph.end) for ph in self._phases]

    @property
    def open_phase(self) -> str | None:
        if self._phases and self._phases[-1].end is None:
            return self._phases[-1].kind
        return None

    # -- drawing ----------------------------------------------------------------------------------

    def refresh(self, now: float) -> None:
        """Draw what changed since the last call (once per timer tick)."""
        x_now = self._x(now)
        if (
            self._phases
            and self._phases[-1].end is None
            and (x_now - self._band_drawn_at >= BAND_INTERVAL_S)
        ):
            self._band_drawn_at = x_now
            self._draw_bands(x_now)
        self._set_x_range(x_now)
        if self._speed_dirty:
            self._speed_dirty = False
            data = self._visible(self._speed.view())
            self.speed_curve.set_data(data[:, 0], data[:, 1])
            self._show_line(self.predicted_speed_line, self._predicted_speed)
            self._fit_y("speed", self.speed_plot, data[:, 1], [self._predicted_speed])
        if self._memory_dirty:
            self._memory_dirty = False
            self._draw_memory()

    def _visible(self, data: np.ndarray) -> np.ndarray:
        """The rows from just before the left edge of the time axis on (times only grow), so
        a long history costs nothing per redraw."""
        if self._x_range is None or not len(data):
            return data
        start = int(np.searchsorted(data[:, 0], self._x_range[0], side="left"))
        return data[max(start - 1, 0) :]

    def _draw_memory(self) -> None:
        data = self._visible(self._memory.view())
        peak = max(
            float(np.nanmax(data[:, 1])) if len(data) and not np.isnan(data[:, 1]).all() else 0.0,
            float(self._predicted_ram or 0),
            float(self._predicted_vram or 0),
        )
        scale = GIB if peak >= 8 * GIB else MIB
        if scale != self._scale:
            self._scale = scale
            for curve in (self.rss_curve, self.private_curve, self.vram_curve):
                curve.reset()
            self.memory_plot.setLabel(
                "left", self.tr("memory (GiB)") if scale == GIB else self.tr("memory (MiB)")
            )
        x = data[:, 0]
        self.rss_curve.set_data(x, data[:, 1] / scale)
        self.private_curve.set_data(x, data[:, 2] / scale)
        if self._vram_seen:
            self.vram_curve.set_data(x, data[:, 4] / scale)
        if self._gpu_seen:
            self.gpu_curve.set_data(x, data[:, 5])
        ram = None if self._predicted_ram is None else self._predicted_ram / scale
        vram = None if self._predicted_vram is None else self._predicted_vram / scale
        self._show_line(self.predicted_ram_line, ram)
        self._show_line(self.predicted_vram_line, vram)
        self._fit_y("memory", self.memory_plot, data[:, 1] / scale, [ram, vram])

    def _show_line(self, line: pg.InfiniteLine, value: float | None) -> None:
        line.setVisible(value is not None)
        if value is not None and line.value() != value:
            line.setValue(value)

    def _fit_y(
        self,
        key: str,
        plot: pg.PlotItem,
        values: np.ndarray,
        predicted: Sequence[float | None],
    ) -> None:
        """0 to a little above the largest value or prediction (changed only when needed)."""
        top = 0.0
        if len(values) and not np.isnan(values).all():
            top = float(np.nanmax(values))
        top = max([top, *(v for v in predicted if v is not None)])
        if top <= 0:
            top = 1.0
        current = self._y_max.get(key)
        if current is None or top > current / 1.05 or top < current * 0.6:
            self._y_max[key] = top * 1.45  # room above the highest line for its label
            plot.setYRange(0, top * 1.45, padding=0)

    def _set_x_range(self, x_now: float) -> None:
        right = max(WINDOW_S, math.ceil((x_now + 1.0) / STEP_S) * STEP_S)
        if self._x_range is None or self._x_range[1] != right:
            self._x_range = (right - WINDOW_S, right)
            self.speed_plot.setXRange(right - WINDOW_S, right, padding=0)
            if self._phases:
                self._draw_bands(x_now)  # a band may have left the time axis

    def _curves(self) -> tuple[LiveCurve, ...]:
        return (
            self.speed_curve,
            self.rss_curve,
            self.private_curve,
            self.vram_curve,
            self.gpu_curve,
        )

    # -- for tests and the screenshot -------------------------------------------------------------

    @property
    def speed_points(self) -> int:
        data = self._speed.view()
        return int(np.count_nonzero(~np.isnan(data[:, 1]))) if len(data) else 0

    @property
    def memory_points(self) -> int:
        data = self._memory.view()
        return int(np.count_nonzero(~np.isnan(data[:, 1]))) if len(data) else 0

    @property
    def gpu_points(self) -> int:
        data = self._memory.view()
        return int(np.count_nonzero(~np.isnan(data[:, 5]))) if len(data) else 0

    def clear(self) -> None:
        """Forget every point and band (the time axis starts again)."""
        self._speed.clear()
        self._memory.clear()
        self._phases.clear()
        self._draw_bands(0.0)
        for curve in self._curves():
            curve.reset()
        self.t0 = None
        self._speed_dirty = self._memory_dirty = True
