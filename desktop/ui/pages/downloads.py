"""The Downloads page: the queue with per-file progress, pause / resume / cancel / retry.

Jobs are submitted elsewhere (the Models page calls ``state.downloads.submit(...)`` and emits
``state.downloads_changed``); this page picks them up on that signal and keeps them listed,
even after a settings change replaced the download manager. Progress is pulled, not pushed: a
timer reads each job's snapshot a few times a second while anything moves, and core callbacks
are never used. When a job is done, the models folder is scanned into the library on a worker
thread and ``state.library_changed`` follows.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QItemSelection, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.catalog import Catalog
from desktop.core.download import DownloadJob, DownloadManager, DownloadState
from desktop.core.errors import HubError, ScoutError
from desktop.core.hub import DEFAULT_ENDPOINT, choose_endpoint, mirror_name, offline_reason
from desktop.core.library import ScanReport, ScanRoot
from desktop.ui.errors import describe
from desktop.ui.models.downloads_model import ERROR_COLOR, STATE_ROLE, DownloadsModel
from desktop.ui.models.library_work import LibraryContext
from desktop.ui.state import AppState
from desktop.ui.theme import icon, page_heading
from desktop.ui.widgets.elide_delegate import ElideDelegate
from desktop.ui.widgets.empty_state import EmptyState
from desktop.ui.widgets.progress_delegate import ProgressDelegate
from desktop.ui.workers import TaskControl, TaskHandle, run_task

log = logging.getLogger(__name__)

REFRESH_MS = 300  # how often the table reads the jobs' progress while something moves


class DownloadsPage(QWidget):
    """The download queue. ``model`` is the table's :class:`DownloadsModel`."""

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.model = DownloadsModel(self)
        self._scan: TaskHandle | None = None
        self._scan_again: set[Path] = set()

        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        outer.setSpacing(8)
        heading = page_heading(self.tr("Downloads"))
        outer.addWidget(heading)
        self.endpoint_label = QLabel()
        self.endpoint_label.setObjectName("endpointLabel")
        self.endpoint_label.setWordWrap(True)
        self.endpoint_label.setToolTip(
            self.tr("Change the Hub address or pick a mirror on the Settings page.")
        )
        outer.addWidget(self.endpoint_label)

        buttons = QHBoxLayout()
        self.pause_button = self._button("pauseButton", "pause", self.tr("Pause"))
        self.pause_button.setToolTip(
            self.tr("Stop for now and keep what arrived; Resume continues from there.")
        )
        self.resume_button = self._button("resumeButton", "play", self.tr("Resume"))
        self.resume_button.setToolTip(self.tr("Continue a paused download where it stopped."))
        self.retry_button = self._button("retryButton", "refresh", self.tr("Retry"))
        self.retry_button.setToolTip(
            self.tr("Try a failed download again; it resumes from the data already there.")
        )
        self.cancel_button = self._button("cancelButton", "stop", self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop the download, delete what arrived and take it off the list.")
        )
        self.clear_button = self._button("clearFinishedButton", "remove", self.tr("Clear done"))
        self.clear_button.setToolTip(self.tr("Take finished downloads off the list."))
        for button in (self.pause_button, self.resume_button, self.retry_button):
            buttons.addWidget(button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.clear_button)
        self.pause_button.clicked.connect(self._on_pause_button_clicked)
        self.resume_button.clicked.connect(self._on_resume_button_clicked)
        self.retry_button.clicked.connect(self._on_retry_button_clicked)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        self.clear_button.clicked.connect(self._on_clear_button_clicked)
        outer.addLayout(buttons)

        self.table = QTableView()
        self.table.setObjectName("downloadsTable")
        self.table.setAccessibleName(self.tr("Download queue"))
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(
            DownloadsModel.COL_PROGRESS, ProgressDelegate(self.table)
        )
        # A failed or retrying job's sentence keeps its start; file names keep their end.
        self.table.setItemDelegateForColumn(
            DownloadsModel.COL_DETAILS,
            ElideDelegate(
                self.table,
                applies=lambda index: index.data(STATE_ROLE) in ("failed", "retrying"),
            ),
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 14)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(DownloadsModel.COL_DETAILS, QHeaderView.ResizeMode.Stretch)
        widths = {
            DownloadsModel.COL_MODEL: 250,
            DownloadsModel.COL_PROGRESS: 250,
            DownloadsModel.COL_STATE: 105,
            DownloadsModel.COL_SPEED: 95,
            DownloadsModel.COL_ETA: 95,
        }
        for column, width in widths.items():
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)

        self.empty_hint = EmptyState(
            self.tr(
                "Nothing is downloading. Pick a model on the Models page and press Download: "
                "it shows up here with its progress, and lands in the Library when it is done."
            )
        )
        self.empty_hint.setObjectName("emptyHint")
        self.empty_label = self.empty_hint.label
        self.empty_label.setObjectName("emptyHintLabel")
        self.open_models_button = self.empty_hint.add_button(
            QPushButton(icon("models"), self.tr("Open the Models page"))
        )
        self.open_models_button.setObjectName("openModelsButton")
        self.open_models_button.clicked.connect(self._on_open_models_button_clicked)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty_hint)
        self.stack.addWidget(self.table)
        outer.addWidget(self.stack, 1)

        # Under the table: the selected (else the latest failed) job's error, its title in bold
        # over the core's one sentence; or where the selected job's files go.
        self.message_title = QLabel()
        self.message_title.setObjectName("downloadMessageTitle")
        title_font = self.message_title.font()
        title_font.setBold(True)
        self.message_title.setFont(title_font)
        self.message_title.setVisible(False)
        self.message = QLabel()
        self.message.setObjectName("downloadMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setAccessibleName(self.tr("Download details"))
        outer.addWidget(self.message_title)
        outer.addWidget(self.message)

        self.timer = QTimer(self)
        self.timer.setObjectName("downloadsRefreshTimer")
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.model.job_finished.connect(self._on_model_job_finished)
        self.model.rowsInserted.connect(self._on_model_rows_changed)
        self.model.rowsRemoved.connect(self._on_model_rows_changed)
        self.model.dataChanged.connect(self._update_controls)
        state.downloads_changed.connect(self._on_state_downloads_changed)
        state.settings_changed.connect(self._on_state_settings_changed)

        self._show_endpoint()
        self._on_state_downloads_changed()
        self._update_controls()

    def _button(self, name: str, icon_name: str, text: str) -> QPushButton:
        button = QPushButton(icon(icon_name), text)
        button.setObjectName(name)
        button.setAccessibleName(text)
        return button

    # -- the queue ----------------------------------------------------------------------------

    def _manager(self) -> DownloadManager | None:
        """The state's download manager, without making one just to look at it."""
        return self.state.current_downloads

    def _on_state_downloads_changed(self) -> None:
        for manager in self.state.download_managers():
            self.model.add_jobs(manager)
        self.refresh()

    def refresh(self) -> None:
        """Pull every job's progress now (the timer calls this while anything moves)."""
        self.model.refresh()
        if self.model.active:
            if not self.timer.isActive():
                self.timer.start()
        else:
            self.timer.stop()
        self._update_controls()

    def _on_model_rows_changed(self) -> None:
        self.stack.setCurrentWidget(self.table if self.model.rowCount() else self.empty_hint)
        self._update_controls()

    def _on_model_job_finished(self, job: DownloadJob) -> None:
        if job.state is DownloadState.CANCELLED:
            self.model.remove_job(job)
        elif job.state is DownloadState.DONE:
            manager = self.model.manager_of(self.model.row_of(job))
            models_dir = manager.models_dir if manager is not None else None
            self._scan_into_library(models_dir or self.state.workspace.models_dir)
        # Others (the status bar, the Models page) learn that a job finished.
        QTimer.singleShot(0, self.state.downloads_changed.emit)

    # -- selection and buttons -----------------------------------------------------------------

    def selected_row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def selected_job(self) -> DownloadJob | None:
        return self.model.job(self.selected_row())

    def _on_table_selection_changed(self, selected: QItemSelection, deselected: object) -> None:
        self._update_controls()

    def _update_controls(self) -> None:
        row = self.selected_row()
        state = self.model.state_of(row)
        value = state.value if state is not None else ""
        moving = state is not None and not state.finished and value != "paused"
        self.pause_button.setEnabled(moving)
        self.resume_button.setEnabled(value == "paused")
        self.retry_button.setEnabled(value == "failed")
        self.cancel_button.setEnabled(state is not None and value not in ("done", "cancelled"))
        self.clear_button.setEnabled(
            any(self.model.state_of(r) is DownloadState.DONE for r in range(self.model.rowCount()))
        )
        self._show_message(row)

    def _show_message(self, row: int) -> None:
        parts = self.model.error_parts(row)
        if parts is None:
            failed = [
                r for r in range(self.model.rowCount()) if self.model.error_parts(r) is not None
            ]
            if row < 0 and failed:
                parts = self.model.error_parts(failed[-1])
        if parts is not None:
            self._set_message(*parts)
            return
        job, manager = self.model.job(row), self.model.manager_of(row)
        if job is None or manager is None:
            self._set_message("", "")
            return
        request = job.request
        folder = request.folder(manager.models_dir)
        self._set_message(
            "",
            self.tr("%1 from %2, into %3")
            .replace("%1", ", ".join(f.name for f in request.files))
            .replace("%2", request.repo)
            .replace("%3", str(folder)),
        )

    def _set_message(self, title: str, text: str) -> None:
        """``title`` (an error's, in bold and red; "" for none) over ``text``."""
        self.message_title.setText(title)
        self.message_title.setVisible(bool(title))
        style = f"color: {ERROR_COLOR};" if title else ""
        self.message_title.setStyleSheet(style)
        self.message.setStyleSheet(style)
        self.message.setText(text)

    def _on_pause_button_clicked(self) -> None:
        job = self.selected_job()
        if job is not None:
            job.pause()
        self.refresh()

    def _on_resume_button_clicked(self) -> None:
        job = self.selected_job()
        if job is not None:
            job.resume()
        self.refresh()

    def _on_retry_button_clicked(self) -> None:
        row = self.selected_row()
        job = self.model.job(row)
        if job is None or job.state is not DownloadState.FAILED:
            return
        manager = self.model.manager_of(row)
        if manager is not None and manager is self._manager():
            job.resume()
        else:
            # The manager that ran it was replaced (a settings change): ask the current one.
            try:
                current = self.state.downloads
                again = current.submit(job.request)
            except ScoutError as exc:
                self._set_message(*describe(exc))
                return
            self.model.replace_job(job, again, current)
            self.state.downloads_changed.emit()
        self.refresh()

    def _on_cancel_button_clicked(self) -> None:
        job = self.selected_job()
        if job is not None:
            job.cancel()
        self.refresh()

    def _on_clear_button_clicked(self) -> None:
        for job in self.model.jobs():
            if job.state is DownloadState.DONE:
                self.model.remove_job(job)
        self._update_controls()

    def _on_open_models_button_clicked(self) -> None:
        show_page = getattr(self.window(), "show_page", None)
        if show_page is not None:
            show_page("models")

    # -- the endpoint ---------------------------------------------------------------------------

    def endpoint_text(self) -> str:
        """Where new downloads come from: the endpoint or mirror the settings choose."""
        try:
            endpoint = choose_endpoint(self.state.settings.hub_endpoint)
        except HubError as exc:
            return self.tr("The Hub address in the settings cannot be used: %1").replace(
                "%1", exc.message
            )
        offline = offline_reason()
        if offline:
            return self.tr("Downloads are unavailable because %1.").replace("%1", offline)
        if mirror_name(endpoint):
            return self.tr("Downloading from %1 (mirror)").replace("%1", endpoint)
        if endpoint == DEFAULT_ENDPOINT:
            return self.tr("Downloading from %1").replace("%1", endpoint)
        return self.tr("Downloading from %1 (custom address)").replace("%1", endpoint)

    def _show_endpoint(self) -> None:
        self.endpoint_label.setText(self.endpoint_text())

    def _on_state_settings_changed(self, settings: object) -> None:
        self._show_endpoint()
        self._on_state_downloads_changed()

    # -- into the library -----------------------------------------------------------------------

    def _scan_into_library(self, models_dir: Path) -> None:
        """Scan the models folder into the library off the GUI thread, then tell everyone
        (through the state, which outlives this page when the window is rebuilt)."""
        if self._scan is not None and not self._scan.done:
            self._scan_again.add(models_dir)
            return
        state = self.state
        db = state.library_db
        catalog: Catalog = state.workspace.catalog

        def work(control: TaskControl) -> ScanReport:
            with LibraryContext(db, catalog, models_dir).open() as library:
                return library.scan(
                    [ScanRoot("downloaded", models_dir)], should_stop=control.should_stop
                )

        def done(report: ScanReport) -> None:
            log.info("Scanned %s after a download: %d added.", models_dir, len(report.added))
            state.library_changed.emit()
            self._next_scan()

        def failed(error: Exception) -> None:
            state.problem.emit(getattr(error, "kind", "error"), describe(error)[1])
            self._next_scan()

        self._scan = run_task(work, on_done=done, on_failed=failed)

    def _next_scan(self) -> None:
        if not isValid(self):
            return
        self._scan = None
        if self._scan_again:
            self._scan_into_library(self._scan_again.pop())

    def shutdown(self) -> None:
        """Stop the timer and any library scan (downloads themselves are paused by the state)."""
        self.timer.stop()
        if self._scan is not None:
            self._scan.stop()
            self._scan = None
        self._scan_again.clear()
