"""The history as a list: stored answers and comparisons, newest first.

A :class:`HistoryListing` is read on a worker thread (:func:`read_listing`: the answers of the
Playground and ``run``, the comparisons, the model names to filter by) and handed to
:meth:`HistoryModel.set_listing` on the GUI thread. A comparison's own answers are not listed
one by one: they belong to it (its detail shows them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QDateTime,
    QLocale,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor

from desktop.core.hardware import THIS_MACHINE
from desktop.core.history import ComparisonSummary, History, RunRecord
from desktop.ui import format as fmt

_Index = QModelIndex | QPersistentModelIndex

#: The :class:`HistoryItem` of a row (any column).
ITEM_ROLE = int(Qt.ItemDataRole.UserRole) + 1

ERROR_COLOR = "#c0392b"
KINDS = ("all", "run", "comparison")
ANSWER_SOURCES = ("playground", "run")  # comparison cells are listed with their comparison


@dataclass(frozen=True)
class HistoryItem:
    """One row: a stored answer (``run``) or a comparison (``comparison``)."""

    kind: str
    id: int
    created_at: float
    run: RunRecord | None = None
    comparison: ComparisonSummary | None = None

    @property
    def key(self) -> tuple[str, int]:
        return self.kind, self.id

    @property
    def title(self) -> str:
        if self.run is not None:
            return " ".join(self.run.prompt.split())
        return self.comparison.title if self.comparison is not None else ""

    @property
    def models(self) -> str:
        if self.run is not None:
            return run_model_label(self.run)
        return ", ".join(self.comparison.models) if self.comparison is not None else ""

    @property
    def machine(self) -> str:
        """The machine it ran on, as the history names it (``this machine`` for this one)."""
        if self.run is not None:
            return self.run.machine
        return self.comparison.machine if self.comparison is not None else ""

    @property
    def failed(self) -> bool:
        return self.run is not None and not self.run.ok


@dataclass(frozen=True)
class HistoryListing:
    """What the history holds for the current filters, read on a worker thread.

    ``stored``: whether anything at all is stored (False: the page shows its empty state);
    ``models``: the labels of every model that ran, for the model filter; ``machines``: (key,
    name) of every machine something is stored from, this one first, for the machine filter."""

    items: tuple[HistoryItem, ...] = ()
    models: tuple[str, ...] = ()
    stored: bool = False
    machines: tuple[tuple[str, str], ...] = ()


def read_listing(
    history: History,
    *,
    search: str = "",
    model: str = "",
    kind: str = "all",
    machine: str = "",
    limit: int = 500,
) -> HistoryListing:
    """The rows for ``search`` (words anywhere), ``model`` (part of a model's name or path),
    ``kind`` (``all``, ``run`` or ``comparison``) and ``machine`` (a machine's key; one that is
    no longer stored is no filter), newest first."""
    machines = tuple((m.key, m.name) for m in history.machines())
    on = machine if machine in {key for key, _ in machines} else None
    items: list[HistoryItem] = []
    if kind in ("all", "run"):
        for source in ANSWER_SOURCES:
            for run in history.runs(
                search=search or None, model=model or None, source=source, limit=limit, machine=on
            ):
                items.append(HistoryItem("run", run.id, run.created_at, run=run))
    if kind in ("all", "comparison"):
        for summary in history.comparisons(
            search=search or None, model=model or None, limit=limit, machine=on
        ):
            items.append(
                HistoryItem("comparison", summary.id, summary.created_at, comparison=summary)
            )
    items.sort(key=lambda item: (item.created_at, item.id), reverse=True)
    stored = bool(items)
    if not stored and (search or model or on or kind != "all"):
        stored = any(history.runs(source=s, limit=1) for s in ANSWER_SOURCES) or bool(
            history.comparisons(limit=1)
        )
    labels = sorted({m.label for m in history.models()}, key=str.casefold)
    return HistoryListing(tuple(items[:limit]), tuple(labels), stored, machines)


def run_model_label(run: RunRecord) -> str:
    """The model an answer ran on: its file's label, or ``NAME @ URL`` for a server's."""
    if run.model is not None:
        return run.model.label
    remote = run.remote
    if remote is not None and remote.get("model"):
        return f"{remote['model']} @ {remote.get('endpoint', '')}".strip(" @")
    return "-"


def machine_text(name: str) -> str:
    """A machine's name as shown: this one in the UI's language."""
    if not name or name == THIS_MACHINE:
        return QCoreApplication.translate("History", "This machine")
    return name


def when_text(timestamp: float) -> str:
    """The date and time in the UI's locale, short."""
    moment = QDateTime.fromMSecsSinceEpoch(int(timestamp * 1000))
    return QLocale().toString(moment, QLocale.FormatType.ShortFormat)


def state_text(summary: ComparisonSummary) -> str:
    return {
        "complete": QCoreApplication.translate("History", "complete"),
        "running": QCoreApplication.translate("History", "interrupted"),
        "cancelled": QCoreApplication.translate("History", "cancelled"),
        "partial": QCoreApplication.translate("History", "partial"),
    }.get(summary.state, summary.state)


def result_text(item: HistoryItem) -> str:
    """``58.2 t/s``, ``failed``, ``complete · 4/4 answers``."""
    if item.run is not None:
        run = item.run
        rate = run.report.metrics.tokens_per_s if run.report is not None else None
        if not run.ok:
            return QCoreApplication.translate("History", "cut off") + (
                " · " + fmt.rate(rate) if rate else ""
            )
        if run.finish_reason == "cancelled":
            return QCoreApplication.translate("History", "stopped") + (
                " · " + fmt.rate(rate) if rate else ""
            )
        return fmt.rate(rate)
    summary = item.comparison
    if summary is None:
        return ""
    return (
        state_text(summary)
        + " · "
        + QCoreApplication.translate("History", "%1/%2 answers")
        .replace("%1", str(summary.n_answers))
        .replace("%2", str(summary.n_expected))
    )


class HistoryModel(QAbstractTableModel):
    """Rows of the history, newest first."""

    COL_WHEN, COL_KIND, COL_TITLE, COL_MODELS, COL_MACHINE, COL_RESULT = range(6)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[HistoryItem] = []

    def set_listing(self, listing: HistoryListing) -> None:
        self.beginResetModel()
        self.items = list(listing.items)
        self.endResetModel()

    def item(self, row: int) -> HistoryItem | None:
        return self.items[row] if 0 <= row < len(self.items) else None

    def row_of(self, key: tuple[str, int]) -> int:
        return next((i for i, item in enumerate(self.items) if item.key == key), -1)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 6

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        return (
            QCoreApplication.translate("History", "When"),
            QCoreApplication.translate("History", "Kind"),
            QCoreApplication.translate("History", "Prompt or title"),
            QCoreApplication.translate("History", "Model"),
            QCoreApplication.translate("History", "Machine"),
            QCoreApplication.translate("History", "Result"),
        )[section]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        item = self.item(index.row())
        if item is None:
            return None
        column = index.column()
        if role == ITEM_ROLE:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.COL_WHEN:
                return when_text(item.created_at)
            if column == self.COL_KIND:
                return (
                    QCoreApplication.translate("History", "Answer")
                    if item.kind == "run"
                    else QCoreApplication.translate("History", "Comparison")
                )
            if column == self.COL_TITLE:
                return item.title
            if column == self.COL_MODELS:
                return item.models
            if column == self.COL_MACHINE:
                return machine_text(item.machine)
            if column == self.COL_RESULT:
                return result_text(item)
        if role == Qt.ItemDataRole.ToolTipRole and column in (self.COL_TITLE, self.COL_MODELS):
            return item.title if column == self.COL_TITLE else item.models
        if role == Qt.ItemDataRole.ToolTipRole and column == self.COL_RESULT and item.failed:
            return item.run.error if item.run is not None else None
        if role == Qt.ItemDataRole.ForegroundRole and column == self.COL_RESULT and item.failed:
            return QColor(ERROR_COLOR)
        return None
