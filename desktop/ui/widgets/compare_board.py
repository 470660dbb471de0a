"""The columns of the Compare page, the prompt they show, and the blind vote.

Before a run the board shows one column per model set up (name, settings, Edit and Remove).
While a comparison runs, or one opened from the history is shown, it draws a
:class:`~desktop.core.compare.LiveComparison`: one column per contestant (in the
shuffled order, under letters, when blind), each with its status ("queued (fair mode)",
"loading…", "failed: why"), live tokens/s, TTFT and memory, a sparkline and the answer to the
prompt chosen above the columns. During a run the prompt follows the one being answered until
the person picks another.

:meth:`CompareBoard.redraw` is called by the page's timer: it redraws only the columns whose
state changed, and the figures (text) only when asked (about twice a second).

Signals:
    vote_requested(int, str, object): (prompt, outcome ``win``/``tie``/``all_bad``, winner).
    edit_requested(int), remove_requested(int): a setup column's buttons (its position).
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.compare import ColumnState, ColumnStatus, LiveComparison
from desktop.ui import format as fmt
from desktop.ui.models.compare_entries import ContestantEntry
from desktop.ui.widgets.compare_column import CompareColumn
from desktop.ui.widgets.compare_quality import quality_line
from desktop.ui.widgets.empty_state import EmptyState

PREVIEW_CHARS = 90


class CompareBoard(QWidget):
    """Columns, the prompt chooser and the vote bar (see the module docstring)."""

    vote_requested = Signal(int, str, object)
    edit_requested = Signal(int)
    remove_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareBoard")
        self.columns: list[CompareColumn] = []
        self.live: LiveComparison | None = None
        self.revealed = False
        self.follow = True  # the prompt follows the one being answered
        self._entries: list[ContestantEntry] = []
        self._names: list[str] = []
        self._settings: list[str] = []
        self._shown_votes: tuple[object, ...] | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        outer.addWidget(self._prompt_row())
        self.stack = QStackedWidget()
        self.empty = EmptyState(
            self.tr(
                "Add two to six models with “Add model” — models on this machine, or the same "
                "model twice with different settings — type a prompt or pick a suite, and Run."
            )
        )
        self.empty.setObjectName("compareEmpty")
        self.stack.addWidget(self.empty)
        self.scroll_area = QScrollArea()
        self.scroll_area.setObjectName("compareColumns")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        holder = QWidget()
        self.columns_layout = QHBoxLayout(holder)
        self.columns_layout.setContentsMargins(0, 0, 0, 0)
        self.columns_layout.setSpacing(6)
        self.scroll_area.setWidget(holder)
        self.stack.addWidget(self.scroll_area)
        outer.addWidget(self.stack, 1)

    def _prompt_row(self) -> QWidget:
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.prompt_bar = bar
        label = QLabel(self.tr("Prompt"))
        self.previous_button = QToolButton()
        self.previous_button.setObjectName("previousPromptButton")
        self.previous_button.setArrowType(Qt.ArrowType.LeftArrow)
        self.previous_button.setAccessibleName(self.tr("Previous prompt"))
        self.previous_button.clicked.connect(lambda: self._step(-1))
        self.prompt_combo = QComboBox()
        self.prompt_combo.setObjectName("promptCombo")
        self.prompt_combo.setAccessibleName(self.tr("Prompt shown in the columns"))
        self.prompt_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.prompt_combo.setMinimumContentsLength(20)
        self.prompt_combo.activated.connect(self._on_prompt_combo_activated)
        label.setBuddy(self.prompt_combo)
        self.next_button = QToolButton()
        self.next_button.setObjectName("nextPromptButton")
        self.next_button.setArrowType(Qt.ArrowType.RightArrow)
        self.next_button.setAccessibleName(self.tr("Next prompt"))
        self.next_button.clicked.connect(lambda: self._step(1))
        row.addWidget(label)
        row.addWidget(self.previous_button)
        row.addWidget(self.prompt_combo, 1)
        row.addWidget(self.next_button)
        row.addSpacing(10)
        self.vote_label = QLabel()
        self.vote_label.setObjectName("voteLabel")
        row.addWidget(self.vote_label)
        self.tie_button = QPushButton(self.tr("Tie"))
        self.tie_button.setObjectName("tieButton")
        self.tie_button.setCheckable(True)
        self.tie_button.clicked.connect(lambda: self._vote("tie"))
        self.bad_button = QPushButton()
        self.bad_button.setObjectName("allBadButton")
        self.bad_button.setCheckable(True)
        self.bad_button.clicked.connect(lambda: self._vote("all_bad"))
        row.addWidget(self.tie_button)
        row.addWidget(self.bad_button)
        bar.setVisible(False)
        return bar

    # -- what the columns are -------------------------------------------------------------------

    def _ensure_columns(self, n: int) -> None:
        while len(self.columns) < n:
            column = CompareColumn()
            column.vote_requested.connect(self._on_column_vote_requested)
            column.edit_requested.connect(self.edit_requested)
            column.remove_requested.connect(self.remove_requested)
            self.columns_layout.addWidget(column, 1)
            self.columns.append(column)
        while len(self.columns) > n:
            column = self.columns.pop()
            self.columns_layout.removeWidget(column)
            column.deleteLater()
        for k, column in enumerate(self.columns):
            column.setObjectName(f"compareColumn{k}")

    def show_entries(self, entries: Sequence[ContestantEntry], *, editable: bool) -> None:
        """The setup: one column per model, not run yet."""
        self.live = None
        self._shown_votes = None
        self._entries = list(entries)
        self.prompt_bar.setVisible(False)
        self.stack.setCurrentWidget(self.scroll_area if entries else self.empty)
        self._ensure_columns(len(entries))
        for position, (column, entry) in enumerate(zip(self.columns, entries, strict=True)):
            column.position = position
            column.contestant = position
            column.set_header(entry.display_label, self.describe_entry(entry), entry.spec)
            column.set_editable(editable)
            column.set_status("idle", self.tr("ready · not run yet"))
            column.set_figures("")
            column.set_quality("")
            column.sparkline.set_points([])
            column.answer.show_answer("", streaming=False)
            column.set_vote("", visible=False, checked=False, enabled=False)

    def show_live(
        self,
        live: LiveComparison,
        *,
        revealed: bool,
        editable: bool,
        settings: Sequence[str] = (),
    ) -> None:
        """Draw ``live`` from scratch (a run starts, a comparison opens, names are revealed).
        ``settings``: each contestant's settings line, shown when names are."""
        self.live = live
        self.revealed = revealed
        self._shown_votes = None
        self._settings = list(settings)
        self.stack.setCurrentWidget(self.scroll_area)
        order = live.column_order()
        self._ensure_columns(len(order))
        self._names = [info.name for info in live.infos]
        hidden = live.blind is not None and not revealed
        for position, (column, contestant) in enumerate(zip(self.columns, order, strict=True)):
            column.contestant = contestant
            column.position = contestant
            column.set_editable(editable and not hidden)
            title, settings_line = self.column_title(contestant)
            column.set_header(title, settings_line, "" if hidden else live.infos[contestant].spec)
            column.setAccessibleName(
                self.tr("Answer %1").replace("%1", string.ascii_uppercase[position])
                if hidden
                else title
            )
            state = live.columns[contestant]
            state.dirty_status = True
            state.dirty_spark = True
            state.dirty_quality = True
            state.dirty_text.update(range(len(live.prompts)))
        self.prompt_combo.clear()
        for q, prompt in enumerate(live.prompts):
            self.prompt_combo.addItem(f"{q + 1}. {prompt.preview(PREVIEW_CHARS)}", q)
            self.prompt_combo.setItemData(q, prompt.text[:2000], Qt.ItemDataRole.ToolTipRole)
        self.prompt_bar.setVisible(True)
        if live.running and self.follow and live.latest_prompt is not None:
            self.prompt_combo.setCurrentIndex(live.latest_prompt)
        self._update_prompt_buttons()
        self.redraw(figures=True)

    @property
    def hidden(self) -> bool:
        """A blind comparison not revealed yet: no names, and no figure that gives a model away
        (speed, TTFT, memory, load time, its sparkline) until Reveal."""
        live = self.live
        return live is not None and live.blind is not None and not self.revealed

    def column_title(self, contestant: int) -> tuple[str, str]:
        live = self.live
        assert live is not None
        name = self._names[contestant]
        settings = self._settings[contestant] if contestant < len(self._settings) else ""
        if live.blind is None:
            return name, settings
        letter = live.blind.label(contestant)
        if not self.revealed:
            return self.tr("Answer %1").replace("%1", letter), ""
        return f"{letter} · {name}", settings

    def describe_entry(self, entry: ContestantEntry) -> str:
        parts = [entry.quant] if entry.quant else []
        if entry.remote:  # the column shows where it runs
            parts.append(self.tr("server %1").replace("%1", entry.spec))
        if entry.ctx is not None:
            parts.append(self.tr("ctx %1").replace("%1", fmt.integer(entry.ctx)))
        if entry.ngl is not None:
            parts.append(self.tr("GPU layers %1").replace("%1", str(entry.ngl)))
        if entry.threads is not None:
            parts.append(self.tr("%1 threads").replace("%1", str(entry.threads)))
        if entry.cache != "f16":
            parts.append(self.tr("KV %1").replace("%1", entry.cache))
        if entry.temp is not None:
            parts.append(self.tr("temp %1").replace("%1", fmt.number(entry.temp, 2)))
        if entry.seed is not None:
            parts.append(self.tr("seed %1").replace("%1", str(entry.seed)))
        return " · ".join(parts)

    # -- the prompt shown -------------------------------------------------------------------------

    @property
    def prompt(self) -> int:
        index = self.prompt_combo.currentIndex()
        return max(index, 0)

    def select_prompt(self, q: int, *, by_person: bool = True) -> None:
        if not 0 <= q < self.prompt_combo.count():
            return
        if by_person:
            self.follow = False
        if q != self.prompt_combo.currentIndex():
            self.prompt_combo.setCurrentIndex(q)
        live = self.live
        if live is not None:
            for state in live.columns:
                state.dirty_text.add(q)
        self._update_prompt_buttons()
        self.redraw(figures=False)

    def _on_prompt_combo_activated(self, index: int) -> None:
        self.select_prompt(index)

    def _step(self, delta: int) -> None:
        self.select_prompt(self.prompt + delta)

    def _update_prompt_buttons(self) -> None:
        n = self.prompt_combo.count()
        self.previous_button.setEnabled(self.prompt > 0)
        self.next_button.setEnabled(self.prompt < n - 1)

    # -- drawing ----------------------------------------------------------------------------------

    def redraw(self, *, figures: bool) -> None:
        """Redraw what changed; the figures (text) only when ``figures``."""
        live = self.live
        if live is None:
            return
        latest = live.latest_prompt
        following = live.running and self.follow and latest is not None
        if following and latest is not None and latest != self.prompt_combo.currentIndex():
            self.prompt_combo.setCurrentIndex(latest)
            for state in live.columns:
                state.dirty_text.add(latest)
            self._update_prompt_buttons()
        q = self.prompt
        for column in self.columns:
            state = live.columns[column.contestant]
            if state.dirty_status:
                column.set_status(state.status, self.status_text(state), tooltip=state.reason or "")
                state.dirty_status = False
                figures_now = True
            else:
                figures_now = figures
            if figures_now:
                column.set_figures(self.figures_text(state))
            if state.dirty_quality:
                failed = state.quality is not None and state.quality.status == "failed"
                column.set_quality(quality_line(state, live.quality_check), failed=failed)
                state.dirty_quality = False
            if state.dirty_spark:
                column.sparkline.set_points([] if self.hidden else list(state.spark))
                column.sparkline.setVisible(not self.hidden)
                state.dirty_spark = False
            if q in state.dirty_text:
                streaming = state.prompt == q and state.status is ColumnStatus.RUNNING
                placeholder = self.placeholder(state, q)
                column.answer.show_answer(
                    state.answer_text(q), streaming=streaming, placeholder=placeholder
                )
            state.dirty_text.clear()
        self._render_votes()

    def status_text(self, state: ColumnState) -> str:
        live = self.live
        assert live is not None
        n = len(live.prompts)
        status = state.status
        if status is ColumnStatus.QUEUED:
            if live.mode == "fair":
                return self.tr("queued (fair mode)")
            return self.tr("starting (parallel mode)…")
        if status is ColumnStatus.LOADING:
            return self.tr("loading the model…")
        if status is ColumnStatus.RUNNING:
            if n == 1:
                return self.tr("answering…")
            q = (state.prompt or 0) + 1
            return self.tr("answering prompt %1 of %2").replace("%1", str(q)).replace("%2", str(n))
        if status is ColumnStatus.FAILED:
            return self.tr("failed: %1").replace("%1", state.reason or self.tr("no reason given"))
        if status is ColumnStatus.CANCELLED:
            return (
                self.tr("stopped · %1 of %2 answers")
                .replace("%1", str(len(state.answers)))
                .replace("%2", str(n))
            )
        if status is ColumnStatus.DONE:
            done = self.tr("done")
            if state.load_ms is not None and not self.hidden:
                done += " · " + self.tr("loaded in %1").replace(
                    "%1", fmt.seconds(state.load_ms / 1000)
                )
            return done
        if state.answers:
            return (
                self.tr("%1 of %2 answers")
                .replace("%1", str(len(state.answers)))
                .replace("%2", str(n))
            )
        return self.tr("not run yet")

    def figures_text(self, state: ColumnState) -> str:
        if self.hidden:
            return self.tr("Speed and memory are shown after Reveal.")
        parts = []
        if state.tokens_per_s is not None:
            parts.append(fmt.rate(state.tokens_per_s))
        if state.ttft_ms is not None:
            parts.append(self.tr("TTFT %1").replace("%1", fmt.seconds(state.ttft_ms / 1000)))
        live = self.live
        remote = live is not None and live.infos[state.index].remote
        if state.memory_bytes is not None:
            parts.append(self.tr("RAM %1").replace("%1", fmt.size(state.memory_bytes)))
        if state.vram_bytes:
            parts.append(self.tr("VRAM %1").replace("%1", fmt.size(state.vram_bytes)))
        elif remote and state.memory_bytes is None:
            parts.append(self.tr("memory unknown"))  # the server does not say; never 0
        return " · ".join(parts)

    def placeholder(self, state: ColumnState, q: int) -> str:
        answer = state.answers.get(q)
        if answer is not None and answer.error:
            return self.tr("No answer: %1").replace("%1", answer.error)
        if state.status is ColumnStatus.FAILED:
            return self.tr("No answer: the model failed.")
        if state.status in (ColumnStatus.QUEUED, ColumnStatus.LOADING):
            return self.tr("Waiting for its turn…") if state.status is ColumnStatus.QUEUED else ""
        if state.status is ColumnStatus.RUNNING and state.prompt == q:
            return self.tr("Waiting for the first token…")
        return self.tr("No answer yet.")

    # -- votes ------------------------------------------------------------------------------------

    def voting(self) -> bool:
        """Votes are asked for in blind comparisons that are stored."""
        live = self.live
        return live is not None and live.blind is not None and live.comparison_id is not None

    def can_vote(self, q: int) -> bool:
        live = self.live
        if live is None or not self.voting():
            return False
        answered = [c for c in live.columns if q in c.answers and c.answers[q].ok and c.prompt != q]
        busy = any(c.prompt == q and c.active for c in live.columns)
        return len(answered) >= 2 and not busy

    def _votes_key(self) -> tuple[object, ...]:
        """What the vote bar and buttons show depends on only this (redraw skips the rest)."""
        live = self.live
        if live is None or not self.voting():
            return (None, len(self.columns))
        q = self.prompt
        vote = live.vote_for(q)
        return (
            q,
            self.can_vote(q),
            (vote.outcome, vote.winner, vote.at) if vote is not None else None,
            len(live.votes),
            tuple(
                (column.contestant, q in live.columns[column.contestant].answers)
                for column in self.columns
            ),
        )

    def _render_votes(self, *, force: bool = False) -> None:
        key = self._votes_key()
        if not force and key == self._shown_votes:
            return  # unchanged: setting texts, fonts and visibility every tick costs
        self._shown_votes = key
        live = self.live
        voting = self.voting()
        for widget in (self.vote_label, self.tie_button, self.bad_button):
            widget.setVisible(voting)
        if live is None or not voting:
            for column in self.columns:
                column.set_vote("", visible=False, checked=False, enabled=False)
            return
        q = self.prompt
        enabled = self.can_vote(q)
        vote = live.vote_for(q)
        n = len(live.columns)
        self.bad_button.setText(self.tr("Both bad") if n == 2 else self.tr("All bad"))
        self.tie_button.setChecked(vote is not None and vote.outcome == "tie")
        self.bad_button.setChecked(vote is not None and vote.outcome == "all_bad")
        self.tie_button.setEnabled(enabled)
        self.bad_button.setEnabled(enabled)
        voted = sum(1 for p in range(len(live.prompts)) if live.vote_for(p) is not None)
        self.vote_label.setText(
            self.tr("Which answer is better? (%1 of %2 prompts voted)")
            .replace("%1", str(voted))
            .replace("%2", str(len(live.prompts)))
        )
        for position, column in enumerate(self.columns):
            letter = string.ascii_uppercase[position]
            won = vote is not None and vote.outcome == "win" and vote.winner == column.contestant
            answered = q in live.columns[column.contestant].answers
            column.set_vote(
                self.tr("%1 is better").replace("%1", letter),
                visible=True,
                checked=won,
                enabled=enabled and answered,
            )

    def _on_column_vote_requested(self, contestant: int) -> None:
        self._vote("win", contestant)

    def _vote(self, outcome: str, winner: int | None = None) -> None:
        if self.can_vote(self.prompt):
            self.vote_requested.emit(self.prompt, outcome, winner)
        self._render_votes(force=True)
