"""Background threads that leave the terminal's Ctrl-C to the main thread.

Linux hands a process-directed signal such as the terminal's SIGINT to any thread that does not
block it. Python runs its handler on the main thread only when the main thread next runs
bytecode, so a Ctrl-C that lands on a reader or sampler thread while the main thread waits in
``input()`` is not seen until the next line is typed (``llm-scout run --chat`` hung half the
time). :func:`start` starts a thread with SIGINT blocked in it (a new thread inherits its
creator's signal mask), so the kernel delivers SIGINT to a thread that takes it: the main one.
"""

from __future__ import annotations

import signal
import threading

_TERMINAL_SIGNALS = frozenset(
    s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGQUIT", None)) if s is not None
)


def start(thread: threading.Thread) -> threading.Thread:
    """Start ``thread`` with the terminal's signals blocked in it; returns it."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: console events go another way
        thread.start()
        return thread
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _TERMINAL_SIGNALS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return thread


def quitting() -> bool:
    """True once the main thread has ended: the program is quitting. Work still running on
    another thread may then fail for that reason alone (``concurrent.futures`` refuses new work
    once the main thread is done), which is not that work's failure to report."""
    return not threading.main_thread().is_alive()
