"""How many CPU threads llama.cpp runs with when nobody says: one rule for every front end.

The engine worker, an RPC server (``llm-scout rpc-server``) and the window's load settings all
start from :func:`default_threads`: the number asked for when there is one, else the physical
cores this process may run on. Kept apart from the worker's plumbing so that the window and the
RPC server read the same rule without importing the worker, and the worker (whose every import
shows in the memory it reports) imports nothing more for it.
"""

from __future__ import annotations

import os


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


def default_threads(asked: int | None = None) -> int:
    """The threads a load (or an RPC server) runs with: ``asked`` when it is a positive number
    (a ``--threads`` option, a setting, a load command), else :func:`physical_cores`."""
    return asked if asked is not None and asked > 0 else physical_cores()
