"""A guard against PySide6 reference-count bugs that live plotting makes fatal.

With PySide6 6.12.0 on CPython 3.11, calls from Python drop references they never took: every
method that returns nothing (``setObjectName``, ``QPainterPath.moveTo``...) loses one reference
to ``None``, and every ``SignalInstance.emit()`` one to ``True`` (the wheels behave as if these
singletons were immortal, as they are from Python 3.12 on). Any PySide6 program slowly drains
them; the Playground's plots, redrawn 30 times a second, drain a few hundred ``None`` and
``True`` references a second (pyqtgraph calls many such methods and emits signals on every
redraw), so within a minute a count reaches zero and the interpreter aborts ("none_dealloc:
deallocating None", "bool_dealloc: deallocating True or False").

:func:`guard_refcounts` measures whether this build loses references and, only where it does,
gives the singleton a very large number of extra references: ``None`` and ``True`` are static
objects that are never freed, only their counts must never reach zero. On Python 3.12+ (immortal
singletons) or a fixed PySide6 nothing is lost and nothing is changed. It runs once per process.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

_PROBES = 16
_HEADROOM = 1 << 40  # about 10^12 lost references before a count could reach zero again
_applied: dict[str, bool] = {}


class _Probe(QObject):
    probed = Signal()


def _loses_references(singleton: object, call: Callable[[], object]) -> bool:
    before = sys.getrefcount(singleton)
    for _ in range(_PROBES):
        call()
    return before - sys.getrefcount(singleton) >= _PROBES


def guard_refcounts() -> dict[str, bool]:
    """Protect ``None`` and ``True`` (and with ``True``, ``False``) where this PySide6 loses
    references to them; returns which were protected (``{"None": True, "True": True, "False":
    True}`` on an affected build)."""
    if _applied:
        return dict(_applied)
    probe = _Probe()
    checks: dict[str, tuple[object, Callable[[], object]]] = {
        "None": (None, lambda: probe.setObjectName("probe")),
        "True": (True, probe.probed.emit),
    }
    for name, (singleton, call) in checks.items():
        lossy = sys.implementation.name == "cpython" and _loses_references(singleton, call)
        if lossy:
            count = ctypes.c_ssize_t.from_address(id(singleton))  # ob_refcnt, the first field
            count.value += _HEADROOM
            log.info("PySide6 loses references to %s; gave it %d more.", name, _HEADROOM)
        _applied[name] = lossy
    if _applied.get("True"):
        # The same loss hits False on paths no probe here reaches (an app quitting after a
        # minute aborted with "bool_dealloc" once in a dozen runs): give it the same headroom.
        count = ctypes.c_ssize_t.from_address(id(False))
        count.value += _HEADROOM
        _applied["False"] = True
    return dict(_applied)
