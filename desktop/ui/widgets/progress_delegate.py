"""A progress bar drawn in a table cell (a download's bytes, a hash's progress).

The cell's model gives the percent (0-100, or None while the total is unknown) under
:data:`PERCENT_ROLE` and the text to write on the bar under ``DisplayRole`` ("1.2 GiB of 4.4 GiB
· 27%"). The bar takes its colours from the palette (light and dark), like the usage bars.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

#: The item data role holding the percent a :class:`ProgressDelegate` draws.
PERCENT_ROLE = int(Qt.ItemDataRole.UserRole) + 40

_Index = QModelIndex | QPersistentModelIndex


class ProgressDelegate(QStyledItemDelegate):
    """Draws :data:`PERCENT_ROLE` as a progress bar with the cell's text on it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        # The row's background (selection, alternate colour) first, without the text.
        background = QStyleOptionViewItem(option)
        self.initStyleOption(background, index)
        background.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, background, painter, widget)

        percent = index.data(PERCENT_ROLE)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        if percent is None and not text:
            return  # nothing known yet (or a job that failed before its first byte)
        palette = option.palette
        rect = QRectF(option.rect.adjusted(4, 3, -4, -3)).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(rect, 3, 3)
        fraction = max(0.0, min(1.0, float(percent) / 100)) if percent is not None else 0.0
        if fraction > 0:
            fill = QColor(palette.color(QPalette.ColorRole.Highlight))
            fill.setAlpha(110)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(
                QRectF(rect.x(), rect.y(), rect.width() * fraction, rect.height()), 3, 3
            )
        # Text in the palette's text colour over a light fill: readable in both palettes and on
        # a selected row.
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        shown = option.fontMetrics.elidedText(
            text, Qt.TextElideMode.ElideRight, int(rect.width()) - 8
        )
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, shown)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(max(hint.width(), 220), max(hint.height(), option.fontMetrics.height() + 10))
