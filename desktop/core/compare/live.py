"""A comparison as a front end shows it while it runs, built from the runner's events.

:class:`ComparePhase` is where a comparison page is (setting up, preparing, running, showing
one). The :class:`~desktop.core.compare.CompareRunner` calls ``on_event`` on its own thread.
:class:`CompareFeed` is that callback: it only stamps each event with the time it arrived
(``time.perf_counter``, the engine's clock) and appends it under a lock. The front end's
timer drains the feed about 30 times a second (pull, don't push) and hands the events to
:class:`LiveComparison`, which keeps what each column shows — its :class:`ColumnStatus`, the
answer text of every prompt, the engine's live tokens/s
(:meth:`~desktop.core.engine.GenerationMeter.live_rate`) and TTFT from the arrival times, a
short speed history for the sparkline — and marks what changed, so the front end redraws only
that, once per tick.

The measured figures of a finished answer come from its :class:`~desktop.core.engine.RunReport`;
the summary and chart are the core's (:meth:`ComparisonResult.summary`, ``chart``) over a
:class:`ComparisonResult` snapshot of the answers so far (:meth:`LiveComparison.result`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from enum import Enum

from desktop.core.compare.events import (
    AnswerFinished,
    AnswerStarted,
    AnswerText,
    CompareEvent,
    ComparisonFinished,
    ComparisonStarted,
    ContestantFailed,
    ContestantFinished,
    ContestantLoaded,
    ContestantStarted,
    QualityFinished,
    QualityProgress,
    QualityStarted,
)
from desktop.core.compare.persist import info_of
from desktop.core.compare.plan import ComparisonPlan
from desktop.core.compare.quality_check import QualityCheck, QualityOutcome
from desktop.core.compare.results import (
    AnswerResult,
    ComparisonResult,
    ContestantInfo,
    ContestantOutcome,
)
from desktop.core.compare.suites import Prompt
from desktop.core.compare.votes import BlindLabels, Vote
from desktop.core.engine import GenerationMeter

SPARK_POINTS = 240  # the sparkline keeps this many points per column
SPARK_INTERVAL_S = 0.25  # and takes at most four a second (each one redraws a plot)


class ComparePhase(str, Enum):
    """Where a comparison page is; the value is the word its signal carries."""

    SETUP = "setup"  # contestants and prompts being chosen
    PREPARING = "preparing"  # models resolved, parallel mode checked
    RUNNING = "running"  # answers stream
    SHOWN = "shown"  # a finished, stopped or stored comparison

    @property
    def busy(self) -> bool:
        return self in (ComparePhase.PREPARING, ComparePhase.RUNNING)


class ColumnStatus(str, Enum):
    """A column: not run yet, waiting for its turn, its model loading, answering, and the
    contestant's outcomes."""

    IDLE = "idle"
    QUEUED = "queued"
    LOADING = "loading"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def active(self) -> bool:
        return self in (ColumnStatus.LOADING, ColumnStatus.RUNNING)

    @property
    def waiting(self) -> bool:
        """Not done with the run in progress (a stop or a failure cancels it)."""
        return self in (ColumnStatus.QUEUED, ColumnStatus.LOADING, ColumnStatus.RUNNING)


class CompareFeed:
    """The runner's ``on_event``: events stamped with their arrival time, for the GUI timer."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[tuple[float, CompareEvent]] = []

    def __call__(self, event: CompareEvent) -> None:
        t = time.perf_counter()
        with self._lock:
            self._pending.append((t, event))

    def drain(self) -> list[tuple[float, CompareEvent]]:
        """Everything since the last drain, oldest first."""
        with self._lock:
            drained, self._pending = self._pending, []
        return drained


@dataclass
class ColumnState:
    """What one contestant's column shows."""

    index: int
    status: ColumnStatus = ColumnStatus.IDLE
    reason: str | None = None
    error_kind: str | None = None
    texts: dict[int, str] = field(default_factory=dict)
    answers: dict[int, AnswerResult] = field(default_factory=dict)
    prompt: int | None = None  # the prompt being answered
    load_ms: float | None = None
    ttft_ms: float | None = None
    tokens_per_s: float | None = None
    memory_bytes: int | None = None  # the worker's RSS now (live) or its peak (finished)
    vram_bytes: int | None = None
    spark: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=SPARK_POINTS))
    meter: GenerationMeter | None = None
    tokens_seen: int = 0
    spark_at: float = 0.0
    # What changed since the page last drew this column.
    dirty_status: bool = True
    dirty_text: set[int] = field(default_factory=set)
    dirty_spark: bool = False
    # The quality check: its outcome, or how far it is while it runs (done, total, figure).
    quality: QualityOutcome | None = None
    quality_progress: tuple[int, int | None, float | None] | None = None
    dirty_quality: bool = False

    @property
    def active(self) -> bool:
        return self.status.active

    def answer_text(self, prompt: int) -> str:
        return self.texts.get(prompt, "")


class LiveComparison:
    """The state of one comparison on the page: a run in progress, or one opened from the
    history. ``infos``: the contestants as shown (index order); ``blind``: the column order
    and letters of a blind comparison."""

    def __init__(
        self,
        infos: tuple[ContestantInfo, ...],
        prompts: tuple[Prompt, ...],
        *,
        mode: str,
        title: str = "",
        blind: BlindLabels | None = None,
        suite: str | None = None,
        machine: str = "",
    ) -> None:
        self.infos = infos
        self.prompts = prompts
        self.mode = mode
        self.title = title
        self.blind = blind
        self.suite = suite
        self.machine = machine
        self.comparison_id: int | None = None
        self.created_at: float | None = None
        self.columns = [ColumnState(i) for i in range(len(infos))]
        self.votes: list[Vote] = []
        self.done = 0
        self.total = 0
        self.finished: ComparisonResult | None = None
        self.running = False
        self.latest_prompt: int | None = None  # the prompt an answer last started on
        self.dirty_summary = True
        self.quality_check: QualityCheck | None = None

    # -- a run about to start, or a stored result -----------------------------------------------

    @classmethod
    def for_run(
        cls,
        plan: ComparisonPlan,
        *,
        existing: ComparisonResult | None = None,
        comparison_id: int | None = None,
        machine: str = "",
    ) -> LiveComparison:
        """A comparison about to run ``plan`` (into the stored ``existing`` one when it
        completes it): its answers in place, the rest queued. A blind plan keeps the stored
        comparison's column order, else gets the one its seed gives (as the runner's)."""
        infos = tuple(info_of(c, i) for i, c in enumerate(plan.contestants))
        blind: BlindLabels | None = None
        if existing is not None and existing.blind is not None:
            blind = existing.blind
        elif plan.blind:
            blind = BlindLabels.shuffled(len(infos), plan.blind_seed)
        live = cls(
            infos,
            plan.prompts,
            mode=plan.mode,
            title=plan.display_title,
            blind=blind,
            suite=plan.suite,
            machine=machine,
        )
        if existing is not None:
            live.show_result(existing)
        live.comparison_id = comparison_id
        live.quality_check = plan.quality
        live.queue_all()
        return live

    @classmethod
    def from_result(cls, result: ComparisonResult) -> LiveComparison:
        """A comparison opened from the history (or just finished): every answer in place."""
        live = cls(
            result.contestants,
            result.prompts,
            mode=result.mode,
            title=result.title,
            blind=result.blind,
            suite=result.suite,
            machine=result.machine,
        )
        live.show_result(result)
        return live

    def show_result(self, result: ComparisonResult) -> None:
        self.finished = result
        self.comparison_id = result.id
        self.created_at = result.created_at
        self.votes = list(result.votes)
        self.blind = result.blind or self.blind
        self.running = False
        self.quality_check = result.quality_check or self.quality_check
        for column in self.columns:
            column.quality = result.quality_of(column.index) or column.quality
            column.quality_progress = None
            column.dirty_quality = True
        for column, outcome in zip(self.columns, result.outcomes, strict=False):
            column.status = _status_of(outcome)
            if column.status.active:  # stored while running: interrupted
                column.status = ColumnStatus.CANCELLED
            column.reason, column.error_kind = outcome.reason, outcome.error_kind
            column.prompt = None
            column.meter = None
            column.dirty_status = True
        for answer in result.answers:
            column = self.columns[answer.contestant]
            column.answers[answer.prompt] = answer
            column.texts[answer.prompt] = answer.text
            column.dirty_text.add(answer.prompt)
        for row in result.summary():
            column = self.columns[row.contestant]
            column.ttft_ms = row.ttft_ms
            column.tokens_per_s = row.generation_tokens_per_s
            column.memory_bytes = row.rss_peak_bytes
            column.vram_bytes = row.vram_peak_bytes
        self.done = len(result.answers)
        self.total = len(result.contestants) * len(result.prompts)
        self.dirty_summary = True

    # -- events ---------------------------------------------------------------------------------

    def queue_all(self) -> None:
        """A run starts: columns without every answer wait for their turn."""
        self.running = True
        self.finished = None
        for column in self.columns:
            if len(column.answers) < len(self.prompts):
                column.status = ColumnStatus.QUEUED
                column.reason = column.error_kind = None
                column.dirty_status = True

    def apply(self, t: float, event: CompareEvent) -> None:
        """One event of the runner, arrived at ``t``."""
        if isinstance(event, AnswerText):
            self._text(t, event)
        elif isinstance(event, AnswerStarted):
            column = self.columns[event.contestant]
            column.status = ColumnStatus.RUNNING
            column.prompt = event.prompt
            column.texts[event.prompt] = ""
            column.answers.pop(event.prompt, None)
            column.meter = GenerationMeter()
            column.meter.record_sent(t)
            column.tokens_seen = 0
            column.dirty_text.add(event.prompt)
            column.dirty_status = True
            self.latest_prompt = event.prompt
        elif isinstance(event, AnswerFinished):
            self._answer(event)
        elif isinstance(event, ContestantStarted):
            column = self.columns[event.contestant]
            column.status = ColumnStatus.LOADING
            column.reason = column.error_kind = None
            column.dirty_status = True
        elif isinstance(event, ContestantLoaded):
            column = self.columns[event.contestant]
            column.load_ms = event.load_ms
            column.dirty_status = True
        elif isinstance(event, ContestantFailed):
            column = self.columns[event.contestant]
            column.status = ColumnStatus.FAILED
            column.reason, column.error_kind = event.reason, event.kind
            column.meter = None
            column.dirty_status = True
            if column.prompt is not None:
                column.dirty_text.add(column.prompt)
            self.dirty_summary = True
        elif isinstance(event, ContestantFinished):
            column = self.columns[event.contestant]
            if column.status is not ColumnStatus.FAILED:
                column.status = _status_of(event.outcome)
                column.reason = event.outcome.reason
            column.prompt = None
            column.meter = None
            column.dirty_status = True
            self.dirty_summary = True
        elif isinstance(event, QualityStarted | QualityProgress | QualityFinished):
            self._quality(event)
        elif isinstance(event, ComparisonStarted):
            self.comparison_id = event.comparison_id
            self.total = event.total + self.done
        elif isinstance(event, ComparisonFinished):
            self.show_result(event.result)

    def _quality(self, event: QualityStarted | QualityProgress | QualityFinished) -> None:
        if isinstance(event, QualityFinished):
            column = self.columns[event.outcome.contestant]
            column.quality, column.quality_progress = event.outcome, None
            self.dirty_summary = True
        else:
            column = self.columns[event.contestant]
            column.quality = None
            if isinstance(event, QualityStarted):
                column.quality_progress = (0, event.planned, None)
            else:
                column.quality_progress = (event.done, event.total, event.value)
        column.dirty_quality = True

    def _text(self, t: float, event: AnswerText) -> None:
        column = self.columns[event.contestant]
        column.texts[event.prompt] = column.texts.get(event.prompt, "") + event.text
        column.dirty_text.add(event.prompt)
        meter = column.meter
        if meter is None:
            return
        new = event.tokens - column.tokens_seen
        if new > 0:
            meter.record_tokens(t, new)
            column.tokens_seen = event.tokens
        if column.ttft_ms is None or meter.generated_tokens == new:
            column.ttft_ms = meter.ttft_ms()
            column.dirty_status = True

    def _answer(self, event: AnswerFinished) -> None:
        answer = event.answer
        column = self.columns[answer.contestant]
        column.answers[answer.prompt] = answer
        column.texts[answer.prompt] = answer.text
        column.dirty_text.add(answer.prompt)
        report = answer.report
        if report is not None:
            column.ttft_ms = report.metrics.ttft_ms
            column.tokens_per_s = report.metrics.tokens_per_s
            if report.rss_peak_bytes is not None:
                column.memory_bytes = report.rss_peak_bytes
            if report.vram_peak_bytes is not None:
                column.vram_bytes = report.vram_peak_bytes
        column.meter = None
        column.dirty_status = True
        self.done += 1
        self.dirty_summary = True

    def tick(self, now: float) -> None:
        """Live tokens/s of the columns answering now, and a sparkline point (10 a second)."""
        for column in self.columns:
            meter = column.meter
            rate = meter.live_rate(now) if meter is not None else None
            if rate is None:
                continue
            column.tokens_per_s = rate
            if now - column.spark_at >= SPARK_INTERVAL_S:
                column.spark.append((now, rate))
                column.spark_at = now
                column.dirty_spark = True

    # -- votes ----------------------------------------------------------------------------------

    def add_vote(self, vote: Vote) -> None:
        self.votes.append(vote)
        self.dirty_summary = True

    def vote_for(self, prompt: int) -> Vote | None:
        """The vote that counts on ``prompt`` (the latest)."""
        found = [v for v in self.votes if v.prompt == prompt]
        return max(found, key=lambda v: v.at) if found else None

    # -- the result so far ---------------------------------------------------------------------

    @property
    def outcomes(self) -> tuple[ContestantOutcome, ...]:
        return tuple(_outcome_of(c) for c in self.columns)

    def result(self) -> ComparisonResult:
        """The comparison as it stands (the finished one when there is one, votes included)."""
        answers = tuple(
            column.answers[q] for column in self.columns for q in sorted(column.answers)
        )
        if self.finished is not None and not self.running:
            return dataclasses.replace(self.finished, votes=tuple(self.votes), answers=answers)
        return ComparisonResult(
            id=self.comparison_id,
            title=self.title,
            mode=self.mode,
            contestants=self.infos,
            outcomes=self.outcomes,
            prompts=self.prompts,
            answers=answers,
            votes=tuple(self.votes),
            blind=self.blind,
            suite=self.suite,
            machine=self.machine,
            created_at=self.created_at,
            quality_check=self.quality_check,
            quality=tuple(c.quality for c in self.columns if c.quality is not None),
        )

    def cancel_waiting(self) -> None:
        """The run ended before its end: the columns still waiting for it are cancelled."""
        self.running = False
        for column in self.columns:
            if column.status.waiting:
                column.status, column.dirty_status = ColumnStatus.CANCELLED, True
            if column.quality_progress is not None:
                column.quality_progress, column.dirty_quality = None, True

    @property
    def answered(self) -> int:
        """Answers in place so far (of ``len(columns) * len(prompts)``)."""
        return sum(len(c.answers) for c in self.columns)

    @property
    def complete(self) -> bool:
        return all(len(c.answers) == len(self.prompts) for c in self.columns)

    def column_order(self) -> list[int]:
        """Contestants in the order their columns are shown (shuffled when blind)."""
        if self.blind is not None:
            return list(self.blind.order)
        return list(range(len(self.columns)))


def _status_of(outcome: ContestantOutcome) -> ColumnStatus:
    if outcome.status == "pending":
        return ColumnStatus.IDLE
    try:
        return ColumnStatus(outcome.status)
    except ValueError:
        return ColumnStatus.IDLE


def _outcome_of(column: ColumnState) -> ContestantOutcome:
    status = {"idle": "pending", "queued": "pending", "loading": "running"}.get(
        column.status.value, column.status.value
    )
    return ContestantOutcome(status, column.reason, column.error_kind)
