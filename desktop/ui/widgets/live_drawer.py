"""The Playground's live drawing: what the engine produced, drawn on a named timer.

Pull, don't push (STYLE.md): the engine's threads fill the session's feed; on each tick of the
drawer's timer (``playgroundTick``) the drawer drains the session once and draws it — the
phase bands, a tokens/s point per batch of tokens, the memory readings, the streamed text, the
load's progress — then lets the transcript and the plots repaint. Text figures (measured RAM,
VRAM and tokens/s next to the prediction) refresh on a slower timer. How often is the core's
rule (:func:`~desktop.core.playground.drawing_pace`: ~30 Hz while a model loads or answers, ~5
Hz while it answers on llama.cpp threads that take every CPU as the Live plots setting says,
2 Hz while it waits); the drawer runs the timers at that pace and writes the plots' note.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer

from desktop.core.engine import ProcessMemory
from desktop.core.playground import (
    SPARING_TICK_MS,
    TEXT_TICK_MS,
    ChatSession,
    DrawingPace,
    LiveUpdate,
    PaceNote,
    Phase,
)
from desktop.ui.widgets.live_plots import LivePlots
from desktop.ui.widgets.load_panel import LoadPanel
from desktop.ui.widgets.remote_source import RemoteSource
from desktop.ui.widgets.transcript import TranscriptView


class LiveDrawer(QObject):
    """Draws one session on one page's plots, transcript and load panel (see the module
    docstring)."""

    def __init__(
        self,
        session: ChatSession,
        plots: LivePlots,
        transcript: TranscriptView,
        panel: LoadPanel,
        server: RemoteSource,
    ) -> None:
        super().__init__(plots)
        self.session = session
        self.plots = plots
        self.transcript = transcript
        self.panel = panel
        self.server = server
        self.pace = DrawingPace()
        self._last_memory: ProcessMemory | None = None
        self._timer = QTimer(self)
        self._timer.setObjectName("playgroundTick")
        self._timer.timeout.connect(self._on_timer_timeout)
        self._text_timer = QTimer(self)
        self._text_timer.setInterval(TEXT_TICK_MS)
        self._text_timer.timeout.connect(self._on_text_timer_timeout)
        self._phase = Phase.EMPTY
        self._stopped = False

    # -- the pace -------------------------------------------------------------------------------

    @property
    def interval_ms(self) -> int | None:
        """How often the transcript and the plots are drawn now (ms), None when they are not."""
        return self._timer.interval() if self._timer.isActive() else None

    def set_pace(self, pace: DrawingPace) -> None:
        """A model's pace (or none: a server's, no model); the plots say why they move in steps,
        or warn that drawing costs speed. The timers follow at once."""
        self.pace = pace
        hz = str(round(1000 / SPARING_TICK_MS))
        notes = {
            PaceNote.SPARING_EVERY_CPU: self.tr(
                "Redrawn about %1 times a second while the model answers: llama.cpp's threads "
                "take every CPU, and drawing more often would slow down the speed being "
                "measured (Settings: Live plots)."
            ).replace("%1", hz),
            PaceNote.SPARING: self.tr(
                "Redrawn about %1 times a second while the model answers (Settings: Live plots)."
            ).replace("%1", hz),
            PaceNote.EVERY_CPU: self.tr(
                "llama.cpp's threads take every CPU: redrawing at ~30 Hz slows down the speed "
                "being measured by a few percent (Settings: Live plots)."
            ),
        }
        self.plots.set_note(notes.get(pace.note, ""))
        self.follow(self._phase)

    def follow(self, phase: Phase) -> None:
        """Run the timers at the pace of ``phase``; stopped without a model."""
        self._phase = phase
        interval = None if self._stopped else self.pace.interval_ms(phase)
        if interval is None:
            self._timer.stop()
            self._text_timer.stop()
            return
        if self._timer.interval() != interval or not self._timer.isActive():
            self._timer.start(interval)
        if not self._text_timer.isActive():
            self._text_timer.start()

    def stop(self) -> None:
        """The page goes away: the timers stop for good."""
        self._stopped = True
        self.follow(self._phase)

    # -- drawing --------------------------------------------------------------------------------

    def start_clock(self) -> None:
        """A load or a connection starts: the plots' time axis starts over."""
        self.plots.start_clock(time.perf_counter())

    def draw(self) -> None:
        """Draw what the engine's threads produced since the last drain, in time order."""
        update: LiveUpdate = self.session.drain()
        plots = self.plots
        for kind, t in update.bands:
            if kind is None:
                plots.end_phase(t)
            else:
                plots.begin_phase(kind, t)
        for t, rate in update.speed:
            plots.add_speed(t, rate)
        if update.progress is not None:
            self.panel.set_progress(update.progress)
        if update.text:
            self.transcript.append_answer(update.text)
        if update.memory:
            plots.add_memory(update.memory)
            self._last_memory = update.memory[-1]
        self.session.died(update)  # a worker that died while the model waited

    def end_answer(self) -> None:
        """An answer ended: what came is drawn, the speed line ends."""
        self.draw()
        now = time.perf_counter()
        self.plots.end_phase(now)
        self.plots.end_speed(now)

    def end(self) -> None:
        """A model goes (a new load, an unload, an error): what came is drawn and every line
        of the plots ends."""
        self.draw()
        if self.transcript.streaming:
            self.transcript.end_answer()
        now = time.perf_counter()
        self.plots.end_phase(now)
        self.plots.end_speed(now)
        self.plots.end_memory(now)

    def _on_timer_timeout(self) -> None:
        self.draw()
        now = time.perf_counter()
        if self.session.phase is Phase.GENERATING:
            self.session.repeat_stop(now)
        self.transcript.flush()
        self.plots.refresh(now)

    def _on_text_timer_timeout(self) -> None:
        session = self.session
        phase = session.phase
        generating = phase is Phase.GENERATING
        rate = session.live_rate(time.perf_counter()) if generating else None
        last = None if generating else session.last_answer
        if session.remote is not None:
            if phase in (Phase.READY, Phase.GENERATING):
                self.server.show_measured(rate, last)
            else:
                self.panel.show_measured(None, None)
            return
        reading = self._last_memory
        if reading is None or not phase.engaged:
            self.panel.show_measured(None, None)
            return
        if last is not None:
            rate = last.report.metrics.tokens_per_s
        self.panel.show_measured(reading, rate)
