"""The Library page's table: the library's rows sorted through a proxy, one selected at a time.

Columns are as wide as the texts they hold (in the UI's language and font), so nothing is cut
at 1280x800; the path takes what is left and is cut in the middle (the details line below the
table shows it whole). A problem row's sentence spans the model columns, recomputed after each
sort. The page finds and selects rows by their file (:meth:`LibraryTable.select_path`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from desktop.ui.models.library_model import ROW_ROLE, SORT_ROLE, LibraryModel, LibraryRow
from desktop.ui.widgets.elide_delegate import ElideDelegate


class LibraryTable(QTableView):
    """``source_model`` (the page's model) shown through ``proxy``, sorted by name at first."""

    def __init__(self, source_model: LibraryModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source_model = source_model
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(source_model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setObjectName("libraryTable")
        self.setAccessibleName(self.tr("Models on this machine"))
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(LibraryModel.COL_NAME, Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 12)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(LibraryModel.COL_PATH, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(48)
        for column, width in self._widths().items():
            self.setColumnWidth(column, width)
        self.setItemDelegateForColumn(LibraryModel.COL_ARCH, ElideDelegate(self))
        for signal in (
            self.proxy.layoutChanged,
            self.proxy.modelReset,
            self.proxy.rowsInserted,
            self.proxy.rowsRemoved,
        ):
            signal.connect(self._update_spans)

    def _widths(self) -> dict[int, int]:
        """Each column but the path's, from its title and the widest text it usually holds."""
        model = self.source_model
        metrics = self.fontMetrics()

        def fit(*texts: str) -> int:
            return max(metrics.horizontalAdvance(t) for t in texts) + 24

        def title(column: int) -> str:
            return str(model.headerData(column, Qt.Orientation.Horizontal))

        return {
            LibraryModel.COL_NAME: fit("SmolLM2 135M Instruct Q4_K_M"),
            LibraryModel.COL_ARCH: fit(title(LibraryModel.COL_ARCH), "deepseek2"),
            LibraryModel.COL_PARAMS: fit(title(LibraryModel.COL_PARAMS), "72.7B"),
            LibraryModel.COL_QUANT: fit(title(LibraryModel.COL_QUANT), "Q4_K_M"),
            LibraryModel.COL_SIZE: fit(title(LibraryModel.COL_SIZE), "999.9 MiB"),
            LibraryModel.COL_CONTEXT: fit(title(LibraryModel.COL_CONTEXT), "131,072"),
            LibraryModel.COL_SOURCE: fit(model.source_word("hf-cache")),
            LibraryModel.COL_MATCH: fit("qwen2.5-7b-instruct:Q4_K_M"),
        }

    def _update_spans(self) -> None:
        """A problem row's sentence spans the model columns (recomputed after each sort)."""
        self.clearSpans()
        for proxy_row in range(self.proxy.rowCount()):
            row = self.proxy.index(proxy_row, 0).data(ROW_ROLE)
            if isinstance(row, LibraryRow) and row.problem is not None:
                self.setSpan(proxy_row, LibraryModel.COL_ARCH, 1, LibraryModel.PROBLEM_SPAN)

    def selected_row(self) -> LibraryRow | None:
        rows = self.selectionModel().selectedRows()
        if not rows:
            return None
        row = rows[0].data(ROW_ROLE)
        return row if isinstance(row, LibraryRow) else None

    def select_path(self, path: Path) -> bool:
        """Select the row of the file at ``path``; False when the table has none."""
        source_row = self.source_model.find(path)
        if source_row < 0:
            return False
        index = self.proxy.mapFromSource(self.source_model.index(source_row, 0))
        self.selectRow(index.row())
        return True
