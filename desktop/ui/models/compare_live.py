"""A running comparison as the Compare page draws it, built from the runner's events (no Qt).

The :class:`~desktop.core.compare.CompareRunner` calls ``on_event`` on its own thread.
:class:`CompareFeed` is that callback: it only stamps each event with the time it arrived
(``time.perf_counter``, the engine's clock) and appends it under a lock. The page's GUI timer
drains the feed about 30 times a second (pull, don't push) and hands the events to
:class:`LiveComparison`, which keeps what each column shows — its status, the answer text of
every prompt, live tokens/s and TTFT from the arrival times (the engine's own
:class:`~desktop.core.engine.GenerationMeter`), a short speed history for the sparkline — and
marks what changed, so the page redraws only that, once per tick.

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

from desktop.core.compare import (
    AnswerFinished,
    AnswerResult,
    AnswerStarted,
    AnswerText,
    BlindLabels,
    CompareEvent,
    ComparisonFinished,
    ComparisonResult,
    ComparisonStarted,
    ContestantFailed,
    ContestantFinished,
    ContestantInfo,
    ContestantLoaded,
    ContestantOutcome,
    ContestantStarted,
    Prompt,
    Vote,
)
from desktop.core.engine import GenerationMeter

LIVE_WINDOW_S = 1.0  # live tokens/s: the tokens of the last second (the engine's definition)
SPARK_POINTS = 240  # the sparkline keeps this many points per column
SPARK_INTERVAL_S = 0.25  # and takes at most four a second (each one redraws a plot)

#: Column statuses: not run yet, waiting for its turn, its model loading, answering, and the
#: contestant's outcomes.
STATUSES = ("idle", "queued", "loading", "running", "done", "failed", "cancelled")


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
    status: str = "idle"
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

    @property
    def active(self) -> bool:
        return self.status in ("loading", "running")

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

    # -- from a stored result -------------------------------------------------------------------

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
        for column, outcome in zip(self.columns, result.outcomes, strict=False):
            column.status = _status_of(outcome)
            if column.status in ("loading", "running"):  # stored while running: interrupted
                column.status = "cancelled"
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
                column.status = "queued"
                column.reason = column.error_kind = None
                column.dirty_status = True

    def apply(self, t: float, event: CompareEvent) -> None:
        """One event of the runner, arrived at ``t``."""
        if isinstance(event, AnswerText):
            self._text(t, event)
        elif isinstance(event, AnswerStarted):
            column = self.columns[event.contestant]
            column.status = "running"
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
            column.status = "loading"
            column.reason = column.error_kind = None
            column.dirty_status = True
        elif isinstance(event, ContestantLoaded):
            column = self.columns[event.contestant]
            column.load_ms = event.load_ms
            column.dirty_status = True
        elif isinstance(event, ContestantFailed):
            column = self.columns[event.contestant]
            column.status = "failed"
            column.reason, column.error_kind = event.reason, event.kind
            column.meter = None
            column.dirty_status = True
            if column.prompt is not None:
                column.dirty_text.add(column.prompt)
            self.dirty_summary = True
        elif isinstance(event, ContestantFinished):
            column = self.columns[event.contestant]
            if column.status != "failed":
                column.status = _status_of(event.outcome)
                column.reason = event.outcome.reason
            column.prompt = None
            column.meter = None
            column.dirty_status = True
            self.dirty_summary = True
        elif isinstance(event, ComparisonStarted):
            self.comparison_id = event.comparison_id
            self.total = event.total + self.done
        elif isinstance(event, ComparisonFinished):
            self.show_result(event.result)

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
            if meter is None or meter.t_first is None or meter.generated_tokens < 2:
                continue
            if now - meter.t_first < LIVE_WINDOW_S:
                rate = meter.finish().tokens_per_s
            else:
                rate = meter.live_tokens_per_s(now, LIVE_WINDOW_S)
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
        )

    @property
    def complete(self) -> bool:
        return all(len(c.answers) == len(self.prompts) for c in self.columns)

    def column_order(self) -> list[int]:
        """Contestants in the order their columns are shown (shuffled when blind)."""
        if self.blind is not None:
            return list(self.blind.order)
        return list(range(len(self.columns)))


def _status_of(outcome: ContestantOutcome) -> str:
    status = outcome.status
    if status == "pending":
        return "idle"
    return status if status in STATUSES else "idle"


def _outcome_of(column: ColumnState) -> ContestantOutcome:
    status = {"idle": "pending", "queued": "pending", "loading": "running"}.get(
        column.status, column.status
    )
    return ContestantOutcome(status, column.reason, column.error_kind)
