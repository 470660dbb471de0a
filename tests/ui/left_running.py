"""What a window test left running: QTimers, QThreads and thread-pool tasks our code started.

:class:`LeftRunning` wraps ``start`` of ``QTimer``, ``QThread`` and ``QThreadPool`` (with a
``MonkeyPatch``, undone after the test) so that each object started from this repository's code
is noted with the place that started it; :meth:`LeftRunning.check` lists what is still running
(a timer still active, a thread not finished, a pool whose tasks do not end within a grace
period) and stops the timers and threads it finds. Objects Qt or pytest-qt start themselves are
not ours to check. (napari's test suite checks the same in its conftest.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import pytest
from PySide6.QtCore import QThread, QThreadPool, QTimer
from shiboken6 import isValid

ROOT = Path(__file__).resolve().parents[2]
HERE = str(Path(__file__).resolve())


def started_in() -> str | None:
    """Where this repository's code started something: the innermost such frame
    (``path:line``); None when the caller is Qt's or pytest-qt's own code."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(str(ROOT)) and "site-packages" not in name and name != HERE:
            return f"{Path(name).relative_to(ROOT)}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return None


class LeftRunning:
    """Notes what is started from now on (see the module docstring)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.timers: WeakKeyDictionary[QTimer, str] = WeakKeyDictionary()
        self.threads: WeakKeyDictionary[QThread, str] = WeakKeyDictionary()
        self.pools: WeakKeyDictionary[QThreadPool, str] = WeakKeyDictionary()
        self._note(monkeypatch, QTimer, self.timers)
        self._note(monkeypatch, QThread, self.threads)
        self._note(monkeypatch, QThreadPool, self.pools)

    @staticmethod
    def _note(
        monkeypatch: pytest.MonkeyPatch, cls: type, seen: WeakKeyDictionary[Any, str]
    ) -> None:
        start: Callable[..., Any] = cls.start  # type: ignore[attr-defined]

        def noted(self: Any, *args: Any) -> Any:
            place = started_in()
            if place is not None:
                seen[self] = place
            return start(self, *args)

        monkeypatch.setattr(cls, "start", noted)

    def check(self, pool_grace_ms: int) -> list[str]:
        """What is still running, one line each with where it was started; timers and threads
        found running are stopped (pool tasks get ``pool_grace_ms`` to end)."""
        left: set[str] = set()
        for pool, place in list(self.pools.items()):
            if isValid(pool) and not pool.waitForDone(pool_grace_ms):
                left.add(f"a thread-pool task still running {pool_grace_ms} ms on, from {place}")
        for thread, place in list(self.threads.items()):
            if isValid(thread) and thread.isRunning():
                thread.quit()
                left.add(f"a QThread still running, started at {place}")
        for timer, place in list(self.timers.items()):
            if isValid(timer) and timer.isActive():
                timer.stop()
                left.add(f"a QTimer still active, started at {place}")
        return sorted(left)
