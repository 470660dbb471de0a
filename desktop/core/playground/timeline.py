"""What the live plots draw, from what the engine's threads delivered: bands, points, text.

:class:`Timeline` reads each :class:`~desktop.core.playground.feed.Drained` in arrival order and
turns it into one :class:`LiveUpdate`: the phase bands (``load`` from the ``load`` mark to
``loaded``; ``prompt`` from the ``prompt`` mark to the first tokens; ``generation`` from there
to ``done``), a tokens/s point per batch of tokens at its arrival time (the engine's live rate,
:meth:`~desktop.core.engine.GenerationMeter.live_rate`: however often the front end draws, the
plot keeps the worker's 40 ms resolution), the streamed text, the memory readings, the latest
load fraction, and the error events (a worker that died while the model waited).

Bands end at the session's own marks, never at an engine event: the client hands a ``loaded``
or ``done`` event to the feed after the load or answer has already returned, so on a busy
machine such an event can arrive after the next request's ``prompt`` mark and would otherwise
close the wrong band.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop.core.engine import GenerationMeter, ProcessMemory
from desktop.core.engine import protocol as p
from desktop.core.playground.feed import Drained

#: Marks that end the open band.
END_MARKS = frozenset({"loaded", "done"})


@dataclass
class LiveUpdate:
    """What to draw after one drain, oldest first.

    ``bands``: (kind, t) where a band of ``kind`` begins at ``t`` (ending the open one), or
    (None, t) where the open band ends; ``speed``: (t, tokens/s) points; ``errors``: the
    engine's error events; ``progress``: the latest load fraction (None: none came).
    """

    bands: list[tuple[str | None, float]] = field(default_factory=list)
    speed: list[tuple[float, float]] = field(default_factory=list)
    text: str = ""
    memory: list[ProcessMemory] = field(default_factory=list)
    errors: list[p.Error] = field(default_factory=list)
    progress: float | None = None

    @property
    def empty(self) -> bool:
        return not (self.bands or self.speed or self.text or self.memory or self.errors) and (
            self.progress is None
        )


class Timeline:
    """The bands and the live tokens/s of one session (see the module docstring)."""

    def __init__(self) -> None:
        self.band: str | None = None  # the band open now
        self.meter: GenerationMeter | None = None  # the answer streaming now

    def start_answer(self) -> GenerationMeter:
        """An answer is about to be asked: its tokens are metered from now on."""
        self.meter = GenerationMeter()
        return self.meter

    def apply(self, drained: Drained) -> LiveUpdate:
        update = LiveUpdate(text=drained.text, memory=list(drained.memory))
        items: list[tuple[float, int, str, Any]] = []
        items.extend((t, 0, "mark", name) for name, t in drained.marks)
        items.extend((t, 1, "tokens", n) for t, n in drained.tokens)
        items.extend((t, 2, "event", event) for t, event in drained.events)
        items.sort(key=lambda item: (item[0], item[1]))
        for t, _order, what, value in items:
            if what == "mark":
                self._mark(update, value, t)
            elif what == "tokens":
                self._tokens(update, value, t)
            elif isinstance(value, p.LoadProgress):
                update.progress = value.fraction
            elif isinstance(value, p.Error):
                update.errors.append(value)
        return update

    def _begin(self, update: LiveUpdate, kind: str, t: float) -> None:
        self.band = kind
        update.bands.append((kind, t))

    def _mark(self, update: LiveUpdate, name: str, t: float) -> None:
        if name in ("load", "prompt"):
            self._begin(update, name, t)
        elif name in END_MARKS and self.band is not None:
            self.band = None
            update.bands.append((None, t))

    def _tokens(self, update: LiveUpdate, n_tokens: int, t: float) -> None:
        meter = self.meter
        if meter is not None:
            meter.record_tokens(t, n_tokens)
            rate = meter.live_rate(t)
            if rate is not None:
                update.speed.append((t, rate))
        if self.band == "prompt":
            self._begin(update, "generation", t)
