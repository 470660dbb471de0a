"""The question the Library page asks before removing a row: delete a model the app downloaded
(its files, with their size), or forget any other file (it stays on the disk; a rescan finds it
again while it is in a scanned folder).

The box only asks; the page opens it window-modal and removes the row when ``confirm`` was
clicked.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.ui import format as fmt
from desktop.ui.models.library_model import LibraryRow
from desktop.ui.widgets.confirm import ConfirmBox
from desktop.ui.widgets.library_texts import count


class RemoveQuestion(ConfirmBox):
    """Delete or Forget (``confirm``, named ``deleteButton`` or ``forgetButton``) and Cancel, the
    default."""

    def __init__(self, row: LibraryRow, parent: QWidget | None = None) -> None:
        super().__init__(parent, "removeBox")
        name = row.entry.display_name if row.entry is not None else row.path.name
        title = self.tr("Remove from the library")
        if row.downloaded and row.entry is not None:
            self.setup(
                title=title,
                text=self.tr("Delete %1 from the disk?").replace("%1", name),
                info=count(
                    len(row.entry.parts),
                    self.tr(
                        "LLM Scout downloaded it into the models folder. Its file (%2) will be "
                        "deleted; you can download it again later."
                    ),
                    self.tr(
                        "LLM Scout downloaded it into the models folder. Its %1 files (%2) will "
                        "be deleted; you can download it again later."
                    ),
                ).replace("%2", fmt.size(row.entry.size_bytes)),
                action=self.tr("Delete"),
                action_name="deleteButton",
            )
            return
        info = self.tr("The file stays on the disk: LLM Scout only deletes models it downloaded.")
        if row.stored and row.source != "imported":
            info += " " + self.tr("A rescan finds it again while it is in a scanned folder.")
        self.setup(
            title=title,
            text=self.tr("Forget %1?").replace("%1", name),
            info=info,
            action=self.tr("Forget"),
            action_name="forgetButton",
            role=QMessageBox.ButtonRole.AcceptRole,
        )
