"""The check every window test ends with finds what a test leaves running, and where."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer

from tests.ui.left_running import LeftRunning


class _Blocked(QRunnable):
    def __init__(self, release: threading.Event) -> None:
        super().__init__()
        self.release = release

    def run(self) -> None:
        self.release.wait(10.0)


def test_a_timer_or_a_pool_task_left_running_is_named_with_its_place(
    monkeypatch: pytest.MonkeyPatch, qapp: object
) -> None:
    with monkeypatch.context() as patch:
        watch = LeftRunning(patch)
        owner = QObject()
        timer = QTimer(owner)
        timer.start(1000)  # started here and never stopped
        pool = QThreadPool(owner)
        release = threading.Event()
        pool.start(_Blocked(release))
        left = watch.check(pool_grace_ms=50)
        release.set()
        assert pool.waitForDone(10_000)
        assert len(left) == 2
        assert left[0].startswith(
            "a QTimer still active, started at tests/ui/test_left_running.py:"
        )
        assert left[1].startswith("a thread-pool task still running 50 ms on, from tests/ui/")
        assert not timer.isActive()  # the check stopped it
        # Stopped and ended: nothing is left.
        timer.start(1000)
        timer.stop()
        assert watch.check(pool_grace_ms=50) == []
