"""What the person must be told once: a damaged database was set aside.

The stores report here (a message bridge, as qutebrowser's logic reports to its UI) and never
print or open a dialog: the CLI writes each notice as one line on stderr, the window shows it
once. A notice may be announced from any thread; listeners must hand it to their own thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoreNotice:
    """A damaged database moved aside and a new one started in its place.

    ``store``: which one (``history``, ``library``); ``kept``: where the damaged file is now
    (never deleted); ``reason``: what SQLite said; ``recovered``: rows carried into the new
    file; ``rebuilt``: whether the store fills itself again (the library, by its next scan).
    """

    store: str
    path: Path
    kept: Path
    reason: str
    recovered: int = 0
    rebuilt: bool = False

    def sentence(self) -> str:
        """The English sentence (the window words its own, translated)."""
        if self.rebuilt:
            then = "the next scan finds the models again"
            if self.recovered:
                then += f" ({self.recovered} imported file(s) kept)"
        elif self.recovered:
            then = f"{self.recovered} row(s) that could still be read were recovered into it"
        else:
            then = "nothing in it could be read"
        return (
            f"The {self.store} database was damaged ({self.reason}): it was moved to "
            f"{self.kept} and a new one was started; {then}."
        )


Listener = Callable[[StoreNotice], None]

_lock = threading.Lock()
_listeners: list[Listener] = []


def add_notice_listener(listener: Listener) -> Callable[[], None]:
    """Call ``listener`` with every notice from now on; returns the function that stops it."""
    with _lock:
        _listeners.append(listener)

    def remove() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return remove


def announce(notice: StoreNotice) -> None:
    """Tell every listener (a failing listener is logged, the others still hear it)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        try:
            listener(notice)
        except Exception:
            log.exception("a store notice listener failed")
