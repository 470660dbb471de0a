"""The verdict badge: a rounded pill in the verdict's colour with its word written on it.

One vocabulary everywhere (UI.md): GPU green, partial N/M teal, CPU amber, no grey. Colour is
never the only signal: the word is always drawn and the cell's tooltip explains it. The cell's
model gives the word under ``DisplayRole`` and the verdict key under a role given to the
delegate (``"gpu"``, ``"partial"``, ``"cpu"``, ``"no"``; anything else draws plain text).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from desktop.ui.theme import VERDICT_COLORS

_Index = QModelIndex | QPersistentModelIndex

PAD_X = 8  # inside the pill, either side of the word
MARGIN_X = 4  # between the pill and the cell's edge


def text_color_on(fill: QColor) -> QColor:
    """White or near-black, whichever reads better on ``fill`` (WCAG relative luminance)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    luminance = (
        0.2126 * channel(fill.redF())
        + 0.7152 * channel(fill.greenF())
        + 0.0722 * channel(fill.blueF())
    )
    # Contrast with white (1.05 / (L + 0.05)) against contrast with #111 ((L + 0.05) / 0.056).
    return (
        QColor("#ffffff")
        if 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.056
        else (QColor("#111111"))
    )


def badge_width(font: QFont, text: str) -> int:
    """The width a cell needs for a badge with ``text`` in the table's ``font``."""
    bold = QFont(font)
    bold.setBold(True)
    return QFontMetrics(bold).horizontalAdvance(text) + 2 * PAD_X + 2 * MARGIN_X + 2


class VerdictDelegate(QStyledItemDelegate):
    """Draws the cell as a verdict badge (the row's selection stays visible around it)."""

    def __init__(self, verdict_role: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._role = verdict_role

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        verdict = str(index.data(self._role) or "")
        color = VERDICT_COLORS.get(verdict)
        if color is None:
            super().paint(painter, option, index)
            return
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        background = QStyleOptionViewItem(option)
        self.initStyleOption(background, index)
        background.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, background, painter, widget)

        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        font = QFont(option.font)
        font.setBold(True)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(font)
        metrics = painter.fontMetrics()
        cell = QRectF(option.rect)
        height = min(cell.height() - 4, metrics.height() + 6)
        width = min(cell.width() - 2 * MARGIN_X, metrics.horizontalAdvance(text) + 2 * PAD_X)
        pill = QRectF(cell.x() + MARGIN_X, cell.center().y() - height / 2, width, height)
        fill = QColor(color)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(pill, height / 2, height / 2)
        painter.setPen(text_color_on(fill))
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(width - 2 * PAD_X + 2))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, elided)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        hint = super().sizeHint(option, index)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        width = badge_width(option.font, text)
        height = QFontMetrics(option.font).height() + 8
        return QSize(max(hint.width(), width), max(hint.height(), height))
