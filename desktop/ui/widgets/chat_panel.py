"""The Playground's chat column: settings, the transcript, the prompt box and its buttons.

The panel only shows and asks; the page runs the conversation. Ctrl+Enter in the prompt box
asks to send (caught before the box would insert a line), Esc anywhere in the panel asks to stop.

Signals:
    send_requested(), stop_requested(), regenerate_requested(), clear_requested(),
    copy_requested(), save_requested(): the buttons and keys.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.theme import icon
from desktop.ui.widgets.chat_settings import ChatSettingsPanel
from desktop.ui.widgets.transcript import TranscriptView


class ChatPanel(QWidget):
    """Settings (folded away), transcript, prompt box, buttons and the last answer's figures."""

    send_requested = Signal()
    stop_requested = Signal()
    regenerate_requested = Signal()
    clear_requested = Signal()
    copy_requested = Signal()
    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPanel")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.settings_toggle = QToolButton()
        self.settings_toggle.setObjectName("chatSettingsToggle")
        self.settings_toggle.setText(self.tr("System prompt and sampling"))
        self.settings_toggle.setCheckable(True)
        self.settings_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.settings_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.settings_toggle.setAutoRaise(True)
        self.settings_toggle.toggled.connect(self._on_settings_toggle_toggled)
        self.settings = ChatSettingsPanel()
        self.settings.setVisible(False)
        column.addWidget(self.settings_toggle)
        column.addWidget(self.settings)
        self.transcript = TranscriptView()
        column.addWidget(self.transcript, 1)
        self.prompt = QPlainTextEdit()
        self.prompt.setObjectName("promptEdit")
        self.prompt.setAccessibleName(self.tr("Message"))
        self.prompt.setPlaceholderText(
            self.tr("Write a message; Ctrl+Enter sends it, Esc stops the answer.")
        )
        self.prompt.setTabChangesFocus(True)
        self.prompt.setFixedHeight(self.prompt.fontMetrics().lineSpacing() * 3 + 14)
        self.prompt.installEventFilter(self)
        column.addWidget(self.prompt)
        column.addLayout(self._buttons())
        self.answer_label = QLabel()
        self.answer_label.setObjectName("answerLabel")
        self.answer_label.setWordWrap(True)
        self.answer_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.answer_label)
        stop = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        stop.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        stop.activated.connect(self.stop_requested)
        self.setFocusProxy(self.prompt)

    def _button(self, name: str, icon_name: str, text: str, tip: str) -> QPushButton:
        button = QPushButton(icon(icon_name), text) if icon_name else QPushButton(text)
        button.setObjectName(name)
        button.setAccessibleName(text.rstrip("…"))
        button.setToolTip(tip)
        return button

    def _buttons(self) -> QHBoxLayout:
        self.send_button = self._button(
            "sendButton", "play", self.tr("Send"), self.tr("Send the message (Ctrl+Enter).")
        )
        self.stop_button = self._button(
            "stopButton",
            "stop",
            self.tr("Stop"),
            self.tr("Stop the answer (Esc); what came is kept."),
        )
        self.regenerate_button = self._button(
            "regenerateButton",
            "refresh",
            self.tr("Regenerate"),
            self.tr("Ask the last message again."),
        )
        self.clear_button = self._button(
            "clearButton",
            "remove",
            self.tr("Clear"),
            self.tr("Forget the conversation (the model stays loaded)."),
        )
        self.copy_button = self._button(
            "copyButton", "", self.tr("Copy"), self.tr("Copy the conversation as Markdown.")
        )
        self.save_button = self._button(
            "saveTranscriptButton",
            "save",
            self.tr("Save…"),
            self.tr("Save the conversation as Markdown or JSON, with the settings and metrics."),
        )
        for button, signal in (
            (self.send_button, self.send_requested),
            (self.stop_button, self.stop_requested),
            (self.regenerate_button, self.regenerate_requested),
            (self.clear_button, self.clear_requested),
            (self.copy_button, self.copy_requested),
            (self.save_button, self.save_requested),
        ):
            button.clicked.connect(signal)
        row = QHBoxLayout()
        row.addWidget(self.send_button)
        row.addWidget(self.stop_button)
        row.addStretch(1)
        for button in (self.regenerate_button, self.clear_button, self.copy_button):
            row.addWidget(button)
        row.addWidget(self.save_button)
        return row

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.prompt and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            control = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and control:
                self.send_requested.emit()
                return True
            if key == Qt.Key.Key_Escape:
                self.stop_requested.emit()
                return True
        return super().eventFilter(watched, event)

    def _on_settings_toggle_toggled(self, checked: bool) -> None:
        self.settings.setVisible(checked)
        self.settings_toggle.setArrowType(
            Qt.ArrowType.DownArrow if checked else Qt.ArrowType.RightArrow
        )

    def set_state(self, *, ready: bool, generating: bool, has_turns: bool) -> None:
        """Which buttons make sense now."""
        self.send_button.setEnabled(ready)
        self.stop_button.setEnabled(generating)
        self.regenerate_button.setEnabled(ready and has_turns)
        self.clear_button.setEnabled(not generating)
        self.copy_button.setEnabled(has_turns or generating)
        self.save_button.setEnabled(has_turns and not generating)

    def take_prompt(self) -> str:
        """The prompt box's text, stripped; the box is emptied when there was any."""
        text = self.prompt.toPlainText().strip()
        if text:
            self.prompt.clear()
        return text
