"""A comparison run off the GUI thread, in two steps (no widgets).

:meth:`CompareJob.prepare` resolves what the page asked for into a
:class:`~desktop.core.compare.ComparisonPlan` on the thread pool — new contestants resolved
through the library, or a stored comparison's plan to resume or run again — and, in parallel
mode, the fit's check that the models fit side by side on the active profile. The page decides
what to do with it (a refusal shows the numbers; nothing starts).

:meth:`CompareJob.run` then runs the plan with a
:class:`~desktop.core.compare.CompareRunner` on the pool, storing every answer in the history as
it finishes, on a thread of its own (not the shared pool). The runner's events go into
:attr:`CompareJob.feed`, which the page drains on its timer; the finished result comes back as
a signal. :meth:`CompareJob.cancel` asks the runner to
stop (the answers being generated end and are not kept; the comparison stays resumable), and
the workers end with the run, on the pool: the GUI thread never waits for a process.

Signals:
    prepared(object): a :class:`Prepared` plan.
    prepare_failed(object): the exception (a model not found, a suite without prompts...).
    finished(object): the :class:`~desktop.core.compare.ComparisonResult` (also when stopped).
    failed(object): the exception of a run that could not go on (parallel refused here...).
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThreadPool, Signal

from desktop.core.compare import (
    CompareFeed,
    CompareRunner,
    ComparisonPlan,
    ComparisonResult,
    ParallelCheck,
    PromptSuite,
    QualityCheck,
    build_contestants,
    check_parallel,
    rerun_plan,
    resume_plan,
)
from desktop.core.engine import LoadSettings, Session
from desktop.core.engine import protocol as p
from desktop.core.hardware import HardwareProfile
from desktop.core.history import History
from desktop.core.library import ModelResolver
from desktop.ui.workers import TaskControl, TaskHandle, run_task

#: Side by side, the models' workers run at this lower CPU priority: four llama.cpp workers and
#: the window on two cores otherwise keep the GUI thread waiting for a core (the stalls with and
#: without it: benchmarks/RESULTS.md, "Compare page: GUI stall with four columns"). Their speeds
#: do not compare in parallel mode anyway; a fair run has one worker and keeps the normal priority.
PARALLEL_WORKER_NICENESS = 10


@dataclass(frozen=True)
class Prepared:
    """A plan ready to run. ``comparison_id``/``existing``: a stored comparison to complete;
    ``check``: the fit's parallel check on the active profile (parallel mode only)."""

    plan: ComparisonPlan
    comparison_id: int | None = None
    existing: ComparisonResult | None = None
    check: ParallelCheck | None = None

    @property
    def refused(self) -> bool:
        return self.check is not None and not self.check.fits


@dataclass(frozen=True)
class NewComparison:
    """What the page's controls ask for: model specs (``path@ctx=1024,temp=0.2``), a suite,
    the defaults every contestant starts from, and the options."""

    specs: tuple[str, ...]
    suite: PromptSuite
    load: LoadSettings
    sampling: p.SamplingParams
    mode: str = "fair"
    blind: bool = False
    system: str | None = None
    quality: QualityCheck | None = None


def new_blind_seed() -> int:
    """The seed of a blind order: the page shuffles its columns the way the runner will."""
    return random.SystemRandom().randrange(1 << 31)


class CompareJob(QObject):
    """Prepares and runs one comparison at a time (see the module docstring)."""

    prepared = Signal(object)
    prepare_failed = Signal(object)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.feed = CompareFeed()
        self._lock = threading.Lock()
        self._runner: CompareRunner | None = None
        self._prepare: TaskHandle | None = None
        self._run: TaskHandle | None = None
        # The run has a thread of its own: a suite takes minutes, and on the shared pool (as
        # many threads as cores) it would hold one of them all that time.
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)

    @property
    def preparing(self) -> bool:
        return self._prepare is not None

    @property
    def running(self) -> bool:
        return self._run is not None

    @property
    def runner(self) -> CompareRunner | None:
        """The runner of the run in progress (None before it starts and after it ends)."""
        with self._lock:
            return self._runner

    def session(self, contestant: int) -> Session | None:
        runner = self.runner
        return runner.session(contestant) if runner is not None else None

    # -- step 1: the plan ----------------------------------------------------------------------

    def prepare_new(
        self, resolver: ModelResolver, request: NewComparison, profile: HardwareProfile | None
    ) -> None:
        def work(control: TaskControl) -> Prepared:
            contestants = build_contestants(
                resolver,
                request.specs,
                load=request.load,
                sampling=request.sampling,
                system=request.system,
            )
            plan = ComparisonPlan.for_suite(
                contestants,
                request.suite,
                mode=request.mode,
                blind=request.blind,
                blind_seed=new_blind_seed() if request.blind else None,
                quality=request.quality,
            )
            return Prepared(plan, check=_check(plan, profile))

        self._start_prepare(work)

    def prepare_stored(
        self,
        resolver: ModelResolver,
        comparison_id: int,
        profile: HardwareProfile | None,
        *,
        resume: bool,
    ) -> None:
        """A stored comparison's plan: to complete it (``resume``) or to run it again as a new
        comparison on this machine."""

        def work(control: TaskControl) -> Prepared:
            with History.open() as history:
                if resume:
                    plan, existing = resume_plan(history, comparison_id, resolver)
                    return Prepared(plan, comparison_id, existing, _check(plan, profile))
                plan = rerun_plan(history, comparison_id, resolver)
            if plan.blind:
                plan = dataclasses.replace(plan, blind_seed=new_blind_seed())
            return Prepared(plan, check=_check(plan, profile))

        self._start_prepare(work)

    def _start_prepare(self, work: Callable[[TaskControl], Prepared]) -> None:
        self.cancel_prepare()

        def done(result: Prepared) -> None:
            self._prepare = None
            self.prepared.emit(result)

        def failed(error: Exception) -> None:
            self._prepare = None
            self.prepare_failed.emit(error)

        self._prepare = run_task(work, on_done=done, on_failed=failed)

    def cancel_prepare(self) -> None:
        if self._prepare is not None:
            self._prepare.stop()
            self._prepare = None

    # -- step 2: the run -----------------------------------------------------------------------

    def run(
        self,
        prepared: Prepared,
        *,
        profile: HardwareProfile | None,
        machine: str,
        remote_timeout_s: float | None = None,
    ) -> None:
        """Run the plan on the pool; events arrive in :attr:`feed`, the result as
        ``finished``."""
        self.feed = feed = CompareFeed()

        def work(control: TaskControl) -> ComparisonResult:
            with History.open() as history:
                runner = CompareRunner(
                    prepared.plan,
                    profile=profile,
                    history=history,
                    machine=machine,
                    on_event=feed,
                    should_stop=control.should_stop,
                    comparison_id=prepared.comparison_id,
                    existing=prepared.existing,
                    worker_niceness=(
                        PARALLEL_WORKER_NICENESS if prepared.plan.mode == "parallel" else 0
                    ),
                    remote_timeout_s=remote_timeout_s,
                )
                with self._lock:
                    self._runner = runner
                try:
                    if control.should_stop():
                        runner.cancel()
                    return runner.run()
                finally:
                    with self._lock:
                        self._runner = None

        def done(result: ComparisonResult) -> None:
            self._run = None
            self.finished.emit(result)

        def failed(error: Exception) -> None:
            self._run = None
            self.failed.emit(error)

        self._run = run_task(work, on_done=done, on_failed=failed, pool=self._pool)

    def wait(self, timeout_ms: int = 30_000) -> bool:
        """Wait until no run is left on the run's thread (at exit and in tests): after
        :meth:`shutdown` its workers are closed then. False when ``timeout_ms`` passed."""
        return bool(self._pool.waitForDone(timeout_ms))

    def cancel(self) -> None:
        """Ask the run to stop soon; ``finished`` follows with what was kept. The request goes
        out on a thread of its own (it may kill a worker that is loading), not on the pool:
        with the run on one pool thread and, say, a Playground answer on another, a cancel
        queued on the pool would wait for that answer to end."""
        runner = self.runner
        if runner is not None:
            threading.Thread(target=runner.cancel, name="compare-cancel", daemon=True).start()

    def shutdown(self) -> None:
        """The page goes away: stop everything; no callback comes any more. The workers end
        on the run's thread (its task closes them; :meth:`wait` for it)."""
        self.cancel_prepare()
        handle, self._run = self._run, None
        if handle is not None:
            handle.stop()  # the runner polls should_stop between tokens
        runner = self.runner
        if runner is not None:
            runner.cancel()


def _check(plan: ComparisonPlan, profile: HardwareProfile | None) -> ParallelCheck | None:
    if plan.mode != "parallel" or profile is None:
        return None
    return check_parallel(plan.contestants, profile)


def spec_with_settings(spec: str, settings: Sequence[tuple[str, str]]) -> str:
    """``smollm2`` and ``[("temp", "0.2")]`` -> ``smollm2@temp=0.2`` (the CLI's syntax)."""
    pairs = ",".join(f"{key}={value}" for key, value in settings if value != "")
    return f"{spec}@{pairs}" if pairs else spec
