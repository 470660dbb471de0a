"""The Library page's action row: Import… (with its copy check box), Add folder…, Rescan and
Open models folder on the left; Quality…, Show in folder and Remove… for the selected row on
the right.

Import… and Add folder… open their file dialogs here and say what was chosen; the page
connects the other buttons and enables the ones the selection allows.

Signals:
    import_requested(list): the ``Path`` of each file chosen in Import…'s dialog.
    folder_requested(object): the ``Path`` of the folder chosen in Add folder…'s dialog.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QFileDialog, QHBoxLayout, QPushButton, QWidget

from desktop.ui.theme import icon


def icon_button(name: str, icon_name: str, text: str) -> QPushButton:
    """A button with the theme's icon, an object name and ``text`` as its accessible name."""
    button = QPushButton(icon(icon_name), text)
    button.setObjectName(name)
    button.setAccessibleName(text.rstrip("…"))
    return button


class LibraryBar(QWidget):
    """The buttons above the library table, each with a tooltip that says what it does (see the
    module docstring)."""

    import_requested = Signal(list)
    folder_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.import_button = icon_button("importButton", "open", self.tr("Import…"))
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
        self.add_folder_button = icon_button("addFolderButton", "add", self.tr("Add folder…"))
        self.add_folder_button.setToolTip(
            self.tr("Remember a folder you keep GGUF models in and scan it (and its subfolders).")
        )
        self.rescan_button = icon_button("rescanButton", "refresh", self.tr("Rescan"))
        self.rescan_button.setToolTip(
            self.tr(
                "Look again in the models folder, the Hugging Face cache, LM Studio, Ollama, "
                "GPT4All and your folders. Only new or changed files are read."
            )
        )
        self.models_folder_button = icon_button(
            "modelsFolderButton", "reveal", self.tr("Open models folder")
        )
        self.models_folder_button.setToolTip(
            self.tr("Open the folder the app downloads models into, in the file manager.")
        )
        self.reveal_button = icon_button("revealButton", "reveal", self.tr("Show in folder"))
        self.reveal_button.setToolTip(self.tr("Open the folder holding this file."))
        self.quality_button = icon_button("qualityButton", "compare", self.tr("Quality…"))
        self.quality_button.setToolTip(
            self.tr(
                "Measure this model's quality here: what its quantization loses against a "
                "reference, or its multiple-choice accuracy, with 95% intervals."
            )
        )
        self.remove_button = icon_button("removeButton", "remove", self.tr("Remove…"))
        self.remove_button.setToolTip(
            self.tr(
                "Delete a model the app downloaded, or forget any other file (it stays on disk)."
            )
        )
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(8)  # the page's spacing, as when the row was one of its layouts
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

    def _on_import_button_clicked(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self,
            self.tr("Import GGUF models"),
            str(Path.home()),
            self.tr("GGUF models (*.gguf);;All files (*)"),
        )
        if files:
            self.import_requested.emit([Path(f) for f in files])

    def _on_add_folder_button_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of GGUF models"))
        if folder:
            self.folder_requested.emit(Path(folder))
