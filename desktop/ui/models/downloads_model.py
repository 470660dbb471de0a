"""The download queue as a table: one row per job, refreshed by pulling snapshots.

The model keeps its own list of jobs (so jobs of a download manager that was replaced after a
settings change stay listed) and the last :class:`~desktop.core.download.DownloadProgress` it
showed for each. :meth:`DownloadsModel.refresh` (called from a GUI timer) reads every job's
snapshot and emits ``dataChanged`` only for rows whose snapshot changed. Core callbacks are not
used: nothing here runs on a download thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor

from desktop.core.download import DownloadJob, DownloadManager, DownloadProgress, DownloadState
from desktop.core.errors import ScoutError
from desktop.ui import format as fmt
from desktop.ui.errors import title_for
from desktop.ui.widgets.progress_delegate import PERCENT_ROLE

_Index = QModelIndex | QPersistentModelIndex

#: The :class:`DownloadJob` of a row (any column).
JOB_ROLE = int(Qt.ItemDataRole.UserRole) + 1
#: The job's state value ("downloading", "failed", ...) as a string.
STATE_ROLE = int(Qt.ItemDataRole.UserRole) + 2

ERROR_COLOR = "#c0392b"


@dataclass
class _Row:
    job: DownloadJob
    manager: DownloadManager
    progress: DownloadProgress
    state: DownloadState
    error: ScoutError | None


class DownloadsModel(QAbstractTableModel):
    """Rows of download jobs.

    Signals:
        job_finished(object): a job was seen reaching a finished state (DONE, FAILED or
            CANCELLED) by :meth:`refresh`; the argument is the :class:`DownloadJob`.
    """

    job_finished = Signal(object)

    COL_MODEL, COL_PROGRESS, COL_STATE, COL_SPEED, COL_ETA, COL_DETAILS = range(6)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[_Row] = []
        self._dismissed: set[DownloadJob] = set()

    # -- Qt model -------------------------------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 6

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        return (
            self.tr("Model"),
            self.tr("Progress"),
            self.tr("State"),
            self.tr("Speed"),
            self.tr("Time left"),
            self.tr("File"),
        )[section]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        column = index.column()
        if role == JOB_ROLE:
            return row.job
        if role == STATE_ROLE:
            return row.state.value
        if role == PERCENT_ROLE and column == self.COL_PROGRESS:
            return self.percent(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, column)
        failed = row.state is DownloadState.FAILED
        if role == Qt.ItemDataRole.ForegroundRole and failed and column != self.COL_PROGRESS:
            return QColor(ERROR_COLOR) if column in (self.COL_STATE, self.COL_DETAILS) else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (self.COL_SPEED, self.COL_ETA):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self._text(row, column) or self._tooltip(row, column)
        return None

    # -- texts ----------------------------------------------------------------------------------

    def state_word(self, state: DownloadState | str) -> str:
        """The state as a person reads it; a state this version does not know shows its name."""
        value = state.value if isinstance(state, DownloadState) else str(state)
        words = {
            "queued": self.tr("Queued"),
            "checking": self.tr("Checking"),
            "downloading": self.tr("Downloading"),
            "retrying": self.tr("Retrying"),
            "verifying": self.tr("Verifying"),
            "paused": self.tr("Paused"),
            "done": self.tr("Done"),
            "failed": self.tr("Failed"),
            "cancelled": self.tr("Cancelled"),
        }
        return words.get(value, value.replace("_", " ").capitalize())

    def error_text(self, row: int) -> str:
        """``Title: sentence`` of a failed job, "" otherwise."""
        return self._error_text(self._rows[row]) if 0 <= row < len(self._rows) else ""

    def error_parts(self, row: int) -> tuple[str, str] | None:
        """(translated title, sentence) of a failed job, None otherwise."""
        if not 0 <= row < len(self._rows):
            return None
        error = self._rows[row].error
        if error is None or self._rows[row].state is not DownloadState.FAILED:
            return None
        return title_for(error.kind), error.message

    def _error_text(self, row: _Row) -> str:
        error = row.error
        if error is None or row.state is not DownloadState.FAILED:
            return ""
        return self.tr("%1: %2").replace("%1", title_for(error.kind)).replace("%2", error.message)

    @staticmethod
    def percent(row: _Row) -> int | None:
        if row.state is DownloadState.DONE:
            return 100
        fraction = row.progress.fraction
        return None if fraction is None else int(fraction * 100)

    def _progress_text(self, row: _Row) -> str:
        p = row.progress
        if row.state is DownloadState.DONE:
            return fmt.size(p.bytes_total or p.bytes_done)
        if p.bytes_total:
            percent = self.percent(row) or 0
            return (
                self.tr("%1 of %2 · %3%")
                .replace("%1", fmt.size(p.bytes_done))
                .replace("%2", fmt.size(p.bytes_total))
                .replace("%3", str(percent))
            )
        if p.bytes_done:
            return fmt.size(p.bytes_done)
        return ""

    def _file_text(self, row: _Row) -> str:
        p = row.progress
        if row.state is DownloadState.FAILED:
            return self._error_text(row)
        if p.state is DownloadState.RETRYING and p.message:
            return p.message
        verify = p.verify_fraction  # re-hashing a file already on disk (the bar keeps the bytes)
        if row.state is DownloadState.VERIFYING and verify is not None:
            return (
                self.tr("Checking %1: %2 of %3 (%4%)")
                .replace("%1", p.file)
                .replace("%2", fmt.size(p.verify_done))
                .replace("%3", fmt.size(p.verify_total or 0))
                .replace("%4", str(int(verify * 100)))
            )
        total = max(p.files_total, 1)
        if row.state is DownloadState.DONE:
            done = (
                row.job.request.files[0].name
                if total == 1
                else self.tr("%1 files").replace("%1", str(total))
            )
            if any(not f.known_hash for f in row.job.result(0).files):
                done = self.tr("%1 · not verified against a known hash").replace("%1", done)
            return done
        name = p.file or row.job.request.files[0].name
        if total == 1:
            return name
        current = min(p.files_done + 1, total)
        return (
            self.tr("%1 (%2 of %3)")
            .replace("%1", name)
            .replace("%2", str(current))
            .replace("%3", str(total))
        )

    def _text(self, row: _Row, column: int) -> str:
        p = row.progress
        active = row.state is DownloadState.DOWNLOADING
        if column == self.COL_MODEL:
            return row.job.request.label
        if column == self.COL_PROGRESS:
            return self._progress_text(row)
        if column == self.COL_STATE:
            return self.state_word(row.state)
        if column == self.COL_SPEED:
            if active and p.speed_bps > 0:
                return self.tr("%1/s").replace("%1", fmt.size(p.speed_bps))
            return ""
        if column == self.COL_ETA:
            return fmt.seconds(p.eta_s) if active and p.eta_s is not None else ""
        if column == self.COL_DETAILS:
            return self._file_text(row)
        return ""

    def _tooltip(self, row: _Row, column: int) -> str:
        request = row.job.request
        if column == self.COL_MODEL:
            files = "\n".join(f.name for f in request.files)
            return (
                self.tr("%1 from %2\n%3")
                .replace("%1", request.label)
                .replace("%2", request.repo)
                .replace("%3", files)
            )
        if column in (self.COL_STATE, self.COL_DETAILS):
            text = self._error_text(row)
            if text:
                return text
            if row.progress.message:
                return row.progress.message
            return self._text(row, column)
        return self._text(row, column)

    # -- contents -------------------------------------------------------------------------------

    def job(self, row: int) -> DownloadJob | None:
        return self._rows[row].job if 0 <= row < len(self._rows) else None

    def manager_of(self, row: int) -> DownloadManager | None:
        return self._rows[row].manager if 0 <= row < len(self._rows) else None

    def row_of(self, job: DownloadJob) -> int:
        for index, row in enumerate(self._rows):
            if row.job is job:
                return index
        return -1

    def jobs(self) -> list[DownloadJob]:
        return [row.job for row in self._rows]

    def state_of(self, row: int) -> DownloadState | None:
        return self._rows[row].state if 0 <= row < len(self._rows) else None

    def add_jobs(self, manager: DownloadManager) -> int:
        """Append the manager's jobs this model does not list yet; returns how many."""
        known = {row.job for row in self._rows} | self._dismissed
        new = [job for job in manager.jobs if job not in known]
        if not new:
            return 0
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        for job in new:
            self._rows.append(_Row(job, manager, job.progress, job.state, job.error))
        self.endInsertRows()
        return len(new)

    def replace_job(self, old: DownloadJob, new: DownloadJob, manager: DownloadManager) -> None:
        """Show ``new`` in the row of ``old`` (a retry submitted to a newer manager)."""
        index = self.row_of(old)
        if index < 0:
            return
        self._dismissed.add(old)
        self._rows[index] = _Row(new, manager, new.progress, new.state, new.error)
        self._changed(index)

    def remove_job(self, job: DownloadJob) -> None:
        """Take a job off the list for good (it is not listed again)."""
        self._dismissed.add(job)
        index = self.row_of(job)
        if index >= 0:
            self.beginRemoveRows(QModelIndex(), index, index)
            del self._rows[index]
            self.endRemoveRows()

    def refresh(self) -> list[DownloadJob]:
        """Read every job's snapshot; ``dataChanged`` for the rows that changed. Returns the
        jobs seen reaching a finished state now (``job_finished`` is emitted for each)."""
        finished: list[DownloadJob] = []
        for index, row in enumerate(self._rows):
            progress, state, error = row.job.progress, row.job.state, row.job.error
            if (progress, state, error) == (row.progress, row.state, row.error):
                continue
            before = row.state
            row.progress, row.state, row.error = progress, state, error
            self._changed(index)
            if state.finished and state is not before:
                finished.append(row.job)
        for job in finished:
            self.job_finished.emit(job)
        return finished

    @property
    def active(self) -> bool:
        """Whether any listed job can still change by itself (not finished, not paused)."""
        return any(
            not row.state.finished and row.state is not DownloadState.PAUSED for row in self._rows
        )

    def _changed(self, index: int) -> None:
        self.dataChanged.emit(self.index(index, 0), self.index(index, self.columnCount() - 1))
