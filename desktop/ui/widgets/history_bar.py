"""The History list's bar: search, the model, machine and kind filters, the count, and the
Import…/Export… buttons for results files.

The page reads the filters (:meth:`HistoryBar.filters`) and fills the model and machine choices
from each reading (:meth:`fill_models`, :meth:`fill_machines`), keeping the current choice.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from desktop.ui.models.history_model import machine_text


class HistoryBar(QWidget):
    """The fields above the History list (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        search_label = QLabel(self.tr("Search"))
        self.search = QLineEdit()
        self.search.setObjectName("historySearch")
        self.search.setClearButtonEnabled(True)
        self.search.setPlaceholderText(self.tr("words in a prompt, an answer or a title"))
        self.search.setAccessibleName(self.tr("Search the history"))
        search_label.setBuddy(self.search)
        model_label = QLabel(self.tr("Model"))
        self.model_filter = QComboBox()
        self.model_filter.setObjectName("historyModelFilter")
        self.model_filter.setAccessibleName(self.tr("Filter by model"))
        self.model_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.model_filter.setMinimumContentsLength(16)
        self.model_filter.addItem(self.tr("All models"), "")
        model_label.setBuddy(self.model_filter)
        machine_label = QLabel(self.tr("Machine"))
        self.machine_filter = QComboBox()
        self.machine_filter.setObjectName("historyMachineFilter")
        self.machine_filter.setAccessibleName(self.tr("Filter by machine"))
        self.machine_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.machine_filter.addItem(self.tr("All machines"), "")
        machine_label.setBuddy(self.machine_filter)
        kind_label = QLabel(self.tr("Show"))
        self.kind_filter = QComboBox()
        self.kind_filter.setObjectName("historyKindFilter")
        self.kind_filter.setAccessibleName(self.tr("Show answers, comparisons or both"))
        self.kind_filter.addItem(self.tr("Everything"), "all")
        self.kind_filter.addItem(self.tr("Answers"), "run")
        self.kind_filter.addItem(self.tr("Comparisons"), "comparison")
        kind_label.setBuddy(self.kind_filter)
        self.count_label = QLabel()
        self.count_label.setObjectName("historyCount")
        self.import_button = QPushButton(self.tr("Import…"))
        self.import_button.setObjectName("importButton")
        self.import_button.setToolTip(
            self.tr(
                "Add the results of another machine: a file written there by `llm-scout "
                "history export` (or drop it on this page)."
            )
        )
        self.export_button = QPushButton(self.tr("Export…"))
        self.export_button.setObjectName("exportButton")
        self.export_button.setToolTip(
            self.tr("Write this history's results to one file, to import on another machine.")
        )
        for widget, stretch in (
            (search_label, 0),
            (self.search, 2),
            (model_label, 0),
            (self.model_filter, 0),
            (machine_label, 0),
            (self.machine_filter, 0),
            (kind_label, 0),
            (self.kind_filter, 0),
            (self.count_label, 0),
            (self.import_button, 0),
            (self.export_button, 0),
        ):
            bar.addWidget(widget, stretch)

    def filters(self) -> tuple[str, str, str, str]:
        """(search, model, kind, machine key) as chosen now."""
        return (
            self.search.text().strip(),
            str(self.model_filter.currentData() or ""),
            str(self.kind_filter.currentData() or "all"),
            str(self.machine_filter.currentData() or ""),
        )

    def fill_models(self, labels: tuple[str, ...]) -> None:
        combo = self.model_filter
        current = str(combo.currentData() or "")
        wanted = [""] + list(labels) + ([current] if current and current not in labels else [])
        if [combo.itemData(i) for i in range(combo.count())] == wanted:
            return
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(self.tr("All models"), "")
        for label in wanted[1:]:
            combo.addItem(label, label)
        combo.setCurrentIndex(max(combo.findData(current), 0))
        combo.blockSignals(False)

    def fill_machines(self, machines: tuple[tuple[str, str], ...]) -> None:
        """(key, name) of the machines something is stored from."""
        combo = self.machine_filter
        current = str(combo.currentData() or "")
        wanted = [("", self.tr("All machines"))] + [
            (key, machine_text(name)) for key, name in machines
        ]
        if [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())] == wanted:
            return
        combo.blockSignals(True)
        combo.clear()
        for key, text in wanted:
            combo.addItem(text, key)
        combo.setCurrentIndex(max(combo.findData(current), 0))
        combo.blockSignals(False)
