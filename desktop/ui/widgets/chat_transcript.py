"""The Playground's conversation as the chat column shows it, copies it and saves it.

:class:`ChatTranscript` draws a :class:`~desktop.core.playground.ChatSession`'s conversation in
the chat panel's transcript: the system prompt when it changes, each question and the answer
streaming under it, the finished answer's figures, the whole conversation again after a
regenerate; the buttons follow the session's phase. It copies the conversation as Markdown and
saves it as Markdown or JSON (:func:`~desktop.core.playground.write_transcript`), one sentence in
a message box when the file cannot be written.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from desktop.core.engine import Answer
from desktop.core.fit import FitResult
from desktop.core.playground import AnswerStatus, ChatSession, Phase, write_transcript
from desktop.ui.widgets.chat_panel import ChatPanel
from desktop.ui.widgets.metrics_panel import MetricsPanel, answer_summary


class ChatTranscript(QObject):
    """One chat panel's view of one session (see the module docstring)."""

    def __init__(
        self, chat: ChatPanel, metrics: MetricsPanel, session: ChatSession, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.chat = chat
        self.transcript = chat.transcript
        self.metrics = metrics
        self.session = session
        self._window = parent
        self._shown_system: str | None = None

    def show_phase(self, phase: Phase) -> None:
        conversation = self.session.conversation
        self.chat.set_state(
            ready=phase is Phase.READY,
            generating=phase is Phase.GENERATING,
            has_turns=conversation is not None and bool(conversation.turns),
        )

    def show_question(self, message: str, system: str | None) -> None:
        """A question was sent: it shows, and its answer will stream under it."""
        transcript = self.transcript
        if system and system != self._shown_system:
            transcript.add_system(system)
        self._shown_system = system
        transcript.add_user(message)
        transcript.begin_answer(self.session.label)
        self.show_status(self.session.answer_status)

    def show_status(self, status: AnswerStatus) -> None:
        """The status line under the chat, from the session's :class:`AnswerStatus`: never
        "waiting" once text came, after an answer or after the engine went away."""
        label = self.chat.answer_label
        last = self.session.last_answer
        remote = self.session.remote is not None
        if status is AnswerStatus.WAITING:
            label.setText(self.tr("Waiting for the first token…"))
        elif status is AnswerStatus.STREAMING:
            label.setText(self.tr("Generating…"))
        elif status is AnswerStatus.ANSWERED and last is not None:
            label.setText(answer_summary(last.report))
        elif status is AnswerStatus.ENGINE_GONE:
            label.setText(
                self.tr("The server cannot be reached; Reload connects again.")
                if remote
                else self.tr("The engine stopped; Reload loads the model again.")
            )
        elif status is AnswerStatus.UNLOADED:
            label.setText(self.tr("Unloaded."))
        elif status is AnswerStatus.NONE:
            label.setText("")
        # FAILED: the page says the failure's own sentence.

    def show_answer(self, answer: Answer) -> None:
        summary = answer_summary(answer.report)
        self.transcript.end_answer(summary, text=answer.text)
        if answer.dropped_turns:
            self.transcript.add_note(
                self.tr(
                    "The conversation outgrew the context: the %1 oldest turns were dropped, "
                    "the system prompt kept."
                ).replace("%1", str(answer.dropped_turns))
            )
        self.chat.answer_label.setText(summary)

    def clear(self) -> None:
        self.transcript.clear_all()
        self.metrics.clear_report()
        self.chat.answer_label.setText("")
        self._shown_system = None

    def redraw(self) -> None:
        """The whole conversation again (after its last turn was taken back)."""
        self.clear()
        conversation = self.session.conversation
        if conversation is None:
            return
        if conversation.system:
            self.transcript.add_system(conversation.system)
            self._shown_system = conversation.system
        for turn in conversation.turns:
            self.transcript.add_user(turn.user)
            footer = answer_summary(turn.report) if turn.report is not None else ""
            self.transcript.add_answer(self.session.label, turn.answer, footer)

    # -- copy and save --------------------------------------------------------------------------

    def title(self) -> str:
        return self.tr("Chat with %1").replace("%1", self.session.label or self.tr("a model"))

    def copy(self) -> None:
        """The conversation as Markdown on the clipboard."""
        conversation = self.session.conversation
        if conversation is not None:
            QApplication.clipboard().setText(conversation.to_markdown(self.title()))

    def save(self, path: Path, *, profile: str, fit: FitResult | None) -> bool:
        """Write the conversation as Markdown (``.md``) or JSON (``.json``) with the settings
        and the metrics; a sentence in a message box when it cannot be written."""
        conversation = self.session.conversation
        if conversation is None:
            return False
        try:
            write_transcript(
                path,
                conversation,
                title=self.title(),
                label=self.session.label,
                profile=profile,
                fit=fit,
            )
        except OSError as exc:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                self.tr("The conversation cannot be saved"),
                self.tr("Cannot write %1: %2.")
                .replace("%1", str(path))
                .replace("%2", exc.strerror or str(exc)),
                QMessageBox.StandardButton.Ok,
                self._window,
            )
            box.setObjectName("saveErrorBox")
            box.open()
            return False
        return True
