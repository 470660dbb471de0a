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
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QItemSelection, QModelIndex, QSortFilterProxyModel, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.errors import ScoutError
from desktop.core.library import LibraryProblem, ScanProgress, ScanRoot, demo_roots, scan_roots
from desktop.core.settings import Settings
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.models.library_model import (
    ROW_ROLE,
    SORT_ROLE,
    LibraryListing,
    LibraryModel,
    LibraryRow,
)
from desktop.ui.models.library_work import (
    ImportProgress,
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
from desktop.ui.theme import icon
from desktop.ui.widgets.elide_delegate import ElideDelegate
from desktop.ui.widgets.empty_state import EmptyState
from desktop.ui.widgets.quality_dialog import ModelChoice, QualityDialog
from desktop.ui.workers import TaskControl, TaskHandle, run_task

log = logging.getLogger(__name__)

# An import that refuses more files than this says how many, by reason, not each file's sentence.
MAX_FAILURES_SPELLED_OUT = 3
MAX_REASONS_LISTED = 3


class LibraryPage(QWidget):
    """The library table with its actions. ``model`` holds the rows; ``proxy`` sorts them;
    ``operations`` runs the library work off the GUI thread."""

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.setAcceptDrops(True)
        self.model = LibraryModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
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
        self.operations.progressed.connect(self._on_operations_progressed)
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
        heading = QLabel(self.tr("Library"))
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        heading.setFont(font)
        top.addWidget(heading)
        self.summary = QLabel()
        self.summary.setObjectName("librarySummary")
        self.summary.setContentsMargins(12, 0, 0, 0)
        top.addWidget(self.summary, 1)
        outer.addLayout(top)

        bar = QHBoxLayout()
        self.import_button = self._button("importButton", "open", self.tr("Import…"))
        self.import_button.setToolTip(
            self.tr("Add GGUF files to the library (you can also drop them on the window).")
        )
        self.copy_check = QCheckBox(self.tr("Copy into the models folder"))
        self.copy_check.setObjectName("copyCheck")
        self.copy_check.setToolTip(
            self.tr(
                "Imported files are used where they are; tick this to copy them into the "
                "models folder's imported/ folder instead."
            )
        )
        self.add_folder_button = self._button("addFolderButton", "add", self.tr("Add folder…"))
        self.add_folder_button.setToolTip(
            self.tr("Remember a folder you keep GGUF models in and scan it (and its subfolders).")
        )
        self.rescan_button = self._button("rescanButton", "refresh", self.tr("Rescan"))
        self.rescan_button.setToolTip(
            self.tr(
                "Look again in the models folder, the Hugging Face cache, LM Studio, Ollama, "
                "GPT4All and your folders. Only new or changed files are read."
            )
        )
        self.models_folder_button = self._button(
            "modelsFolderButton", "reveal", self.tr("Open models folder")
        )
        self.models_folder_button.setToolTip(
            self.tr("Open the folder the app downloads models into, in the file manager.")
        )
        self.models_folder_button.clicked.connect(self.open_models_folder)
        self.reveal_button = self._button("revealButton", "reveal", self.tr("Show in folder"))
        self.reveal_button.setToolTip(self.tr("Open the folder holding this file."))
        self.quality_button = self._button("qualityButton", "compare", self.tr("Quality…"))
        self.quality_button.setToolTip(
            self.tr(
                "Measure this model's quality here: what its quantization loses against a "
                "reference, or its multiple-choice accuracy, with 95% intervals."
            )
        )
        self.remove_button = self._button("removeButton", "remove", self.tr("Remove…"))
        self.remove_button.setToolTip(
            self.tr(
                "Delete a model the app downloaded, or forget any other file (it stays on disk)."
            )
        )
        for widget in (self.import_button, self.copy_check, self.add_folder_button):
            bar.addWidget(widget)
        bar.addWidget(self.rescan_button)
        bar.addWidget(self.models_folder_button)
        bar.addStretch(1)
        bar.addWidget(self.quality_button)
        bar.addWidget(self.reveal_button)
        bar.addWidget(self.remove_button)
        self.import_button.clicked.connect(self._on_import_button_clicked)
        self.add_folder_button.clicked.connect(self._on_add_folder_button_clicked)
        self.rescan_button.clicked.connect(self._on_rescan_button_clicked)
        self.reveal_button.clicked.connect(self._on_reveal_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.quality_button.clicked.connect(self._on_quality_button_clicked)
        outer.addLayout(bar)

        self.busy = QWidget()
        self.busy.setObjectName("libraryBusy")
        busy = QHBoxLayout(self.busy)
        busy.setContentsMargins(0, 0, 0, 0)
        self.busy_label = QLabel()
        self.busy_label.setObjectName("scanLabel")
        self.busy_label.setMinimumWidth(200)
        self.progress = QProgressBar()
        self.progress.setObjectName("scanProgress")
        self.progress.setAccessibleName(self.tr("Library work in progress"))
        self.progress.setTextVisible(False)
        self.progress.setMaximumWidth(260)
        self.cancel_button = self._button("cancelWorkButton", "stop", self.tr("Cancel"))
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        busy.addWidget(self.busy_label, 1)
        busy.addWidget(self.progress)
        busy.addWidget(self.cancel_button)
        self.busy.setVisible(False)
        outer.addWidget(self.busy)

        self.table = QTableView()
        self.table.setObjectName("libraryTable")
        self.table.setAccessibleName(self.tr("Models on this machine"))
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(LibraryModel.COL_NAME, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 12)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(LibraryModel.COL_PATH, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(48)
        # Widths from the texts they hold (in the UI's language and font), so nothing is cut at
        # 1280x800; the path takes what is left and is cut in the middle (the details line below
        # the table shows it whole).
        model = self.model
        metrics = self.fontMetrics()

        def fit(*texts: str) -> int:
            return max(metrics.horizontalAdvance(t) for t in texts) + 24

        def title(column: int) -> str:
            return str(model.headerData(column, Qt.Orientation.Horizontal))

        widths = {
            LibraryModel.COL_NAME: fit("SmolLM2 135M Instruct Q4_K_M"),
            LibraryModel.COL_ARCH: fit(title(LibraryModel.COL_ARCH), "deepseek2"),
            LibraryModel.COL_PARAMS: fit(title(LibraryModel.COL_PARAMS), "72.7B"),
            LibraryModel.COL_QUANT: fit(title(LibraryModel.COL_QUANT), "Q4_K_M"),
            LibraryModel.COL_SIZE: fit(title(LibraryModel.COL_SIZE), "999.9 MiB"),
            LibraryModel.COL_CONTEXT: fit(title(LibraryModel.COL_CONTEXT), "131,072"),
            LibraryModel.COL_SOURCE: fit(model.source_word("hf-cache")),
            LibraryModel.COL_MATCH: fit("qwen2.5-7b-instruct:Q4_K_M"),
        }
        for column, width in widths.items():
            self.table.setColumnWidth(column, width)
        self.table.setItemDelegateForColumn(LibraryModel.COL_ARCH, ElideDelegate(self.table))
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.table.doubleClicked.connect(self._on_table_double_clicked)
        for signal in (
            self.proxy.layoutChanged,
            self.proxy.modelReset,
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
        ):
            signal.connect(self._update_spans)

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

    def _button(self, name: str, icon_name: str, text: str) -> QPushButton:
        button = QPushButton(icon(icon_name), text)
        button.setObjectName(name)
        button.setAccessibleName(text.rstrip("…"))
        return button

    # -- reading the library --------------------------------------------------------------------

    def _count(self, n: int, one: str, many: str) -> str:
        """``one`` or ``many`` with ``%1`` replaced by ``n`` (English needs the two forms; the
        strings are written out so lupdate finds both)."""
        return (one if n == 1 else many).replace("%1", fmt.integer(n))

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
        problems = len(rows) - len(listing.entries)
        size = sum(e.size_bytes for e in listing.entries if not e.missing)
        parts = [self._count(models, self.tr("%1 model"), self.tr("%1 models")), fmt.size(size)]
        if problems:
            parts.append(
                self._count(
                    problems, self.tr("%1 file with a problem"), self.tr("%1 files with problems")
                )
            )
        self.summary.setText(" · ".join(parts) if rows else "")
        if rows:
            self.stack.setCurrentWidget(self.table)
        else:
            self.empty.setText(
                self.tr("Looking for models…")
                if self.operations.busy
                else self.tr(
                    "No models yet. Download one from the Models page, import a .gguf file "
                    "(or drop it here), or add a folder where you keep models."
                )
            )
            self.stack.setCurrentWidget(self.empty_page)
        self._update_controls()

    def _update_spans(self) -> None:
        """A problem row's sentence spans the model columns (recomputed after each sort)."""
        self.table.clearSpans()
        for proxy_row in range(self.proxy.rowCount()):
            row = self.proxy.index(proxy_row, 0).data(ROW_ROLE)
            if isinstance(row, LibraryRow) and row.problem is not None:
                self.table.setSpan(proxy_row, LibraryModel.COL_ARCH, 1, LibraryModel.PROBLEM_SPAN)

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
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        row = rows[0].data(ROW_ROLE)
        return row if isinstance(row, LibraryRow) else None

    def select_path(self, path: Path) -> bool:
        source_row = self.model.find(path)
        if source_row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(source_row, 0))
        self.table.selectRow(index.row())
        return True

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
        if row is None:
            self.details.setText("")
            return
        if row.problem is not None:
            self.details.setText(self.model.problem_text(row) + "\n" + str(row.path))
            return
        entry = row.entry
        assert entry is not None
        first = str(entry.path)
        if len(entry.parts) > 1:
            first += " " + self.tr("(%1 parts)").replace("%1", str(len(entry.parts)))
        facts = [
            entry.architecture,
            fmt.params(entry.n_params),
            entry.quant or "",
            fmt.size(entry.size_bytes),
            self.model.source_word(entry.source),
        ]
        if entry.variant_id:
            facts.append(self.tr("catalog: %1").replace("%1", entry.variant_id))
        if entry.missing:
            facts.append(self.tr("missing since the last scan"))
        self.details.setText(first + "\n" + " · ".join(f for f in facts if f))

    # -- operations -------------------------------------------------------------------------------

    @property
    def is_busy(self) -> bool:
        return self.operations.busy

    def _on_operations_started(self, op: Operation) -> None:
        self.busy_label.setText(op.label)
        self.busy_label.setToolTip("")
        self.progress.setRange(0, 0)  # busy until the first progress arrives
        self.cancel_button.setEnabled(True)
        self.busy.setVisible(True)
        self._update_controls()

    def _on_operations_progressed(self, value: object) -> None:
        if isinstance(value, ScanProgress):
            self.busy_label.setText(
                self.tr("Scanning folder %1 of %2: %3 files, %4 read")
                .replace("%1", str(value.root_index + 1))
                .replace("%2", str(value.roots_total))
                .replace("%3", fmt.integer(value.files_seen))
                .replace("%4", fmt.integer(value.headers_read))
            )
            self.busy_label.setToolTip(str(value.current or value.root))
            self.progress.setRange(0, max(value.roots_total, 1))
            self.progress.setValue(value.root_index + 1)
        elif isinstance(value, ImportProgress):
            text = (
                self.tr("Copying %1 (%2 of %3): %4 of %5")
                if value.copy
                else self.tr("Hashing %1 (%2 of %3): %4 of %5")
            )
            self.busy_label.setText(
                text.replace("%1", value.name)
                .replace("%2", str(value.index + 1))
                .replace("%3", str(value.count))
                .replace("%4", fmt.size(value.done))
                .replace("%5", fmt.size(value.total))
            )
            self.progress.setRange(0, 1000)
            self.progress.setValue(min(1000, value.done * 1000 // max(value.total, 1)))

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
            self.message.setText(self._outcome_text(op, outcome))
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
        self.busy.setVisible(False)
        if not self.model.rowCount():
            self._show_rows()
        self._update_controls()

    def _on_cancel_button_clicked(self) -> None:
        if self.operations.cancel():
            self.cancel_button.setEnabled(False)
            self.busy_label.setText(self.tr("Stopping…"))

    def _show_error(self, error: BaseException) -> None:
        title, sentence = describe(error)
        self.message.setText(self.tr("%1: %2").replace("%1", title).replace("%2", sentence))

    def _outcome_text(self, op: Operation, outcome: Outcome) -> str:
        if outcome.error is not None:
            title, sentence = describe(outcome.error)
            return self.tr("%1: %2").replace("%1", title).replace("%2", sentence)
        report = outcome.report
        if op.kind == "scan" and report is not None:
            if outcome.cancelled:
                return self._count(
                    report.found,
                    self.tr("Scan stopped after %1 model file."),
                    self.tr("Scan stopped after %1 model files."),
                )
            text = self._count(
                report.found,
                self.tr("Scan done: %1 model file found"),
                self.tr("Scan done: %1 model files found"),
            )
            if report.added:
                text += self.tr(", %1 new").replace("%1", fmt.integer(len(report.added)))
            if report.problems:
                text += self.tr(", %1 with problems").replace(
                    "%1", fmt.integer(len(report.problems))
                )
            return text + "."
        if op.kind == "import":
            parts = []
            if outcome.imported:
                parts.append(
                    self._count(
                        len(outcome.imported),
                        self.tr("Imported %1 file."),
                        self.tr("Imported %1 files."),
                    )
                )
            parts.extend(self._failed_imports_text(outcome.failed))
            if outcome.cancelled:
                parts.append(self.tr("Import stopped."))
            return " ".join(parts)
        if outcome.deleted:
            return self._count(
                len(outcome.deleted), self.tr("Deleted %1 file."), self.tr("Deleted %1 files.")
            )
        if outcome.forgotten:
            return self.tr("Forgotten; the file stays on disk.")
        return ""

    def _failed_imports_text(self, failed: Sequence[tuple[Path, ScoutError]]) -> list[str]:
        """Each refused file's sentence when there are a few; past that, a count by reason (the
        files themselves are error rows of the table, each with its sentence when selected)."""
        if len(failed) <= MAX_FAILURES_SPELLED_OUT:
            return [
                self.tr("%1 was not imported: %2")
                .replace("%1", path.name)
                .replace("%2", describe(error)[1])
                for path, error in failed
            ]
        reasons = Counter(describe(error)[0] for _path, error in failed)
        listed = [
            self.tr("%1 × %2").replace("%1", fmt.integer(n)).replace("%2", title)
            for title, n in reasons.most_common(MAX_REASONS_LISTED)
        ]
        rest = len(reasons) - len(listed)
        if rest > 0:
            listed.append(self.tr("%1 other reasons").replace("%1", fmt.integer(rest)))
        return [
            self.tr(
                "%1 files were not imported (%2); they are listed as errors in the table: "
                "select one to see why."
            )
            .replace("%1", fmt.integer(len(failed)))
            .replace("%2", self.tr(", ").join(listed))
        ]

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

    def _on_import_button_clicked(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self,
            self.tr("Import GGUF models"),
            str(Path.home()),
            self.tr("GGUF models (*.gguf);;All files (*)"),
        )
        if files:
            self.import_files([Path(f) for f in files])

    def import_files(self, paths: list[Path], *, copy: bool | None = None) -> None:
        """Import ``paths`` (what a drop on the page or the window does), off the GUI thread,
        with progress and cancel; a file that fails becomes an error row with its sentence.
        ``copy``: copy into the models folder (default: the page's check box)."""
        files = [Path(p).expanduser().absolute() for p in paths]
        if not files:
            return
        do_copy = self.copy_check.isChecked() if copy is None else copy
        label = self._count(
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

    def _on_add_folder_button_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of GGUF models"))
        if folder:
            self.add_folder(Path(folder))

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
        box = QMessageBox(self)
        box.setObjectName("removeBox")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Remove from the library"))
        name = row.entry.display_name if row.entry is not None else row.path.name
        if row.downloaded and row.entry is not None:
            box.setText(self.tr("Delete %1 from the disk?").replace("%1", name))
            box.setInformativeText(
                self._count(
                    len(row.entry.parts),
                    self.tr(
                        "LLM Scout downloaded it into the models folder. Its file (%2) will be "
                        "deleted; you can download it again later."
                    ),
                    self.tr(
                        "LLM Scout downloaded it into the models folder. Its %1 files (%2) will "
                        "be deleted; you can download it again later."
                    ),
                ).replace("%2", fmt.size(row.entry.size_bytes))
            )
            confirm = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
            confirm.setObjectName("deleteButton")
        else:
            box.setText(self.tr("Forget %1?").replace("%1", name))
            info = self.tr(
                "The file stays on the disk: LLM Scout only deletes models it downloaded."
            )
            if row.stored and row.source != "imported":
                info += " " + self.tr("A rescan finds it again while it is in a scanned folder.")
            box.setInformativeText(info)
            confirm = box.addButton(self.tr("Forget"), QMessageBox.ButtonRole.AcceptRole)
            confirm.setObjectName("forgetButton")
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setWindowModality(Qt.WindowModality.WindowModal)

        def answered() -> None:
            if box.clickedButton() is confirm:
                self.remove(row)
            box.deleteLater()

        box.finished.connect(answered)
        box.open()
        return box

    def remove(self, row: LibraryRow) -> None:
        """Delete a downloaded model's files, or forget any other row (no question asked)."""
        if not row.stored:
            self._import_problems.pop(row.path, None)
            self._show_rows()
            self.message.setText(self.tr("Forgotten; the file stays on disk."))
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
