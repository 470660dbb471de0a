"""One request to an engine worker and everything that came back for it.

The client's reader thread hands each event to :meth:`Request._deliver` with its arrival time,
so the request measures itself (TTFT, tokens/s through
:class:`~desktop.core.engine.metrics.GenerationMeter`) however late a consumer reads it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

from desktop.core.engine import protocol as p
from desktop.core.engine.metrics import GenerationMeter
from desktop.core.errors import EngineError


class WorkerError(EngineError):
    """A request ended with an error event; ``kind`` is ``engine.<protocol kind>``."""

    def __init__(self, event: p.Error) -> None:
        super().__init__(event.message, kind=f"engine.{event.kind}")
        self.event = event

    @property
    def detail(self) -> str:
        return self.event.detail


class Request:
    """One command in flight and everything that came back for it.

    ``load_fraction`` is the latest ``load_progress`` of a load (None until one came): a number
    a front end may poll at any time instead of reading :meth:`events`.
    """

    def __init__(self, request_id: str, command: p.Command) -> None:
        self.id = request_id
        self.command = command
        self.t_sent: float | None = None
        self.meter = GenerationMeter()
        self.text = ""
        self.load_fraction: float | None = None
        self.terminal: p.Event | None = None
        self.t_terminal: float | None = None
        self._parts: list[str] = []
        self._events: queue.Queue[p.Event] = queue.Queue()
        self._finished = threading.Event()

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def _deliver(self, event: p.Event, t: float) -> None:
        if isinstance(event, p.LoadProgress):
            self.load_fraction = event.fraction
        elif isinstance(event, p.Tokens):
            self.meter.record_tokens(t, event.n_tokens)
            if event.text:
                self._parts.append(event.text)
                self.text = "".join(self._parts)
        elif isinstance(event, p.Done):
            self.meter.record_prompt(
                max(0, event.prompt_tokens - event.cached_prompt_tokens),
                event.prompt_eval_ms / 1000.0,
            )
        if isinstance(event, p.TERMINAL_EVENTS):
            self.terminal = event
            self.t_terminal = t
        self._events.put(event)
        if isinstance(event, p.TERMINAL_EVENTS):
            self._finished.set()

    def events(self, timeout: float | None = None) -> Iterator[p.Event]:
        """Events of this request in order (``load_progress`` ones included), ending with its
        terminal event.

        ``timeout`` bounds the wait for each next event; past it a ``timeout`` error ends the
        iteration (the request itself keeps running).
        """
        while True:
            try:
                event = self._events.get(timeout=timeout)
            except queue.Empty:
                yield p.Error(self.id, "timeout", "The engine worker did not answer in time.")
                return
            yield event
            if isinstance(event, p.TERMINAL_EVENTS):
                return

    def wait(self, timeout: float | None = None) -> p.Event:
        """Block until the terminal event; a ``timeout`` error event if it does not come."""
        if not self._finished.wait(timeout):
            return p.Error(self.id, "timeout", "The engine worker did not answer in time.")
        assert self.terminal is not None
        return self.terminal

    def result(self, timeout: float | None = None) -> p.Event:
        """The terminal event; raise :class:`WorkerError` if it is an error."""
        event = self.wait(timeout)
        if isinstance(event, p.Error):
            raise WorkerError(event)
        return event
