"""How often the Playground draws: a fast tick while something streams, a slow one otherwise.

Pull, don't push (STYLE.md): the front end draws the transcript and the plots once per tick of a
timer, every :data:`ACTIVE_TICK_MS` while a model loads or answers and every
:data:`IDLE_TICK_MS` while it waits (memory readings keep coming); text figures refresh every
:data:`TEXT_TICK_MS`. While an answer runs on llama.cpp threads that take every CPU this process
may use, each millisecond the window draws stalls them, and the speed being measured with them:
then the tick is :data:`SPARING_TICK_MS` (benchmarks/RESULTS.md has the measurements). The Live
plots setting chooses: ``auto`` spares exactly then, ``light`` always, ``smooth`` never (and the
plots warn when that costs speed). The tokens/s plot gets a point per batch of tokens either way
(:mod:`~desktop.core.playground.timeline`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from desktop.core.playground.phase import Phase

ACTIVE_TICK_MS = 33  # ~30 Hz while a model loads or answers
SPARING_TICK_MS = 200  # ~5 Hz while it answers on threads that leave no CPU to the window
IDLE_TICK_MS = 500  # memory readings keep coming while a loaded model waits
TEXT_TICK_MS = 500  # text figures (measured RAM, VRAM, tokens/s) refresh at ~2 Hz


class PaceNote(Enum):
    """What the plots say about how they are drawn."""

    NONE = "none"
    SPARING_EVERY_CPU = "sparing_every_cpu"  # ~5 Hz because llama.cpp takes every CPU (auto)
    SPARING = "sparing"  # ~5 Hz because the setting says so (light)
    EVERY_CPU = "every_cpu"  # ~30 Hz although llama.cpp takes every CPU (smooth): a warning


@dataclass(frozen=True)
class DrawingPace:
    """The pace for one loaded model: ``sparing`` draws at :data:`SPARING_TICK_MS` while it
    answers; ``note`` is what the plots say about it."""

    sparing: bool = False
    note: PaceNote = PaceNote.NONE

    def interval_ms(self, phase: Phase) -> int | None:
        """The drawing tick in ``phase``; None: nothing to draw (no model)."""
        if not phase.engaged:
            return None
        if phase is Phase.GENERATING and self.sparing:
            return SPARING_TICK_MS
        return ACTIVE_TICK_MS if phase.busy else IDLE_TICK_MS


def drawing_pace(setting: str, threads: int | None, usable_cpus: int) -> DrawingPace:
    """The pace the Live plots ``setting`` (auto, smooth, light) gives a model whose llama.cpp
    runs ``threads`` threads (None: none here, a server's or no model) on a process that may
    use ``usable_cpus`` CPUs."""
    if threads is None:
        return DrawingPace()
    every_cpu = threads >= usable_cpus
    if setting == "light":
        return DrawingPace(True, PaceNote.SPARING)
    if setting == "auto" and every_cpu:
        return DrawingPace(True, PaceNote.SPARING_EVERY_CPU)
    return DrawingPace(False, PaceNote.EVERY_CPU if every_cpu else PaceNote.NONE)
