"""History: every stored answer and comparison, newest first, to search, open, re-run or delete;
results from other machines imported, and the same model compared across machines.

The list (:class:`~desktop.ui.models.history_model.HistoryModel`) shows the Playground's
answers and the comparisons, each with the machine it ran on; a search box (words in a prompt,
an answer, a title or a name), a model filter and a machine filter narrow it. Import… (or a
results file dropped on the page) merges a file written by ``llm-scout history export`` on
another machine; Export… writes this history's results to one. The "Across machines" tab
(:class:`~desktop.ui.widgets.across_machines.AcrossMachinesView`) puts one model with the same
settings side by side on every machine that ran it, and makes an imported machine the profile
to estimate for. The side pane (:class:`~desktop.ui.widgets.history_pane.HistoryPane`) shows
the selected answer (prompt, output, predicted vs measured, settings, the model file, its
quality measured, the machine) or comparison (contestants with their figures, their quality
measured, prompts). Open shows a comparison in the Compare page; Re-run on this machine runs a
comparison again there, or opens an answer's model (or its server and model name) in the
Playground with its prompt; Delete asks first. Everything is read and written off the GUI
thread; the page reads again when it is shown and
when another page stored something (:meth:`refresh`).

Signals:
    open_comparison_requested(int): show this stored comparison (the Compare page).
    rerun_comparison_requested(int): run this comparison again on this machine.
    rerun_answer_requested(object): the :class:`~desktop.core.history.RunRecord` to ask again
        (its model, or its server, opens in the Playground with its prompt).
    listing_changed(): the list was read again (tests wait on it).
    transfer_finished(str): an import or export ended, with the sentence shown.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QItemSelection, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.history import ComparisonRecord, History, RunRecord
from desktop.ui.models.history_model import (
    ITEM_ROLE,
    HistoryItem,
    HistoryListing,
    HistoryModel,
    read_listing,
)
from desktop.ui.state import AppState
from desktop.ui.widgets.across_machines import AcrossMachinesView
from desktop.ui.widgets.empty_state import EmptyState
from desktop.ui.widgets.history_bar import HistoryBar
from desktop.ui.widgets.history_pane import HistoryPane
from desktop.ui.widgets.results_transfer import ResultsTransfer, dropped_file
from desktop.ui.window_settings import window_settings
from desktop.ui.workers import LatestOnly, TaskControl

log = logging.getLogger(__name__)

GROUP = "history"
SEARCH_DELAY_MS = 250  # typing: read again once the person pauses


class HistoryPage(QWidget):
    """The History page (see the module docstring)."""

    open_comparison_requested = Signal(int)
    rerun_comparison_requested = Signal(int)
    rerun_answer_requested = Signal(object)
    listing_changed = Signal()
    transfer_finished = Signal(str)

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.listing = HistoryListing()
        self._closed = False
        self._reader: LatestOnly[HistoryListing] = LatestOnly(self._on_listing, self._on_failed)
        self._build()
        self._connect()
        self._restore(window_settings())

    # -- building ---------------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)

        self.bar = HistoryBar()
        # The bar's fields, by the names the page and its tests use.
        self.search = self.bar.search
        self.model_filter = self.bar.model_filter
        self.machine_filter = self.bar.machine_filter
        self.kind_filter = self.bar.kind_filter
        self.count_label = self.bar.count_label
        self.import_button = self.bar.import_button
        self.export_button = self.bar.export_button
        list_tab = QWidget()
        list_column = QVBoxLayout(list_tab)
        list_column.setContentsMargins(0, 6, 0, 0)
        list_column.addWidget(self.bar)

        self.model = HistoryModel(self)
        self.table = QTableView()
        self.table.setObjectName("historyTable")
        self.table.setAccessibleName(self.tr("Stored answers and comparisons"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        for column in range(self.model.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(HistoryModel.COL_TITLE, QHeaderView.ResizeMode.Stretch)
        # A comparison's models are a long list: a column of its own width, elided (the tooltip
        # has them all), so that the machine and the result stay in sight next to the title.
        header.setSectionResizeMode(HistoryModel.COL_MODELS, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(
            HistoryModel.COL_MODELS, self.table.fontMetrics().horizontalAdvance("M" * 12)
        )
        header.setMinimumSectionSize(self.table.fontMetrics().horizontalAdvance("M" * 4))
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)

        self.pane = HistoryPane()
        # The pane's parts, by the names the page and its tests use.
        self.detail = self.pane.detail
        self.message = self.pane.message
        self.open_button = self.pane.open_button
        self.rerun_button = self.pane.rerun_button
        self.delete_button = self.pane.delete_button

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("historySplitter")
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.pane)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 1)

        self.empty = EmptyState(
            self.tr(
                "Nothing is stored yet. Every answer from the Playground and every comparison "
                "from the Compare page is kept here, newest first, with its measurements, "
                "settings and the machine it ran on."
            )
        )
        self.empty.setObjectName("historyEmpty")
        empty_import = self.empty.add_button(
            QPushButton(self.tr("Import another machine's results…"))
        )
        empty_import.setObjectName("emptyImportButton")
        empty_import.clicked.connect(self._on_import_button_clicked)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.empty)
        list_column.addWidget(self.stack, 1)

        self.across = AcrossMachinesView()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("historyTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(list_tab, self.tr("Answers and comparisons"))
        self.tabs.addTab(self.across, self.tr("Across machines"))
        self.tabs.setTabToolTip(
            1, self.tr("One model with the same settings side by side on each machine.")
        )
        outer.addWidget(self.tabs, 1)
        self.transfer = ResultsTransfer(self.state)
        outer.addWidget(self.transfer)
        self.setAcceptDrops(True)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)

    def _connect(self) -> None:
        self.search.textChanged.connect(self._on_search_text_changed)
        self._search_timer.timeout.connect(self.refresh)
        self.model_filter.activated.connect(self._on_filter_activated)
        self.machine_filter.activated.connect(self._on_filter_activated)
        self.kind_filter.activated.connect(self._on_filter_activated)
        self.import_button.clicked.connect(self._on_import_button_clicked)
        self.export_button.clicked.connect(self._on_export_button_clicked)
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.across.profile_requested.connect(self.transfer.use_machine)
        self.transfer.finished.connect(self.transfer_finished)
        self.transfer.imported.connect(self._on_transfer_imported)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.pane.open_comparison_requested.connect(self.open_comparison_requested)
        self.pane.rerun_comparison_requested.connect(self.rerun_comparison_requested)
        self.pane.rerun_answer_requested.connect(self.rerun_answer_requested)
        self.pane.deleted.connect(self.refresh)

    # -- persistence ------------------------------------------------------------------------------

    def _restore(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        sizes = settings.value("splitter")
        if sizes is not None:
            self.splitter.restoreState(sizes)
        settings.endGroup()

    def save_state(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        settings.setValue("splitter", self.splitter.saveState())
        settings.endGroup()

    # -- reading ----------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
        if self.tabs.currentWidget() is self.across:
            self.across.refresh()

    def _on_tabs_current_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is self.across:
            self.across.refresh()

    def _on_search_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    def _on_filter_activated(self, _index: int) -> None:
        self.refresh()

    def history_stored(self) -> None:
        """Another page stored something: read again now if this page is shown; else showing
        it reads (a hidden page would otherwise read and lay out the whole list after every
        answer, a cost that grows with the history)."""
        if self.isVisible():
            self.refresh()
            if self.tabs.currentWidget() is self.across:
                self.across.refresh()

    def refresh(self) -> None:
        """Read the list again for the current search and filters (off the GUI thread)."""
        if self._closed:
            return
        self._search_timer.stop()
        search, model, kind, machine = self.bar.filters()

        def work(control: TaskControl) -> HistoryListing:
            with History.open() as history:
                return read_listing(history, search=search, model=model, kind=kind, machine=machine)

        self._reader.submit(work)

    def _on_listing(self, listing: HistoryListing) -> None:
        if self._closed or not isValid(self):
            return
        keep = self.current.key if self.current is not None else None
        self.listing = listing
        self.bar.fill_models(listing.models)
        self.bar.fill_machines(listing.machines)
        self.model.set_listing(listing)
        self.stack.setCurrentWidget(self.splitter if listing.stored else self.empty)
        n = len(listing.items)
        self.count_label.setText(
            self.tr("1 item") if n == 1 else self.tr("%1 items").replace("%1", str(n))
        )
        row = self.model.row_of(keep) if keep is not None else -1
        if row < 0 and n:
            row = 0
        if row >= 0:
            self.table.selectRow(row)
            item = self.model.item(row)
            if item is not None and item.key == keep:
                self.pane.read(item)  # the same row again: its data may have changed
        else:
            self._select(None)
            if listing.stored:
                self.detail.clear_detail(self.tr("Nothing matches the search and filters."))
        self.listing_changed.emit()

    def _on_failed(self, error: Exception) -> None:
        if not self._closed:
            self.pane.show_error(error)

    # -- selection and detail ---------------------------------------------------------------------

    def selected_item(self) -> HistoryItem | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = rows[0].data(ITEM_ROLE)
        return item if isinstance(item, HistoryItem) else None

    def _on_table_selection_changed(self, _new: QItemSelection, _old: QItemSelection) -> None:
        item = self.selected_item()
        if item is None or self.current is None or item.key != self.current.key:
            self._select(item)

    def select(self, kind: str, item_id: int) -> bool:
        """Select a row (``"run"``/``"comparison"`` and its id); False when it is not listed."""
        row = self.model.row_of((kind, item_id))
        if row < 0:
            return False
        self.table.selectRow(row)
        return True

    def _select(self, item: HistoryItem | None) -> None:
        self.pane.select(item)

    @property
    def current(self) -> HistoryItem | None:
        """The selected answer or comparison."""
        return self.pane.current

    @property
    def detail_record(self) -> RunRecord | ComparisonRecord | None:
        """The selected item's full record, once read."""
        return self.pane.detail_record

    # -- actions ----------------------------------------------------------------------------------

    def open_selected(self) -> bool:
        """Show the selected comparison in the Compare page."""
        return self.pane.open_selected()

    def rerun_selected(self) -> bool:
        """A comparison runs again in the Compare page; an answer's model opens in the
        Playground with its prompt (its file must still be there)."""
        return self.pane.rerun_selected()

    def ask_delete(self, item: HistoryItem) -> QMessageBox:
        """Ask first (window-modal, not blocking), then delete."""
        return self.pane.ask_delete(item)

    def delete(self, item: HistoryItem) -> None:
        """Delete a stored answer or comparison (no question asked), then read again."""
        self.pane.delete(item)

    # -- results of other machines ----------------------------------------------------------------

    def _on_import_button_clicked(self) -> None:
        path = self.transfer.ask_import_path()
        if path is not None:
            self.import_file(path)

    def _on_export_button_clicked(self) -> None:
        found = self.transfer.ask_export_path()
        if found is not None:
            self.export_file(*found)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_file(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_file(event.mimeData())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.import_file(path)

    def import_file(self, path: Path) -> None:
        """Merge a results file into the history (off the GUI thread); the page says what came
        in (or, in one sentence, why nothing did) and reads again."""
        if not self._closed:
            self.transfer.import_file(path)

    def export_file(self, path: Path, name: str) -> None:
        """Write this history's results to ``path`` (off the GUI thread), this machine named
        ``name`` in it."""
        if not self._closed:
            self.transfer.export_file(path, name=name)

    def _on_transfer_imported(self) -> None:
        if self._closed or not isValid(self):
            return
        self.refresh()
        self.across.refresh()
        self.state.load_machine_profiles()

    # -- the end ----------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """The window closes: stop reading."""
        self._closed = True
        self._search_timer.stop()
        self._reader.cancel()
        self.pane.shutdown()
        self.across.shutdown()
