"""Running a comparison: contestants x prompts, fair or parallel, stored as it goes.

:class:`CompareRunner` runs a :class:`ComparisonPlan` on the engine's :class:`Session` (one worker
per contestant) and returns a :class:`ComparisonResult`. It is built for a window: progress
comes as typed events (:mod:`desktop.core.compare.events`) through ``on_event``, always called
on the thread that called :meth:`CompareRunner.run`; ``should_stop()`` is polled between
tokens, or :meth:`CompareRunner.cancel` may be called from any thread; the answer being
generated then ends and is not kept, and the comparison stays resumable. Each contestant's
turn (its model opened, its answers generated) is :class:`~desktop.core.compare.turns.Turns`'.

With a :class:`History` every answer is committed as soon as it finishes, before its
``AnswerFinished`` event: a process killed mid-suite loses no finished answer, and
:func:`resume` later runs only the cells that are missing. A contestant whose model does not
load, or whose engine is gone (an error that ends a run: :func:`~desktop.core.errors.is_fatal`,
the Playground's rule too), is marked failed with the reason; the others go on. A plan with a
quality check runs it after the answers (:class:`~desktop.core.compare.quality_step.QualityStep`:
each contestant in turn, its result stored as a measurement tagged with the comparison).
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Callable

from desktop.core.compare.errors import CompareError
from desktop.core.compare.events import (
    AnswerFinished,
    CompareEvent,
    ComparisonFinished,
    ComparisonStarted,
    ContestantFailed,
    ContestantFinished,
    ContestantStarted,
    EventCallback,
    QualityFinished,
)
from desktop.core.compare.persist import (
    info_of,
    model_ref_of,
    prompt_record,
    record_answer,
    record_quality,
)
from desktop.core.compare.plan import ComparisonPlan, resume_plan
from desktop.core.compare.quality_check import QualityOutcome
from desktop.core.compare.quality_step import QualityStep
from desktop.core.compare.results import AnswerResult, ComparisonResult, ContestantOutcome
from desktop.core.compare.schedule import parallel_threads, require_parallel
from desktop.core.compare.turns import Turns
from desktop.core.compare.votes import BlindLabels, Vote
from desktop.core.engine import Session
from desktop.core.hardware import HardwareProfile
from desktop.core.history import History, ModelRef
from desktop.core.library import ModelResolver
from desktop.core.threads import start as start_thread

log = logging.getLogger(__name__)


class CompareRunner:
    """Runs one plan once. ``profile``: the hardware the runs are predicted for (and stored
    with; needed for parallel mode); ``machine``: its display name. ``comparison_id`` and
    ``existing``: a stored comparison to complete (see :func:`resume`)."""

    def __init__(
        self,
        plan: ComparisonPlan,
        *,
        profile: HardwareProfile | None = None,
        history: History | None = None,
        machine: str = "",
        on_event: EventCallback | None = None,
        should_stop: Callable[[], bool] | None = None,
        comparison_id: int | None = None,
        existing: ComparisonResult | None = None,
        worker_niceness: int = 0,
        remote_timeout_s: float | None = None,
    ) -> None:
        self.plan = plan
        self.profile = profile
        # remote_timeout_s: how long a server contestant may stay silent (the setting; None:
        # the endpoint's own); worker_niceness > 0: local workers run at a lower CPU priority
        # (a window that runs them side by side keeps a core for its GUI thread).
        self._turns = Turns(
            plan,
            profile=profile,
            worker_niceness=worker_niceness,
            remote_timeout_s=remote_timeout_s,
        )
        self._stop = self._turns.stop
        self.history = history
        self.machine = machine or (profile.name if profile is not None else "")
        self.comparison_id = comparison_id
        self._on_event = on_event
        self._should_stop = should_stop
        n = len(plan.contestants)
        self._answers: dict[tuple[int, int], AnswerResult] = {}
        self._outcomes = [ContestantOutcome() for _ in range(n)]
        self._votes: tuple[Vote, ...] = ()
        self._blind: BlindLabels | None = None
        self._models: list[ModelRef | None] = [None] * n
        self._created_at: float | None = None
        self._quality: dict[int, QualityOutcome] = {}
        if existing is not None:
            # Kept: results, and why a check gave none (run again below).
            self._quality = {o.contestant: o for o in existing.quality}
            self._answers = {(a.contestant, a.prompt): a for a in existing.answers}
            self._outcomes = list(existing.outcomes)
            self._votes = existing.votes
            self._blind = existing.blind
            self._created_at = existing.created_at
        self._done = 0
        self._total = 0

    # -- for the caller's other threads ----------------------------------------------------

    def cancel(self) -> None:
        """Stop soon (safe from any thread): the answers being generated end and are not
        kept, models still loading are dropped, nothing new starts."""
        self._turns.cancel()

    def session(self, contestant: int) -> Session | None:
        """The live session of a contestant while it runs (None before and after)."""
        return self._turns.session(contestant)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    # -- the run ---------------------------------------------------------------------------

    def run(self) -> ComparisonResult:
        """Run every cell that has no answer yet and return the result (also when stopped)."""
        plan = self.plan
        threads: list[int | None] = [None] * len(plan.contestants)
        if plan.mode == "parallel":
            if self.profile is None:
                raise CompareError(
                    "Parallel mode needs a hardware profile to check that the models fit.",
                    kind="compare.no_room",
                )
            require_parallel(plan.contestants, self.profile)
            threads = parallel_threads(plan.contestants, self.profile)
        if plan.blind and self._blind is None:
            self._blind = BlindLabels.shuffled(len(plan.contestants), plan.blind_seed)
        if self._created_at is None:  # a new comparison: its reports are dated from now
            self._created_at = time.time()
        self._store_start()
        todo = {
            c: [q for q in range(len(plan.prompts)) if (c, q) not in self._answers]
            for c in range(len(plan.contestants))
        }
        self._total = sum(len(v) for v in todo.values())
        self._handle(
            ComparisonStarted(
                self.comparison_id,
                plan.mode,
                len(plan.contestants),
                len(plan.prompts),
                self._total,
            )
        )
        try:
            if plan.mode == "parallel":
                self._run_parallel(todo, threads)
            else:
                for c, prompts in todo.items():
                    if self._stopping():
                        break
                    self._turns.run(c, prompts, None, self._handle, self._stopping)
            if plan.quality is not None and not self._stopping():
                todo_quality = [
                    c
                    for c in range(len(plan.contestants))
                    if c not in self._quality or self._quality[c].status != "done"
                ]
                QualityStep(
                    plan.quality,
                    plan.contestants,
                    post=self._handle,
                    should_stop=self._stopping,
                    history=self.history,
                    comparison_id=self.comparison_id,
                    models=self._models,
                    profile=self.profile,
                    machine=self.machine,
                ).run(todo_quality)
        except BaseException:
            self._store_status("cancelled")
            raise
        self._store_status("cancelled" if self._stop.is_set() else "finished")
        result = self.result()
        self._handle(ComparisonFinished(result))
        return result

    def result(self) -> ComparisonResult:
        """The comparison as it stands (answers so far)."""
        plan = self.plan
        return ComparisonResult(
            id=self.comparison_id,
            title=plan.display_title,
            mode=plan.mode,
            contestants=tuple(
                info_of(c, i, self._models[i]) for i, c in enumerate(plan.contestants)
            ),
            outcomes=tuple(self._outcomes),
            prompts=plan.prompts,
            answers=tuple(self._answers[k] for k in sorted(self._answers)),
            votes=self._votes,
            blind=self._blind,
            suite=plan.suite,
            machine=self.machine,
            created_at=self._created_at,
            quality_check=plan.quality,
            quality=tuple(self._quality[c] for c in sorted(self._quality)),
        )

    # -- storage and events (always on the runner's thread) ----------------------------------

    def _store_start(self) -> None:
        history = self.history
        if history is None:
            return
        for i, contestant in enumerate(self.plan.contestants):
            if contestant.unavailable is None:
                self._models[i] = model_ref_of(history, contestant)
        if self.comparison_id is not None:
            return
        records = [
            dataclasses.replace(c.record(), model=self._models[i])
            for i, c in enumerate(self.plan.contestants)
        ]
        self.comparison_id = history.create_comparison(
            title=self.plan.display_title,
            mode=self.plan.mode,
            contestants=records,
            prompts=[prompt_record(q) for q in self.plan.prompts],
            suite=self.plan.suite,
            blind_order=self._blind.order if self._blind is not None else (),
            options={"blind": self.plan.blind}
            | ({"quality": self.plan.quality.to_dict()} if self.plan.quality else {}),
            profile=self.profile,
            machine=self.machine,
            created_at=self._created_at,
        )

    def _store_status(self, status: str) -> None:
        if self.history is not None and self.comparison_id is not None:
            self.history.set_comparison_status(self.comparison_id, status)

    def _handle(self, event: CompareEvent) -> None:
        """Store what an event says, then tell the caller."""
        history, cid = self.history, self.comparison_id
        if isinstance(event, QualityFinished):
            quality = event.outcome
            if history is not None and cid is not None:
                record_quality(history, cid, quality)
            self._quality[quality.contestant] = quality
        elif isinstance(event, AnswerFinished):
            answer = event.answer
            if history is not None and cid is not None:
                answer = record_answer(history, cid, answer)
            self._answers[(answer.contestant, answer.prompt)] = answer
            self._done += 1
            event = AnswerFinished(answer, self._done, self._total)
        elif isinstance(event, ContestantStarted | ContestantFailed | ContestantFinished):
            outcome = self._outcome_for(event)
            self._outcomes[event.contestant] = outcome
            if history is not None and cid is not None:
                history.set_contestant_status(
                    cid,
                    event.contestant,
                    outcome.status,
                    reason=outcome.reason,
                    error_kind=outcome.error_kind,
                    model=self._models[event.contestant],
                )
        if self._on_event is not None:
            self._on_event(event)

    def _outcome_for(
        self, event: ContestantStarted | ContestantFailed | ContestantFinished
    ) -> ContestantOutcome:
        if isinstance(event, ContestantStarted):
            return ContestantOutcome("running")
        if isinstance(event, ContestantFailed):
            return ContestantOutcome("failed", event.reason, event.kind)
        current = self._outcomes[event.contestant]
        return current if current.failed else event.outcome

    def _stopping(self) -> bool:
        if not self._stop.is_set() and self._should_stop is not None and self._should_stop():
            self.cancel()
        return self._stop.is_set()

    # -- parallel ----------------------------------------------------------------------------

    def _run_parallel(self, todo: dict[int, list[int]], threads: list[int | None]) -> None:
        inbox: queue.Queue[CompareEvent] = queue.Queue()
        workers = [
            threading.Thread(
                target=self._contestant_thread,
                args=(c, prompts, threads[c], inbox.put),
                name=f"compare-{c}",
                daemon=True,
            )
            for c, prompts in todo.items()
        ]
        for worker in workers:
            start_thread(worker)
        try:
            while any(w.is_alive() for w in workers) or not inbox.empty():
                self._stopping()
                try:
                    event = inbox.get(timeout=0.05)
                except queue.Empty:
                    continue
                self._handle(event)
        except BaseException:  # Ctrl-C, or the caller's callback failed: stop the others
            self.cancel()
            raise
        finally:
            for worker in workers:
                worker.join(timeout=30.0)

    def _contestant_thread(
        self, c: int, prompts: list[int], n_threads: int | None, post: EventCallback
    ) -> None:
        try:
            self._turns.run(c, prompts, n_threads, post, self._stop.is_set)
        except Exception as exc:  # a bug must not take the other contestants down
            log.exception("contestant %d failed", c)
            post(ContestantFailed(c, f"Unexpected error: {exc}", "error"))
            post(ContestantFinished(c, ContestantOutcome("failed", str(exc), "error")))


def resume(
    comparison_id: int,
    *,
    history: History,
    resolver: ModelResolver,
    profile: HardwareProfile | None = None,
    machine: str = "",
    on_event: EventCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ComparisonResult:
    """Run only the cells a stored comparison is missing (after a kill, a cancel or a failed
    contestant), into the same comparison."""
    plan, existing = resume_plan(history, comparison_id, resolver)
    runner = CompareRunner(
        plan,
        profile=profile,
        history=history,
        machine=machine,
        on_event=on_event,
        should_stop=should_stop,
        comparison_id=comparison_id,
        existing=existing,
    )
    return runner.run()
