"""A chat template's render under limits: time, memory, and the worker's cancel.

A chat template is code that comes with a model file (or from a person), and the sandbox keeps
it from touching anything but not from looping or allocating: nested ``range(100000)`` loops
run for hours, ``'x' * 10**10`` asks for 10 GB. The worker therefore renders through
:meth:`RenderGuard.run`, which

- stops the render when it runs past :attr:`RenderLimits.time_s` or when ``cancelled()``
  turns true (Stop in the window, Ctrl-C in the CLI, a lost client): a watch thread raises
  :class:`RenderInterrupted` in the rendering thread (``PyThreadState_SetAsyncExc``), which
  Python delivers between two bytecodes, so a template loop stops within milliseconds;
- caps the process's address space at what it maps now plus :attr:`RenderLimits.memory_bytes`
  for the duration (POSIX ``RLIMIT_AS``; restored afterwards), so any allocation past it fails
  with ``MemoryError`` instead of taking the machine's memory. Nothing else allocates in the
  worker while it renders: llama.cpp's threads wait for the next decode.

The watch thread is started once; a render costs two ``setrlimit`` calls and two notifications.
A C call that never returns to Python cannot be interrupted, but the memory cap bounds what any
single C call of the sandbox can do.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["RenderCancelled", "RenderGuard", "RenderInterrupted", "RenderLimits", "RenderTimeout"]

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_TIME_S = 10.0
DEFAULT_MEMORY_BYTES = 512 * 1024 * 1024
POLL_S = 0.02


class RenderInterrupted(BaseException):
    """Raised inside the rendering thread by the watch thread. A BaseException, so that no
    ``except Exception`` on the way (jinja2's, a template helper's) can swallow it."""


class RenderCancelled(Exception):
    """The render was stopped because its request was cancelled."""


class RenderTimeout(Exception):
    """The render ran past its time limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"{seconds:g} s")
        self.seconds = seconds


@dataclass(frozen=True)
class RenderLimits:
    """How long a render may take, and how much memory it may add (0: no memory cap)."""

    time_s: float = DEFAULT_TIME_S
    memory_bytes: int = DEFAULT_MEMORY_BYTES


@dataclass
class _Job:
    thread_id: int
    deadline: float
    cancelled: Callable[[], bool]
    fired: str | None = None  # "time" or "cancel" once the exception was sent
    delivered: bool = False


class RenderGuard:
    """Runs renders on the calling thread under :class:`RenderLimits` (see the module doc)."""

    def __init__(self, limits: RenderLimits | None = None) -> None:
        self.limits = limits or RenderLimits()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._job: _Job | None = None
        self._saved_limit: tuple[int, int] | None = None
        self._watch = threading.Thread(target=self._watch_loop, name="render-watch", daemon=True)
        self._watch.start()

    def run(self, render: Callable[[], T], cancelled: Callable[[], bool] = lambda: False) -> T:
        """``render()`` under the limits. Raises :class:`RenderTimeout`, :class:`RenderCancelled`
        or ``MemoryError`` (past the memory cap); anything ``render`` raises passes through."""
        job = _Job(threading.get_ident(), time.monotonic() + self.limits.time_s, cancelled)
        if cancelled():
            raise RenderCancelled()
        with self._wake:
            self._job = job
            self._wake.notify()
        result: list[T] = []
        try:
            try:
                self._cap_memory()
                result.append(render())
            except RenderInterrupted:
                pass
            finally:
                self._disarm(job)
        except RenderInterrupted:  # arrived after render() returned, while disarming
            self._disarm(job)
        if job.fired is not None and not result:
            if job.fired == "cancel":
                raise RenderCancelled()
            raise RenderTimeout(self.limits.time_s)
        return result[0]

    # -- the watch thread ----------------------------------------------------------------

    def _watch_loop(self) -> None:
        while True:
            try:
                self._watch_one()
            except MemoryError:  # a render took all the memory its cap allows: try again
                time.sleep(POLL_S)

    def _watch_one(self) -> None:
        """Wait for a render, then watch it until it ends or is interrupted."""
        with self._wake:
            while self._job is None or self._job.fired is not None:
                self._wake.wait()
            job = self._job
        while True:
            time.sleep(POLL_S)
            reason = None
            if job.cancelled():
                reason = "cancel"
            elif time.monotonic() > job.deadline:
                reason = "time"
            with self._lock:
                if self._job is not job:
                    return  # finished
                if reason is not None:
                    job.fired = reason
                    _raise_in(job.thread_id, RenderInterrupted)
                    return

    def _disarm(self, job: _Job) -> None:
        """No more interrupts for ``job``: forget it, drop an interrupt not yet delivered,
        lift the memory cap. Safe to call twice."""
        with self._lock:
            if self._job is job:
                self._job = None
            if job.fired is not None and not job.delivered:
                _raise_in(job.thread_id, None)  # clears a pending one (a no-op once raised)
                job.delivered = True
        self._restore_memory()

    # -- the memory cap --------------------------------------------------------------------

    def _cap_memory(self) -> None:
        if self.limits.memory_bytes <= 0 or sys.platform == "win32":
            return
        try:
            import resource

            import psutil

            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = int(psutil.Process().memory_info().vms) + self.limits.memory_bytes
            if soft != resource.RLIM_INFINITY:
                limit = min(limit, soft)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
            self._saved_limit = (soft, hard)
        except (ImportError, OSError, ValueError) as exc:  # a cap is a safety net, not a need
            log.info("could not cap the address space for a template render: %s", exc)

    def _restore_memory(self) -> None:
        saved, self._saved_limit = self._saved_limit, None
        if saved is not None:
            import resource

            with contextlib.suppress(OSError, ValueError):
                resource.setrlimit(resource.RLIMIT_AS, saved)


def _raise_in(thread_id: int, exc_type: type[BaseException] | None) -> None:
    """Ask Python to raise ``exc_type`` in thread ``thread_id`` at its next bytecode (None:
    cancel a pending one)."""
    set_async_exc: Any = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc(ctypes.c_ulong(thread_id), ctypes.py_object(exc_type) if exc_type else None)
