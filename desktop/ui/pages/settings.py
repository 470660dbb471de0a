"""The Settings page: models folder, library folders, Hub mirror, token status, defaults, look.

Every change is validated and saved at once (the same settings file the CLI reads). The language
and the theme apply at once too: the window is rebuilt in the new language.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import ScoutError
from desktop.core.hub import KNOWN_MIRRORS, TOKEN_VARIABLES, endpoint_problem, stored_token
from desktop.core.settings import Settings
from desktop.ui.errors import show_error
from desktop.ui.state import AppState
from desktop.ui.theme import icon, page_heading

CUSTOM = "__custom__"


class SettingsPage(QWidget):
    """One form; each control saves its setting when changed."""

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 12, 16, 12)
        heading = page_heading(self.tr("Settings"))
        outer.addWidget(heading)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        body = QWidget()
        column = QVBoxLayout(body)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(10)
        column.addLayout(form)
        column.addStretch(1)
        body.setMaximumWidth(900)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        settings = state.settings

        # models folder
        self.models_dir = QLineEdit(str(state.workspace.models_dir))
        self.models_dir.setObjectName("modelsDirEdit")
        self.models_dir.setAccessibleName(self.tr("Models folder"))
        self.models_dir.editingFinished.connect(self._on_models_dir_editing_finished)
        browse = QPushButton(icon("open"), self.tr("Choose…"))
        browse.clicked.connect(self._on_browse_clicked)
        row = QHBoxLayout()
        row.addWidget(self.models_dir, 1)
        row.addWidget(browse)
        form.addRow(self._label(self.tr("Models folder"), self.models_dir), row)
        form.addRow("", self._hint(self.tr("Downloads go here, in <owner>/<repo>/<file>.")))

        # extra library folders
        self.folders = QListWidget()
        self.folders.setObjectName("libraryFolders")
        self.folders.setAccessibleName(self.tr("Library folders"))
        self.folders.setMaximumHeight(110)
        self.folders.addItems(list(settings.extra_model_dirs))
        # Another page may change the folders (Library → Add folder…): the list follows.
        state.settings_changed.connect(self._on_state_settings_changed)
        add = QPushButton(icon("add"), self.tr("Add folder…"))
        add.setObjectName("addLibraryFolderButton")
        add.clicked.connect(self._on_add_folder_clicked)
        remove = QPushButton(icon("remove"), self.tr("Remove"))
        remove.setObjectName("removeLibraryFolderButton")
        remove.clicked.connect(self._on_remove_folder_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        box = QVBoxLayout()
        box.addWidget(self.folders)
        box.addLayout(buttons)
        form.addRow(self._label(self.tr("Library folders"), self.folders), box)

        # hub
        self.endpoint = QComboBox()
        self.endpoint.setObjectName("endpointCombo")
        self.endpoint.setAccessibleName(self.tr("Hugging Face endpoint"))
        self.endpoint.addItem(self.tr("From HF_ENDPOINT, else huggingface.co"), "")
        self.endpoint.addItem(self.tr("huggingface.co"), "huggingface")
        self.endpoint.addItem(self.tr("hf-mirror.com (mirror for mainland China)"), "hf-mirror")
        self.endpoint.addItem(self.tr("Another address…"), CUSTOM)
        self.custom_endpoint = QLineEdit()
        self.custom_endpoint.setObjectName("customEndpointEdit")
        self.custom_endpoint.setPlaceholderText("https://")
        value = settings.hub_endpoint
        index = self.endpoint.findData(value) if value in ("", *KNOWN_MIRRORS) else 3
        self.endpoint.setCurrentIndex(index)
        self.custom_endpoint.setText(value if index == 3 else "")
        self.custom_endpoint.setVisible(index == 3)
        self.endpoint.activated.connect(self._on_endpoint_activated)
        self.custom_endpoint.editingFinished.connect(self._on_custom_endpoint_editing_finished)
        hub_box = QVBoxLayout()
        hub_box.addWidget(self.endpoint)
        hub_box.addWidget(self.custom_endpoint)
        form.addRow(self._label(self.tr("Hub endpoint"), self.endpoint), hub_box)
        self.token_status = QLabel(self.token_text())
        self.token_status.setObjectName("tokenStatus")
        self.token_status.setWordWrap(True)
        form.addRow(self.tr("Hugging Face token"), self.token_status)

        # defaults
        self.threads = QSpinBox()
        self.threads.setObjectName("threadsSpin")
        self.threads.setRange(0, 1024)
        self.threads.setSpecialValueText(self.tr("physical cores"))
        self.threads.setValue(settings.default_threads)
        self.threads.valueChanged.connect(lambda v: self._save(default_threads=v))
        form.addRow(self._label(self.tr("Default threads"), self.threads), self.threads)
        self.context = QSpinBox()
        self.context.setObjectName("contextSpin")
        self.context.setRange(128, 1 << 20)
        self.context.setSingleStep(1024)
        self.context.setValue(settings.default_ctx)
        self.context.setSuffix(" " + self.tr("tokens"))
        self.context.editingFinished.connect(lambda: self._save(default_ctx=self.context.value()))
        form.addRow(self._label(self.tr("Default context"), self.context), self.context)
        self.remote_timeout = QSpinBox()
        self.remote_timeout.setObjectName("remoteTimeoutSpin")
        self.remote_timeout.setRange(1, 3600)
        self.remote_timeout.setValue(settings.remote_timeout_s)
        self.remote_timeout.setSuffix(" " + self.tr("s"))
        self.remote_timeout.editingFinished.connect(
            lambda: self._save(remote_timeout_s=self.remote_timeout.value())
        )
        form.addRow(
            self._label(self.tr("Remote engine timeout"), self.remote_timeout), self.remote_timeout
        )
        form.addRow(
            "",
            self._hint(
                self.tr(
                    "How long a server (llama-server, Ollama, vLLM) may stay silent before its "
                    "answer is given up."
                )
            ),
        )

        # look
        self.language = self._choices(
            "languageCombo",
            "language",
            (("", self.tr("System language")), ("en", "English"), ("zh_CN", "简体中文")),
        )
        form.addRow(self._label(self.tr("Language"), self.language), self.language)
        self.theme = self._choices(
            "themeCombo",
            "theme",
            (
                ("system", self.tr("Follow the system")),
                ("light", self.tr("Light")),
                ("dark", self.tr("Dark")),
            ),
        )
        form.addRow(self._label(self.tr("Theme"), self.theme), self.theme)
        self.live_redraw = self._choices(
            "liveRedrawCombo",
            "live_redraw",
            (
                ("auto", self.tr("Automatic: ~30 Hz, ~5 Hz while llama.cpp uses every CPU")),
                ("smooth", self.tr("Smooth: ~30 Hz")),
                ("light", self.tr("Light: ~5 Hz")),
            ),
        )
        form.addRow(self._label(self.tr("Live plots"), self.live_redraw), self.live_redraw)
        form.addRow(
            "",
            self._hint(
                self.tr(
                    "How often the Playground redraws its plots and the streamed text while a "
                    "model answers. Drawing takes CPU time from llama.cpp's threads when they use "
                    "every CPU, and so lowers the speed being measured."
                )
            ),
        )
        self.message = QLabel()
        self.message.setObjectName("settingsMessage")
        self.message.setWordWrap(True)
        outer.addWidget(self.message)

    # -- helpers --------------------------------------------------------------------------------

    def _choices(self, name: str, setting: str, choices: tuple[tuple[str, str], ...]) -> QComboBox:
        """A combo box of (value, text) choices for the setting ``setting``, showing its current
        value and saving the one picked."""
        combo = QComboBox()
        combo.setObjectName(name)
        for value, text in choices:
            combo.addItem(text, value)
        combo.setCurrentIndex(max(combo.findData(getattr(self.state.settings, setting)), 0))
        combo.activated.connect(lambda i: self._save(**{setting: combo.itemData(i)}))
        return combo

    def _label(self, text: str, buddy: QWidget) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        return label

    def _hint(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        label.setEnabled(False)
        # Right under its field: a wrapped label's row can be laid out taller than its text.
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        return label

    def token_text(self) -> str:
        """Whether a token is set and where from; the token itself is never shown."""
        for name in TOKEN_VARIABLES:
            if os.environ.get(name, "").strip():
                return self.tr("Set (from the %1 environment variable).").replace("%1", name)
        if stored_token():
            return self.tr("Set (from `hf auth login`).")
        return self.tr(
            "Not set. Gated models (Llama, Gemma) need one: accept the licence on the model's "
            "page, then set HF_TOKEN or run `hf auth login`."
        )

    def _save(self, **changes: object) -> bool:
        try:
            self.state.update_settings(**changes)
        except ScoutError as exc:
            self.message.setText(exc.message)
            return False
        self.message.setText(self.tr("Saved."))
        return True

    # -- slots ----------------------------------------------------------------------------------

    def _on_state_settings_changed(self, settings: Settings) -> None:
        shown = [self.folders.item(i).text() for i in range(self.folders.count())]
        if shown != list(settings.extra_model_dirs):
            current = self.folders.currentItem()
            keep = current.text() if current is not None else None
            self.folders.clear()
            self.folders.addItems(list(settings.extra_model_dirs))
            matches = self.folders.findItems(keep or "", Qt.MatchFlag.MatchExactly)
            if keep is not None and matches:
                self.folders.setCurrentItem(matches[0])

    def _on_models_dir_editing_finished(self) -> None:
        text = self.models_dir.text().strip()
        if text and Path(text).expanduser() != self.state.workspace.models_dir:
            self._save(models_dir=text)

    def _on_browse_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Models folder"), str(self.state.workspace.models_dir)
        )
        if folder:
            self.models_dir.setText(folder)
            self._save(models_dir=folder)

    def _on_add_folder_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder of GGUF models"))
        if folder:
            self.add_folder(Path(folder))

    def add_folder(self, folder: Path) -> bool:
        folders = list(self.state.settings.extra_model_dirs)
        if str(folder) in folders:
            return False
        if not folder.is_dir():
            self.message.setText(self.tr("There is no folder at %1.").replace("%1", str(folder)))
            return False
        if self._save(extra_model_dirs=(*folders, str(folder))):
            self.state.library_changed.emit()  # the list follows the settings
            return True
        return False

    def _on_remove_folder_clicked(self) -> None:
        item = self.folders.currentItem()
        if item is None:
            return
        folders = [f for f in self.state.settings.extra_model_dirs if f != item.text()]
        self._save(extra_model_dirs=tuple(folders))  # the list follows the settings

    def _on_endpoint_activated(self, index: int) -> None:
        value = self.endpoint.itemData(index)
        self.custom_endpoint.setVisible(value == CUSTOM)
        if value == CUSTOM:
            self.custom_endpoint.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        self._save(hub_endpoint=value)

    def _on_custom_endpoint_editing_finished(self) -> None:
        text = self.custom_endpoint.text().strip()
        problem = endpoint_problem(text) if text else None
        if problem:
            self.message.setText(problem)
            return
        if text:
            self._save(hub_endpoint=text)

    def current(self) -> Settings:
        return self.state.settings

    def show_error(self, error: ScoutError) -> None:
        show_error(self, error)
