"""The place of a page that comes in a later version (Playground, Compare, History)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.ui.state import AppState


class PlaceholderPage(QWidget):
    def __init__(self, state: AppState, key: str) -> None:
        super().__init__()
        self.key = key
        texts = {
            "playground": (
                self.tr("Playground"),
                self.tr(
                    "Chat with a model while watching tokens/s, RAM and VRAM live, predicted "
                    "next to measured. Until then, `llm-scout run MODEL --chat` does it in a "
                    "terminal."
                ),
            ),
            "compare": (
                self.tr("Compare"),
                self.tr(
                    "The same prompts on two to six models side by side, with speed, memory "
                    "and blind votes. Coming in a later version."
                ),
            ),
            "history": (
                self.tr("History"),
                self.tr(
                    "Every run and comparison, stored and searchable. Coming in a later version."
                ),
            ),
        }
        title, text = texts[key]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 32, 32, 32)
        heading = QLabel(title)
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        heading.setFont(font)
        body = QLabel(text)
        body.setWordWrap(True)
        body.setMaximumWidth(640)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(heading)
        layout.addWidget(body)
        layout.addStretch(1)
