"""The inbox between an engine's threads and the front end: producers append, a timer drains.

Pull, don't push (STYLE.md): the engine client calls ``on_event`` and ``on_memory`` on its own
threads and ``Conversation.ask`` calls ``on_text`` on the thread that runs it. None of them may
touch a Qt object, so each only appends to a list under a lock, stamped with the time it
arrived (``time.perf_counter``, the clock the engine's metrics use). The front end's
timer calls :meth:`EngineFeed.drain` (through :meth:`ChatSession.drain
<desktop.core.playground.ChatSession.drain>`) up to 30 times a second and gets everything that
came since, in one :class:`Drained` value, to draw once per tick.

Marks are the session's own instants, stamped on the thread that lives them: ``load`` when a
load starts, ``loaded`` when it returned, ``prompt`` before a request goes out and ``done`` when
its answer returned (or failed). Each is stamped after everything the engine delivered before it
(the client hands an answer's last tokens over before the answer returns), so the timeline
never reads a late event of a load or an answer as the end of the next one.

One feed belongs to one :class:`~desktop.core.engine.Session`; a new load gets a new feed, so
nothing late from an old worker reaches the page.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from desktop.core.engine import ProcessMemory
from desktop.core.engine import protocol as p


@dataclass
class Drained:
    """What arrived since the last drain, oldest first.

    ``tokens``: (arrival time, number of tokens) per ``tokens`` event; ``events``: (arrival
    time, event) for every other event but logs; ``marks``: (name, time) set by :meth:`mark`.
    """

    text: str = ""
    tokens: list[tuple[float, int]] = field(default_factory=list)
    memory: list[ProcessMemory] = field(default_factory=list)
    events: list[tuple[float, p.Event]] = field(default_factory=list)
    marks: list[tuple[str, float]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.text or self.tokens or self.memory or self.events or self.marks)


class EngineFeed:
    """Thread-safe buffers for one session's text, token arrivals, memory readings and events."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending = Drained()

    # -- producers (any thread) ---------------------------------------------------------------

    def on_event(self, event: p.Event) -> None:
        """The client's ``on_event`` callback (its reader thread)."""
        t = time.perf_counter()
        if isinstance(event, p.Log):
            return
        with self._lock:
            if isinstance(event, p.Tokens):
                if event.n_tokens:
                    self._pending.tokens.append((t, event.n_tokens))
            else:
                self._pending.events.append((t, event))

    def on_memory(self, reading: ProcessMemory) -> None:
        """The client's ``on_memory`` callback (its sampler thread)."""
        with self._lock:
            self._pending.memory.append(reading)

    def on_text(self, text: str) -> None:
        """``Conversation.ask``'s ``on_text`` (the thread that runs the answer)."""
        with self._lock:
            self._pending.text += text

    def mark(self, name: str, t: float | None = None) -> None:
        """A named instant, e.g. ``"prompt"`` when a request is about to be sent."""
        with self._lock:
            self._pending.marks.append((name, time.perf_counter() if t is None else t))

    # -- consumer (the GUI timer) -------------------------------------------------------------

    def drain(self) -> Drained:
        """Everything since the last drain; the feed starts empty again."""
        with self._lock:
            drained, self._pending = self._pending, Drained()
        return drained
