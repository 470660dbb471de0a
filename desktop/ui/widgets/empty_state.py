"""What a page shows while it has nothing to list: a short hint, centred, and maybe a button."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

TEXT_WIDTH = 520  # a readable line length; the text wraps inside it


class EmptyState(QWidget):
    """A wrapped, centred hint (``label``) with an optional ``button`` under it.

    The label has a fixed width, so its height is computed for the width it really gets (a
    word-wrapped label placed with an alignment flag would be cut off).
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(text)
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setFixedWidth(TEXT_WIDTH)
        self.button: QPushButton | None = None
        self._column = QVBoxLayout(self)
        self._column.addStretch(1)
        self._column.addLayout(self._centred(self.label))
        self._column.addStretch(2)

    def _centred(self, widget: QWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(widget)
        row.addStretch(1)
        return row

    def set_text(self, text: str) -> None:
        self.label.setText(text)

    def add_button(self, button: QPushButton) -> QPushButton:
        self.button = button
        self._column.insertLayout(2, self._centred(button))
        return button
