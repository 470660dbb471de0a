"""The Models page's controls above the table: the context length, the filters, and a status
corner (busy indicator, row count).

The context is a slider with stops (2k ... 128k) and an exact spin box, kept in sync: the slider
sets the spin box to its stop, the spin box moves the slider to the nearest stop. The bar only
reports; the page decides what a change means (a new estimate, or new filters).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.ui import format as fmt
from desktop.ui.models.catalog_filter import CatalogFilters
from desktop.ui.shortcuts import mark_find_field

#: The context slider's stops (tokens); the spin box next to it takes any value.
CONTEXT_STOPS = (2048, 4096, 8192, 16384, 32768, 65536, 131072)
MIN_CONTEXT = 128
MAX_CONTEXT = 1 << 20


def nearest_stop(n_ctx: int) -> int:
    """The slider position closest to ``n_ctx`` (on a log scale)."""
    value = math.log2(max(n_ctx, 1))
    return min(range(len(CONTEXT_STOPS)), key=lambda i: abs(math.log2(CONTEXT_STOPS[i]) - value))


class CatalogFilterBar(QWidget):
    """Context control, search, family and format, the four checks, busy state and count.

    Signals:
        context_changed(int): the context length in tokens (from either control).
        filters_changed(): any filter changed; :meth:`filters` has the new ones.
    """

    context_changed = Signal(int)
    filters_changed = Signal()

    def __init__(
        self, families: list[tuple[str, str]], context: int, parent: QWidget | None = None
    ) -> None:
        """``families``: (key, title) pairs for the family filter; ``context``: the start."""
        super().__init__(parent)
        self._context = context
        self._build(families)
        self._set_context_controls(context)
        self.set_busy(None)
        self._connect()

    def _build(self, families: list[tuple[str, str]]) -> None:
        self.context_slider = QSlider(Qt.Orientation.Horizontal)
        self.context_slider.setObjectName("contextSlider")
        self.context_slider.setRange(0, len(CONTEXT_STOPS) - 1)
        self.context_slider.setPageStep(1)
        self.context_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.context_slider.setMinimumWidth(180)
        self.context_slider.setAccessibleName(self.tr("Context length"))
        stops = ", ".join(fmt.integer(s) for s in CONTEXT_STOPS)
        self.context_slider.setToolTip(
            self.tr(
                "Context length: how many tokens of prompt and answer the model keeps. The KV "
                "cache grows with it. Stops: %1; type any value in the box."
            ).replace("%1", stops)
        )
        self.context_spin = QSpinBox()
        self.context_spin.setObjectName("contextSpin")
        self.context_spin.setRange(MIN_CONTEXT, MAX_CONTEXT)
        self.context_spin.setSingleStep(1024)
        self.context_spin.setGroupSeparatorShown(True)
        self.context_spin.setKeyboardTracking(False)
        self.context_spin.setAccessibleName(self.tr("Context length in tokens"))
        self.context_spin.setToolTip(self.tr("The exact context length in tokens."))
        self.search_edit = QLineEdit()
        self.search_edit.setObjectName("searchEdit")
        mark_find_field(self.search_edit)
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setPlaceholderText(self.tr("qwen 7b q4"))
        self.search_edit.setAccessibleName(self.tr("Search models"))
        self.search_edit.setToolTip(
            self.tr("Every word must begin a word of the model's name, family, tags or quant.")
        )
        self.family_combo = QComboBox()
        self.family_combo.setObjectName("familyCombo")
        self.family_combo.setAccessibleName(self.tr("Family"))
        self.family_combo.addItem(self.tr("All families"), "")
        for key, title in families:
            self.family_combo.addItem(title, key)
        self.format_combo = QComboBox()
        self.format_combo.setObjectName("formatCombo")
        self.format_combo.setAccessibleName(self.tr("Format"))
        self.format_combo.addItem(self.tr("All formats"), "")
        self.format_combo.addItem("GGUF", "gguf")
        self.format_combo.addItem("AWQ", "awq")
        self.format_combo.setToolTip(
            self.tr("GGUF runs with llama.cpp (CPU and GPU); AWQ with vLLM on NVIDIA GPUs.")
        )
        self.fits_check = self._check("fitsOnlyCheck", self.tr("Fits only"))
        self.fits_check.setToolTip(self.tr("Hide the variants that do not fit (verdict no)."))
        self.gpu_check = self._check("gpuOnlyCheck", self.tr("Fully on GPU"))
        self.gpu_check.setToolTip(self.tr("Only variants with every layer on the GPU."))
        self.commercial_check = self._check("commercialCheck", self.tr("Commercial use"))
        self.commercial_check.setToolTip(self.tr("Only licences that allow commercial use."))
        self.chinese_check = self._check("chineseCheck", self.tr("中文 Chinese"))
        self.chinese_check.setToolTip(self.tr("Only models that speak Chinese well."))
        self.busy_bar = QProgressBar()
        self.busy_bar.setObjectName("busyIndicator")
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setFixedSize(72, 10)
        self.busy_bar.setAccessibleName(self.tr("Estimating"))
        self.busy_label = QLabel()
        self.busy_label.setObjectName("busyLabel")
        self.count_label = QLabel()
        self.count_label.setObjectName("countLabel")

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(6)
        first = QHBoxLayout()
        context_label = QLabel(self.tr("Context"))
        context_label.setBuddy(self.context_slider)
        first.addWidget(context_label)
        first.addWidget(self.context_slider, 3)
        first.addWidget(self.context_spin)
        first.addWidget(QLabel(self.tr("tokens")))
        first.addSpacing(16)
        search_label = QLabel(self.tr("Search"))
        search_label.setBuddy(self.search_edit)
        first.addWidget(search_label)
        first.addWidget(self.search_edit, 2)
        for text, combo in (
            (self.tr("Family"), self.family_combo),
            (self.tr("Format"), self.format_combo),
        ):
            label = QLabel(text)
            label.setBuddy(combo)
            first.addSpacing(8)
            first.addWidget(label)
            first.addWidget(combo)
        outer.addLayout(first)
        second = QHBoxLayout()
        for box in self.checks():
            second.addWidget(box)
            second.addSpacing(8)
        second.addStretch(1)
        second.addWidget(self.busy_bar)
        second.addWidget(self.busy_label)
        second.addSpacing(12)
        second.addWidget(self.count_label)
        outer.addLayout(second)

    def _check(self, name: str, text: str) -> QCheckBox:
        box = QCheckBox(text)
        box.setObjectName(name)
        box.setAccessibleName(text)
        return box

    def _connect(self) -> None:
        self.context_slider.valueChanged.connect(self._on_context_slider_value_changed)
        self.context_spin.valueChanged.connect(self._on_context_spin_value_changed)
        self.search_edit.textChanged.connect(self.filters_changed)
        self.family_combo.currentIndexChanged.connect(self.filters_changed)
        self.format_combo.currentIndexChanged.connect(self.filters_changed)
        for box in self.checks():
            box.toggled.connect(self.filters_changed)

    def checks(self) -> tuple[QCheckBox, ...]:
        return (self.fits_check, self.gpu_check, self.commercial_check, self.chinese_check)

    def focus_chain(self) -> list[QWidget]:
        """The controls in tab order."""
        return [
            self.context_slider,
            self.context_spin,
            self.search_edit,
            self.family_combo,
            self.format_combo,
            *self.checks(),
        ]

    # -- values -------------------------------------------------------------------------------

    def filters(self) -> CatalogFilters:
        return CatalogFilters(
            text=self.search_edit.text().strip(),
            family=str(self.family_combo.currentData() or "") or None,
            fmt=str(self.format_combo.currentData() or "") or None,
            fits_only=self.fits_check.isChecked(),
            gpu_only=self.gpu_check.isChecked(),
            commercial=self.commercial_check.isChecked(),
            chinese=self.chinese_check.isChecked(),
        )

    @property
    def context(self) -> int:
        return self._context

    def set_context(self, n_ctx: int) -> None:
        """As if typed in the spin box (the slider follows; ``context_changed`` when new)."""
        self.context_spin.setValue(n_ctx)

    def set_busy(self, text: str | None, *, error: bool = False) -> None:
        """Show the busy indicator with ``text``; None hides it. ``error``: a sentence to keep
        showing, without the indicator."""
        self.busy_bar.setVisible(text is not None and not error)
        self.busy_label.setVisible(text is not None)
        self.busy_label.setText(text or "")

    @property
    def busy_shown(self) -> bool:
        return self.busy_bar.isVisibleTo(self)

    def set_count(self, shown: int, total: int) -> None:
        self.count_label.setText(
            self.tr("%1 of %2 variants")
            .replace("%1", fmt.integer(shown))
            .replace("%2", fmt.integer(total))
        )

    def _set_context_controls(self, n_ctx: int) -> None:
        for widget in (self.context_slider, self.context_spin):
            widget.blockSignals(True)
        self.context_spin.setValue(n_ctx)
        self.context_slider.setValue(nearest_stop(n_ctx))
        for widget in (self.context_slider, self.context_spin):
            widget.blockSignals(False)

    def _on_context_slider_value_changed(self, position: int) -> None:
        value = CONTEXT_STOPS[position]
        self.context_spin.blockSignals(True)
        self.context_spin.setValue(value)
        self.context_spin.blockSignals(False)
        self._change_context(value)

    def _on_context_spin_value_changed(self, value: int) -> None:
        self.context_slider.blockSignals(True)
        self.context_slider.setValue(nearest_stop(value))
        self.context_slider.blockSignals(False)
        self._change_context(value)

    def _change_context(self, value: int) -> None:
        if value != self._context:
            self._context = value
            self.context_changed.emit(value)

    # -- persistence --------------------------------------------------------------------------

    def restore(self, settings: QSettings) -> None:
        """Read the context and filters back (inside the caller's settings group), quietly:
        no signal is emitted."""
        try:
            context = int(str(settings.value("context", self._context)))
        except ValueError:
            context = self._context
        self._context = max(MIN_CONTEXT, min(MAX_CONTEXT, context))
        self._set_context_controls(self._context)
        self.blockSignals(True)
        try:
            self.search_edit.setText(str(settings.value("search", "")))
            for combo, key in ((self.family_combo, "family"), (self.format_combo, "format")):
                index = combo.findData(str(settings.value(key, "")))
                combo.setCurrentIndex(max(index, 0))
            for box, key in zip(
                self.checks(), ("fits_only", "gpu_only", "commercial", "chinese"), strict=True
            ):
                box.setChecked(str(settings.value(key, "false")).lower() == "true")
        finally:
            self.blockSignals(False)

    def save(self, settings: QSettings) -> None:
        """Write the context and filters (inside the caller's settings group)."""
        filters = self.filters()
        settings.setValue("context", self._context)
        settings.setValue("search", filters.text)
        settings.setValue("family", filters.family or "")
        settings.setValue("format", filters.fmt or "")
        settings.setValue("fits_only", filters.fits_only)
        settings.setValue("gpu_only", filters.gpu_only)
        settings.setValue("commercial", filters.commercial)
        settings.setValue("chinese", filters.chinese)
