"""The comparison Compare shows: drawn live while it runs, its summary, votes, reveal, export.

:class:`ComparisonView` holds the :class:`~desktop.core.compare.LiveComparison` on the page — a
run in progress or one opened from the history — and draws it on the board (one column per
contestant) and in the results (summary table and chart). Drawing pulls: on a ~30 Hz timer
(``compareTick``) the view drains the job's feed into the comparison and redraws the columns
that changed; on a 2 Hz timer it reads the running workers' memory, refreshes the figures and,
after an answer finished, the summary and the chart (tens of milliseconds each). Blind
comparisons hide the names until revealed; a vote is stored at once, off the GUI thread. Export
writes the core's reports, or the chart as a PNG.

Signals:
    progressed(): an answer finished while it runs (the progress in words follows).
    voted(): a vote was stored.
    vote_failed(object): a vote could not be stored (the exception).
    exported(str): a report or the chart was written (its path).
    export_failed(object): a report or the chart could not be written (the exception).
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from desktop.core.compare import (
    CompareError,
    ComparePhase,
    LiveComparison,
    Vote,
    record_vote,
    write_report,
)
from desktop.core.history import History
from desktop.ui.models.compare_entries import entry_from_info
from desktop.ui.widgets.chart_image import caption_lines, captioned
from desktop.ui.widgets.compare_board import CompareBoard
from desktop.ui.widgets.compare_job import CompareJob
from desktop.ui.widgets.compare_results import CompareResults
from desktop.ui.workers import TaskControl, run_task

TICK_MS = 33  # ~30 Hz: streamed text, sparklines, statuses
TEXT_TICK_MS = 500  # live figures (tokens/s, TTFT, memory) as text


class ComparisonView(QObject):
    """One page's comparison and its drawing (see the module docstring)."""

    progressed = Signal()
    voted = Signal()
    vote_failed = Signal(object)
    exported = Signal(str)
    export_failed = Signal(object)

    def __init__(
        self, board: CompareBoard, results: CompareResults, job: CompareJob, parent: QObject
    ) -> None:
        super().__init__(parent)
        self.board = board
        self.results = results
        self.job = job
        self.live: LiveComparison | None = None
        self.revealed = False
        self.phase = ComparePhase.SETUP
        self._tick = QTimer(self)
        self._tick.setObjectName("compareTick")
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._on_tick_timeout)
        self._text_timer = QTimer(self)
        self._text_timer.setInterval(TEXT_TICK_MS)
        self._text_timer.timeout.connect(self._on_text_timer_timeout)

    @property
    def hidden(self) -> bool:
        """Names are hidden: a blind comparison not revealed yet."""
        live = self.live
        return live is not None and live.blind is not None and not self.revealed

    def follow(self, phase: ComparePhase) -> None:
        """The page's phase: the timers run while a comparison runs."""
        self.phase = phase
        if phase is ComparePhase.RUNNING:
            self._tick.start()
            self._text_timer.start()
        else:
            self._tick.stop()
            self._text_timer.stop()

    def show(self, live: LiveComparison | None, *, revealed: bool, follow: bool) -> None:
        """Show ``live`` (None: none, back to the setup); ``follow``: the board follows the
        prompt being answered."""
        self.live = live
        self.revealed = revealed
        self.board.follow = follow
        self.results.clear()
        if live is not None:
            self.show_live()

    # -- drawing --------------------------------------------------------------------------------

    def drain(self) -> None:
        live = self.live
        if live is None:
            return
        for t, event in self.job.feed.drain():
            live.apply(t, event)

    def _on_tick_timeout(self) -> None:
        live = self.live
        if live is None:
            return
        self.drain()
        live.tick(time.perf_counter())
        self.board.redraw(figures=False)
        if live.dirty_summary:
            self.progressed.emit()  # the table and the chart follow on the slower timer

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
            self.show_summary()

    def show_live(self) -> None:
        live = self.live
        if live is None:
            return
        settings = [self.board.describe_entry(entry_from_info(info)) for info in live.infos]
        editable = not self.phase.busy and not live.running
        self.board.show_live(live, revealed=self.revealed, editable=editable, settings=settings)

    def show_summary(self) -> None:
        live = self.live
        if live is None:
            return
        live.dirty_summary = False
        result = live.result()
        hidden = self.hidden
        self.results.show_summary(
            result.summary(),
            result.chart(),
            hide_names=hidden,
            caption=self.caption(),
            ratings=result.vote_ratings(),
            quality_check=result.quality_check,
            quality=result.quality,
            quality_points=result.quality_chart(),
        )
        self.results.set_exportable(self.phase is ComparePhase.SHOWN and not hidden)

    def caption(self) -> str:
        live = self.live
        if live is None:
            return ""
        parts = []
        if live.comparison_id is not None:
            parts.append(self.tr("comparison %1").replace("%1", str(live.comparison_id)))
        parts.append(self.tr("fair mode") if live.mode == "fair" else self.tr("parallel mode"))
        if live.mode == "parallel":
            parts.append(self.tr("the models shared the machine: speeds do not compare"))
        if self.hidden:
            parts.append(self.tr("names, speeds and memory hidden until you reveal them"))
        return " · ".join(parts)

    def progress_text(self) -> str:
        """How far the comparison is, in words ("" in the setup)."""
        live = self.live
        if live is None or self.phase is ComparePhase.SETUP:
            return ""
        if self.phase is ComparePhase.PREPARING:
            return self.tr("Preparing…")
        total = len(live.columns) * len(live.prompts)
        text = (
            self.tr("%1 of %2 answers").replace("%1", str(live.answered)).replace("%2", str(total))
        )
        if self.phase is ComparePhase.SHOWN and not live.complete:
            text += " · " + self.tr("incomplete: Resume runs the rest")
        return text

    # -- blind votes ----------------------------------------------------------------------------

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

        run_task(work, on_done=lambda _v: self.voted.emit(), on_failed=self.vote_failed.emit)
        self.board.redraw(figures=False)
        self.show_summary()
        return True

    def reveal(self) -> bool:
        """Show the names (blind comparisons), with the win rates in the summary."""
        if self.live is None or self.revealed:
            return False
        self.revealed = True
        self.show_live()
        self.show_summary()
        return True

    # -- export ---------------------------------------------------------------------------------

    def ask_export(self, kind: str) -> None:
        """Ask where to write the report of ``kind`` (md, csv, json) or the chart (png)."""
        filters = {
            "md": self.tr("Markdown (*.md)"),
            "csv": self.tr("CSV (*.csv)"),
            "json": self.tr("JSON (*.json)"),
            "png": self.tr("PNG image (*.png)"),
        }
        live = self.live
        number = live.comparison_id if live is not None else None
        name = f"comparison-{number}.{kind}" if number is not None else f"comparison.{kind}"
        window = self.parent()
        path, _ = QFileDialog.getSaveFileName(
            window if isinstance(window, QWidget) else None,
            self.tr("Export the comparison"),
            str(Path.home() / name),
            filters[kind],
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
            chart = self.results.chart
            image = captioned(chart.grab().toImage(), caption_lines(live.result()), chart.font())

            def write_png(control: TaskControl) -> str:
                if not image.save(str(path)):  # the format follows the .png suffix
                    raise CompareError(f"Cannot write the chart to {path}.", kind="compare.option")
                return str(path)

            run_task(write_png, on_done=self.exported.emit, on_failed=self.export_failed.emit)
            return True
        result = live.result()

        def write(control: TaskControl) -> str:
            write_report(result, path)
            return str(path)

        run_task(write, on_done=self.exported.emit, on_failed=self.export_failed.emit)
        return True

    def stop(self) -> None:
        self._tick.stop()
        self._text_timer.stop()
