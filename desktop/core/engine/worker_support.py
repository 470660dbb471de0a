"""Process plumbing for the engine worker: protocol output, stdin lines, llama.cpp hooks.

Kept apart from :mod:`desktop.core.engine.worker` (which runs commands) because each piece here
talks to the operating system or to llama.cpp's C API directly: file descriptors, a log callback,
an abort callback that must not take the GIL, a progress callback for reporting and cancelling a
load, memory limits and returning freed memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from desktop.core.engine import protocol as p

log = logging.getLogger(__name__)

LOG_TAIL_LINES = 200
PROGRESS_STEP = 0.02  # a load fraction goes out once it is this far past the last one sent
PROGRESS_INTERVAL_S = 0.05  # ... or this long after it


def physical_cores() -> int:
    """Physical cores, the thread count llama.cpp runs best with (hyperthreads do not help),
    capped by the CPUs this process may run on (containers, ``taskset``)."""
    try:
        import psutil

        count = psutil.cpu_count(logical=False)
    except ImportError:  # pragma: no cover - psutil is a dependency
        count = None
    cores = count or os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        cores = min(cores, len(os.sched_getaffinity(0)))
    return max(1, cores)


# --------------------------------------------------------------------------- output


class EventWriter:
    """Writes events to the protocol descriptor, one whole line at a time, from any thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self.on_broken: Callable[[], None] = lambda: None
        self.broken = False

    def send(self, event: p.Event) -> None:
        data = memoryview(p.encode(event))
        with self._lock:
            if self.broken:
                return
            try:
                while data:
                    written = os.write(self._fd, data)
                    data = data[written:]
            except OSError:  # the client is gone
                self.broken = True
        if self.broken:
            self.on_broken()


class LlamaLog:
    """llama.cpp's log: copied to stderr as it comes, its last lines kept for error messages."""

    def __init__(self, llama_cpp: Any, max_lines: int = LOG_TAIL_LINES) -> None:
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._partial = ""
        self._lock = threading.Lock()
        # Also gets every piece of text while set (a quantization reads its progress here).
        self.listener: Callable[[bytes], None] | None = None

        def callback(level: int, text: bytes, user_data: Any) -> None:
            self.write(text)

        self._callback = llama_cpp.llama_log_callback(callback)  # must stay referenced
        llama_cpp.llama_log_set(self._callback, ctypes.c_void_p(0))

    def write(self, text: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(2, text)
        listener = self.listener
        if listener is not None:
            try:
                listener(text)
            except Exception:  # never let a listener break llama.cpp's logging
                log.exception("a llama.cpp log listener failed")
        with self._lock:
            chunk = self._partial + text.decode("utf-8", errors="replace")
            *complete, self._partial = chunk.split("\n")
            self._lines.extend(complete)

    def mark(self) -> None:
        with self._lock:
            self._lines.clear()
            self._partial = ""

    def tail(self, n: int = 40) -> str:
        with self._lock:
            lines = [*list(self._lines), self._partial] if self._partial else list(self._lines)
        return "\n".join(lines[-n:])


# --------------------------------------------------------------------------- llama.cpp hooks


class AbortFlag:
    """A byte llama.cpp reads through its abort callback during every decode.

    The callback is C's ``strlen`` on a two-byte buffer: it returns 0 ("continue") while the
    first byte is NUL and 1 ("abort") once it is set. ``bool f(void *)`` and ``size_t
    strlen(const char *)`` return in the same register on every ABI llama.cpp supports, so the
    check costs nanoseconds and never takes the GIL (a Python callback would, per graph node).
    Without a C library to borrow from, cancellation falls back to the check between tokens.
    """

    def __init__(self, llama_cpp: Any) -> None:
        self._buffer = ctypes.create_string_buffer(2)
        self._callback: Any = None
        strlen = libc_strlen()
        if strlen is not None:
            address = ctypes.cast(strlen, ctypes.c_void_p).value
            self._callback = llama_cpp.ggml_abort_callback(address)
        self._llama_cpp = llama_cpp

    @property
    def native(self) -> bool:
        return self._callback is not None

    def attach(self, ctx: Any) -> None:
        if self._callback is not None:
            self._llama_cpp.llama_set_abort_callback(
                ctx, self._callback, ctypes.cast(self._buffer, ctypes.c_void_p)
            )

    def set(self) -> None:
        self._buffer[0] = b"x"

    def clear(self) -> None:
        self._buffer[0] = b"\0"


def libc_strlen() -> Any | None:
    candidates: list[Callable[[], Any]] = [lambda: ctypes.CDLL(None).strlen]
    if sys.platform == "win32":
        candidates.insert(0, lambda: ctypes.cdll.msvcrt.strlen)
    for get in candidates:
        try:
            return get()
        except (OSError, AttributeError, TypeError):
            continue
    return None


class ProgressThrottle:
    """Passes on the load fractions worth sending: llama.cpp reports one per tensor (hundreds
    within milliseconds on a small model), the app needs a bar that moves.

    A fraction goes to ``send`` when it is ``step`` past the last one sent, or ``interval_s``
    after it and larger; fractions never go backwards and stay within 0..1. :meth:`finish`
    sends 1.0 unless it was the last one sent.
    """

    def __init__(
        self,
        send: Callable[[float], None],
        *,
        step: float = PROGRESS_STEP,
        interval_s: float = PROGRESS_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send = send
        self._step = step
        self._interval_s = interval_s
        self._clock = clock
        self._last: float | None = None
        self._t_last = 0.0

    @property
    def last_sent(self) -> float | None:
        return self._last

    def update(self, fraction: float) -> None:
        if not fraction >= 0.0:  # NaN
            return
        fraction = min(fraction, 1.0)
        now = self._clock()
        last = self._last
        if last is not None:
            if fraction <= last:
                return
            soon = fraction - last < self._step and now - self._t_last < self._interval_s
            if soon and fraction < 1.0:
                return
        self._last, self._t_last = fraction, now
        self._send(fraction)

    def finish(self) -> None:
        self.update(1.0)


@contextlib.contextmanager
def load_progress_hook(
    low_level: Any,
    keep_going: Callable[[], bool],
    on_progress: Callable[[float], None] | None = None,
) -> Iterator[None]:
    """Give ``Llama(...)`` a progress callback that hands each fraction to ``on_progress`` and
    aborts the load when ``keep_going()`` fails (nothing is reported once it has).

    ``Llama`` builds its model parameters from ``llama_model_default_params()`` with no way to
    pass a progress callback, so the function is wrapped for the duration of one load (the
    worker loads one model at a time, on one thread). The callback runs on the loading thread.
    """
    original = low_level.llama_model_default_params

    def progress(fraction: float, user_data: Any) -> bool:
        if not keep_going():
            return False
        if on_progress is not None:
            try:
                on_progress(float(fraction))
            except Exception:  # an exception here would reach C as "abort the load"
                log.exception("a load progress report failed")
        return True

    callback = low_level.llama_progress_callback(progress)

    def params_with_progress() -> Any:
        params = original()
        params.progress_callback = callback
        return params

    low_level.llama_model_default_params = params_with_progress
    try:
        yield
    finally:
        low_level.llama_model_default_params = original


def release_free_memory() -> None:
    """Hand freed heap pages back to the OS (glibc keeps them otherwise)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)


def claim_stdout() -> int:
    """Keep the real stdout for the protocol and send everything else written to fd 1 to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


def limit_address_space(headroom: int) -> None:
    """Cap the address space at what is mapped now plus ``headroom`` bytes (tests use this to
    make a load run out of memory for real)."""
    import resource

    import psutil

    limit = int(psutil.Process().memory_info().vms) + headroom
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def lower_priority(niceness: int) -> None:
    """Run this process (and every thread it starts from now on) at a lower CPU priority:
    POSIX niceness ``niceness``; on Windows the "below normal" class. When the window runs
    several workers side by side, the GUI thread then gets a core when it needs one."""
    if niceness <= 0:
        return
    try:
        if sys.platform == "win32":
            import psutil

            psutil.Process().nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
        else:
            os.nice(niceness)
    except (OSError, ImportError, AttributeError) as exc:  # a lower priority is only a courtesy
        logging.getLogger(__name__).info("could not lower the worker's priority: %s", exc)
