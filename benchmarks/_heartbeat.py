"""The GUI benchmarks' shared parts: the stall meter, a 5 ms ``QTimer`` in the window's event
loop, and :func:`wait_for`, which runs that loop until a signal.

The longest gap between two beats minus the beat's own 5 ms is the longest time the GUI could
not react. Used by ``ui_playground.py`` and ``ui_responsiveness.py`` (``ui_compare.py`` keeps
its own, which also notes whether an answer was streaming at each beat).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer, SignalInstance  # noqa: TID251

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


def wait_for(signal: SignalInstance, timeout_s: float) -> list[Any]:
    """Run the window's event loop (``QEventLoop.exec``, as the app does) until ``signal``."""
    loop = QEventLoop()
    got: list[Any] = []

    def arrived(*args: Any) -> None:
        got.append(args[0] if args else None)
        loop.quit()

    signal.connect(arrived)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    loop.exec()
    signal.disconnect(arrived)
    if not got:
        raise SystemExit("timed out")
    return got
