"""The system prompt and the sampling settings of a chat, with sensible defaults.

Defaults are the engine's (:class:`~desktop.core.engine.protocol.SamplingParams`, the same as
``llm-scout run``) except a longer answer (1024 tokens): temperature 0.8, top-p 0.95, top-k 40,
min-p 0.05, no repeat penalty, a random seed.

Signals:
    changed(): a value changed (the next answer uses it).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine import protocol as p

DEFAULT_MAX_TOKENS = 1024
RANDOM_SEED = -1


class ChatSettingsPanel(QFrame):
    """System prompt and sampling; :meth:`params` and :meth:`system` read them."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatSettings")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 6, 8, 6)
        outer.setSpacing(4)
        system_label = QLabel(self.tr("System prompt"))
        self.system_edit = QPlainTextEdit()
        self.system_edit.setObjectName("systemPromptEdit")
        self.system_edit.setAccessibleName(self.tr("System prompt"))
        self.system_edit.setPlaceholderText(self.tr("You are a helpful assistant."))
        self.system_edit.setTabChangesFocus(True)
        line = self.system_edit.fontMetrics().lineSpacing()
        self.system_edit.setFixedHeight(line * 3 + 12)
        system_label.setBuddy(self.system_edit)
        outer.addWidget(system_label)
        outer.addWidget(self.system_edit)

        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        self.temperature = self._double("temperatureSpin", 0.0, 2.0, 0.05, 2)
        self.temperature.setToolTip(self.tr("0 always picks the likeliest token."))
        self.top_p = self._double("topPSpin", 0.0, 1.0, 0.05, 2)
        self.top_k = self._int("topKSpin", 0, 1000)
        self.top_k.setSpecialValueText(self.tr("off"))
        self.min_p = self._double("minPSpin", 0.0, 1.0, 0.01, 2)
        self.repeat_penalty = self._double("repeatPenaltySpin", 0.5, 2.0, 0.05, 2)
        self.repeat_penalty.setToolTip(self.tr("1.0: no penalty."))
        self.seed = self._int("seedSpin", RANDOM_SEED, 2**31 - 1)
        self.seed.setSpecialValueText(self.tr("random"))
        self.seed.setToolTip(self.tr("The same seed and settings give the same answer."))
        self.max_tokens = self._int("maxTokensSpin", 1, 1 << 20)
        self.max_tokens.setToolTip(self.tr("The most tokens one answer may have."))
        fields = (
            (self.tr("Temperature"), self.temperature),
            (self.tr("Top-p"), self.top_p),
            (self.tr("Top-k"), self.top_k),
            (self.tr("Min-p"), self.min_p),
            (self.tr("Repeat penalty"), self.repeat_penalty),
            (self.tr("Seed"), self.seed),
            (self.tr("Max tokens"), self.max_tokens),
        )
        for index, (text, widget) in enumerate(fields):
            label = QLabel(text)
            label.setBuddy(widget)
            widget.setAccessibleName(text)
            row, column = divmod(index, 4)
            grid.addWidget(label, row, column * 2)
            grid.addWidget(widget, row, column * 2 + 1)
        self.defaults_button = QPushButton(self.tr("Defaults"))
        self.defaults_button.setObjectName("samplingDefaultsButton")
        self.defaults_button.clicked.connect(self.reset)
        grid.addWidget(self.defaults_button, 1, 7)
        outer.addLayout(grid)
        self.reset()
        self.system_edit.textChanged.connect(self.changed)

    def _double(
        self, name: str, low: float, high: float, step: float, decimals: int
    ) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setObjectName(name)
        box.setRange(low, high)
        box.setSingleStep(step)
        box.setDecimals(decimals)
        box.valueChanged.connect(self.changed)
        return box

    def _int(self, name: str, low: int, high: int) -> QSpinBox:
        box = QSpinBox()
        box.setObjectName(name)
        box.setRange(low, high)
        box.valueChanged.connect(self.changed)
        return box

    def reset(self) -> None:
        """The default sampling (the system prompt stays)."""
        defaults = p.SamplingParams()
        self.temperature.setValue(defaults.temperature)
        self.top_p.setValue(defaults.top_p)
        self.top_k.setValue(defaults.top_k)
        self.min_p.setValue(defaults.min_p)
        self.repeat_penalty.setValue(defaults.repeat_penalty)
        self.seed.setValue(RANDOM_SEED)
        self.max_tokens.setValue(DEFAULT_MAX_TOKENS)

    def params(self) -> p.SamplingParams:
        seed = self.seed.value()
        return p.SamplingParams(
            temperature=self.temperature.value(),
            top_p=self.top_p.value(),
            top_k=self.top_k.value(),
            min_p=self.min_p.value(),
            repeat_penalty=self.repeat_penalty.value(),
            seed=None if seed == RANDOM_SEED else seed,
            max_tokens=self.max_tokens.value(),
        )

    def set_params(self, params: p.SamplingParams) -> None:
        self.temperature.setValue(params.temperature)
        self.top_p.setValue(params.top_p)
        self.top_k.setValue(params.top_k)
        self.min_p.setValue(params.min_p)
        self.repeat_penalty.setValue(params.repeat_penalty)
        self.seed.setValue(RANDOM_SEED if params.seed is None else params.seed)
        self.max_tokens.setValue(params.max_tokens)

    def system(self) -> str | None:
        return self.system_edit.toPlainText().strip() or None

    def set_system(self, text: str) -> None:
        self.system_edit.setPlainText(text)
