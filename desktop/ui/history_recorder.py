"""Playground answers into the history, written off the GUI thread.

The Playground describes an answer it just finished (or one stopped, or cut off by a failure:
then marked with the error) as a :class:`StoredAnswer`, gathered on the GUI thread;
:class:`HistoryRecorder` writes it with :meth:`History.record_run` on the thread pool (opening
the database and hashing a small model file can take a moment) and says when it is stored.

Signals (of :class:`HistoryRecorder`):
    stored(int): the id of the stored answer.
    failed(str): one sentence: the answer could not be stored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.engine import LoadSettings, RunReport
from desktop.core.engine import protocol as p
from desktop.core.fit import record_run as record_calibration
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history import History, settings_dict
from desktop.ui.workers import TaskControl, run_task

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredAnswer:
    """One answer as the history keeps it: what ran, with which settings, on which machine.

    ``extra``: more settings keys (the chat template, the profile the prediction was for);
    ``error``/``error_kind``: the answer was cut off by a failure (``report.text`` is what came).
    ``loaded``: the worker's load facts when the answer also calibrates this machine's
    estimates (its prediction was for this machine and it finished), else None.
    """

    report: RunReport
    model: Path | None  # None: a model on a server (``extra["remote"]`` says which)
    label: str
    prompt: str
    system: str | None
    load: LoadSettings
    params: p.SamplingParams
    profile: HardwareProfile | None
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None
    source: str = "playground"
    loaded: p.Loaded | None = None


def store_answer(answer: StoredAnswer) -> int:
    """Write ``answer`` to the app's history (blocking); returns its id."""
    with History.open() as history:
        record = history.record_run(
            answer.report,
            model=answer.model,
            prompt=answer.prompt,
            system=answer.system,
            label=answer.label,
            settings=settings_dict(answer.load, answer.params, **answer.extra),
            profile=answer.profile,
            machine=THIS_MACHINE,
            source=answer.source,
            error=answer.error,
            error_kind=answer.error_kind,
        )
    if answer.loaded is not None and answer.profile is not None and answer.error is None:
        record_calibration(answer.report, answer.loaded, answer.profile, label=answer.label)
    return record.id


class HistoryRecorder(QObject):
    """Stores answers on the thread pool, one task each (see the module docstring)."""

    stored = Signal(int)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pending = 0

    def record(self, answer: StoredAnswer) -> None:
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
