"""The load panel's server: its base URL, the model it serves, the API key's variable.

:class:`ServerFields` makes the fields the Playground's load panel shows when its Source is a
server: the base URL and the model name (an editable combo that "List models" fills from the
server) in :attr:`ServerFields.box`, and the name of the environment variable that holds the API
key (never the key itself) in :attr:`ServerFields.key_box`, which the panel puts on its settings
row. It turns what is typed into a :class:`~desktop.core.engine.RemoteEndpoint`.

Signals:
    changed(): the URL, the model or the key's variable changed.
    list_requested(): "List models".
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from desktop.core.engine import RemoteEndpoint

DEFAULT_ENDPOINT = "http://127.0.0.1:8080/v1"


class ServerFields(QObject):
    """The server's fields of one load panel (see the module docstring)."""

    changed = Signal()
    list_requested = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.box = QWidget(parent)
        self.box.setObjectName("serverBox")
        row = QHBoxLayout(self.box)
        row.setContentsMargins(0, 0, 0, 0)
        self.url_edit = QLineEdit()
        self.url_edit.setObjectName("endpointEdit")
        self.url_edit.setAccessibleName(self.tr("Server base URL"))
        self.url_edit.setPlaceholderText(DEFAULT_ENDPOINT)
        self.url_edit.setToolTip(
            self.tr("The server's OpenAI-compatible base URL; it usually ends in /v1.")
        )
        self.url_edit.setMinimumWidth(200)
        self.served_combo = QComboBox()
        self.served_combo.setObjectName("servedModelCombo")
        self.served_combo.setEditable(True)
        self.served_combo.setAccessibleName(self.tr("Model name on the server"))
        self.served_combo.setMinimumContentsLength(14)
        self.served_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        line = self.served_combo.lineEdit()
        if line is not None:
            line.setPlaceholderText(self.tr("model name"))
        self.list_button = QPushButton(self.tr("List models"))
        self.list_button.setObjectName("listModelsButton")
        self.list_button.setToolTip(self.tr("Ask the server which models it serves."))
        self.list_button.clicked.connect(self.list_requested)
        self.key_edit = QLineEdit()
        self.key_edit.setObjectName("keyEnvEdit")
        self.key_edit.setAccessibleName(self.tr("Environment variable with the API key"))
        self.key_edit.setPlaceholderText("LLM_SCOUT_API_KEY")
        self.key_edit.setToolTip(
            self.tr(
                "The name of the environment variable that holds the API key (the key itself "
                "is never typed or stored here); empty: LLM_SCOUT_API_KEY, else the keyring."
            )
        )
        self.key_edit.setMinimumWidth(170)
        for signal in (
            self.url_edit.textChanged,
            self.served_combo.currentTextChanged,
            self.key_edit.textChanged,
        ):
            signal.connect(self.changed)
        row.addWidget(_label(self.tr("URL"), self.url_edit))
        row.addWidget(self.url_edit, 3)
        row.addWidget(_label(self.tr("Model"), self.served_combo))
        row.addWidget(self.served_combo, 2)
        row.addWidget(self.list_button)
        self.key_box = QWidget(parent)
        self.key_box.setObjectName("keyEnvBox")
        key_row = QHBoxLayout(self.key_box)
        key_row.setContentsMargins(0, 0, 0, 0)
        key_row.addWidget(_label(self.tr("API key variable"), self.key_edit))
        key_row.addWidget(self.key_edit)
        self.set_visible(False)

    def set_visible(self, visible: bool) -> None:
        self.box.setVisible(visible)
        self.key_box.setVisible(visible)

    def set_enabled(self, enabled: bool) -> None:
        self.box.setEnabled(enabled)
        self.key_box.setEnabled(enabled)

    def set_endpoint(self, url: str, model: str, key_env: str = "") -> None:
        """Fill the fields (a remembered endpoint); the key itself is never here."""
        self.url_edit.setText(url)
        if model and self.served_combo.findText(model) < 0:
            self.served_combo.addItem(model)
        self.served_combo.setCurrentText(model)
        self.key_edit.setText(key_env)

    def fields(self) -> tuple[str, str, str]:
        """(URL, model, key variable) as typed (stripped)."""
        return (
            self.url_edit.text().strip(),
            self.served_combo.currentText().strip(),
            self.key_edit.text().strip(),
        )

    def endpoint(self) -> RemoteEndpoint:
        """The server as typed; UsageError for a URL that is not http(s) or no model name."""
        url, model, key_env = self.fields()
        return RemoteEndpoint(url or DEFAULT_ENDPOINT, model, key_env=key_env or None)

    def set_served_models(self, names: list[str]) -> None:
        """What the server lists; the typed name stays chosen when the server has it, else
        the first one listed is."""
        combo = self.served_combo
        typed = combo.currentText().strip()
        combo.blockSignals(True)
        combo.clear()
        combo.addItems(names)
        index = combo.findText(typed) if typed else -1
        combo.setCurrentIndex(index if index >= 0 else (0 if names else -1))
        if not names:
            combo.setCurrentText(typed)
        combo.blockSignals(False)
        self.changed.emit()

    def set_listing(self, listing: bool) -> None:
        self.list_button.setEnabled(not listing)
        self.list_button.setText(self.tr("Listing…") if listing else self.tr("List models"))


def _label(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(text)
    label.setBuddy(buddy)
    return label
