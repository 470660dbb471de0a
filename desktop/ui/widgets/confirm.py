"""A question asked before something is lost: window-modal but not blocking, Cancel the default.

:class:`ConfirmBox` is the one shape of Delete in History, Clear in the Playground and Remove in
the Library: a question icon, the sentence and what follows from it, a confirming button named
for tests, and :meth:`ConfirmBox.ask`, which opens the box and runs the action only when that
button was clicked.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget


class ConfirmBox(QMessageBox):
    """Set it up with :meth:`setup`, then :meth:`ask`. ``confirm`` is the confirming button."""

    confirm: QPushButton

    def __init__(self, parent: QWidget | None, name: str) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setIcon(QMessageBox.Icon.Question)
        self.setWindowModality(Qt.WindowModality.WindowModal)

    def setup(
        self,
        *,
        title: str,
        text: str,
        info: str,
        action: str,
        action_name: str,
        role: QMessageBox.ButtonRole = QMessageBox.ButtonRole.DestructiveRole,
    ) -> None:
        self.setWindowTitle(title)
        self.setText(text)
        self.setInformativeText(info)
        self.confirm = self.addButton(action, role)
        self.confirm.setObjectName(action_name)
        self.setDefaultButton(self.addButton(QMessageBox.StandardButton.Cancel))

    def ask(self, on_confirm: Callable[[], None]) -> ConfirmBox:
        """Open the box; ``on_confirm`` runs when the confirming button closes it. The box
        deletes itself once answered."""

        def answered() -> None:
            if self.clickedButton() is self.confirm:
                on_confirm()
            self.deleteLater()

        self.finished.connect(answered)
        self.open()
        return self
