"""A contestant's turn in a comparison: its model opened (a local worker or a server) and its
answers generated one by one, each posted as an event.

:class:`Turns` holds the sessions of a running comparison, shared between the threads that run
contestants side by side: which contestant's model is loading, which answer is being
generated. :meth:`Turns.cancel` (safe from any thread) ends them all. The runner
(:mod:`desktop.core.compare.runner`) decides who runs when and stores what the events say.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable

from desktop.core.compare.checks import score
from desktop.core.compare.contestants import Contestant
from desktop.core.compare.errors import CompareError
from desktop.core.compare.events import (
    AnswerFinished,
    AnswerStarted,
    AnswerText,
    ContestantFailed,
    ContestantFinished,
    ContestantLoaded,
    ContestantStarted,
    EventCallback,
)
from desktop.core.compare.plan import ComparisonPlan
from desktop.core.compare.results import AnswerResult, ContestantOutcome
from desktop.core.engine import EngineClient, RemoteClient, Session, WorkerError
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError
from desktop.core.fit import FitTarget
from desktop.core.hardware import HardwareProfile

log = logging.getLogger(__name__)


class Turns:
    """The contestants' turns of one plan. ``profile``: the hardware the runs are predicted
    for; ``worker_niceness`` > 0: local workers run at a lower CPU priority (the worker's
    --nice); ``remote_timeout_s``: how long a server contestant may stay silent (None: the
    endpoint's own)."""

    def __init__(
        self,
        plan: ComparisonPlan,
        *,
        profile: HardwareProfile | None,
        worker_niceness: int = 0,
        remote_timeout_s: float | None = None,
    ) -> None:
        self.plan = plan
        self.profile = profile
        self.worker_niceness = worker_niceness
        self.remote_timeout_s = remote_timeout_s
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._sessions: dict[int, Session] = {}
        self._requests: dict[int, tuple[Session, str]] = {}
        self._loading: set[int] = set()

    def cancel(self) -> None:
        """Stop soon (safe from any thread): the answers being generated end, models still
        loading are dropped, nothing new starts."""
        self.stop.set()
        with self._lock:
            running = list(self._requests.values())
            loading = [self._sessions[c] for c in self._loading if c in self._sessions]
        for session, request_id in running:
            session.client.cancel(request_id)
        for session in loading:
            session.client.kill()

    def session(self, contestant: int) -> Session | None:
        """The live session of a contestant while it runs (None before and after)."""
        with self._lock:
            return self._sessions.get(contestant)

    def run(
        self,
        c: int,
        prompts: list[int],
        n_threads: int | None,
        post: EventCallback,
        poll_stop: Callable[[], bool],
    ) -> None:
        """Contestant ``c`` answers ``prompts`` (their indexes), posting events through
        ``post``; ``poll_stop`` is asked between tokens whether to stop."""
        if not prompts:
            return
        contestant = self.plan.contestants[c]
        post(ContestantStarted(c, contestant.display_name))
        opened = self._open(c, contestant, n_threads, post)
        if isinstance(opened, str):
            post(ContestantFinished(c, ContestantOutcome(opened)))
            return
        session = opened
        status = "done"
        try:
            for q in prompts:
                if self.stop.is_set():
                    status = "cancelled"
                    break
                kept = self._answer(session, c, q, post, poll_stop)
                if kept is None:
                    status = "cancelled" if self.stop.is_set() else "failed"
                    break
        finally:
            with self._lock:
                self._sessions.pop(c, None)
            session.close()
        post(ContestantFinished(c, ContestantOutcome(status)))

    def _open(
        self, c: int, contestant: Contestant, n_threads: int | None, post: EventCallback
    ) -> Session | str:
        """The loaded session, or the contestant's status when it cannot run (``failed``,
        posted with the reason, or ``cancelled``)."""
        load = contestant.load
        if n_threads is not None and load.n_threads is None:
            load = dataclasses.replace(load, n_threads=n_threads)
        try:
            if contestant.unavailable is not None:
                raise CompareError(contestant.unavailable, kind="library.model_not_found")
            if contestant.endpoint is not None:
                endpoint = contestant.endpoint
                if self.remote_timeout_s is not None:
                    endpoint = endpoint.with_timeout(self.remote_timeout_s)
                session = Session(endpoint.base_url, load, client=RemoteClient(endpoint))
            else:
                path = contestant.model.require_file()
                client = (
                    EngineClient(worker_args=("--nice", str(self.worker_niceness)))
                    if self.worker_niceness > 0
                    else None
                )
                session = Session(
                    path,
                    load,
                    target=self._target(contestant),
                    profile=self.profile,
                    client=client,
                )
        except ScoutError as exc:
            self._fail(c, exc, post)
            return "failed"
        with self._lock:
            self._sessions[c] = session
            self._loading.add(c)
        try:
            if self.stop.is_set():
                raise CompareError("Stopped before the model was loaded.", kind="cancelled")
            loaded = session.open()
        except ScoutError as exc:
            with self._lock:
                self._sessions.pop(c, None)
                self._loading.discard(c)
            session.close()
            if self.stop.is_set():
                return "cancelled"
            self._fail(c, exc, post)
            return "failed"
        except BaseException:  # KeyboardInterrupt while loading: no worker left behind
            with self._lock:
                self._sessions.pop(c, None)
                self._loading.discard(c)
            session.close()
            raise
        with self._lock:
            self._loading.discard(c)
        post(
            ContestantLoaded(c, loaded.load_ms, loaded.n_ctx, loaded.n_threads, loaded.n_gpu_layers)
        )
        return session

    def _target(self, contestant: Contestant) -> FitTarget | None:
        if self.profile is None or contestant.model.header is None:
            return None
        try:
            return contestant.model.fit_target()
        except ScoutError as exc:
            log.info("no prediction for %s: %s", contestant.display_name, exc)
            return None

    def _fail(self, c: int, exc: ScoutError, post: EventCallback) -> None:
        post(ContestantFailed(c, exc.message, exc.kind))

    def _answer(
        self,
        session: Session,
        c: int,
        q: int,
        post: EventCallback,
        poll_stop: Callable[[], bool],
    ) -> AnswerResult | None:
        """Generate one answer and post it; None when the contestant cannot go on (its worker
        died: failed; or the run was stopped)."""
        contestant, prompt = self.plan.contestants[c], self.plan.prompts[q]
        params = contestant.sampling
        if prompt.max_tokens is not None and prompt.max_tokens < params.max_tokens:
            params = dataclasses.replace(params, max_tokens=prompt.max_tokens)
        post(AnswerStarted(c, q))
        try:
            request = session.generate(
                messages=(p.ChatMessage("user", prompt.text),),
                system=prompt.system or contestant.system,
                params=params,
                cache_prompt=False,  # prompts are independent: no answer depends on the last
            )
        except ScoutError as exc:  # the worker died between two answers
            if not self.stop.is_set():
                self._fail(c, exc, post)
            return None
        with self._lock:
            self._requests[c] = (session, request.id)

        def on_text(text: str) -> None:
            post(AnswerText(c, q, text, request.meter.generated_tokens))
            if self.stop.is_set() or poll_stop():
                session.client.cancel(request.id)

        try:
            session.stream(request, on_text)
        except WorkerError as exc:
            if exc.fatal or not session.client.alive:  # the engine is gone: the contestant fails
                if self.stop.is_set():
                    return None
                self._fail(c, exc, post)
                return None
            answer = AnswerResult(c, q, request.text, error=exc.message, error_kind=exc.kind)
            post(AnswerFinished(answer, 0, 0))
            return answer
        finally:
            with self._lock:
                self._requests.pop(c, None)
        report = session.report(request)
        if report.finish_reason == "cancelled" or self.stop.is_set():
            return None
        answer = AnswerResult.scored(
            c,
            q,
            report.text,
            score(prompt.checks, report.text),
            report=report,
            finish_reason=report.finish_reason,
        )
        post(AnswerFinished(answer, 0, 0))
        return answer
