"""A usage bar (used of total, with the numbers written on it)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget


class UsageBar(QWidget):
    """``used`` of ``total`` as a filled bar with a text on it ("12.1 GiB of 23.5 GiB")."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._fraction = 0.0
        self._text = ""
        self._color = QColor("#3d7bd9")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(160)

    def sizeHint(self) -> QSize:
        return QSize(260, self.fontMetrics().height() + 8)

    def set_value(self, used: float, total: float, text: str, color: str | None = None) -> None:
        self._fraction = 0.0 if total <= 0 else max(0.0, min(1.0, used / total))
        self._text = text
        if color:
            self._color = QColor(color)
        self.setAccessibleName(text)
        self.update()

    @property
    def text(self) -> str:
        return self._text

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        palette = self.palette()
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(rect, 4, 4)
        if self._fraction > 0:
            fill = QRectF(rect.x(), rect.y(), rect.width() * self._fraction, rect.height())
            color = QColor(self._color)
            color.setAlpha(170)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawRoundedRect(fill, 4, 4)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        painter.drawText(rect.adjusted(8, 0, -8, 0), Qt.AlignmentFlag.AlignVCenter, self._text)
        painter.end()
