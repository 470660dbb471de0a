"""The library as a table: every model file the library knows, and the files it could not read.

A :class:`LibraryListing` is read on a worker thread (entries, problems, which entries the app
downloaded) and handed to :meth:`LibraryModel.set_listing` on the GUI thread. Problem rows (an
unreadable GGUF, a broken layout, a file whose import failed) carry the reader's one sentence
with the kind's translated title. Sorting goes through a proxy on :data:`SORT_ROLE`, whose
values have one type per column (numbers for numbers, text for text).

The cells live in C++ (a ``QStandardItemModel`` filled once per listing): painting the table and
sorting it never call back into Python (the repaint times before and after are in
benchmarks/RESULTS.md, "GUI stalls").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPalette, QStandardItemModel
from PySide6.QtWidgets import QApplication, QStyle

from desktop.core.library import LibraryEntry, LibraryProblem
from desktop.ui import format as fmt
from desktop.ui.error_sentences import translated
from desktop.ui.errors import title_for

_Index = QModelIndex | QPersistentModelIndex

#: The :class:`LibraryRow` of a row (any column).
ROW_ROLE = int(Qt.ItemDataRole.UserRole) + 1
#: What the proxy sorts by: a number for numeric columns, lowercase text otherwise.
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 2

ERROR_COLOR = "#c0392b"


@dataclass(frozen=True)
class LibraryListing:
    """What the library holds now, read on a worker thread."""

    entries: tuple[LibraryEntry, ...] = ()
    problems: tuple[LibraryProblem, ...] = ()
    downloaded: frozenset[Path] = frozenset()  # entries the app downloaded (deletable)

    def fingerprint(self) -> tuple[object, ...]:
        """What others care about (not ``last_seen``): equal when nothing changed."""
        return (
            tuple(
                (e.path, e.source, e.size_bytes, e.mtime_ns, e.missing, e.variant_id)
                for e in self.entries
            ),
            tuple((p.path, p.message) for p in self.problems),
        )


@dataclass(frozen=True)
class LibraryRow:
    """One row: a model (``entry``) or a file that cannot be used (``problem``).

    ``downloaded``: the app downloaded it into the models folder (removing deletes the files).
    ``stored``: the row is in the library database (False for an import that failed: it lives
    only in this window until it is removed).
    """

    path: Path
    entry: LibraryEntry | None = None
    problem: LibraryProblem | None = None
    downloaded: bool = False
    stored: bool = True

    @property
    def source(self) -> str:
        if self.entry is not None:
            return self.entry.source
        return self.problem.source if self.problem is not None else ""


def _shown(row: LibraryRow) -> LibraryRow:
    """The row as far as the table shows it: without the times of the last scan."""
    if row.entry is not None:
        row = replace(row, entry=replace(row.entry, first_seen=0.0, last_seen=0.0))
    if row.problem is not None:
        row = replace(row, problem=replace(row.problem, first_seen=0.0, last_seen=0.0))
    return row


class LibraryModel(QStandardItemModel):
    """Rows of the library: models first as the database lists them, then problem files."""

    (
        COL_NAME,
        COL_ARCH,
        COL_PARAMS,
        COL_QUANT,
        COL_SIZE,
        COL_CONTEXT,
        COL_SOURCE,
        COL_MATCH,
        COL_PATH,
    ) = range(9)
    NUMERIC = (COL_PARAMS, COL_SIZE, COL_CONTEXT)
    #: Columns a problem row's sentence spans (from COL_ARCH).
    PROBLEM_SPAN = COL_SOURCE - COL_ARCH

    COLUMN_COUNT = 9

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[LibraryRow] = []
        self._cells: list[list[dict[int, Any]]] = []  # each row's roles, as stored
        self._warning: QIcon | None = None
        self.setColumnCount(self.COLUMN_COUNT)
        horizontal = Qt.Orientation.Horizontal
        for column in range(self.COLUMN_COUNT):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = self._header(column, role)
                if value is not None:
                    self.setHeaderData(column, horizontal, value, role)

    # -- contents -------------------------------------------------------------------------------

    def set_rows(self, rows: list[LibraryRow]) -> None:
        """Replace every row (a model reset); each cell's roles are stored here, once.

        A listing that shows the same as the one before (a rescan that found nothing new: only
        the scan times moved) changes nothing on screen and costs no reset; the cells of rows
        shown before are reused rather than computed again."""
        rows = list(rows)
        keys = [_shown(row) for row in rows]
        if keys == [_shown(row) for row in self._rows]:
            self._rows = rows
            return
        cells = {_shown(row): cached for row, cached in zip(self._rows, self._cells, strict=True)}
        self.beginResetModel()
        blocked = self.blockSignals(True)
        try:
            self._rows = rows
            self._cells = []
            self.setRowCount(len(rows))
            for number, (row, key) in enumerate(zip(rows, keys, strict=True)):
                row_cells = cells.get(key)
                if row_cells is None:
                    row_cells = [self._roles(row, column) for column in range(self.COLUMN_COUNT)]
                self._cells.append(row_cells)
                for column, roles in enumerate(row_cells):
                    index = self.index(number, column)
                    self.clearItemData(index)
                    self.setItemData(index, {**roles, ROW_ROLE: row})
        finally:
            self.blockSignals(blocked)
        self.endResetModel()

    def row(self, index: int) -> LibraryRow | None:
        return self._rows[index] if 0 <= index < len(self._rows) else None

    def rows(self) -> list[LibraryRow]:
        return list(self._rows)

    def find(self, path: Path) -> int:
        for index, row in enumerate(self._rows):
            if row.path == path:
                return index
        return -1

    # -- the cells ------------------------------------------------------------------------------

    def _header(self, section: int, role: int) -> Any:
        titles = (
            self.tr("Name"),
            self.tr("Architecture"),
            self.tr("Params"),
            self.tr("Quant"),
            self.tr("Size"),
            self.tr("Context"),
            self.tr("Source"),
            self.tr("Catalog variant"),
            self.tr("Path"),
        )
        if role == Qt.ItemDataRole.DisplayRole:
            return titles[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            tips = {
                self.COL_PARAMS: self.tr("Parameters, from the file's tensors."),
                self.COL_CONTEXT: self.tr("The context length the model was trained for."),
                self.COL_MATCH: self.tr(
                    "The catalog variant this file was matched to (by sha256, file name or the "
                    "header's facts), which the fit estimate and the Models page use."
                ),
            }
            return tips.get(section)
        return None

    def _roles(self, row: LibraryRow, column: int) -> dict[int, Any]:
        text = self.text(row, column)
        roles: dict[int, Any] = {
            ROW_ROLE: row,
            SORT_ROLE: self._sort_value(row, column),
            Qt.ItemDataRole.DisplayRole: text,
            Qt.ItemDataRole.AccessibleTextRole: text,
        }
        tooltip = self._tooltip(row, column)
        if tooltip:
            roles[Qt.ItemDataRole.ToolTipRole] = tooltip
        if column in self.NUMERIC:
            roles[Qt.ItemDataRole.TextAlignmentRole] = int(
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            )
        if column == self.COL_NAME:
            icon = self._icon(row)
            if icon is not None:
                roles[Qt.ItemDataRole.DecorationRole] = icon
        if row.problem is not None and column in (self.COL_NAME, self.COL_ARCH):
            roles[Qt.ItemDataRole.ForegroundRole] = QColor(ERROR_COLOR)
        elif row.entry is not None and row.entry.missing:
            roles[Qt.ItemDataRole.ForegroundRole] = QApplication.palette().color(
                QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text
            )
            font = QFont()
            font.setItalic(True)
            roles[Qt.ItemDataRole.FontRole] = font
        return roles

    # -- texts ----------------------------------------------------------------------------------

    def source_word(self, source: str) -> str:
        words = {
            "downloaded": self.tr("Downloaded"),
            "imported": self.tr("Imported"),
            "hf-cache": self.tr("Hugging Face cache"),
            "lmstudio": self.tr("LM Studio"),
            "ollama": self.tr("Ollama"),
            "gpt4all": self.tr("GPT4All"),
            "folder": self.tr("Your folder"),
            "demo": self.tr("Demo model"),
        }
        return words.get(source, source)

    def problem_text(self, row: LibraryRow) -> str:
        problem = row.problem
        if problem is None:
            return ""
        return (
            self.tr("%1: %2")
            .replace("%1", title_for(problem.kind))
            .replace("%2", translated(problem.sentence, problem.message))
        )

    def text(self, row: LibraryRow, column: int) -> str:
        entry = row.entry
        if column == self.COL_NAME:
            if entry is not None:
                return entry.display_name
            return row.path.name
        if column == self.COL_SOURCE:
            if entry is None and not row.stored and row.source == "imported":
                return self.tr("Not imported")  # an import that failed: its sentence follows
            if entry is not None and entry.missing:
                return self.tr("%1 (missing)").replace("%1", self.source_word(row.source))
            return self.source_word(row.source)
        if column == self.COL_PATH:
            return str(row.path)
        if entry is None:
            return self.problem_text(row) if column == self.COL_ARCH else ""
        if column == self.COL_ARCH:
            return entry.architecture or "-"
        if column == self.COL_PARAMS:
            return fmt.params(entry.n_params)
        if column == self.COL_QUANT:
            return entry.quant or "-"
        if column == self.COL_SIZE:
            return fmt.size(entry.size_bytes)
        if column == self.COL_CONTEXT:
            return fmt.integer(entry.n_ctx_train) if entry.n_ctx_train else "-"
        if column == self.COL_MATCH:
            return entry.variant_id or ""
        return ""

    def _tooltip(self, row: LibraryRow, column: int) -> str:
        entry = row.entry
        if row.problem is not None:
            return self.problem_text(row) + "\n" + str(row.path)
        if entry is None:
            return ""
        if column == self.COL_NAME and entry.missing:
            return self.tr("The file is gone since the last scan: %1").replace(
                "%1", str(entry.path)
            )
        if column == self.COL_MATCH:
            if not entry.variant_id:
                return self.tr("Not matched to a catalog variant.")
            methods = {
                "sha256": self.tr("matched by its sha256"),
                "file_name": self.tr("matched by its file name"),
                "metadata": self.tr("matched by the header's facts"),
            }
            how = methods.get(entry.match_method or "", entry.match_method or "")
            return f"{entry.variant_id} ({how})"
        if column == self.COL_PATH and len(entry.parts) > 1:
            return "\n".join(str(p) for p in entry.parts)
        if column == self.COL_SIZE:
            return self.tr("%1 bytes").replace("%1", fmt.integer(entry.size_bytes))
        return self.text(row, column)

    def _icon(self, row: LibraryRow) -> QIcon | None:
        if row.problem is None:
            return None
        if self._warning is None:  # one icon for every problem row (the style makes it anew)
            style = QApplication.style()
            self._warning = style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        return self._warning

    def _sort_value(self, row: LibraryRow, column: int) -> int | str:
        entry = row.entry
        if column in self.NUMERIC:
            if entry is None:
                return -1
            if column == self.COL_PARAMS:
                return entry.n_params
            if column == self.COL_SIZE:
                return entry.size_bytes
            return entry.n_ctx_train
        return self.text(row, column).lower()
