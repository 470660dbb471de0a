"""The Library page's progress row: which library operation runs, how far it is, and Cancel.

It follows :class:`~desktop.ui.models.library_work.LibraryOperations` itself: shown when an
operation starts (busy until its first progress), a scan's folders or an import's bytes as
they come, "Stopping…" after Cancel, hidden when nothing is left to run.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from desktop.core.library import ScanProgress
from desktop.ui import format as fmt
from desktop.ui.models.library_work import ImportProgress, LibraryOperations, Operation
from desktop.ui.widgets.library_bar import icon_button


class LibraryProgress(QWidget):
    """A label, a progress bar and a Cancel button over ``operations`` (see the module
    docstring)."""

    def __init__(self, operations: LibraryOperations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.operations = operations
        self.setObjectName("libraryBusy")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.label.setObjectName("scanLabel")
        self.label.setMinimumWidth(200)
        self.bar = QProgressBar()
        self.bar.setObjectName("scanProgress")
        self.bar.setAccessibleName(self.tr("Library work in progress"))
        self.bar.setTextVisible(False)
        self.bar.setMaximumWidth(260)
        self.cancel_button = icon_button("cancelWorkButton", "stop", self.tr("Cancel"))
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        row.addWidget(self.label, 1)
        row.addWidget(self.bar)
        row.addWidget(self.cancel_button)
        self.setVisible(False)
        operations.started.connect(self._on_operations_started)
        operations.progressed.connect(self._on_operations_progressed)
        operations.idle.connect(self._on_operations_idle)

    def _on_operations_started(self, op: Operation) -> None:
        self.label.setText(op.label)
        self.label.setToolTip("")
        self.bar.setRange(0, 0)  # busy until the first progress arrives
        self.cancel_button.setEnabled(True)
        self.setVisible(True)

    def _on_operations_progressed(self, value: object) -> None:
        if isinstance(value, ScanProgress):
            self.label.setText(
                self.tr("Scanning folder %1 of %2: %3 files, %4 read")
                .replace("%1", str(value.root_index + 1))
                .replace("%2", str(value.roots_total))
                .replace("%3", fmt.integer(value.files_seen))
                .replace("%4", fmt.integer(value.headers_read))
            )
            self.label.setToolTip(str(value.current or value.root))
            self.bar.setRange(0, max(value.roots_total, 1))
            self.bar.setValue(value.root_index + 1)
        elif isinstance(value, ImportProgress):
            text = (
                self.tr("Copying %1 (%2 of %3): %4 of %5")
                if value.copy
                else self.tr("Hashing %1 (%2 of %3): %4 of %5")
            )
            self.label.setText(
                text.replace("%1", value.name)
                .replace("%2", str(value.index + 1))
                .replace("%3", str(value.count))
                .replace("%4", fmt.size(value.done))
                .replace("%5", fmt.size(value.total))
            )
            self.bar.setRange(0, 1000)
            self.bar.setValue(min(1000, value.done * 1000 // max(value.total, 1)))

    def _on_operations_idle(self) -> None:
        self.setVisible(False)

    def _on_cancel_button_clicked(self) -> None:
        if self.operations.cancel():
            self.cancel_button.setEnabled(False)
            self.label.setText(self.tr("Stopping…"))
