"""The settings of one contestant: which file (another quant of the model is another file), a
name, context, GPU layers, threads, KV cache type, temperature and seed.

Every field starts at "default" (the comparison's shared value); only what is set differs from
the others, and the column's name says so (``SmolLM2 135M (temp 0.2)``), as
``llm-scout compare smollm2@temp=0.2`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.models.compare_entries import CACHE_CHOICES, ContestantEntry

MAX_CONTEXT = 1 << 20


class ContestantDialog(QDialog):
    """Edit a :class:`ContestantEntry`; :meth:`entry` is the result once accepted.

    ``models``: ``(label, spec)`` of the models on this machine, to swap the file (a
    different quant of the same model, say)."""

    def __init__(
        self,
        entry: ContestantEntry,
        models: Sequence[tuple[str, str]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contestantDialog")
        self.setWindowTitle(self.tr("Contestant settings"))
        self._entry = entry
        layout = QVBoxLayout(self)
        hint = QLabel(
            self.tr(
                "Settings left at “default” use the comparison's own. Add the same model twice "
                "with different settings to compare them."
            )
        )
        hint.setWordWrap(True)
        layout.addWidget(hint)
        form = QFormLayout()
        layout.addLayout(form)

        self.model_combo = QComboBox()
        self.model_combo.setObjectName("contestantModel")
        self.model_combo.setAccessibleName(self.tr("Model file"))
        known = dict((spec, label) for label, spec in models)
        known.setdefault(entry.spec, entry.label)
        for spec, label in known.items():
            self.model_combo.addItem(label, spec)
        self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(entry.spec)))
        form.addRow(self.tr("Model"), self.model_combo)

        self.name_edit = QLineEdit(entry.name)
        self.name_edit.setObjectName("contestantName")
        self.name_edit.setPlaceholderText(self.tr("the model's name and what differs"))
        form.addRow(self.tr("Name"), self.name_edit)

        default = self.tr("default")
        self.ctx_spin = QSpinBox()
        self.ctx_spin.setObjectName("contestantCtx")
        self.ctx_spin.setRange(0, MAX_CONTEXT)
        self.ctx_spin.setSingleStep(512)
        self.ctx_spin.setSpecialValueText(default)
        self.ctx_spin.setGroupSeparatorShown(True)
        self.ctx_spin.setValue(entry.ctx or 0)
        self.ctx_spin.setAccessibleName(self.tr("Context length in tokens"))
        form.addRow(self.tr("Context"), self.ctx_spin)

        self.ngl_spin = QSpinBox()
        self.ngl_spin.setObjectName("contestantGpuLayers")
        self.ngl_spin.setRange(-2, 999)
        self.ngl_spin.setSpecialValueText(default)
        self.ngl_spin.setValue(entry.ngl if entry.ngl is not None else -2)
        self.ngl_spin.setToolTip(self.tr("Layers on the GPU; -1 puts every layer there."))
        self.ngl_spin.setAccessibleName(self.tr("GPU layers"))
        form.addRow(self.tr("GPU layers"), self.ngl_spin)

        self.threads_spin = QSpinBox()
        self.threads_spin.setObjectName("contestantThreads")
        self.threads_spin.setRange(0, 1024)
        self.threads_spin.setSpecialValueText(default)
        self.threads_spin.setValue(entry.threads or 0)
        self.threads_spin.setAccessibleName(self.tr("CPU threads"))
        form.addRow(self.tr("Threads"), self.threads_spin)

        self.cache_combo = QComboBox()
        self.cache_combo.setObjectName("contestantCache")
        self.cache_combo.setAccessibleName(self.tr("KV cache type"))
        for cache in CACHE_CHOICES:
            self.cache_combo.addItem(cache, cache)
        self.cache_combo.setCurrentIndex(max(0, self.cache_combo.findData(entry.cache)))
        self.cache_combo.setToolTip(
            self.tr("A quantized KV cache takes less memory and turns flash attention on.")
        )
        form.addRow(self.tr("KV cache"), self.cache_combo)

        self.temp_spin = QDoubleSpinBox()
        self.temp_spin.setObjectName("contestantTemperature")
        self.temp_spin.setRange(-0.05, 2.0)
        self.temp_spin.setSingleStep(0.05)
        self.temp_spin.setDecimals(2)
        self.temp_spin.setSpecialValueText(default)
        self.temp_spin.setValue(entry.temp if entry.temp is not None else -0.05)
        self.temp_spin.setAccessibleName(self.tr("Temperature"))
        form.addRow(self.tr("Temperature"), self.temp_spin)

        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("contestantSeed")
        self.seed_spin.setRange(-1, 2**31 - 1)
        self.seed_spin.setSpecialValueText(default)
        self.seed_spin.setValue(entry.seed if entry.seed is not None else -1)
        self.seed_spin.setAccessibleName(self.tr("Seed"))
        form.addRow(self.tr("Seed"), self.seed_spin)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def entry(self) -> ContestantEntry:
        """The entry with the dialog's values."""
        spec = str(self.model_combo.currentData())
        label = self.model_combo.currentText()
        quant = self._entry.quant if spec == self._entry.spec else None
        ngl = self.ngl_spin.value()
        temp = self.temp_spin.value()
        return replace(
            self._entry,
            spec=spec,
            label=label,
            quant=quant,
            name=self.name_edit.text().strip(),
            ctx=self.ctx_spin.value() or None,
            ngl=None if ngl == self.ngl_spin.minimum() else ngl,
            threads=self.threads_spin.value() or None,
            cache=str(self.cache_combo.currentData()),
            temp=None if temp < 0 else round(temp, 2),
            seed=None if self.seed_spin.value() < 0 else self.seed_spin.value(),
        )
