"""A spin box for GPU layers: 0 to n, and one more step that means "all" (llama.cpp's -1)."""

from __future__ import annotations

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QSpinBox, QWidget


class LayersSpin(QSpinBox):
    """GPU layers 0..n, and one more step that means "all" (every layer and the output)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setRange(0, 1)
        self._all_text = self.tr("all")

    def set_layers(self, n_layers: int) -> None:
        self.setRange(0, max(n_layers, 0) + 1)

    def textFromValue(self, value: int) -> str:
        return self._all_text if value == self.maximum() else str(value)

    def valueFromText(self, text: str) -> int:
        if text.strip().lower() in (self._all_text.lower(), "all", "-1"):
            return self.maximum()
        try:
            return int(text)
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        stripped = text.strip().lower()
        if stripped in (self._all_text.lower(), "all") or stripped.isdigit():
            return QValidator.State.Acceptable, text, pos
        if self._all_text.lower().startswith(stripped) or "all".startswith(stripped):
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos

    @property
    def llama_value(self) -> int:
        """What llama.cpp gets: -1 for "all"."""
        return -1 if self.value() == self.maximum() else self.value()

    def set_llama_value(self, value: int) -> None:
        self.setValue(self.maximum() if value < 0 or value >= self.maximum() else value)
