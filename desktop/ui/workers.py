"""Thread plumbing: core calls off the GUI thread, results back through signals.

:func:`run_task` runs a function on the global ``QThreadPool`` and hands its result (or its
exception) to callbacks on the GUI thread; the function gets a :class:`TaskControl` to report
progress and to ask whether it should stop. :class:`LatestOnly` runs one kind of work where only
the newest request matters (a slider moved again): starting a new run asks the previous one to
stop and drops its result. Worker threads never touch a widget or an item model.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from desktop.core.errors import ScoutError

log = logging.getLogger(__name__)

T = TypeVar("T")


class TaskControl:
    """What a task sees of its caller: ``should_stop()`` and ``progress(value)``."""

    def __init__(self, signals: _TaskSignals) -> None:
        self._stop = threading.Event()
        self._signals = signals

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()

    def progress(self, value: object) -> None:
        """Report progress; delivered on the GUI thread (queued, so keep it to a few per second
        or let the receiver throttle)."""
        if not self._stop.is_set():
            try:
                self._signals.progressed.emit(value)
            except RuntimeError:  # the window is gone (see _Runnable._report)
                self._stop.set()


class _TaskSignals(QObject):
    """Signals: ``finished(object)`` the result, ``failed(object)`` the exception,
    ``progressed(object)`` a progress value. Made on the GUI thread; emitted from the pool."""

    finished = Signal(object)
    failed = Signal(object)
    progressed = Signal(object)


class _Runnable(QRunnable):
    def __init__(
        self, fn: Callable[[TaskControl], Any], control: TaskControl, signals: _TaskSignals
    ) -> None:
        super().__init__()
        self._fn = fn
        self._control = control
        self._signals = signals

    def run(self) -> None:
        try:
            result = self._fn(self._control)
        except BaseException as exc:  # handed to the GUI thread, which decides what to show
            if not isinstance(exc, Exception):
                raise
            if not isinstance(exc, ScoutError):
                # The window then says "the log file has the details": here they are.
                log.error("A background task failed", exc_info=exc)
            self._report(self._signals.failed, exc)
        else:
            self._report(self._signals.finished, result)

    def _report(self, signal: Any, value: object) -> None:
        """Emit ``value``, unless the window is gone: a task still running when the app quit
        (after :func:`wait_for_tasks` gave up) finds its signal object deleted with Python's
        globals, and there is nobody left to tell."""
        try:
            signal.emit(value)
        except RuntimeError:
            log.debug("A background task ended after the window had gone")


class TaskHandle:
    """A running task: :meth:`stop` asks it to stop; its callbacks are then no longer called."""

    def __init__(self, control: TaskControl, signals: _TaskSignals) -> None:
        self.control = control
        self.signals = signals
        self.done = False

    def stop(self) -> None:
        self.control.stop()

    @property
    def stopped(self) -> bool:
        return self.control.should_stop()


_ALIVE: set[_TaskSignals] = set()  # keeps each task's signal object alive until it reports


def run_task(
    fn: Callable[[TaskControl], T],
    *,
    on_done: Callable[[T], None] | None = None,
    on_failed: Callable[[Exception], None] | None = None,
    on_progress: Callable[[Any], None] | None = None,
    pool: QThreadPool | None = None,
) -> TaskHandle:
    """Run ``fn(control)`` on the thread pool; callbacks run on the GUI thread, unless the task
    was stopped before it reported. Call it from the GUI thread."""
    signals = _TaskSignals()
    control = TaskControl(signals)
    handle = TaskHandle(control, signals)
    _ALIVE.add(signals)

    def finished(result: object) -> None:
        handle.done = True
        _ALIVE.discard(signals)
        if on_done is not None and not control.should_stop():
            on_done(result)  # type: ignore[arg-type]

    def failed(error: object) -> None:
        handle.done = True
        _ALIVE.discard(signals)
        if control.should_stop():
            return
        if on_failed is not None:
            on_failed(error)  # type: ignore[arg-type]
        elif isinstance(error, ScoutError):  # anything else was logged where it was raised
            log.warning("A background task failed: %s", error)

    signals.finished.connect(finished)
    signals.failed.connect(failed)
    if on_progress is not None:
        signals.progressed.connect(
            lambda value: None if control.should_stop() else on_progress(value)
        )
    (pool or QThreadPool.globalInstance()).start(_Runnable(fn, control, signals))
    return handle


def pool_background(
    work: Callable[[TaskControl], T],
    done: Callable[[T], None],
    failed: Callable[[Exception], None],
) -> TaskHandle:
    """The window's :class:`~desktop.core.playground.Background` for a core session: the work
    on the global pool, its outcome back on the GUI thread."""
    return run_task(work, on_done=done, on_failed=failed)


class LatestOnly(Generic[T]):
    """Runs work where only the newest request counts: a new :meth:`submit` stops the one
    before, and only the newest result reaches ``on_done``."""

    def __init__(
        self,
        on_done: Callable[[T], None],
        on_failed: Callable[[Exception], None] | None = None,
    ) -> None:
        self._on_done = on_done
        self._on_failed = on_failed
        self._current: TaskHandle | None = None

    @property
    def busy(self) -> bool:
        return self._current is not None and not self._current.done

    def submit(self, fn: Callable[[TaskControl], T]) -> TaskHandle:
        self.cancel()
        handle = run_task(fn, on_done=self._finish, on_failed=self._failed)
        self._current = handle
        return handle

    def cancel(self) -> None:
        if self._current is not None and not self._current.done:
            self._current.stop()
        self._current = None

    def _finish(self, result: T) -> None:
        self._current = None
        self._on_done(result)

    def _failed(self, error: Exception) -> None:
        self._current = None
        if self._on_failed is not None:
            self._on_failed(error)
        elif isinstance(error, ScoutError):  # anything else was logged where it was raised
            log.warning("A background task failed: %s", error)


def wait_for_tasks(timeout_ms: int = 30_000) -> bool:
    """Wait until the global pool is idle (at exit and in tests)."""
    return bool(QThreadPool.globalInstance().waitForDone(timeout_ms))
