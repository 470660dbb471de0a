"""One model's engine worker and conversation, run off the GUI thread (no widgets).

:class:`ChatRunner` owns the Playground's :class:`~desktop.core.engine.Session` (one worker
process) and its :class:`~desktop.core.engine.Conversation`. ``Session.open`` and
``Conversation.ask`` block, so they run on the thread pool through
:func:`~desktop.ui.workers.run_task`; their outcome comes back as a signal on the GUI thread.
Everything the engine's threads produce meanwhile (text, token arrivals, memory readings,
events) goes into the session's :class:`~desktop.ui.widgets.engine_feed.EngineFeed`, which the
page drains on its timer (:meth:`ChatRunner.drain`). The session may also run on a server
(:meth:`ChatRunner.load` with an ``endpoint``: a :class:`~desktop.core.engine.RemoteClient`
streams from an OpenAI-compatible server into the same feed; no prediction, no worker).

Stopping an answer is ``Conversation.cancel()`` (thread-safe), sent again until the answer
ends (:meth:`ChatRunner.repeat_stop`): a cancel that came before the request went out would be
lost. :meth:`ChatRunner.close` ends the worker on the pool, never on the GUI thread; a load
still starting when it is called closes its own session when ``open`` returns.

Signals:
    loaded(object): the ``Loaded`` event; ``prediction`` and ``conversation`` are set.
    load_failed(object): the exception of a load that did not finish.
    answer_finished(object): the :class:`~desktop.core.engine.Answer`.
    answer_failed(object): the exception of an answer that did not finish.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop.core.engine import (
    Answer,
    Conversation,
    LoadSettings,
    Prediction,
    RemoteClient,
    RemoteEndpoint,
    Session,
    Turn,
)
from desktop.core.engine import protocol as p
from desktop.core.fit import DEFAULT_PROMPT_TOKENS, FitTarget
from desktop.core.hardware import HardwareProfile
from desktop.ui.widgets.engine_feed import Drained, EngineFeed
from desktop.ui.workers import TaskControl, TaskHandle, run_task

STOP_RETRY_S = 0.25


class ChatRunner(QObject):
    """The session, the conversation and the work running on them (see the module doc)."""

    loaded = Signal(object)
    load_failed = Signal(object)
    answer_finished = Signal(object)
    answer_failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session: Session | None = None  # kept after close: its settings reload it
        self.conversation: Conversation | None = None  # kept after close: it can be saved
        self.loaded_event: p.Loaded | None = None
        self.prediction: Prediction | None = None
        self.endpoint: RemoteEndpoint | None = None  # the server of a remote session
        self.question = ""
        self._feed: EngineFeed | None = None
        self._load_handle: TaskHandle | None = None
        self._ask_handle: TaskHandle | None = None
        self._stop_sent_at: float | None = None

    @property
    def loading(self) -> bool:
        return self._load_handle is not None

    @property
    def answering(self) -> bool:
        return self._ask_handle is not None

    # -- load -----------------------------------------------------------------------------------

    def load(
        self,
        path: Path,
        settings: LoadSettings,
        *,
        target: FitTarget | None,
        profile: HardwareProfile | None,
        system: str | None,
        params: p.SamplingParams,
        turns: Sequence[Turn] = (),
        endpoint: RemoteEndpoint | None = None,
    ) -> None:
        """Start a worker and load ``path`` (or, with ``endpoint``, connect to the server and
        check that it serves the model: ``path`` is then its base URL); ``turns`` carry a
        conversation over."""
        self.close()
        feed = EngineFeed()
        if endpoint is not None:
            client = RemoteClient(endpoint, on_event=feed.on_event)
            session = Session(endpoint.base_url, settings, client=client)
        else:
            session = Session(
                path,
                settings,
                target=target,
                profile=profile,
                on_event=feed.on_event,
                on_memory=feed.on_memory,
            )
        self.endpoint = endpoint
        self._feed, self.session = feed, session
        self.loaded_event = self.prediction = None
        kept = list(turns)

        def work(control: TaskControl) -> tuple[p.Loaded, Prediction]:
            try:
                loaded = session.open()
            finally:
                # Closed while the worker was still starting: the close may have come before
                # there was a process to end, so end it here.
                if control.should_stop():
                    session.close()
            return loaded, session.prediction(DEFAULT_PROMPT_TOKENS)

        def done(result: tuple[p.Loaded, Prediction]) -> None:
            if session is not self.session:
                return
            self._load_handle = None
            self.loaded_event, self.prediction = result
            conversation = Conversation(session, system=system, params=params)
            conversation.turns.extend(kept)
            self.conversation = conversation
            self.loaded.emit(result[0])

        def failed(error: Exception) -> None:
            if session is not self.session:
                return
            self._load_handle = None
            self.load_failed.emit(error)

        self._load_handle = run_task(work, on_done=done, on_failed=failed)

    # -- answers --------------------------------------------------------------------------------

    def ask(self, text: str, *, system: str | None, params: p.SamplingParams) -> bool:
        """Send ``text`` with the conversation so far; False when no model is ready."""
        conversation, feed = self.conversation, self._feed
        if conversation is None or feed is None or self.loading or self.answering:
            return False
        conversation.set_system(system)
        conversation.params = params
        self.question = text
        self._stop_sent_at = None

        def work(control: TaskControl) -> Answer:
            feed.mark("prompt")
            return conversation.ask(text, feed.on_text)

        def done(answer: Answer) -> None:
            if conversation is self.conversation:
                self._ask_handle = None
                self.answer_finished.emit(answer)

        def failed(error: Exception) -> None:
            if conversation is self.conversation:
                self._ask_handle = None
                self.answer_failed.emit(error)

        self._ask_handle = run_task(work, on_done=done, on_failed=failed)
        return True

    def stop(self) -> None:
        """Stop the answer being generated; what came is kept (it ends as cancelled)."""
        if self.answering and self.conversation is not None:
            self.conversation.cancel()
            self._stop_sent_at = time.perf_counter()

    def repeat_stop(self, now: float) -> None:
        """Send the stop again if the answer still runs (call it on a timer)."""
        if self._stop_sent_at is not None and now - self._stop_sent_at > STOP_RETRY_S:
            self.stop()

    # -- the feed -------------------------------------------------------------------------------

    def drain(self) -> Drained:
        """What the engine's threads produced since the last drain (empty without a worker)."""
        return self._feed.drain() if self._feed is not None else Drained()

    def stderr_tail(self) -> str:
        """The end of llama.cpp's log of the current (or last) worker."""
        return self.session.client.stderr_tail() if self.session is not None else ""

    # -- the end --------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop what runs and end the worker on the thread pool (the GUI thread never waits).
        The callbacks of a stopped load or answer no longer arrive."""
        session = self.session
        if session is None:
            return
        if self.conversation is not None:
            self.conversation.cancel()
        for handle in (self._load_handle, self._ask_handle):
            if handle is not None:
                handle.stop()
        self._load_handle = self._ask_handle = None
        self._feed = None
        self.loaded_event = None

        def work(control: TaskControl) -> None:
            session.close()

        run_task(work)
