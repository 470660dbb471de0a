"""A predicted memory breakdown drawn against what the machine has.

:class:`MemoryBar` paints, with QPainter, one memory pool of a fit estimate (RAM or video
memory): a title line with the total ("needs 5.6 GiB of 11.5 GiB"), a stacked bar of weights,
KV cache, compute buffers and overhead scaled to the capacity (a red mark where the need
passes it), and a legend with each part's size. The bar's outline is dashed: the numbers are a
prediction (UI.md), not a measurement.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktop.core.fit import MemoryBreakdown, need_decimals
from desktop.ui import format as fmt

#: The parts of a breakdown, in drawing order, with their colours.
PARTS: tuple[tuple[str, str], ...] = (
    ("weights", "#4a7fd6"),
    ("kv_cache", "#e08a2c"),
    ("compute", "#8c6bc8"),
    ("overhead", "#9aa0a6"),
)
OVER_COLOR = "#c0392b"
GIB = 1 << 30
BAR_HEIGHT = 16
GAP = 5


def short_size(n: int) -> str:
    """ "4.1 GiB", "372 MiB": one decimal only where it matters."""
    return fmt.size(n, 1 if n >= GIB else 0)


class MemoryBar(QWidget):
    """One memory pool: ``set_usage(breakdown, capacity)``; ``total`` and ``capacity`` are the
    numbers drawn, ``summary`` the title line's text."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = title
        self._breakdown = MemoryBreakdown()
        self._capacity: int | None = None
        self._capacity_word = ""
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._update_accessible()

    # -- values -------------------------------------------------------------------------------

    def set_usage(
        self, breakdown: MemoryBreakdown, capacity: int | None, capacity_word: str = ""
    ) -> None:
        """``capacity``: what the pool has for this model (None: unknown); ``capacity_word``
        says which number it is ("free", "available")."""
        self._breakdown = breakdown
        self._capacity = capacity
        self._capacity_word = capacity_word
        self._update_accessible()
        self.updateGeometry()
        self.update()

    @property
    def breakdown(self) -> MemoryBreakdown:
        return self._breakdown

    @property
    def total(self) -> int:
        return self._breakdown.total

    @property
    def capacity(self) -> int | None:
        return self._capacity

    def part_labels(self) -> dict[str, str]:
        return {
            "weights": self.tr("weights"),
            "kv_cache": self.tr("KV cache"),
            "compute": self.tr("compute"),
            "overhead": self.tr("overhead"),
        }

    @property
    def summary(self) -> str:
        """ "needs 5.6 GiB of 11.5 GiB free" (and what is missing when it does not fit)."""
        if not self._capacity:
            return self.tr("needs %1").replace("%1", "≈" + fmt.size(self.total))
        # As many decimals as it takes for two different numbers to read differently (the
        # CLI's "needs X of Y available" says the same figures).
        decimals = need_decimals(self.total, self._capacity)
        need = "≈" + fmt.size(self.total, decimals)
        of = fmt.size(self._capacity, decimals)
        if self._capacity_word:
            of = f"{of} {self._capacity_word}"
        text = self.tr("needs %1 of %2").replace("%1", need).replace("%2", of)
        if self.total > self._capacity:
            short = fmt.size(self.total - self._capacity)
            text += " · " + self.tr("%1 short").replace("%1", short)
        return text

    def legend(self) -> list[str]:
        labels = self.part_labels()
        return [
            f"{labels[key]} {short_size(getattr(self._breakdown, key))}" for key, _color in PARTS
        ]

    def _update_accessible(self) -> None:
        self.setAccessibleName(f"{self._title}: {self.summary}")
        self.setAccessibleDescription(", ".join(self.legend()))
        self.setToolTip(
            self.tr("Predicted: %1.").replace("%1", ", ".join(self.legend()))
            + "\n"
            + self.tr("The dashed outline marks a prediction, not a measurement.")
        )

    # -- drawing ------------------------------------------------------------------------------

    def _line(self) -> int:
        return self.fontMetrics().height()

    def _title_width(self) -> int:
        bold = QFont(self.font())
        bold.setBold(True)
        return QFontMetrics(bold).horizontalAdvance(self._title + "  ")

    def _summary_below(self, width: int) -> bool:
        """Whether the summary goes on a line of its own (it does not fit after the title)."""
        return self._title_width() + self.fontMetrics().horizontalAdvance(self.summary) > width

    def hasHeightForWidth(self) -> bool:
        return True

    def _legend_second_column(self, width: int) -> float:
        """Where the legend's second column starts, or 0 when the legend needs one column."""
        metrics = self.fontMetrics()
        swatch = self._line() * 0.6 + 4
        texts = self.legend()
        left = max(metrics.horizontalAdvance(t) for t in texts[0::2]) + swatch + 14
        right = max(metrics.horizontalAdvance(t) for t in texts[1::2]) + swatch
        start = max(left, width / 2)
        return start if start + right <= width else 0.0

    def heightForWidth(self, width: int) -> int:
        lines = 2 if self._summary_below(width) else 1
        lines += 2 if self._legend_second_column(width) else len(PARTS)
        return self._line() * lines + BAR_HEIGHT + 3 * GAP

    def sizeHint(self) -> QSize:
        return QSize(300, self.heightForWidth(max(self.width(), 300)))

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.heightForWidth(200))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_color = palette.color(QPalette.ColorRole.WindowText)
        line = self._line()
        width = float(self.width())

        bold = QFont(self.font())
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(text_color)
        painter.drawText(QRectF(0, 0, width, line), Qt.AlignmentFlag.AlignLeft, self._title)
        painter.setFont(self.font())
        if self._summary_below(self.width()):
            x, y = 0.0, float(line)
        else:
            x, y = float(self._title_width()), 0.0
        summary = self.fontMetrics().elidedText(
            self.summary, Qt.TextElideMode.ElideRight, int(width - x)
        )
        painter.drawText(QRectF(x, y, width - x, line), Qt.AlignmentFlag.AlignLeft, summary)

        bar = QRectF(0.5, y + line + GAP + 0.5, width - 1, BAR_HEIGHT)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(bar, 3, 3)
        scale = max(self._capacity or 0, self.total, 1)
        x = bar.x()
        for key, color in PARTS:
            part = getattr(self._breakdown, key)
            if part <= 0:
                continue
            w = bar.width() * part / scale
            painter.setBrush(QColor(color))
            painter.drawRect(QRectF(x, bar.y(), w, bar.height()))
            x += w
        outline = QPen(palette.color(QPalette.ColorRole.Mid))
        outline.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(outline)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(bar, 3, 3)
        if self._capacity and self.total > self._capacity:
            limit = bar.x() + bar.width() * self._capacity / scale
            mark = QPen(QColor(OVER_COLOR))
            mark.setWidth(2)
            painter.setPen(mark)
            painter.drawLine(QPointF(limit, bar.y() - 3), QPointF(limit, bar.bottom() + 3))

        # Legend: "■ weights 4.1 GiB", in two columns where they fit, else one.
        top = bar.bottom() + GAP
        swatch = line * 0.6
        second = self._legend_second_column(self.width())
        for i, (text, (_key, color)) in enumerate(zip(self.legend(), PARTS, strict=True)):
            if second:
                cx, cy = (i % 2) * second, top + (i // 2) * line
            else:
                cx, cy = 0.0, top + i * line
            room = (second if second and i % 2 == 0 else width - cx) - swatch - 6
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(color))
            painter.drawRect(QRectF(cx, cy + (line - swatch) / 2, swatch, swatch))
            painter.setPen(text_color)
            label = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, int(room))
            painter.drawText(
                QRectF(cx + swatch + 4, cy, room, line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                label,
            )
        painter.end()
