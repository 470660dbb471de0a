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
finishes (:class:`~desktop.ui.widgets.compare_job.CompareJob`, on a thread of its own). A new
comparison starts from the core's defaults, as ``llm-scout compare`` does (the settings'
context, or what the longest prompt needs; a fixed seed). The comparison shown, live or stored,
is drawn by a :class:`~desktop.ui.widgets.comparison_view.ComparisonView` (it pulls: the
runner's events go into a feed its timer drains about 30 times a second); this page lays out the
setup, the board and the results and wires them to the job.

Signals:
    state_changed(str): ``setup``, ``preparing``, ``running`` or ``shown``.
    comparison_finished(object): the :class:`~desktop.core.compare.ComparisonResult` of a run.
    comparison_opened(int): a stored comparison is shown.
    history_changed(): something was stored (a comparison, a vote).
    exported(str): a report or the chart was written (its path).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget
from shiboken6 import isValid

from desktop.core.compare import (
    DEFAULT_MAX_TOKENS,
    MAX_CONTESTANTS,
    MIN_CONTESTANTS,
    CompareError,
    ComparePhase,
    ComparisonResult,
    LiveComparison,
    ParallelCheck,
    PromptSuite,
    context_for,
    default_load,
    default_sampling,
    open_comparison,
    single_prompt,
)
from desktop.core.hardware import THIS_MACHINE
from desktop.core.history import History
from desktop.ui.errors import show_error
from desktop.ui.models.compare_entries import ContestantEntry, entry_from_info
from desktop.ui.state import AppState
from desktop.ui.widgets.compare_banner import CompareBanner
from desktop.ui.widgets.compare_board import CompareBoard
from desktop.ui.widgets.compare_job import CompareJob, NewComparison, Prepared
from desktop.ui.widgets.compare_results import CompareResults
from desktop.ui.widgets.compare_setup import ONE_PROMPT, CompareSetup
from desktop.ui.widgets.comparison_view import ComparisonView
from desktop.ui.widgets.contestant_dialog import ContestantDialog
from desktop.ui.widgets.contestant_list import ContestantList
from desktop.ui.window_settings import window_settings
from desktop.ui.workers import TaskControl, run_task

log = logging.getLogger(__name__)

SHUTDOWN_WAIT_MS = 10_000
GROUP = "compare"


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
        self.phase = ComparePhase.SETUP
        self.result: ComparisonResult | None = None
        self.job = CompareJob(self)
        self._kind = "new"  # what is being prepared: new, resume or rerun
        self._closed = False
        self._lists_read = False
        self._build()
        self.view = ComparisonView(self.board, self.results, self.job, self)
        self.contestants = ContestantList(state, self.setup, lambda: self.phase.busy, self)
        self._connect()
        self._restore(window_settings())
        self._show_entries()

    @property
    def live(self) -> LiveComparison | None:
        """The comparison shown (a run in progress, or one opened from the history)."""
        return self.view.live

    @property
    def entries(self) -> list[ContestantEntry]:
        """The contestants of the setup (or of the comparison shown)."""
        return self.contestants.entries

    @property
    def models(self) -> list[tuple[str, str]]:
        """(label, spec) of the models on this machine (the Add menu)."""
        return self.contestants.models

    @property
    def revealed(self) -> bool:
        return self.view.revealed

    @property
    def banner_label(self) -> QLabel:
        return self.banner.label

    # -- building ---------------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 10, 12, 6)
        outer.setSpacing(6)
        self.setup = CompareSetup()
        outer.addWidget(self.setup)
        self.banner = CompareBanner()
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

    def _connect(self) -> None:
        setup = self.setup
        setup.run_requested.connect(self.run)
        setup.stop_requested.connect(self.stop)
        setup.resume_requested.connect(self.resume)
        setup.reveal_requested.connect(self.reveal)
        self.contestants.changed.connect(self._show_entries)
        self.contestants.problem.connect(self._show_problem)
        board = self.board
        board.edit_requested.connect(self.edit_entry)
        board.remove_requested.connect(self.remove_entry)
        board.vote_requested.connect(self._on_board_vote_requested)
        self.results.export_requested.connect(self.view.ask_export)
        view = self.view
        view.progressed.connect(self._update_progress)
        view.voted.connect(self.history_changed)
        view.vote_failed.connect(self._show_problem)
        view.exported.connect(self.exported)
        view.export_failed.connect(self._show_error_box)
        job = self.job
        job.prepared.connect(self._on_job_prepared)
        job.prepare_failed.connect(self._on_job_prepare_failed)
        job.finished.connect(self._on_job_finished)
        job.failed.connect(self._on_job_failed)
        self.state.library_changed.connect(self._on_state_library_changed)

    def _restore(self, settings: QSettings) -> None:
        settings.beginGroup(GROUP)
        sizes = settings.value("splitter")
        if sizes is not None:
            self.splitter.restoreState(sizes)
        stored = settings.value("max_tokens", DEFAULT_MAX_TOKENS)
        self.setup.max_tokens.setValue(int(str(stored or DEFAULT_MAX_TOKENS)))
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
            self.contestants.reload_models()
            self.contestants.read_suites()

    # -- phase ------------------------------------------------------------------------------------

    def _set_phase(self, phase: ComparePhase) -> None:
        changed = phase is not self.phase
        self.phase = phase
        busy = phase.busy
        shown = phase is ComparePhase.SHOWN
        can_run = MIN_CONTESTANTS <= len(self.entries) <= MAX_CONTESTANTS
        self.setup.set_running(busy, can_run=can_run)
        self.setup.add_button.setEnabled(not busy and len(self.entries) < MAX_CONTESTANTS)
        live = self.live
        stored = live is not None and live.comparison_id is not None
        self.setup.resume_button.setVisible(
            shown and stored and live is not None and not live.complete
        )
        self.setup.resume_button.setEnabled(not busy)
        blind = live is not None and live.blind is not None
        self.setup.reveal_button.setVisible(blind and shown and not self.revealed)
        self.results.set_exportable(shown and live is not None and not self.view.hidden)
        self.view.follow(phase)
        self._update_progress()
        if changed:
            self.state_changed.emit(phase.value)

    def _update_progress(self) -> None:
        self.setup.progress_label.setText(self.view.progress_text())

    # -- the contestants --------------------------------------------------------------------------

    def reload_models(self) -> None:
        """List the demo models and the library's files for the Add menu (off the GUI thread)."""
        self.contestants.reload_models()

    def _on_state_library_changed(self) -> None:
        if self._lists_read:
            self.contestants.reload_models()

    def add_entry(self, entry: ContestantEntry) -> bool:
        """Add a contestant (from the Add menu, a file, or the Playground); at most six."""
        return self.contestants.add(entry)

    def add_model(self, spec: str, label: str | None = None) -> bool:
        return self.contestants.add_model(spec, label)

    def add_server(self, url: str, model: str, key_env: str = "") -> bool:
        """Add a contestant on an OpenAI-compatible server (UsageError for an unusable URL or
        an empty model name)."""
        return self.contestants.add_server(url, model, key_env)

    def add_server_dialog(self) -> ContestantDialog | None:
        """The contestant dialog for a new model on a server; added on OK."""
        return self.contestants.add_server_dialog()

    def edit_entry(self, position: int) -> ContestantDialog | None:
        """Open the settings of contestant ``position`` (applied on OK)."""
        return self.contestants.edit(position)

    def remove_entry(self, position: int) -> None:
        self.contestants.remove(position)

    def _show_entries(self) -> None:
        """Back to the setup (a shown comparison stays in the history)."""
        self.view.show(None, revealed=False, follow=self.board.follow)
        self.result = None
        self.board.show_entries(self.entries, editable=True)
        self._set_phase(ComparePhase.SETUP)

    # -- running ----------------------------------------------------------------------------------

    def new_request(self) -> NewComparison:
        """What Run asks for: the entries and the prompts, from the core's defaults (the
        settings' context or what the longest prompt needs, a fixed seed) as ``llm-scout
        compare`` starts; CompareError when the prompt cannot be used."""
        suite = self.setup.suite() or single_prompt(self.setup.prompt_edit.toPlainText())
        max_tokens = self.setup.max_tokens.value()
        settings = self.state.settings
        return NewComparison(
            specs=tuple(e.spec_text() for e in self.entries),
            suite=suite,
            load=default_load(
                context_for(suite, max_tokens, settings.default_ctx),
                n_threads=settings.default_threads,
            ),
            sampling=default_sampling(max_tokens),
            mode=self.setup.mode,
            blind=self.setup.blind_check.isChecked(),
            quality=self.setup.quality.check(),
        )

    def run(self) -> bool:
        """Run the setup as a new comparison; returns whether it started (preparing first)."""
        if self._closed or self.phase.busy:
            return False
        self.banner.hide()
        if not MIN_CONTESTANTS <= len(self.entries) <= MAX_CONTESTANTS:
            self.banner.show_text(
                self.tr("A comparison takes two to six models; add them with “Add model”.")
            )
            return False
        try:
            request = self.new_request()
        except CompareError as exc:
            self._show_problem(exc)
            return False
        self._kind = "new"
        self.job.prepare_new(self.state.resolver, request, self.state.profile)
        self._set_phase(ComparePhase.PREPARING)
        return True

    def resume(self) -> bool:
        """Run only the answers the comparison shown is missing, into the same comparison."""
        live = self.live
        if live is None or live.comparison_id is None or self.phase is not ComparePhase.SHOWN:
            return False
        return self._prepare_stored(live.comparison_id, resume=True)

    def rerun_comparison(self, comparison_id: int) -> bool:
        """Run a stored comparison's contestants and prompts again on this machine, as a new
        comparison (its models found again through the library; one that is gone fails with
        that reason). Returns whether it started (False while another run is in progress)."""
        return self._prepare_stored(comparison_id, resume=False)

    def _prepare_stored(self, comparison_id: int, *, resume: bool) -> bool:
        if self._closed or self.phase.busy:
            return False
        self.banner.hide()
        self._kind = "resume" if resume else "rerun"
        self.job.prepare_stored(
            self.state.resolver, comparison_id, self.state.profile, resume=resume
        )
        self._set_phase(ComparePhase.PREPARING)
        return True

    def _after_setup(self) -> ComparePhase:
        return ComparePhase.SHOWN if self.live is not None else ComparePhase.SETUP

    def _on_job_prepared(self, prepared: Prepared) -> None:
        if self._closed:
            return
        if prepared.refused:
            assert prepared.check is not None
            self.banner.show_text(self.refusal_text(prepared.check))
            self._set_phase(self._after_setup())
            return
        plan = prepared.plan
        live = LiveComparison.for_run(
            plan,
            existing=prepared.existing,
            comparison_id=prepared.comparison_id,
            machine=THIS_MACHINE,
        )
        if self._kind != "new":  # a stored comparison's contestants and options come back
            self.contestants.set([entry_from_info(info) for info in live.infos])
            self.setup.set_mode(plan.mode)
            self.setup.blind_check.setChecked(plan.blind)
        self.result = None
        self.view.show(live, revealed=False, follow=True)
        profile = self.state.this_machine or self.state.profile
        self.job.run(
            prepared,
            profile=profile,
            machine=THIS_MACHINE,
            remote_timeout_s=self.state.settings.remote_timeout_s,
        )
        self._set_phase(ComparePhase.RUNNING)

    def _on_job_prepare_failed(self, error: Exception) -> None:
        if self._closed:
            return
        self._show_problem(error)
        self._set_phase(self._after_setup())

    def stop(self) -> None:
        """Stop the run: the answers being generated end and are not kept; it stays
        resumable."""
        if self.phase is ComparePhase.PREPARING:
            self.job.cancel_prepare()
            self._set_phase(self._after_setup())
        elif self.phase is ComparePhase.RUNNING:
            self.job.cancel()
            self.setup.stop_button.setEnabled(False)
            self.setup.progress_label.setText(self.tr("Stopping…"))

    def _on_job_finished(self, result: ComparisonResult) -> None:
        if self._closed:
            return
        self.view.drain()
        live = self.live
        if live is None:
            return
        live.show_result(result)
        self.result = result
        self._set_phase(ComparePhase.SHOWN)
        self.view.show_live()
        self.view.show_summary()
        self.history_changed.emit()
        self.comparison_finished.emit(result)

    def _on_job_failed(self, error: Exception) -> None:
        if self._closed:
            return
        self.view.drain()
        self._show_problem(error)
        live = self.live
        if live is not None and live.comparison_id is None:
            self._show_entries()  # nothing was stored: back to the setup
            return
        if live is not None:
            live.cancel_waiting()
        self._set_phase(ComparePhase.SHOWN)
        self.board.redraw(figures=True)
        self.history_changed.emit()

    # -- votes, reveal, stored comparisons --------------------------------------------------------

    def _on_board_vote_requested(self, prompt: int, outcome: str, winner: object) -> None:
        self.vote(prompt, outcome, winner if isinstance(winner, int) else None)

    def vote(self, prompt: int, outcome: str, winner: int | None = None) -> bool:
        """Vote on ``prompt``: ``win`` (for ``winner``), ``tie`` or ``all_bad``; stored at
        once (off the GUI thread). Voting again replaces the vote."""
        return self.view.vote(prompt, outcome, winner)

    def reveal(self) -> None:
        """Show the names (blind comparisons), with the win rates in the summary."""
        if self.view.reveal():
            self._set_phase(self.phase)

    def open_comparison(self, comparison_id: int) -> bool:
        """Show a stored comparison (read off the GUI thread; ``comparison_opened`` follows);
        a partial one can be resumed. Returns whether it is being opened (False while a run
        is in progress)."""
        if self._closed or self.phase.busy:
            return False

        def work(control: TaskControl) -> ComparisonResult:
            with History.open() as history:
                return open_comparison(history, comparison_id)

        run_task(work, on_done=self.show_result, on_failed=self._show_problem)
        return True

    def show_result(self, result: ComparisonResult) -> None:
        if self._closed or not isValid(self) or self.phase.busy:
            return
        self.banner.hide()
        self.contestants.set([entry_from_info(info) for info in result.contestants])
        self.setup.set_mode(result.mode)
        self.setup.blind_check.setChecked(result.blind is not None)
        self.setup.quality.show_check(result.quality_check)
        if result.max_tokens is not None:
            self.setup.max_tokens.setValue(result.max_tokens)
        if result.suite:
            self.setup.show_suite(
                result.suite, PromptSuite(result.suite, result.prompts, title=result.title)
            )
        elif len(result.prompts) == 1:
            self.setup.select_suite(ONE_PROMPT)
            self.setup.prompt_edit.setPlainText(result.prompts[0].text)
        self.result = result
        self.view.show(
            LiveComparison.from_result(result), revealed=result.blind is None, follow=False
        )
        self._set_phase(ComparePhase.SHOWN)
        self.view.show_live()
        self.view.show_summary()
        if result.id is not None:
            self.comparison_opened.emit(result.id)

    # -- export -----------------------------------------------------------------------------------

    def export(self, path: Path) -> bool:
        """Write the report the file's extension names (``.md``, ``.csv``, ``.json``) or the
        chart (``.png``), off the GUI thread; ``exported`` follows."""
        return self.view.export(path)

    # -- messages ---------------------------------------------------------------------------------

    def refusal_text(self, check: ParallelCheck) -> str:
        """Why parallel mode is refused, with the numbers."""
        where = self.state.profile_name if self.state.what_if else self.tr("this machine")
        return self.banner.refusal_text(check, where)

    def _show_problem(self, error: Exception) -> None:
        if not self._closed and isValid(self):
            self.banner.show_problem(error)

    def _show_error_box(self, error: Exception) -> None:
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
        self.view.stop()
        self.contestants.close()
        try:
            self.state.library_changed.disconnect(self._on_state_library_changed)
        except (RuntimeError, TypeError):
            pass
        if not self.job.wait(SHUTDOWN_WAIT_MS):
            log.warning("the comparison did not end within %d ms", SHUTDOWN_WAIT_MS)
