"""A titled card of label/value rows, the building block of the Hardware page and panels."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QVBoxLayout, QWidget


class Card(QFrame):
    """A framed box with a bold title and a form of rows (label: value widget)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(14, 12, 14, 12)
        self.title = QLabel(title)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        self._layout.addWidget(self.title)
        self.form = QFormLayout()
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._layout.addLayout(self.form)

    def add_row(self, label: str, value: str | QWidget, tooltip: str = "") -> QWidget:
        widget: QWidget
        if isinstance(value, str):
            text = QLabel(value)
            text.setWordWrap(True)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            widget = text
        else:
            widget = value
        if tooltip:
            widget.setToolTip(tooltip)
        name = QLabel(label)
        name.setBuddy(widget)
        self.form.addRow(name, widget)
        return widget

    def add_widget(self, widget: QWidget) -> None:
        self._layout.addWidget(widget)
