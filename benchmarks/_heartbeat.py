"""The GUI benchmarks' stall meter: a 5 ms ``QTimer`` in the window's event loop.

The longest gap between two beats minus the beat's own 5 ms is the longest time the GUI could
not react. Used by ``ui_playground.py`` and ``ui_responsiveness.py`` (``ui_compare.py`` keeps
its own, which also notes whether an answer was streaming at each beat).
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, Qt, QTimer  # noqa: TID251

HEARTBEAT_MS = 5


class Heartbeat:
    """A 5 ms timer in the GUI's event loop; records every gap between beats."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.clock = QElapsedTimer()
        self.gaps: list[float] = []

    def start(self) -> None:
        self.gaps = []
        self.clock.start()
        self.timer.start()

    def _beat(self) -> None:
        self.gaps.append(self.clock.nsecsElapsed() / 1e6)
        self.clock.restart()

    def stop(self) -> tuple[float, int]:
        """(longest stall in ms, beats)."""
        self.timer.stop()
        return max(self.gaps, default=0.0) - HEARTBEAT_MS, len(self.gaps)
