"""The Playground's session: one model and its chat, as a state machine any front end drives.

:class:`ChatSession` owns the engine :class:`~desktop.core.engine.Session` (one worker process,
or a server through a :class:`~desktop.core.engine.RemoteClient`) and its
:class:`~desktop.core.engine.Conversation`, and moves through :class:`Phase`: ``empty`` -> (load
or connect) ``loading`` -> ``ready`` <-> ``generating`` (send, regenerate; stop ends an answer
early, what came is kept) and ``error`` when the engine is gone; unload goes back to ``empty``,
reload loads the last model with the last settings again, the conversation kept.

The rules the window follows live here, and nowhere in the window:

- which failures end a run: :attr:`ScoutError.fatal <desktop.core.errors.ScoutError.fatal>` (the
  worker died, broke the protocol or stopped answering; the server is gone or refuses). Such an
  answer is kept, marked ``crashed``, and the session goes to ``error``; any other failure ends
  the answer only (``ready`` again).
- what is stored and what calibrates: every answer that ended is described as an
  :class:`~desktop.core.playground.record.AnswerRecord` (a failed one with its error); it
  calibrates this machine's estimates by :func:`~desktop.core.fit.calibrates`.

Blocking work (starting a worker and loading, an answer, ending a worker) runs through the
:class:`Background` the front end hands in: the window's thread pool, whose callbacks come back
on the GUI thread; a test's thread and queue. The session is used from that one thread only.
The engine's threads meanwhile fill an :class:`~desktop.core.playground.feed.EngineFeed`;
:meth:`ChatSession.drain` turns what came into a
:class:`~desktop.core.playground.timeline.LiveUpdate` to draw.

Stopping an answer is ``Conversation.cancel()``, sent again until the answer ends
(:meth:`ChatSession.repeat_stop`): a cancel that came before the request went out is lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop.core.engine import (
    Answer,
    Conversation,
    GenerationMeter,
    LoadSettings,
    Prediction,
    RemoteClient,
    RemoteEndpoint,
    RunReport,
    Session,
    Turn,
    WorkerError,
    default_threads,
    log_excerpt,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError, is_fatal
from desktop.core.fit import DEFAULT_PROMPT_TOKENS, FitTarget
from desktop.core.hardware import HardwareProfile
from desktop.core.playground.feed import EngineFeed
from desktop.core.playground.phase import (
    AnswerStatus,
    Background,
    Control,
    Failure,
    Phase,
    RunContext,
    SessionEvents,
    Task,
    ignore,
)
from desktop.core.playground.record import answer_record
from desktop.core.playground.timeline import LiveUpdate, Timeline

STOP_RETRY_S = 0.25


@dataclass(frozen=True)
class _LoadRequest:
    path: Path
    settings: LoadSettings
    label: str
    target: FitTarget | None
    profile: HardwareProfile | None
    context: RunContext
    endpoint: RemoteEndpoint | None = None


@dataclass
class _Held:
    """What was drained from the feed but not handed out yet."""

    update: LiveUpdate = field(default_factory=LiveUpdate)


class ChatSession:
    """One model and its chat (see the module docstring)."""

    def __init__(self, background: Background, events: SessionEvents | None = None) -> None:
        self.events = events or SessionEvents()
        self.phase = Phase.EMPTY
        self.answer_status = AnswerStatus.NONE
        self.engine: Session | None = None  # kept after close: its settings reload it
        self.conversation: Conversation | None = None  # kept after close: it can be saved
        self.loaded: p.Loaded | None = None
        self.prediction: Prediction | None = None
        self.last_answer: Answer | None = None
        self.question = ""
        self.streamed = ""  # the text of the answer streaming now (or the last one), as drained
        self.label = ""
        self.threads: int | None = None  # llama.cpp threads of a model run here, while loaded
        self._background = background
        self._request: _LoadRequest | None = None
        self._feed: EngineFeed | None = None
        self._timeline = Timeline()
        self._held = _Held()
        self._load_task: Task | None = None
        self._ask_task: Task | None = None
        self._stop_sent_at: float | None = None
        self._closed = False

    # -- what the front end reads ---------------------------------------------------------------

    @property
    def remote(self) -> RemoteEndpoint | None:
        """The server of the current (or last) session; None for a model run here."""
        return self._request.endpoint if self._request is not None else None

    @property
    def context(self) -> RunContext:
        return self._request.context if self._request is not None else RunContext()

    @property
    def meter(self) -> GenerationMeter | None:
        """The answer streaming now (or the last one), as its tokens were drained."""
        return self._timeline.meter

    def live_rate(self, now: float) -> float | None:
        """The engine's live tokens/s of the answer streaming now (None when none streams)."""
        meter = self._timeline.meter
        return (
            meter.live_rate(now) if meter is not None and self.phase is Phase.GENERATING else None
        )

    def stderr_tail(self) -> str:
        """The lines of llama.cpp's log of the current (or last) worker that explain a failure
        (:func:`~desktop.core.engine.log_excerpt`: no debug dumps)."""
        if self.engine is None:
            return ""
        return log_excerpt(self.engine.client.stderr_tail(400, 200_000).splitlines())

    # -- load, connect, reload, unload ----------------------------------------------------------

    def load(
        self,
        path: Path,
        settings: LoadSettings,
        *,
        label: str,
        target: FitTarget | None = None,
        profile: HardwareProfile | None = None,
        context: RunContext | None = None,
        system: str | None = None,
        params: p.SamplingParams | None = None,
    ) -> bool:
        """Start a worker and load ``path`` with ``settings`` (predicted for ``profile``).
        Returns whether the conversation so far was dropped (another model: it does not carry
        over; the same model again: it goes on). False while an answer streams."""
        request = _LoadRequest(path, settings, label, target, profile, context or RunContext())
        return self._start(request, system, params)

    def connect(
        self,
        endpoint: RemoteEndpoint,
        settings: LoadSettings,
        *,
        context: RunContext | None = None,
        system: str | None = None,
        params: p.SamplingParams | None = None,
    ) -> bool:
        """Check that the server answers and serves the model, then chat with it (as
        :meth:`load`; the same server and model again keep the conversation)."""
        request = _LoadRequest(
            Path(),
            settings,
            endpoint.label,
            None,
            None,
            context or RunContext(),
            endpoint,
        )
        return self._start(request, system, params)

    def reload(self) -> bool:
        """Load the last model (or connect to the last server) with the last settings again,
        the conversation kept; False when there is nothing to reload."""
        request = self._request
        if request is None or self._closed or self.phase is Phase.GENERATING:
            return False
        conversation = self.conversation
        self._start(
            request,
            conversation.system if conversation is not None else None,
            conversation.params if conversation is not None else None,
        )
        return True

    def unload(self) -> bool:
        """End the worker (a load in progress too); the conversation stays."""
        if not self.phase.engaged:
            return False
        self._close_engine()
        self.threads = None
        self._set_phase(Phase.EMPTY)
        self._set_status(AnswerStatus.UNLOADED)
        return True

    def _same_model(self, request: _LoadRequest) -> bool:
        last = self._request
        if self.conversation is None or last is None:
            return False
        if request.endpoint is not None or last.endpoint is not None:
            return request.endpoint == last.endpoint
        return self.conversation.session.path == request.path

    def _start(
        self, request: _LoadRequest, system: str | None, params: p.SamplingParams | None
    ) -> bool:
        if self._closed or self.phase is Phase.GENERATING:
            return False
        kept = self._same_model(request)
        turns: list[Turn] = list(self.conversation.turns) if kept and self.conversation else []
        dropped = self.conversation is not None and not kept
        self._close_engine()
        # A new timeline: what the old engine sent after the front end's last drain is dropped.
        self._timeline, self._held = Timeline(), _Held()
        feed = EngineFeed()
        endpoint = request.endpoint
        if endpoint is not None:
            client = RemoteClient(endpoint, on_event=feed.on_event)
            engine = Session(endpoint.base_url, request.settings, client=client)
            self.threads = None  # the server's threads are not ours to spare
        else:
            engine = Session(
                request.path,
                request.settings,
                target=request.target,
                profile=request.profile,
                on_event=feed.on_event,
                on_memory=feed.on_memory,
            )
            self.threads = default_threads(request.settings.n_threads)
        self._request, self._feed, self.engine = request, feed, engine
        self.label = request.label
        self.loaded = self.prediction = None
        self._set_status(AnswerStatus.NONE)
        if endpoint is not None:
            self.last_answer = None  # a local answer's speed is not the server's
        feed.mark("load")

        def work(control: Control) -> tuple[p.Loaded, Prediction]:
            try:
                loaded = engine.open()
            finally:
                feed.mark("loaded")
                # Closed while the worker was still starting: the close may have come before
                # there was a process to end, so end it here.
                if control.should_stop():
                    engine.close()
            return loaded, engine.prediction(DEFAULT_PROMPT_TOKENS)

        def done(result: tuple[p.Loaded, Prediction]) -> None:
            if engine is not self.engine or self._closed:
                return
            self._load_task = None
            self.loaded, self.prediction = result
            conversation = Conversation(engine, system=system, params=params)
            conversation.turns.extend(turns)
            self.conversation = conversation
            self._set_phase(Phase.READY)
            self.events.loaded(result[0])

        def failed(error: Exception) -> None:
            if engine is not self.engine or self._closed:
                return
            self._load_task = None
            self._collect()
            detail = error.detail if isinstance(error, WorkerError) else ""
            failure = Failure(
                error,
                fatal=True,
                loading=True,
                remote=endpoint is not None,
                detail=detail or self.stderr_tail(),
            )
            self._close_engine()
            self._set_phase(Phase.ERROR)
            self._set_status(AnswerStatus.ENGINE_GONE)
            self.events.load_failed(failure)

        self._load_task = self._background(work, done, failed)
        self._set_phase(Phase.LOADING)
        return dropped

    # -- answers --------------------------------------------------------------------------------

    def send(
        self, text: str, *, system: str | None = None, params: p.SamplingParams | None = None
    ) -> bool:
        """Ask ``text`` with the conversation so far; False when no model is ready or the text
        is empty."""
        conversation, feed = self.conversation, self._feed
        text = text.strip()
        if self.phase is not Phase.READY or conversation is None or feed is None or not text:
            return False
        conversation.set_system(system)
        if params is not None:
            conversation.params = params
        self.question = text
        self.streamed = ""
        self._stop_sent_at = None
        self._timeline.start_answer()

        def work(control: Control) -> Answer:
            feed.mark("prompt")
            try:
                return conversation.ask(text, feed.on_text)
            finally:
                feed.mark("done")

        def done(answer: Answer) -> None:
            if conversation is self.conversation and not self._closed:
                self._ask_task = None
                self._answer_finished(answer)

        def failed(error: Exception) -> None:
            if conversation is self.conversation and not self._closed:
                self._ask_task = None
                self._answer_failed(error)

        self._ask_task = self._background(work, done, failed)
        self._set_phase(Phase.GENERATING)
        self._set_status(AnswerStatus.WAITING)
        return True

    def regenerate(
        self, *, system: str | None = None, params: p.SamplingParams | None = None
    ) -> str | None:
        """Ask the last message again (its answer is replaced); returns it, None when there is
        nothing to ask again."""
        conversation = self.conversation
        if self.phase is not Phase.READY or conversation is None or not conversation.turns:
            return None
        last = conversation.turns.pop()
        if not self.send(last.user, system=system, params=params):
            conversation.turns.append(last)
            return None
        return last.user

    def stop(self) -> None:
        """Stop the answer being generated; what came is kept (it ends as cancelled)."""
        if self._ask_task is not None and self.conversation is not None:
            self.conversation.cancel()
            self._stop_sent_at = time.perf_counter()

    def repeat_stop(self, now: float) -> None:
        """Send the stop again while the answer still runs (call it on a timer)."""
        if self._stop_sent_at is not None and now - self._stop_sent_at > STOP_RETRY_S:
            self.stop()

    def clear(self) -> bool:
        """Forget the conversation (not while an answer streams)."""
        if self.phase is Phase.GENERATING:
            return False
        if self.conversation is not None:
            self.conversation.clear()
        if self.answer_status is not AnswerStatus.ENGINE_GONE:
            self._set_status(AnswerStatus.NONE)
        return True

    def _answer_finished(self, answer: Answer) -> None:
        self._collect()
        self.last_answer = answer
        self._record(answer.report)
        self._set_phase(Phase.READY)
        self._set_status(AnswerStatus.ANSWERED)
        self.events.answer_finished(answer)

    def _answer_failed(self, error: Exception) -> None:
        self._collect()
        fatal = isinstance(error, ScoutError) and error.fatal
        partial = self.streamed
        detail = error.detail if isinstance(error, WorkerError) else ""
        failure = Failure(
            error,
            fatal=fatal,
            remote=self.remote is not None,
            detail=detail or self.stderr_tail(),
            partial=partial,
        )
        if partial or fatal:
            metrics = (self._timeline.meter or GenerationMeter()).finish()
            cut = RunReport(partial, metrics, finish_reason="crashed" if fatal else None)
            self._record(cut, error=failure)
        conversation = self.conversation
        if fatal and conversation is not None:
            # What came stays in the conversation (and in a saved transcript), marked.
            conversation.turns.append(Turn(self.question, partial, "crashed"))
        if fatal:
            self._close_engine()
            self._set_phase(Phase.ERROR)
        else:
            self._set_phase(Phase.READY)
        self._set_status(AnswerStatus.ENGINE_GONE if fatal else AnswerStatus.FAILED)
        self.events.answer_failed(failure)

    def _record(self, report: RunReport, *, error: Failure | None = None) -> None:
        """Describe the answer that just ended for the history (and the calibration)."""
        engine, conversation, request = self.engine, self.conversation, self._request
        if engine is None or conversation is None or request is None:
            return
        self.events.record(
            answer_record(
                report,
                engine,
                conversation,
                label=self.label,
                prompt=self.question,
                remote=request.endpoint,
                machine=request.context.machine,
                predicted_for=request.context.predicted_for,
                error=error.message if error is not None else None,
                error_kind=error.kind if error is not None else None,
            )
        )

    # -- the feed -------------------------------------------------------------------------------

    def drain(self) -> LiveUpdate:
        """What the engine's threads produced since the last drain, as the plots draw it. A
        worker that died while the model waited is not handled here: see :meth:`died`."""
        self._collect()
        update, self._held = self._held.update, _Held()
        return update

    def died(self, update: LiveUpdate) -> bool:
        """Whether ``update`` says the worker died while the model waited: then the session is
        in ``error`` and ``engine_stopped`` was sent. (While it loads or answers, their own
        failure reports the same death.)"""
        if self.phase is not Phase.READY:
            return False
        event = next((e for e in update.errors if is_fatal(e.kind)), None)
        if event is None:
            return False
        failure = Failure(
            WorkerError(event),
            fatal=True,
            remote=self.remote is not None,
            detail=event.detail or self.stderr_tail(),
        )
        self._close_engine()
        self._set_phase(Phase.ERROR)
        self._set_status(AnswerStatus.ENGINE_GONE)
        self.events.engine_stopped(failure)
        return True

    def _collect(self) -> None:
        feed = self._feed
        if feed is None:
            return
        new = self._timeline.apply(feed.drain())
        self.streamed += new.text
        if new.text and self.answer_status is AnswerStatus.WAITING:
            self._set_status(AnswerStatus.STREAMING)
        held = self._held.update
        held.bands.extend(new.bands)
        held.speed.extend(new.speed)
        held.text += new.text
        held.memory.extend(new.memory)
        held.errors.extend(new.errors)
        if new.progress is not None:
            held.progress = new.progress

    # -- the end --------------------------------------------------------------------------------

    def _set_status(self, status: AnswerStatus) -> None:
        changed = status is not self.answer_status
        self.answer_status = status
        if changed and not self._closed:
            self.events.answer_status_changed(status)

    def _set_phase(self, phase: Phase) -> None:
        changed = phase is not self.phase
        self.phase = phase
        if changed and not self._closed:
            self.events.phase_changed(phase)

    def _close_engine(self) -> None:
        """Stop what runs and end the worker in the background (the caller never waits); the
        callbacks of a stopped load or answer no longer come, and what the feed has not handed
        over yet is dropped (what was collected before stays for the next :meth:`drain`)."""
        engine = self.engine
        if engine is None:
            return
        if self.conversation is not None:
            self.conversation.cancel()
        for task in (self._load_task, self._ask_task):
            if task is not None:
                task.stop()
        self._load_task = self._ask_task = None
        self._feed = None
        self.loaded = None

        def work(control: Control) -> None:
            engine.close()

        self._background(work, ignore, ignore)

    def close(self) -> None:
        """The front end goes away: end the worker in the background, send nothing more.
        Safe to call more than once."""
        if self._closed:
            return
        self._close_engine()
        self._closed = True
