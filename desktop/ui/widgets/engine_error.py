"""What the Playground shows when its model's worker failed: one sentence, the log, Reload.

The sentence says what happened (the worker was killed, ran out of memory, crashed; the file is
damaged; this llama.cpp build does not know the architecture). The tail of llama.cpp's log is
behind a "Details" toggle, in a fixed-pitch font, selectable for a bug report.

Signals:
    reload_requested(): load the same model with the same settings again.
    dismissed(): the person closed the banner.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.theme import icon

BANNER_STYLE = (
    "QFrame#engineError { background: rgba(192, 57, 43, 0.10); "
    "border: 1px solid rgba(192, 57, 43, 0.55); border-radius: 4px; }"
)


class EngineErrorBanner(QFrame):
    """A red banner: title, sentence, [Details] [Reload] [×], and the log under it."""

    reload_requested = Signal()
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("engineError")
        self.setAccessibleName(self.tr("Engine error"))
        self.setStyleSheet(BANNER_STYLE)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.setSpacing(4)
        row = QHBoxLayout()
        text = QVBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("engineErrorTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.sentence = QLabel()
        self.sentence.setObjectName("engineErrorSentence")
        self.sentence.setWordWrap(True)
        text.addWidget(self.title)
        text.addWidget(self.sentence)
        row.addLayout(text, 1)
        self.details_button = QPushButton(self.tr("Details"))
        self.details_button.setObjectName("engineErrorDetailsButton")
        self.details_button.setCheckable(True)
        self.details_button.setToolTip(self.tr("Show the end of llama.cpp's log."))
        self.details_button.toggled.connect(self._on_details_button_toggled)
        self.reload_button = QPushButton(icon("refresh"), self.tr("Reload"))
        self.reload_button.setObjectName("reloadButton")
        self.reload_button.setToolTip(
            self.tr("Load the same model with the same settings again; the conversation stays.")
        )
        self.reload_button.clicked.connect(self.reload_requested)
        self.close_button = QToolButton()
        self.close_button.setObjectName("engineErrorCloseButton")
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setAccessibleName(self.tr("Dismiss"))
        self.close_button.clicked.connect(self._on_close_button_clicked)
        row.addWidget(self.details_button)
        row.addWidget(self.reload_button)
        row.addWidget(self.close_button)
        outer.addLayout(row)
        self.details = QPlainTextEdit()
        self.details.setObjectName("engineErrorDetails")
        self.details.setAccessibleName(self.tr("llama.cpp log"))
        self.details.setReadOnly(True)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setMaximumHeight(160)
        self.details.setVisible(False)
        outer.addWidget(self.details)
        self.setVisible(False)

    def show_error(self, title: str, sentence: str, details: str, *, can_reload: bool) -> None:
        self.title.setText(title)
        self.sentence.setText(sentence)
        self.details.setPlainText(details.strip() or self.tr("llama.cpp wrote nothing."))
        self.details_button.setChecked(False)
        self.details_button.setEnabled(bool(details.strip()))
        self.reload_button.setVisible(can_reload)
        self.setVisible(True)

    def hide_error(self) -> None:
        self.setVisible(False)
        self.details_button.setChecked(False)

    def _on_details_button_toggled(self, checked: bool) -> None:
        self.details.setVisible(checked)

    def _on_close_button_clicked(self) -> None:
        self.hide_error()
        self.dismissed.emit()
