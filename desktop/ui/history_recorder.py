"""Playground answers into the history, written off the GUI thread.

The Playground's session describes an answer that just ended (finished, stopped, or cut off by
a failure: then marked with the error) as an :class:`~desktop.core.playground.AnswerRecord`;
:class:`HistoryRecorder` stores it with :func:`~desktop.core.playground.store_answer` on the
thread pool (opening the database and hashing a small model file can take a moment) and says
when it is stored.

Signals (of :class:`HistoryRecorder`):
    stored(int): the id of the stored answer.
    failed(str): one sentence: the answer could not be stored.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from desktop.core.playground import AnswerRecord, store_answer
from desktop.ui.workers import TaskControl, run_task

log = logging.getLogger(__name__)


class HistoryRecorder(QObject):
    """Stores answers on the thread pool, one task each (see the module docstring)."""

    stored = Signal(int)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pending = 0

    def record(self, answer: AnswerRecord) -> None:
        self.pending += 1

        def work(control: TaskControl) -> int:
            return store_answer(answer)

        run_task(work, on_done=self._on_stored, on_failed=self._on_failed)

    def _on_stored(self, run_id: int) -> None:
        self.pending -= 1
        self.stored.emit(run_id)

    def _on_failed(self, error: Exception) -> None:
        self.pending -= 1
        log.warning("An answer could not be stored in the history: %s", error)
        self.failed.emit(str(error))
