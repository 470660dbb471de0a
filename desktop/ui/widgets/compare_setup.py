"""The Compare page's controls: add models, mode, blind, max tokens, Run/Stop/Resume, the
prompts (one prompt typed here, a built-in suite, or a JSONL/CSV file) and the quality check
after the answers (:class:`~desktop.ui.widgets.compare_quality.QualityChoice`).

The widget only holds values and says what the person asked for; the page does the work.
Scheduling is explicit: the chosen mode is explained under the controls in one line.

Signals:
    model_chosen(str, str): a model picked in the Add menu (its label and spec).
    open_file_requested(): "Open a GGUF file…" in the Add menu.
    server_requested(): "A model on a server…" in the Add menu.
    run_requested(), stop_requested(), resume_requested(), reveal_requested(): the buttons.
    suite_changed(): another source of prompts was chosen.
    import_requested(): "Import JSONL or CSV…" was chosen.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.compare import DEFAULT_MAX_TOKENS, PromptSuite
from desktop.ui.suite_texts import language_name, suite_description, suite_title
from desktop.ui.theme import icon
from desktop.ui.widgets.compare_quality import QualityChoice

ONE_PROMPT = "__prompt__"
IMPORT = "__import__"
FILE_PREFIX = "file:"


class CompareSetup(QWidget):
    """The controls above the columns (see the module docstring)."""

    model_chosen = Signal(str, str)
    open_file_requested = Signal()
    server_requested = Signal()
    run_requested = Signal()
    stop_requested = Signal()
    resume_requested = Signal()
    reveal_requested = Signal()
    suite_changed = Signal()
    import_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareSetup")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(6)
        outer.addLayout(self._controls_row())
        outer.addLayout(self._prompt_row())
        self.quality = QualityChoice()
        outer.addWidget(self.quality)
        # The mode's explanation, and how far the comparison shown is (on this line, which has
        # room for it: the controls above are full, where it was cut short).
        self.mode_label = QLabel()
        self.mode_label.setObjectName("modeExplanation")
        self.mode_label.setWordWrap(True)
        info = QHBoxLayout()
        info.setSpacing(12)
        info.addWidget(self.mode_label, 1)
        info.addWidget(
            self.progress_label, 0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
        )
        outer.addLayout(info)
        self._suites: dict[str, PromptSuite] = {}
        # A suite asked for before the list was read (a comparison opened from the history),
        # with the prompts it ran in case the suite is not listed here (a file's).
        self._wanted: tuple[str, PromptSuite] | None = None
        self._listed = False  # the built-in suites are listed
        self._on_mode_changed()

    # -- building ---------------------------------------------------------------------------------

    def _controls_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(6)
        self.add_button = QToolButton()
        self.add_button.setObjectName("addContestantButton")
        self.add_button.setIcon(icon("add"))
        self.add_button.setText(self.tr("Add model"))
        self.add_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.add_button.setToolTip(
            self.tr(
                "Add a model on this machine or on a server (two to six); the same model twice "
                "compares settings."
            )
        )
        self.add_menu = QMenu(self.add_button)
        self.add_menu.setObjectName("addContestantMenu")
        self.add_button.setMenu(self.add_menu)
        self.set_models([])
        row.addWidget(self.add_button)
        row.addSpacing(12)
        mode = QLabel(self.tr("Mode"))
        row.addWidget(mode)
        self.fair_radio = QRadioButton(self.tr("fair"))
        self.fair_radio.setObjectName("fairRadio")
        self.fair_radio.setToolTip(self.tr("One model at a time, each alone on the machine."))
        self.parallel_radio = QRadioButton(self.tr("parallel"))
        self.parallel_radio.setObjectName("parallelRadio")
        self.parallel_radio.setToolTip(
            self.tr("All models at once, only when the fit says they fit together.")
        )
        self.fair_radio.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.fair_radio)
        group.addButton(self.parallel_radio)
        self.fair_radio.toggled.connect(self._on_mode_changed)
        row.addWidget(self.fair_radio)
        row.addWidget(self.parallel_radio)
        row.addSpacing(12)
        self.blind_check = QCheckBox(self.tr("Blind"))
        self.blind_check.setObjectName("blindCheck")
        self.blind_check.setToolTip(
            self.tr(
                "Hide the names and shuffle the columns; vote on each prompt, then reveal the "
                "names with the win rates."
            )
        )
        row.addWidget(self.blind_check)
        row.addSpacing(12)
        tokens = QLabel(self.tr("Max tokens"))
        self.max_tokens = QSpinBox()
        self.max_tokens.setObjectName("maxTokensSpin")
        self.max_tokens.setAccessibleName(self.tr("Most tokens per answer"))
        self.max_tokens.setRange(1, 32768)
        self.max_tokens.setValue(DEFAULT_MAX_TOKENS)
        tokens.setBuddy(self.max_tokens)
        row.addWidget(tokens)
        row.addWidget(self.max_tokens)
        row.addStretch(1)
        self.progress_label = QLabel()  # laid out under the controls, beside the mode's words
        self.progress_label.setObjectName("compareProgress")
        self.reveal_button = QPushButton(icon("reveal"), self.tr("Reveal names"))
        self.reveal_button.setObjectName("revealButton")
        self.reveal_button.setVisible(False)
        self.reveal_button.clicked.connect(self.reveal_requested)
        row.addWidget(self.reveal_button)
        self.resume_button = QPushButton(icon("play"), self.tr("Resume"))
        self.resume_button.setObjectName("resumeButton")
        self.resume_button.setToolTip(self.tr("Run only the answers this comparison is missing."))
        self.resume_button.setVisible(False)
        self.resume_button.clicked.connect(self.resume_requested)
        row.addWidget(self.resume_button)
        self.run_button = QPushButton(icon("play"), self.tr("Run"))
        self.run_button.setObjectName("runButton")
        self.run_button.setToolTip(self.tr("Run every prompt on every model (Ctrl+Enter)."))
        self.run_button.setShortcut("Ctrl+Return")
        self.run_button.clicked.connect(self.run_requested)
        row.addWidget(self.run_button)
        self.stop_button = QPushButton(icon("stop"), self.tr("Stop"))
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip(
            self.tr("Stop the comparison; finished answers are kept and it can be resumed.")
        )
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_requested)
        row.addWidget(self.stop_button)
        return row

    def _prompt_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        label = QLabel(self.tr("Prompts"))
        row.addWidget(label, 0, Qt.AlignmentFlag.AlignTop)
        self.suite_combo = QComboBox()
        self.suite_combo.setObjectName("suiteCombo")
        self.suite_combo.setAccessibleName(self.tr("Prompt suite"))
        self.suite_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        label.setBuddy(self.suite_combo)
        self.suite_combo.addItem(self.tr("One prompt (type it here)"), ONE_PROMPT)
        self.suite_combo.insertSeparator(1)
        self.suite_combo.addItem(self.tr("Import JSONL or CSV…"), IMPORT)
        self.suite_combo.activated.connect(self._on_suite_combo_activated)
        row.addWidget(self.suite_combo, 0, Qt.AlignmentFlag.AlignTop)
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setObjectName("comparePrompt")
        self.prompt_edit.setAccessibleName(self.tr("Prompt for every model"))
        self.prompt_edit.setPlaceholderText(self.tr("One prompt, sent to every model…"))
        self.prompt_edit.setFixedHeight(52)
        self.prompt_edit.setTabChangesFocus(True)
        row.addWidget(self.prompt_edit, 1)
        self.suite_label = QLabel()
        self.suite_label.setObjectName("suiteLabel")
        self.suite_label.setWordWrap(True)
        self.suite_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.suite_label.setVisible(False)
        row.addWidget(self.suite_label, 1)
        return row

    # -- models -----------------------------------------------------------------------------------

    def set_models(self, models: Sequence[tuple[str, str]], base: Set[str] = frozenset()) -> None:
        """``(label, spec)`` of the models on this machine, for the Add menu; those in ``base``
        (no chat template: most likely base models) say they are not for chat."""
        menu = self.add_menu
        menu.clear()
        menu.setToolTipsVisible(True)
        note = self.tr("base model, not for chat")
        if not models:
            empty = QAction(self.tr("No models found on this machine"), menu)
            empty.setEnabled(False)
            menu.addAction(empty)
        for label, spec in models:
            action = QAction(f"{label}\t{note}" if spec in base else label, menu)
            action.setToolTip(
                self.tr(
                    "%1\nNo chat template: most likely a base model, made to continue text. Its "
                    "replies to questions may be nonsense."
                ).replace("%1", spec)
                if spec in base
                else spec
            )
            action.triggered.connect(
                lambda _checked=False, lb=label, sp=spec: self.model_chosen.emit(lb, sp)
            )
            menu.addAction(action)
        menu.addSeparator()
        open_file = QAction(icon("open"), self.tr("Open a GGUF file…"), menu)
        open_file.triggered.connect(self.open_file_requested)
        menu.addAction(open_file)
        server = QAction(icon("add"), self.tr("A model on a server (OpenAI-compatible)…"), menu)
        server.setObjectName("addServerAction")
        server.triggered.connect(self.server_requested)
        menu.addAction(server)

    # -- prompts ----------------------------------------------------------------------------------

    def set_suites(self, suites: Sequence[PromptSuite]) -> None:
        """The built-in suites, listed between "one prompt" and "import"."""
        combo = self.suite_combo
        current = combo.currentData()
        for suite in suites:
            key = suite.name
            self._suites[key] = suite
            if combo.findData(key) < 0:
                title = suite_title(suite.name, suite.title)
                text = self.tr("%1 (%2 prompts)").replace("%1", title)
                text = text.replace("%2", str(len(suite.prompts)))
                combo.insertItem(combo.count() - 1, text, key)
        combo.setCurrentIndex(max(0, combo.findData(current)))
        self._listed = True
        wanted, self._wanted = self._wanted, None
        if wanted is not None:
            self.show_suite(*wanted)

    def add_suite_file(self, suite: PromptSuite) -> None:
        """An imported file: listed and chosen, its skipped rows named with their lines."""
        key = FILE_PREFIX + str(suite.path or suite.name)
        self._suites[key] = suite
        combo = self.suite_combo
        if combo.findData(key) < 0:
            text = self.tr("File: %1").replace("%1", suite.path.name if suite.path else suite.name)
            combo.insertItem(combo.count() - 1, text, key)
        combo.setCurrentIndex(combo.findData(key))
        self._show_suite()
        self.suite_changed.emit()

    def show_suite(self, key: str, ran: PromptSuite) -> None:
        """Show the suite a stored comparison ran: the listed one of that name (once the list
        is read), else its prompts as they ran (a file's suite, or one renamed since)."""
        if self.select_suite(key):
            return
        if not self._listed:
            self._wanted = (key, ran)  # the built-in suites are not listed yet
            return
        self.add_suite_file(ran)

    def select_suite(self, key: str) -> bool:
        self._wanted = None
        index = self.suite_combo.findData(key)
        if index < 0:
            return False
        self.suite_combo.setCurrentIndex(index)
        self._show_suite()
        self.suite_changed.emit()
        return True

    def suite(self) -> PromptSuite | None:
        """The chosen suite; None for "one prompt"."""
        return self._suites.get(str(self.suite_combo.currentData()))

    def _on_suite_combo_activated(self, index: int) -> None:
        self._wanted = None  # the person chose
        if self.suite_combo.itemData(index) == IMPORT:
            self.suite_combo.setCurrentIndex(0)
            self._show_suite()
            self.import_requested.emit()
            return
        self._show_suite()
        self.suite_changed.emit()

    def _show_suite(self) -> None:
        suite = self.suite()
        self.prompt_edit.setVisible(suite is None)
        self.suite_label.setVisible(suite is not None)
        if suite is None:
            self.suite_label.setText("")
            return
        parts = [
            self.tr("%1 prompts").replace("%1", str(len(suite.prompts))),
        ]
        if suite.language:
            parts.append(language_name(suite.language))
        description = suite_description(suite.name, suite.description)
        if description:
            parts.append(description)
        text = " · ".join(parts)
        if suite.problems:
            lines = [
                self.tr("line %1: %2").replace("%1", str(p.line)).replace("%2", p.message)
                for p in suite.problems[:6]
            ]
            more = len(suite.problems) - len(lines)
            skipped = self.tr("%1 rows skipped").replace("%1", str(len(suite.problems)))
            text += f"\n⚠ {skipped}: " + "; ".join(lines) + (" …" if more > 0 else "")
            self.suite_label.setToolTip(
                "\n".join(
                    self.tr("line %1: %2").replace("%1", str(p.line)).replace("%2", p.message)
                    for p in suite.problems
                )
            )
        else:
            self.suite_label.setToolTip("")
        self.suite_label.setText(text)

    # -- mode -------------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return "parallel" if self.parallel_radio.isChecked() else "fair"

    def set_mode(self, mode: str) -> None:
        (self.parallel_radio if mode == "parallel" else self.fair_radio).setChecked(True)

    def _on_mode_changed(self) -> None:
        if self.mode == "parallel":
            text = self.tr(
                "Parallel: every model loads at once and they answer side by side — done "
                "sooner, but they share the machine, so their speeds do not compare. Allowed "
                "only when the fit says they fit in memory together."
            )
        else:
            text = self.tr(
                "Fair: one model at a time, each alone on the machine, so speeds compare; the "
                "others wait in the queue."
            )
        self.mode_label.setText(text)

    # -- state ------------------------------------------------------------------------------------

    def set_running(self, running: bool, *, can_run: bool) -> None:
        for widget in (
            self.add_button,
            self.fair_radio,
            self.parallel_radio,
            self.blind_check,
            self.max_tokens,
            self.suite_combo,
            self.prompt_edit,
        ):
            widget.setEnabled(not running)
        self.quality.set_enabled(not running)
        self.run_button.setEnabled(can_run and not running)
        self.stop_button.setEnabled(running)
        if running:
            self.resume_button.setEnabled(False)
