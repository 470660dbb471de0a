"""The History page's side pane: the selected answer or comparison in detail, and what can be
done with it (open a comparison in Compare, re-run it, delete it after asking).

The full record (a comparison with its answers, an answer with its machine) and the quality
measured for its model files are read off the GUI thread when a row is selected.

Signals:
    open_comparison_requested(int): show this stored comparison (the Compare page).
    rerun_comparison_requested(int): run this comparison again on this machine.
    rerun_answer_requested(object): the :class:`~desktop.core.history.RunRecord` to ask again.
    deleted(): a stored answer or comparison was deleted (the list reads again).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget
from shiboken6 import isValid

from desktop.core.history import ComparisonRecord, History, RunRecord
from desktop.core.quality import of_models
from desktop.ui.errors import describe
from desktop.ui.models.history_model import HistoryItem
from desktop.ui.widgets.confirm import ConfirmBox
from desktop.ui.widgets.history_detail import HistoryDetail
from desktop.ui.workers import LatestOnly, TaskControl, run_task


class HistoryPane(QWidget):
    """The detail, a message line and the Open / Re-run / Delete buttons (see the module
    docstring)."""

    open_comparison_requested = Signal(int)
    rerun_comparison_requested = Signal(int)
    rerun_answer_requested = Signal(object)
    deleted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.current: HistoryItem | None = None
        self.detail_record: RunRecord | ComparisonRecord | None = None
        self._closed = False
        self._reader: LatestOnly[tuple[HistoryItem, Any]] = LatestOnly(
            self._on_detail, self.show_error
        )
        self.detail = HistoryDetail()
        self.message = QLabel()
        self.message.setObjectName("historyMessage")
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        self.open_button = QPushButton(self.tr("Open"))
        self.open_button.setObjectName("openButton")
        self.open_button.setToolTip(self.tr("Show this comparison in the Compare page."))
        self.rerun_button = QPushButton(self.tr("Re-run on this machine"))
        self.rerun_button.setObjectName("rerunButton")
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.setObjectName("deleteButton")
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.rerun_button)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.detail, 1)
        column.addWidget(self.message)
        column.addLayout(buttons)
        self.open_button.clicked.connect(self.open_selected)
        self.rerun_button.clicked.connect(self.rerun_selected)
        self.delete_button.clicked.connect(self._on_delete_button_clicked)
        self._update_buttons()

    def show_error(self, error: Exception) -> None:
        """Say in the message line why something could not be read or done."""
        if self._closed or not isValid(self):
            return
        title, sentence = describe(error)
        self.message.setText(f"{title}: {sentence}")

    # -- selection and detail ---------------------------------------------------------------------

    def select(self, item: HistoryItem | None) -> None:
        """Show ``item`` (None: nothing selected)."""
        self.current = item
        self.detail_record = None
        self.message.setText("")
        self._update_buttons()
        if item is None:
            self._reader.cancel()
            self.detail.clear_detail()
            return
        self.read(item)

    def read(self, item: HistoryItem) -> None:
        """The item's full record (a comparison with its answers, an answer with its machine),
        read off the GUI thread."""

        def work(control: TaskControl) -> tuple[HistoryItem, Any]:
            with History.open() as history:
                stored = history.measurements(kind="quality")
                if item.kind == "comparison":
                    record = history.comparison(item.id)
                    models = [c.model for c in record.contestants if c.model is not None]
                    return item, (record, of_models(stored, models))
                run = history.run(item.id)
                models = [run.model] if run.model is not None else []
                found = of_models(stored, models)
                return item, (run, history.run_profile(item.id), found)

        self._reader.submit(work)

    def _on_detail(self, result: tuple[HistoryItem, Any]) -> None:
        if self._closed or not isValid(self):
            return
        item, record = result
        if self.current is None or item.key != self.current.key:
            return
        if isinstance(record[0], ComparisonRecord):
            comparison, measurements = record
            self.detail_record = comparison
            self.detail.show_comparison(comparison, measurements)
        else:
            run, profile, measurements = record
            self.detail_record = run
            self.detail.show_run(run, profile, measurements)
        self._update_buttons()

    def _update_buttons(self) -> None:
        item = self.current
        self.open_button.setEnabled(item is not None and item.kind == "comparison")
        self.rerun_button.setEnabled(item is not None)
        self.delete_button.setEnabled(item is not None)
        if item is not None and item.kind == "run":
            self.rerun_button.setToolTip(
                self.tr("Open this server and model in the Playground with this prompt.")
                if item.run is not None and item.run.remote is not None
                else self.tr("Open this model in the Playground with this prompt.")
            )
        else:
            self.rerun_button.setToolTip(
                self.tr("Run this comparison again on this machine, in the Compare page.")
            )

    # -- actions ----------------------------------------------------------------------------------

    def open_selected(self) -> bool:
        """Show the selected comparison in the Compare page."""
        item = self.current
        if item is None or item.kind != "comparison":
            return False
        self.open_comparison_requested.emit(item.id)
        return True

    def rerun_selected(self) -> bool:
        """A comparison runs again in the Compare page; an answer's model opens in the
        Playground with its prompt (its file must still be there)."""
        item = self.current
        if item is None:
            return False
        if item.kind == "comparison":
            self.rerun_comparison_requested.emit(item.id)
            return True
        run = item.run
        if run is not None and run.remote is not None:
            self.rerun_answer_requested.emit(run)  # its server, to connect to again
            return True
        if run is None or run.model is None:
            self.message.setText(self.tr("The model of this answer is not known."))
            return False
        if not run.model.path.is_file():
            self.message.setText(
                self.tr("The model file %1 is gone.").replace("%1", str(run.model.path))
            )
            return False
        self.rerun_answer_requested.emit(run)
        return True

    def _on_delete_button_clicked(self) -> None:
        if self.current is not None:
            self.ask_delete(self.current)

    def ask_delete(self, item: HistoryItem) -> QMessageBox:
        """Ask first (window-modal, not blocking), then delete."""
        box = ConfirmBox(self, "deleteBox")
        if item.kind == "comparison":
            text = self.tr("Delete the comparison “%1”?").replace("%1", item.title)
            info = self.tr("Its answers and votes are deleted with it.")
        else:
            text = self.tr("Delete this answer of %1?").replace("%1", item.models)
            info = self.tr("The model file stays on the disk.")
        box.setup(
            title=self.tr("Delete from the history"),
            text=text,
            info=info,
            action=self.tr("Delete"),
            action_name="confirmDeleteButton",
        )
        return box.ask(lambda: self.delete(item))

    def delete(self, item: HistoryItem) -> None:
        """Delete a stored answer or comparison (no question asked); ``deleted`` follows."""
        if self._closed:
            return

        def work(control: TaskControl) -> bool:
            with History.open() as history:
                if item.kind == "comparison":
                    return history.delete_comparison(item.id)
                return history.delete_run(item.id)

        def done(_deleted: bool) -> None:
            if self._closed or not isValid(self):
                return
            if self.current is not None and self.current.key == item.key:
                self.current = None
            self.deleted.emit()

        run_task(work, on_done=done, on_failed=self.show_error)

    def shutdown(self) -> None:
        """The window closes: stop reading."""
        self._closed = True
        self._reader.cancel()
