"""The heap the window starts with, kept out of the garbage collector's way.

A full (generation 2) collection walks every object the process holds — PySide6's wrappers,
numpy, pyqtgraph, the catalog and its estimates — with the interpreter lock held, in whatever
thread happened to allocate past the threshold: a catalog estimate on the thread pool, or the
GUI thread itself. Measured here: 50-80 ms per collection, and the window can neither paint nor
answer input meanwhile (benchmarks/ui_responsiveness.py saw its longest stalls exactly there).

:func:`freeze_heap`, called when the window is up and again when the first catalog estimate has
landed (the fit targets it builds live as long as the window), moves everything alive at that
point into the collector's permanent generation (:func:`gc.freeze`, a constant-time list
merge), which later collections skip: they then walk only what was made since, and take a few
milliseconds. Reference counting still frees everything as before; only reference cycles that
exist at a freeze are never collected.
"""

from __future__ import annotations

import gc


def freeze_heap() -> None:
    """Move every object alive now out of the collector's way."""
    gc.freeze()


def frozen_objects() -> int:
    """How many objects the collector skips (for tests and diagnostics)."""
    return gc.get_freeze_count()
