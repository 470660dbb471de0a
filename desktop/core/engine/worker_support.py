"""Process plumbing for the engine worker: protocol output, stdin lines, llama.cpp hooks.

Kept apart from :mod:`desktop.core.engine.worker` (which runs commands) because each piece here
talks to the operating system or to llama.cpp's C API directly: file descriptors, a log callback,
an abort callback that must not take the GIL, a progress callback for reporting and cancelling a
load, memory limits and returning freed memory, ending with the process that started the worker.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from desktop.core.engine import protocol as p

log = logging.getLogger(__name__)

LOG_TAIL_LINES = 200
#: The environment variable through which a client tells its worker its own process id.
PARENT_PID_ENV = "LLM_SCOUT_WORKER_PARENT"
PARENT_POLL_S = 0.5
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
PROGRESS_STEP = 0.02  # a load fraction goes out once it is this far past the last one sent
PROGRESS_INTERVAL_S = 0.05  # ... or this long after it


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


# ggml_log_level: DEBUG messages (and the CONT lines that carry them on) are left out.
_LOG_DEBUG, _LOG_CONT = 1, 5  # ggml.h: NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5


class LlamaLog:
    """llama.cpp's log: copied to stderr as it comes, its last lines kept for error messages.

    Debug messages are dropped: llama.cpp writes dozens per graph it builds
    (``llama_graph_n_input_tensors: ...``), and they would push what went wrong out of the
    tail a crash report shows."""

    def __init__(self, llama_cpp: Any, max_lines: int = LOG_TAIL_LINES) -> None:
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._partial = ""
        self._lock = threading.Lock()
        # Also gets every piece of text while set (a quantization reads its progress here).
        self.listener: Callable[[bytes], None] | None = None
        self._in_debug = False

        def callback(level: int, text: bytes, user_data: Any) -> None:
            if level == _LOG_DEBUG or (level == _LOG_CONT and self._in_debug):
                self._in_debug = True
                return
            self._in_debug = False
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


@contextlib.contextmanager
def without_chat_handlers(llama_module: Any) -> Iterator[None]:
    """Keep ``Llama(...)`` from compiling the file's chat templates while it loads.

    llama-cpp-python builds a jinja2 formatter for every ``tokenizer.chat_template*`` in the
    file, whatever chat format it is given, so a file whose template is not valid Jinja could
    not be loaded at all, not even to run it with another template. The worker renders with
    its own sandbox (``templates.py``) and never uses those formatters: for the duration of a
    load they are replaced by a stand-in that compiles nothing.
    """
    formats = llama_module.llama_chat_format
    original = formats.Jinja2ChatFormatter

    class _Unused:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def to_chat_handler(self) -> Callable[..., Any]:
            def handler(*args: Any, **kwargs: Any) -> Any:
                raise RuntimeError("the worker renders chat templates itself")

            return handler

    formats.Jinja2ChatFormatter = _Unused
    try:
        yield
    finally:
        formats.Jinja2ChatFormatter = original


def parent_pid_from_env() -> int | None:
    """The client's process id, as it put it in the worker's environment."""
    value = os.environ.get(PARENT_PID_ENV, "")
    return int(value) if value.isdigit() else None


def end_with_parent(
    parent_pid: int | None = None,
    on_gone: Callable[[], None] | None = None,
    poll_s: float = PARENT_POLL_S,
) -> None:
    """End this process when the process that started it ends, whatever it is doing.

    ``parent_pid``: the client's process id (:func:`parent_pid_from_env`), checked once at
    start in case it died before this process got here; from then on the parent is whatever
    process started this one.

    Linux: the kernel sends a signal the moment the parent dies (``prctl(PR_SET_PDEATHSIG)``);
    its handler runs between two bytecodes of the main thread, so in the middle of a template
    render too. The kernel also sends it when the *thread* that started the worker ends while
    its process lives on (a thread pool's thread), so the handler checks that the parent
    really is gone. Everywhere: a daemon thread compares ``os.getppid()`` with the parent twice
    a second (it stays at work while the main thread is inside llama.cpp). On Windows, where
    the parent id never changes, the end of stdin (which the worker reads) is the sign.
    """
    expected = os.getppid()
    gone = on_gone or _exit_orphaned
    if parent_pid is not None and parent_pid != expected and not _alive(parent_pid):
        gone()  # the client died before this worker got here (a launcher may sit in between)
        return

    def check() -> bool:
        if sys.platform == "win32" or os.getppid() == expected:
            return False
        gone()
        return True

    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        with contextlib.suppress(OSError, AttributeError, ValueError):
            signal.signal(signal.SIGUSR2, lambda signum, frame: check())
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGUSR2), 0, 0, 0)

    def watch() -> None:
        while not check():
            time.sleep(poll_s)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    check()  # the parent may have died before the watch began


def _alive(pid: int) -> bool:
    if sys.platform == "win32":  # os.kill would terminate it there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else (or the platform cannot say)
        return True
    return True


def _exit_orphaned() -> None:
    with contextlib.suppress(OSError):
        os.write(2, b"worker: the process that started this worker has ended; exiting\n")
    os._exit(1)
