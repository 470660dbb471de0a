"""The Library page: every model on this machine the library knows, and what to do with them.

A sortable table of models (downloaded, imported, found in the Hugging Face cache, LM Studio,
Ollama, GPT4All, the user's folders, and the demo models) with the files that cannot be used as
error rows. Import (file dialog, drops, :meth:`LibraryPage.import_files`), add a folder, rescan,
reveal in the file manager and remove (delete what the app downloaded, forget anything else).

All library work runs on worker threads, one operation at a time
(:class:`~desktop.ui.models.library_work.LibraryOperations`: a scan, an import, a removal),
each opening its own :class:`~desktop.core.library.Library` there and handing back plain values;
a progress row shows what runs, with a Cancel button. At creation the page scans the models
folder and the demo models' folders, so the demos are listed on a first start (unchanged files
are not read again, so this is cheap later). ``state.library_changed`` is emitted after every
change this page makes, and the table is read again when others emit it.

Its parts: the action row (:class:`~desktop.ui.widgets.library_bar.LibraryBar`), the progress
row (:class:`~desktop.ui.widgets.library_progress.LibraryProgress`), the table
(:class:`~desktop.ui.widgets.library_table.LibraryTable`), the question before a removal
(:class:`~desktop.ui.widgets.library_remove.RemoveQuestion`) and the page's sentences (summary,
details, what an operation did: :mod:`desktop.ui.widgets.library_texts`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QItemSelection, QModelIndex, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.errors import ScoutError
from desktop.core.library import LibraryProblem, ScanRoot, demo_roots, scan_roots
from desktop.core.settings import Settings
from desktop.ui.models.library_model import LibraryListing, LibraryModel, LibraryRow
from desktop.ui.models.library_work import (
    LibraryContext,
    LibraryOperations,
    Operation,
    Outcome,
    import_work,
    read_listing,
    remove_work,
    scan_work,
)
from desktop.ui.state import AppState
from desktop.ui.theme import page_heading
from desktop.ui.widgets import library_texts as texts
from desktop.ui.widgets.empty_state import EmptyState
from desktop.ui.widgets.library_bar import LibraryBar
from desktop.ui.widgets.library_progress import LibraryProgress
from desktop.ui.widgets.library_remove import RemoveQuestion
from desktop.ui.widgets.library_table import LibraryTable
from desktop.ui.widgets.quality_dialog import ModelChoice, QualityDialog
from desktop.ui.workers import TaskControl, TaskHandle, run_task

log = logging.getLogger(__name__)


class LibraryPage(QWidget):
    """The library table with its actions. ``model`` holds the rows; ``proxy`` sorts them;
    ``operations`` runs the library work off the GUI thread."""

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.setAcceptDrops(True)
        self.model = LibraryModel(self)
        self.operations = LibraryOperations(self._context, self)
        self._listing = LibraryListing()
        self._listing_seq = 0  # the newest listing applied (reads may finish out of order)
        self._next_seq = 0
        self._import_problems: dict[Path, LibraryProblem] = {}
        self._reader: TaskHandle | None = None
        self._read_again = False
        self._emitting = False
        self._known_dirs = set(state.settings.extra_model_dirs)
        self._models_dir = state.workspace.models_dir
        self._build()
        self.operations.started.connect(self._on_operations_started)
        self.operations.finished.connect(self._on_operations_finished)
        self.operations.failed.connect(self._on_operations_failed)
        self.operations.idle.connect(self._on_operations_idle)
        state.library_changed.connect(self._on_state_library_changed)
        state.settings_changed.connect(self._on_state_settings_changed)
        self.scan_startup()  # its outcome carries the first listing too

    # -- building -------------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        outer.setSpacing(8)
        top = QHBoxLayout()
        heading = page_heading(self.tr("Library"))
        top.addWidget(heading)
        self.summary = QLabel()
        self.summary.setObjectName("librarySummary")
        self.summary.setContentsMargins(12, 0, 0, 0)
        top.addWidget(self.summary, 1)
        outer.addLayout(top)

        self.bar = LibraryBar()
        # The row's parts, by the names the page and its tests use.
        self.import_button = self.bar.import_button
        self.copy_check = self.bar.copy_check
        self.add_folder_button = self.bar.add_folder_button
        self.rescan_button = self.bar.rescan_button
        self.models_folder_button = self.bar.models_folder_button
        self.reveal_button = self.bar.reveal_button
        self.quality_button = self.bar.quality_button
        self.remove_button = self.bar.remove_button
        self.bar.import_requested.connect(self.import_files)
        self.bar.folder_requested.connect(self.add_folder)
        self.rescan_button.clicked.connect(self._on_rescan_button_clicked)
        self.models_folder_button.clicked.connect(self.open_models_folder)
        self.reveal_button.clicked.connect(self._on_reveal_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.quality_button.clicked.connect(self._on_quality_button_clicked)
        outer.addWidget(self.bar)

        self.busy = LibraryProgress(self.operations)
        self.busy_label = self.busy.label
        self.progress = self.busy.bar
        self.cancel_button = self.busy.cancel_button
        outer.addWidget(self.busy)

        self.table = LibraryTable(self.model)
        self.proxy = self.table.proxy
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.table.doubleClicked.connect(self._on_table_double_clicked)

        self.empty_page = EmptyState()
        self.empty_page.setObjectName("libraryEmptyState")
        self.empty = self.empty_page.label
        self.empty.setObjectName("libraryEmpty")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty_page)
        self.stack.addWidget(self.table)
        outer.addWidget(self.stack, 1)

        self.details = QLabel()
        self.details.setObjectName("libraryDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAccessibleName(self.tr("Selected model"))
        outer.addWidget(self.details)
        self.message = QLabel()
        self.message.setObjectName("libraryMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self.message)
        self._show_rows()

    # -- reading the library --------------------------------------------------------------------

    def _context(self) -> LibraryContext:
        return LibraryContext(self.state.library_db, self.state.workspace.catalog, self._models_dir)

    def reload(self) -> None:
        """Read the library again off the GUI thread (after someone else changed it)."""
        if self._reader is not None and not self._reader.done:
            self._read_again = True
            return
        context = self._context()
        self._next_seq += 1
        seq = self._next_seq

        def work(control: TaskControl) -> tuple[int, LibraryListing]:
            with context.open() as library:
                return seq, read_listing(library, context.models_dir)

        self._reader = run_task(work, on_done=self._on_read, on_failed=self._on_read_failed)

    def _on_read(self, result: tuple[int, LibraryListing]) -> None:
        if not isValid(self):
            return
        seq, listing = result
        self._apply_listing(seq, listing)
        self._after_read()

    def _on_read_failed(self, error: Exception) -> None:
        if not isValid(self):
            return
        self._show_error(error)
        self._after_read()

    def _after_read(self) -> None:
        self._reader = None
        if self._read_again:
            self._read_again = False
            self.reload()

    def _apply_listing(self, seq: int, listing: LibraryListing) -> None:
        if seq < self._listing_seq:
            return  # an older read that finished late
        self._listing_seq = seq
        self._listing = listing
        self._show_rows()

    def _show_rows(self) -> None:
        listing = self._listing
        selected = self.selected_row()
        rows = [
            LibraryRow(e.path, entry=e, downloaded=e.path in listing.downloaded)
            for e in listing.entries
        ]
        rows.extend(LibraryRow(p.path, problem=p) for p in listing.problems)
        stored = {row.path for row in rows}
        for path in [p for p in self._import_problems if p in stored]:
            del self._import_problems[path]  # the library knows it now
        rows.extend(
            LibraryRow(p.path, problem=p, stored=False) for p in self._import_problems.values()
        )
        self.model.set_rows(rows)
        if selected is not None:
            self.select_path(selected.path)
        models = sum(1 for e in listing.entries if not e.missing)
        size = sum(e.size_bytes for e in listing.entries if not e.missing)
        problems = len(rows) - len(listing.entries)
        self.summary.setText(texts.summary(models, size, problems) if rows else "")
        if rows:
            self.stack.setCurrentWidget(self.table)
        else:
            self.empty.setText(texts.empty(self.operations.busy))
            self.stack.setCurrentWidget(self.empty_page)
        self._update_controls()

    def _on_state_library_changed(self) -> None:
        if not self._emitting:
            self.reload()

    def _emit_library_changed(self) -> None:
        self._emitting = True
        try:
            self.state.library_changed.emit()
        finally:
            self._emitting = False

    def _on_state_settings_changed(self, settings: Settings) -> None:
        """A folder added (or a models folder chosen) on the Settings page is scanned here."""
        roots: list[ScanRoot] = []
        models_dir = self.state.workspace.models_dir
        if models_dir != self._models_dir:
            self._models_dir = models_dir
            roots.append(ScanRoot("downloaded", models_dir))
        new = [d for d in settings.extra_model_dirs if d not in self._known_dirs]
        self._known_dirs = set(settings.extra_model_dirs)
        roots.extend(ScanRoot("folder", Path(d).expanduser()) for d in new)
        if roots:
            self.scan(roots, self.tr("Scanning the new folder…"))

    # -- selection --------------------------------------------------------------------------------

    def selected_row(self) -> LibraryRow | None:
        return self.table.selected_row()

    def select_path(self, path: Path) -> bool:
        return self.table.select_path(path)

    def _on_table_selection_changed(self, selected: QItemSelection, deselected: object) -> None:
        self._update_controls()

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        self._on_reveal_button_clicked()

    def _update_controls(self) -> None:
        row = self.selected_row()
        self.reveal_button.setEnabled(row is not None)
        self.quality_button.setEnabled(
            row is not None and row.entry is not None and not row.entry.missing
        )
        self.remove_button.setEnabled(row is not None and not self.operations.busy_with("remove"))
        self.rescan_button.setEnabled(not self.operations.busy_with("scan"))
        self.details.setText("" if row is None else texts.details(row, self.model))

    # -- operations -------------------------------------------------------------------------------

    @property
    def is_busy(self) -> bool:
        return self.operations.busy

    def _on_operations_started(self, op: Operation) -> None:
        self._update_controls()

    def _on_operations_finished(self, op: Operation, outcome: Outcome) -> None:
        before = self._listing.fingerprint()
        for path, error in outcome.failed:
            self._import_problems[path] = LibraryProblem(
                path, "imported", error.message, error.kind, sentence=error.sentence
            )
        for entry in outcome.imported:
            self._import_problems.pop(entry.path, None)
        self._next_seq += 1
        self._apply_listing(self._next_seq, outcome.listing)
        if not op.quiet:
            self.message.setText(texts.outcome(op, outcome))
        if len(outcome.imported) == 1:
            self.select_path(outcome.imported[0].path)
        elif outcome.failed:
            self.select_path(outcome.failed[-1][0])
        self._update_controls()
        if outcome.listing.fingerprint() != before or outcome.forgotten or outcome.deleted:
            self._emit_library_changed()

    def _on_operations_failed(self, op: Operation, error: Exception) -> None:
        log.warning("A library operation (%s) failed: %s", op.kind, error)
        self._show_error(error)
        self.reload()

    def _on_operations_idle(self) -> None:
        if not self.model.rowCount():
            self._show_rows()
        self._update_controls()

    def _show_error(self, error: BaseException) -> None:
        self.message.setText(texts.error(error))

    # -- scans ------------------------------------------------------------------------------------

    def startup_roots(self) -> list[ScanRoot]:
        """The models folder and the demo models' folders: what a first start lists."""
        demos = [d.path for d in self.state.workspace.demos]
        return [ScanRoot("downloaded", self._models_dir), *demo_roots(demos)]

    def all_roots(self) -> list[ScanRoot]:
        """Everything a rescan looks at."""
        settings = self.state.settings
        roots = scan_roots(
            self._models_dir, settings.extra_model_dirs, known_apps=settings.scan_known_apps
        )
        return roots + demo_roots(d.path for d in self.state.workspace.demos)

    def scan_startup(self) -> None:
        """List the demos (and downloads) without the user doing anything; quietly."""
        work = scan_work(self.startup_roots(), self._models_dir)
        self.operations.submit(Operation("scan", self.tr("Looking for models…"), work, quiet=True))

    def rescan(self) -> None:
        self.scan(self.all_roots(), self.tr("Scanning…"))

    def scan(self, roots: Sequence[ScanRoot], label: str) -> None:
        """Scan ``roots`` into the library off the GUI thread, with progress and cancel."""
        self.operations.submit(Operation("scan", label, scan_work(roots, self._models_dir)))
        self._update_controls()

    def _on_rescan_button_clicked(self) -> None:
        self.rescan()

    # -- import -----------------------------------------------------------------------------------

    def import_files(self, paths: list[Path], *, copy: bool | None = None) -> None:
        """Import ``paths`` (what a drop on the page or the window does), off the GUI thread,
        with progress and cancel; a file that fails becomes an error row with its sentence.
        ``copy``: copy into the models folder (default: the page's check box)."""
        files = [Path(p).expanduser().absolute() for p in paths]
        if not files:
            return
        do_copy = self.copy_check.isChecked() if copy is None else copy
        label = texts.count(
            len(files), self.tr("Importing %1 file…"), self.tr("Importing %1 files…")
        )
        self.operations.submit(
            Operation("import", label, import_work(files, do_copy, self._models_dir))
        )

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_models(event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        files = self._dropped_models(event.mimeData().urls())
        if files:
            event.acceptProposedAction()
            self.import_files(files)

    @staticmethod
    def _dropped_models(urls: Sequence[QUrl]) -> list[Path]:
        return [
            Path(u.toLocalFile())
            for u in urls
            if u.isLocalFile() and u.toLocalFile().lower().endswith(".gguf")
        ]

    # -- folders ----------------------------------------------------------------------------------

    def add_folder(self, folder: Path) -> bool:
        """Remember ``folder`` in the settings (``extra_model_dirs``) and scan it."""
        folder = folder.expanduser().absolute()
        if not folder.is_dir():
            self.message.setText(self.tr("There is no folder at %1.").replace("%1", str(folder)))
            return False
        known = list(self.state.settings.extra_model_dirs)
        if str(folder) not in known:
            self._known_dirs.add(str(folder))  # scanned below, not again by the settings signal
            try:
                self.state.update_settings(extra_model_dirs=(*known, str(folder)))
            except ScoutError as exc:
                self._known_dirs.discard(str(folder))
                self._show_error(exc)
                return False
        self.scan([ScanRoot("folder", folder)], self.tr("Scanning %1…").replace("%1", folder.name))
        return True

    # -- reveal and remove ------------------------------------------------------------------------

    def _on_reveal_button_clicked(self) -> None:
        row = self.selected_row()
        if row is not None:
            self.reveal(row.path)

    def open_models_folder(self) -> bool:
        """Open the models folder (made if it is not there yet: it is the app's own)."""
        folder = self._models_dir  # follows the setting
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.message.setText(
                self.tr("Cannot open the models folder %1: %2")
                .replace("%1", str(folder))
                .replace("%2", exc.strerror or str(exc))
            )
            return False
        return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))

    def reveal(self, path: Path) -> bool:
        """Open the folder holding ``path`` in the file manager."""
        folder = path.parent
        if not folder.is_dir():
            self.message.setText(self.tr("The folder %1 is gone.").replace("%1", str(folder)))
            return False
        return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))

    def _on_remove_button_clicked(self) -> None:
        row = self.selected_row()
        if row is not None:
            self.ask_remove(row)

    def ask_remove(self, row: LibraryRow) -> QMessageBox:
        """Ask first (window-modal, not blocking): delete a download, else forget the row."""
        return RemoveQuestion(row, self).ask(lambda: self.remove(row))

    def remove(self, row: LibraryRow) -> None:
        """Delete a downloaded model's files, or forget any other row (no question asked)."""
        if not row.stored:
            self._import_problems.pop(row.path, None)
            self._show_rows()
            self.message.setText(texts.forgotten())
            return
        label = (self.tr("Deleting %1…") if row.downloaded else self.tr("Forgetting %1…")).replace(
            "%1", row.path.name
        )
        work = remove_work(row.path, row.downloaded, self._models_dir)
        self.operations.submit(Operation("remove", label, work))
        self._update_controls()

    # -- quality ----------------------------------------------------------------------------------

    def _on_quality_button_clicked(self) -> None:
        row = self.selected_row()
        if row is not None and row.entry is not None:
            self.open_quality(row.entry.path)

    def open_quality(self, path: Path) -> QualityDialog | None:
        """Open the Quality window for the library model at ``path`` (not modal)."""
        choices = [
            ModelChoice(e.display_name, e.path, e.architecture, e.quant, e.size_bytes, e.variant_id)
            for e in self._listing.entries
            if not e.missing
        ]
        model = next((c for c in choices if c.path == path), None)
        if model is None:
            return None
        dialog = QualityDialog(
            model,
            choices,
            threads=self.state.settings.default_threads or None,
            profile=self.state.this_machine,
            parent=self,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # -- end --------------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop what runs (a scan ends after its current file) and drop what waits."""
        self.operations.shutdown()
        if self._reader is not None:
            self._reader.stop()
            self._reader = None
