"""Compare: the same prompts on two to six models side by side — speed, memory and quality.

Set up the contestants (models on this machine, models behind an OpenAI-compatible server — a
local GGUF next to the same model served — or the same model twice with other settings:
quant, temperature, context, GPU layers, KV cache type), one prompt or a suite (built-in, or a
JSONL/CSV file whose bad rows are named with their lines), the mode and blind or not, then Run.
Each column streams its answer with its own live tokens/s, TTFT, memory and sparkline; a model
that fails to load or whose worker dies is marked failed with the reason while the others go
on. The summary table and the chart (generation tokens/s against peak memory, marker size =
score) follow the answers; Export writes the core's Markdown/CSV/JSON reports and a PNG of the
chart. Blind comparisons hide names and column order until the person has voted and reveals
them, with the win rates.

Scheduling is explicit: **fair** (one model at a time; the others say "queued (fair mode)") or
**parallel**, refused with the numbers when the fit says the models do not fit together on the
active profile. Runs are measured on this machine and stored in the history as every answer
finishes (:class:`~desktop.ui.widgets.compare_job.CompareJob`, on a thread of its own). Drawing
pulls: the runner's events go into a feed that a GUI timer drains about 30 times a second; text
figures refresh twice a second, and so do the summary and chart, only after an answer finished.

Signals:
    state_changed(str): ``setup``, ``preparing``, ``running`` or ``shown``.
    comparison_finished(object): the :class:`~desktop.core.compare.ComparisonResult` of a run.
    comparison_opened(int): a stored comparison is shown.
    history_changed(): something was stored (a comparison, a vote).
    exported(str): a report or the chart was written (its path).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.compare import (
    MAX_CONTESTANTS,
    MIN_CONTESTANTS,
    BlindLabels,
    CompareError,
    ComparisonResult,
    ParallelCheck,
    PromptSuite,
    Vote,
    info_of,
    list_suites,
    load_suite_file,
    open_comparison,
    record_vote,
    single_prompt,
    write_report,
)
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError
from desktop.core.hardware import THIS_MACHINE
from desktop.core.history import History
from desktop.ui import format as fmt
from desktop.ui.errors import describe, show_error
from desktop.ui.models.compare_entries import ContestantEntry, entry_from_info, remote_entry
from desktop.ui.models.compare_live import LiveComparison
from desktop.ui.state import AppState
from desktop.ui.theme import icon
from desktop.ui.widgets.compare_board import CompareBoard
from desktop.ui.widgets.compare_job import CompareJob, NewComparison, Prepared
from desktop.ui.widgets.compare_results import CompareResults
from desktop.ui.widgets.compare_setup import ONE_PROMPT, CompareSetup
from desktop.ui.widgets.contestant_dialog import ContestantDialog
from desktop.ui.widgets.model_facts import local_models
from desktop.ui.window_settings import window_settings
from desktop.ui.workers import TaskControl, run_task

log = logging.getLogger(__name__)

TICK_MS = 33  # ~30 Hz: streamed text, sparklines, statuses
TEXT_TICK_MS = 500  # live figures (tokens/s, TTFT, memory) as text
SHUTDOWN_WAIT_MS = 10_000
CTX_STEP = 512
DEFAULT_TEMPERATURE = 0.8
DEFAULT_SEED = 1  # fixed, so a re-run compares like with like (as `llm-scout compare`)
GROUP = "compare"
BANNER_STYLE = (
    "QFrame#compareBanner { background: rgba(192, 57, 43, 0.10); "
    "border: 1px solid rgba(192, 57, 43, 0.55); border-radius: 4px; }"
)


def context_for(suite: PromptSuite, max_tokens: int, default_ctx: int) -> int:
    """The settings' context, or more when the longest prompt needs it (rounded up), as the
    CLI chooses it."""
    needed = suite.context_needed(max_tokens)
    if needed <= default_ctx:
        return default_ctx
    return -(-needed // CTX_STEP) * CTX_STEP


class ComparePage(QWidget):
    """The Compare page (see the module docstring)."""

    state_changed = Signal(str)
    comparison_finished = Signal(object)
    comparison_opened = Signal(int)
    history_changed = Signal()
    exported = Signal(str)

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.phase = "setup"
        self.entries: list[ContestantEntry] = []
        self.live: LiveComparison | None = None
        self.result: ComparisonResult | None = None
        self.revealed = False
        self.models: list[tuple[str, str]] = []  # (label, spec) of the models on this machine
        self.job = CompareJob(self)
        self._kind = "new"  # what is being prepared: new, resume or rerun
        self._closed = False
        self._lists_read = False
        self._build()
        self._connect()
        self._restore(window_settings())
        self._show_entries()

    # -- building ---------------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        self.setup = CompareSetup()
        outer.addWidget(self.setup)
        self.banner = QFrame()
        self.banner.setObjectName("compareBanner")
        self.banner.setStyleSheet(BANNER_STYLE)
        row = QHBoxLayout(self.banner)
        row.setContentsMargins(10, 6, 6, 6)
        self.banner_label = QLabel()
        self.banner_label.setObjectName("compareBannerText")
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setIcon(icon("remove"))
        close.setAutoRaise(True)
        close.setAccessibleName(self.tr("Dismiss"))
        close.clicked.connect(self.banner.hide)
        row.addWidget(self.banner_label, 1)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.banner.setVisible(False)
        outer.addWidget(self.banner)
        self.board = CompareBoard()
        self.results = CompareResults()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("compareSplitter")
        self.splitter.addWidget(self.board)
        self.splitter.addWidget(self.results)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([380, 250])
        outer.addWidget(self.splitter, 1)
        self._tick = QTimer(self)
        self._tick.setObjectName("compareTick")
        self._tick.setInterval(TICK_MS)
        self._text_timer = QTimer(self)
        self._text_timer.setInterval(TEXT_TICK_MS)

    def _connect(self) -> None:
        setup = self.setup
        setup.model_chosen.connect(self._on_setup_model_chosen)
        setup.open_file_requested.connect(self._on_setup_open_file_requested)
        setup.server_requested.connect(self._on_setup_server_requested)
        setup.run_requested.connect(self.run)
        setup.stop_requested.connect(self.stop)
        setup.resume_requested.connect(self.resume)
        setup.reveal_requested.connect(self.reveal)
        setup.import_requested.connect(self._on_setup_import_requested)
        board = self.board
        board.edit_requested.connect(self.edit_entry)
        board.remove_requested.connect(self.remove_entry)
        board.vote_requested.connect(self._on_board_vote_requested)
        self.results.export_requested.connect(self._on_results_export_requested)
        job = self.job
        job.prepared.connect(self._on_job_prepared)
        job.prepare_failed.connect(self._on_job_prepare_failed)
        job.finished.connect(self._on_job_finished)
        job.failed.connect(self._on_job_failed)
        self._tick.timeout.connect(self._on_tick_timeout)
        self._text_timer.timeout.connect(self._on_text_timer_timeout)
        self.state.library_changed.connect(self._on_state_library_changed)

    def _restore(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        sizes = settings.value("splitter")
        if sizes is not None:
            self.splitter.restoreState(sizes)
        self.setup.max_tokens.setValue(int(str(settings.value("max_tokens", 256) or 256)))
        self.setup.set_mode(str(settings.value("mode", "fair")))
        settings.endGroup()

    def save_state(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        settings.setValue("splitter", self.splitter.saveState())
        settings.setValue("max_tokens", self.setup.max_tokens.value())
        settings.setValue("mode", self.setup.mode)
        settings.endGroup()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._lists_read:
            self._lists_read = True
            self.reload_models()
            self._read_suites()

    # -- phase ------------------------------------------------------------------------------------

    def _set_phase(self, phase: str) -> None:
        changed = phase != self.phase
        self.phase = phase
        busy = phase in ("preparing", "running")
        can_run = MIN_CONTESTANTS <= len(self.entries) <= MAX_CONTESTANTS
        self.setup.set_running(busy, can_run=can_run)
        self.setup.add_button.setEnabled(not busy and len(self.entries) < MAX_CONTESTANTS)
        live = self.live
        stored = live is not None and live.comparison_id is not None
        self.setup.resume_button.setVisible(
            phase == "shown" and stored and live is not None and not live.complete
        )
        self.setup.resume_button.setEnabled(not busy)
        blind = live is not None and live.blind is not None
        self.setup.reveal_button.setVisible(blind and phase == "shown" and not self.revealed)
        self.results.set_exportable(
            phase == "shown" and live is not None and (not blind or self.revealed)
        )
        if phase == "running":
            self._tick.start()
            self._text_timer.start()
        else:
            self._tick.stop()
            self._text_timer.stop()
        self._update_progress()
        if changed:
            self.state_changed.emit(phase)

    # -- models on this machine -------------------------------------------------------------------

    def reload_models(self) -> None:
        """List the demo models and the library's files for the Add menu (off the GUI thread)."""
        if self._closed:
            return
        demos = [(d.name, str(d.path)) for d in self.state.workspace.demos]
        db, catalog = self.state.library_db, self.state.workspace.catalog

        def work(control: TaskControl) -> list[tuple[str, str]]:
            return local_models(demos, db, catalog)

        def done(models: list[tuple[str, str]]) -> None:
            if self._closed or not isValid(self):
                return
            self.models = models
            self.setup.set_models(models)

        run_task(work, on_done=done)

    def _on_state_library_changed(self) -> None:
        if self._lists_read:
            self.reload_models()

    def _read_suites(self) -> None:
        def done(suites: list[PromptSuite]) -> None:
            if not self._closed and isValid(self):
                self.setup.set_suites(suites)

        run_task(lambda control: list_suites(), on_done=done, on_failed=self._show_problem)

    def import_suite(self, path: Path) -> None:
        """A JSONL or CSV suite file (read off the GUI thread); bad rows are listed with their
        line numbers, a file without a usable prompt is one sentence."""

        def done(suite: PromptSuite) -> None:
            if not self._closed and isValid(self):
                self.setup.add_suite_file(suite)

        run_task(lambda control: load_suite_file(path), on_done=done, on_failed=self._show_problem)

    def _on_setup_import_requested(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Import a prompt suite"),
            str(Path.home()),
            self.tr("Prompt suites (*.jsonl *.csv)"),
        )
        if path:
            self.import_suite(Path(path))

    # -- the contestants --------------------------------------------------------------------------

    def add_entry(self, entry: ContestantEntry) -> bool:
        """Add a contestant (from the Add menu, a file, or the Playground); at most six."""
        if self.phase in ("preparing", "running") or len(self.entries) >= MAX_CONTESTANTS:
            return False
        self.entries.append(entry)
        self._show_entries()
        return True

    def add_model(self, spec: str, label: str | None = None) -> bool:
        return self.add_entry(ContestantEntry(spec, label or Path(spec).name))

    def _on_setup_model_chosen(self, label: str, spec: str) -> None:
        self.add_model(spec, label)

    def _on_setup_open_file_requested(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Add a model"), str(Path.home()), self.tr("GGUF models (*.gguf)")
        )
        if path:
            self.add_model(path, Path(path).name)

    def add_server(self, url: str, model: str, key_env: str = "") -> bool:
        """Add a contestant on an OpenAI-compatible server (UsageError for an unusable URL or
        an empty model name)."""
        return self.add_entry(remote_entry(url, model, key_env))

    def _on_setup_server_requested(self) -> None:
        self.add_server_dialog()

    def add_server_dialog(self) -> ContestantDialog | None:
        """The contestant dialog for a new model on a server; added on OK."""
        if self.phase in ("preparing", "running") or len(self.entries) >= MAX_CONTESTANTS:
            return None
        url, model = "", ""
        last = next((e for e in reversed(self.entries) if e.remote), None)
        if last is not None:  # the server added last is the likeliest one again
            url, model = last.spec, last.served_model
        blank = ContestantEntry(url or "http://", "", served_model=model)
        dialog = ContestantDialog(blank, self.models, self)
        dialog.source_combo.setCurrentIndex(dialog.source_combo.findData("server"))
        if not url:
            dialog.url_edit.clear()

        def accepted() -> None:
            if self.phase not in ("preparing", "running"):
                self.add_entry(dialog.entry())

        dialog.accepted.connect(accepted)
        dialog.open()
        return dialog

    def edit_entry(self, position: int) -> ContestantDialog | None:
        """Open the settings of contestant ``position`` (non-modal to the app; applied on OK)."""
        if not 0 <= position < len(self.entries) or self.phase in ("preparing", "running"):
            return None
        dialog = ContestantDialog(self.entries[position], self.models, self)

        def accepted() -> None:
            if position < len(self.entries) and self.phase not in ("preparing", "running"):
                self.entries[position] = dialog.entry()
                self._show_entries()

        dialog.accepted.connect(accepted)
        dialog.open()
        return dialog

    def remove_entry(self, position: int) -> None:
        if 0 <= position < len(self.entries) and self.phase not in ("preparing", "running"):
            del self.entries[position]
            self._show_entries()

    def _show_entries(self) -> None:
        """Back to the setup (a shown comparison stays in the history)."""
        self.live = None
        self.result = None
        self.revealed = False
        self.board.show_entries(self.entries, editable=True)
        self.results.clear()
        self._set_phase("setup")

    # -- running ----------------------------------------------------------------------------------

    def run(self) -> bool:
        """Run the setup as a new comparison; returns whether it started (preparing first)."""
        if self._closed or self.phase in ("preparing", "running"):
            return False
        self.banner.hide()
        n = len(self.entries)
        if not MIN_CONTESTANTS <= n <= MAX_CONTESTANTS:
            self._show_banner(
                self.tr("A comparison takes two to six models; add them with “Add model”.")
            )
            return False
        suite = self.setup.suite()
        try:
            if suite is None:
                suite = single_prompt(self.setup.prompt_edit.toPlainText())
        except CompareError as exc:
            self._show_problem(exc)
            return False
        max_tokens = self.setup.max_tokens.value()
        settings = self.state.settings
        request = NewComparison(
            specs=tuple(e.spec_text() for e in self.entries),
            suite=suite,
            load=LoadSettings(
                n_ctx=context_for(suite, max_tokens, settings.default_ctx),
                n_threads=settings.default_threads or None,
            ),
            sampling=p.SamplingParams(
                temperature=DEFAULT_TEMPERATURE, seed=DEFAULT_SEED, max_tokens=max_tokens
            ),
            mode=self.setup.mode,
            blind=self.setup.blind_check.isChecked(),
        )
        self._kind = "new"
        self.job.prepare_new(self.state.resolver, request, self.state.profile)
        self._set_phase("preparing")
        return True

    def resume(self) -> bool:
        """Run only the answers the comparison shown is missing, into the same comparison."""
        live = self.live
        if live is None or live.comparison_id is None or self.phase != "shown":
            return False
        return self._prepare_stored(live.comparison_id, resume=True)

    def rerun_comparison(self, comparison_id: int) -> bool:
        """Run a stored comparison's contestants and prompts again on this machine, as a new
        comparison (its models found again through the library; one that is gone fails with
        that reason). Returns whether it started (False while another run is in progress)."""
        return self._prepare_stored(comparison_id, resume=False)

    def _prepare_stored(self, comparison_id: int, *, resume: bool) -> bool:
        if self._closed or self.phase in ("preparing", "running"):
            return False
        self.banner.hide()
        self._kind = "resume" if resume else "rerun"
        self.job.prepare_stored(
            self.state.resolver, comparison_id, self.state.profile, resume=resume
        )
        self._set_phase("preparing")
        return True

    def _on_job_prepared(self, prepared: Prepared) -> None:
        if self._closed:
            return
        if prepared.refused:
            assert prepared.check is not None
            self._show_banner(self.refusal_text(prepared.check))
            self._set_phase("shown" if self.live is not None else "setup")
            return
        plan = prepared.plan
        infos = tuple(info_of(c, i) for i, c in enumerate(plan.contestants))
        existing = prepared.existing
        blind: BlindLabels | None = None
        if existing is not None and existing.blind is not None:
            blind = existing.blind
        elif plan.blind:
            blind = BlindLabels.shuffled(len(infos), plan.blind_seed)
        if self._kind != "new":
            self.entries = [entry_from_info(info) for info in infos]
            self.setup.set_mode(plan.mode)
            self.setup.blind_check.setChecked(plan.blind)
        live = LiveComparison(
            infos,
            plan.prompts,
            mode=plan.mode,
            title=plan.display_title,
            blind=blind,
            suite=plan.suite,
            machine=THIS_MACHINE,
        )
        if existing is not None:
            live.show_result(existing)
        live.comparison_id = prepared.comparison_id
        live.queue_all()
        self.live = live
        self.result = None
        self.revealed = False
        self.board.follow = True
        self._show_live()
        self.results.clear()
        profile = self.state.this_machine or self.state.profile
        self.job.run(
            prepared,
            profile=profile,
            machine=THIS_MACHINE,
            remote_timeout_s=self.state.settings.remote_timeout_s,
        )
        self._set_phase("running")

    def _on_job_prepare_failed(self, error: Exception) -> None:
        if self._closed:
            return
        self._show_problem(error)
        self._set_phase("shown" if self.live is not None else "setup")

    def stop(self) -> None:
        """Stop the run: the answers being generated end and are not kept; it stays
        resumable."""
        if self.phase == "preparing":
            self.job.cancel_prepare()
            self._set_phase("shown" if self.live is not None else "setup")
        elif self.phase == "running":
            self.job.cancel()
            self.setup.stop_button.setEnabled(False)
            self.setup.progress_label.setText(self.tr("Stopping…"))

    def _on_job_finished(self, result: ComparisonResult) -> None:
        if self._closed:
            return
        self._drain()
        live = self.live
        if live is None:
            return
        live.show_result(result)
        self.result = result
        self._set_phase("shown")
        self._show_live()
        self._show_summary()
        self.history_changed.emit()
        self.comparison_finished.emit(result)

    def _on_job_failed(self, error: Exception) -> None:
        if self._closed:
            return
        self._drain()
        self._show_problem(error)
        live = self.live
        if live is not None and live.comparison_id is None:
            self._show_entries()  # nothing was stored: back to the setup
            return
        if live is not None:
            live.running = False
            for column in live.columns:
                if column.status in ("queued", "loading", "running"):
                    column.status, column.dirty_status = "cancelled", True
        self._set_phase("shown")
        self.board.redraw(figures=True)
        self.history_changed.emit()

    # -- drawing ----------------------------------------------------------------------------------

    def _drain(self) -> None:
        live = self.live
        if live is None:
            return
        for t, event in self.job.feed.drain():
            live.apply(t, event)

    def _on_tick_timeout(self) -> None:
        live = self.live
        if live is None:
            return
        self._drain()
        live.tick(time.perf_counter())
        self.board.redraw(figures=False)
        if live.dirty_summary:
            self._update_progress()  # the table and the chart follow on the slower timer

    def _on_text_timer_timeout(self) -> None:
        live = self.live
        if live is None:
            return
        for column in live.columns:
            if not column.active:
                continue
            session = self.job.session(column.index)
            readings = session.client.memory_snapshot() if session is not None else ()
            if readings:
                column.memory_bytes = readings[-1].rss_bytes
                column.vram_bytes = readings[-1].vram_bytes
        self.board.redraw(figures=True)
        if live.dirty_summary:
            # At most twice a second while it runs: side by side, several answers finish
            # within a few ticks, and the table and chart cost tens of milliseconds each time.
            self._show_summary()

    def _show_live(self) -> None:
        live = self.live
        if live is None:
            return
        settings = [self.board.describe_entry(entry_from_info(info)) for info in live.infos]
        editable = self.phase not in ("preparing", "running") and not live.running
        self.board.show_live(live, revealed=self.revealed, editable=editable, settings=settings)

    def _show_summary(self) -> None:
        live = self.live
        if live is None:
            return
        live.dirty_summary = False
        result = live.result()
        hidden = live.blind is not None and not self.revealed
        self.results.show_summary(
            result.summary(), result.chart(), hide_names=hidden, caption=self._caption(live)
        )
        self.results.set_exportable(self.phase == "shown" and not hidden)

    def _caption(self, live: LiveComparison) -> str:
        parts = []
        if live.comparison_id is not None:
            parts.append(self.tr("comparison %1").replace("%1", str(live.comparison_id)))
        parts.append(self.tr("fair mode") if live.mode == "fair" else self.tr("parallel mode"))
        if live.mode == "parallel":
            parts.append(self.tr("the models shared the machine: speeds do not compare"))
        if live.blind is not None and not self.revealed:
            parts.append(self.tr("names hidden until you reveal them"))
        return " · ".join(parts)

    def _update_progress(self) -> None:
        live = self.live
        label = self.setup.progress_label
        if live is None or self.phase == "setup":
            label.setText("")
            return
        if self.phase == "preparing":
            label.setText(self.tr("Preparing…"))
            return
        total = len(live.columns) * len(live.prompts)
        answered = sum(len(c.answers) for c in live.columns)
        text = self.tr("%1 of %2 answers").replace("%1", str(answered)).replace("%2", str(total))
        if self.phase == "shown" and not live.complete:
            text += " · " + self.tr("incomplete: Resume runs the rest")
        label.setText(text)

    # -- blind votes ------------------------------------------------------------------------------

    def _on_board_vote_requested(self, prompt: int, outcome: str, winner: object) -> None:
        self.vote(prompt, outcome, winner if isinstance(winner, int) else None)

    def vote(self, prompt: int, outcome: str, winner: int | None = None) -> bool:
        """Vote on ``prompt``: ``win`` (for ``winner``), ``tie`` or ``all_bad``; stored at
        once (off the GUI thread). Voting again replaces the vote."""
        live = self.live
        if live is None or live.comparison_id is None or not self.board.can_vote(prompt):
            return False
        shown = tuple(c.index for c in live.columns if prompt in c.answers and c.answers[prompt].ok)
        among = () if len(shown) == len(live.columns) else shown
        vote = Vote(prompt, outcome, winner, among)  # type: ignore[arg-type]
        live.add_vote(vote)
        comparison_id = live.comparison_id

        def work(control: TaskControl) -> Vote:
            with History.open() as history:
                return record_vote(history, comparison_id, vote)

        run_task(work, on_done=lambda _v: self.history_changed.emit(), on_failed=self._show_problem)
        self.board.redraw(figures=False)
        self._show_summary()
        return True

    def reveal(self) -> None:
        """Show the names (blind comparisons), with the win rates in the summary."""
        if self.live is None or self.revealed:
            return
        self.revealed = True
        self._show_live()
        self._show_summary()
        self._set_phase(self.phase)

    # -- stored comparisons -----------------------------------------------------------------------

    def open_comparison(self, comparison_id: int) -> bool:
        """Show a stored comparison (read off the GUI thread; ``comparison_opened`` follows);
        a partial one can be resumed. Returns whether it is being opened (False while a run
        is in progress)."""
        if self._closed or self.phase in ("preparing", "running"):
            return False

        def work(control: TaskControl) -> ComparisonResult:
            with History.open() as history:
                return open_comparison(history, comparison_id)

        run_task(work, on_done=self.show_result, on_failed=self._show_problem)
        return True

    def show_result(self, result: ComparisonResult) -> None:
        if self._closed or not isValid(self) or self.phase in ("preparing", "running"):
            return
        self.banner.hide()
        self.entries = [entry_from_info(info) for info in result.contestants]
        self.setup.set_mode(result.mode)
        self.setup.blind_check.setChecked(result.blind is not None)
        if result.suite:
            self.setup.select_suite(result.suite)
        elif len(result.prompts) == 1:
            self.setup.select_suite(ONE_PROMPT)
            self.setup.prompt_edit.setPlainText(result.prompts[0].text)
        self.live = LiveComparison.from_result(result)
        self.result = result
        self.revealed = result.blind is None
        self.board.follow = False
        self._set_phase("shown")
        self._show_live()
        self._show_summary()
        if result.id is not None:
            self.comparison_opened.emit(result.id)

    # -- export -----------------------------------------------------------------------------------

    def _on_results_export_requested(self, kind: str) -> None:
        filters = {
            "md": self.tr("Markdown (*.md)"),
            "csv": self.tr("CSV (*.csv)"),
            "json": self.tr("JSON (*.json)"),
            "png": self.tr("PNG image (*.png)"),
        }
        live = self.live
        number = live.comparison_id if live is not None else None
        name = f"comparison-{number}.{kind}" if number is not None else f"comparison.{kind}"
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export the comparison"), str(Path.home() / name), filters[kind]
        )
        if path:
            target = Path(path)
            self.export(target if target.suffix else target.with_suffix(f".{kind}"))

    def export(self, path: Path) -> bool:
        """Write the report the file's extension names (``.md``, ``.csv``, ``.json``) or the
        chart (``.png``), off the GUI thread; ``exported`` follows."""
        live = self.live
        if live is None:
            return False
        if path.suffix.lower() == ".png":
            image = self.results.chart.grab().toImage()

            def write_png(control: TaskControl) -> str:
                if not image.save(str(path)):  # the format follows the .png suffix
                    raise CompareError(f"Cannot write the chart to {path}.", kind="compare.option")
                return str(path)

            run_task(write_png, on_done=self.exported.emit, on_failed=self._show_error_box)
            return True
        result = live.result()

        def write(control: TaskControl) -> str:
            write_report(result, path)
            return str(path)

        run_task(write, on_done=self.exported.emit, on_failed=self._show_error_box)
        return True

    # -- messages ---------------------------------------------------------------------------------

    def refusal_text(self, check: ParallelCheck) -> str:
        """Why parallel mode is refused, with the numbers."""
        where = self.state.profile_name if self.state.what_if else self.tr("this machine")
        if check.problems:
            reasons = " ".join(check.problems)
        else:
            pool = self.tr("memory") if check.unified else self.tr("RAM")
            reasons = (
                self.tr(
                    "together the models need %1 of %2; %3 is available, %4 after the safety margin"
                )
                .replace("%1", fmt.size(check.ram_needed))
                .replace("%2", pool)
                .replace("%3", fmt.size(check.ram_available))
                .replace("%4", fmt.size(check.ram_usable))
            )
            for g, (need, free) in enumerate(zip(check.vram_needed, check.vram_free, strict=False)):
                if need:
                    reasons += "; " + (
                        self.tr("GPU %1 needs %2 of VRAM, %3 is free")
                        .replace("%1", str(g))
                        .replace("%2", fmt.size(need))
                        .replace("%3", fmt.size(free))
                    )
            each = ", ".join(f"{n.name} {fmt.size(n.ram_bytes)}" for n in check.needs)
            reasons += f" ({each})."
        return (
            self.tr(
                "Parallel mode refused on %1: %2 Use fair mode, which runs one model at a time."
            )
            .replace("%1", where)
            .replace("%2", reasons[:1].upper() + reasons[1:])
        )

    def _show_banner(self, text: str) -> None:
        self.banner_label.setText(text)
        self.banner.setVisible(True)

    def _show_problem(self, error: Exception) -> None:
        if not isinstance(error, ScoutError):
            log.error("Compare page: unexpected error", exc_info=error)
        if self._closed or not isValid(self):
            return
        title, sentence = describe(error)
        self._show_banner(f"{title}: {sentence}")

    def _show_error_box(self, error: Exception) -> None:
        if not isinstance(error, ScoutError):
            log.error("Compare page: unexpected error", exc_info=error)
        if not self._closed and isValid(self):
            show_error(self, error)

    # -- the end ----------------------------------------------------------------------------------

    def shutdown(self) -> None:
        """The window closes (or is rebuilt): stop the run, stop the timers and stop following
        the state, then wait (at most 10 s) until the run's thread has closed its workers: a
        cancelled run ends within a token or a kill. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self.job.shutdown()
        self._tick.stop()
        self._text_timer.stop()
        try:
            self.state.library_changed.disconnect(self._on_state_library_changed)
        except (RuntimeError, TypeError):
            pass
        if not self.job.wait(SHUTDOWN_WAIT_MS):
            log.warning("the comparison did not end within %d ms", SHUTDOWN_WAIT_MS)
