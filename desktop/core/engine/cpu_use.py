"""Who had the CPU while an answer was generated: the worker, or other programs.

A run measured while other programs used the CPU says how busy the machine was, not how fast
the model runs on it: such a run must not calibrate the estimates (issue: runs made while two
busy loops shared a 2-core machine pulled its speed factor to 0.12-0.16, and every model's
prediction with it). The client's memory readings (:mod:`desktop.core.engine.memory`) also read
three CPU clocks: the worker's CPU time, this process's own, and the busy time of the CPUs this
process may use. Over the generation interval their differences give :class:`CpuUse`, and
:meth:`CpuUse.busy_reason` is the one rule that says a run was made under contention.

The rule, for a run whose llama.cpp threads run on the CPU (``cpu_bound``):

- other programs (every process but the worker and this one) used more CPU than the threads left
  free, by at least :data:`OTHERS_MARGIN_CPUS` of a CPU; or
- the worker's threads got less than :data:`MIN_THREAD_SHARE` of the CPU time they could use
  (llama.cpp's threads spin while they decode, so an unhindered run keeps them all busy).

For a run on the GPU only the first applies (its CPU thread mostly waits for the GPU).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: Other programs may use this much CPU beyond the CPUs llama.cpp's threads leave free.
OTHERS_MARGIN_CPUS = 0.5
#: An unhindered CPU run keeps its threads busy; below this share of their time, it was hindered.
MIN_THREAD_SHARE = 0.75
#: Shorter intervals (or fewer than two readings in them) say nothing reliable.
MIN_WALL_S = 0.3


class _Reading(Protocol):
    @property
    def t(self) -> float: ...
    @property
    def cpu_s(self) -> float | None: ...
    @property
    def own_cpu_s(self) -> float | None: ...
    @property
    def busy_s(self) -> float | None: ...


@dataclass(frozen=True)
class CpuUse:
    """CPU time over one interval of a run, in seconds, and what the machine had.

    ``others_cpu_s``: CPU time of every process other than the worker and the process that
    measured (the window or the command line), on the CPUs this process may use."""

    wall_s: float
    worker_cpu_s: float
    others_cpu_s: float
    usable_cpus: int
    n_threads: int | None = None

    @property
    def worker_cpus(self) -> float:
        """CPUs the worker kept busy on average."""
        return self.worker_cpu_s / self.wall_s

    @property
    def others_cpus(self) -> float:
        """CPUs other programs kept busy on average."""
        return max(0.0, self.others_cpu_s / self.wall_s)

    @property
    def thread_share(self) -> float | None:
        """The share of the time llama.cpp's threads could run that they got (None: threads
        unknown)."""
        if not self.n_threads:
            return None
        return self.worker_cpus / min(self.n_threads, self.usable_cpus)

    def busy_reason(self, cpu_bound: bool = True) -> str | None:
        """Why this run was made under contention (one clause), or None when it was not."""
        threads = min(self.n_threads or self.usable_cpus, self.usable_cpus)
        spare = self.usable_cpus - threads if cpu_bound else self.usable_cpus - 1
        if self.others_cpus > max(0, spare) + OTHERS_MARGIN_CPUS:
            return (
                f"other programs used {self.others_cpus:.1f} of the {self.usable_cpus} CPUs "
                "during the answer"
            )
        share = self.thread_share
        if cpu_bound and share is not None and share < MIN_THREAD_SHARE:
            return f"llama.cpp's threads got only {share:.0%} of the CPU time they could use"
        return None

    def to_dict(self, cpu_bound: bool = True) -> dict[str, Any]:
        return {
            "wall_s": self.wall_s,
            "worker_cpus": self.worker_cpus,
            "others_cpus": self.others_cpus,
            "usable_cpus": self.usable_cpus,
            "n_threads": self.n_threads,
            "busy": self.busy_reason(cpu_bound),
            "worker_cpu_s": self.worker_cpu_s,
            "others_cpu_s": self.others_cpu_s,
            "cpu_bound": cpu_bound,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> tuple[CpuUse, bool] | None:
        """The CPU use (and whether the run was CPU-bound) a :meth:`to_dict` document was made
        from, as the history stores it; None when it does not say enough."""
        try:
            wall = float(data["wall_s"])
            worker = data.get("worker_cpu_s")
            others = data.get("others_cpu_s")
            use = cls(
                wall_s=wall,
                worker_cpu_s=float(worker if worker is not None else data["worker_cpus"] * wall),
                others_cpu_s=float(others if others is not None else data["others_cpus"] * wall),
                usable_cpus=int(data["usable_cpus"]),
                n_threads=None if data.get("n_threads") is None else int(data["n_threads"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        if wall <= 0:
            return None
        return use, bool(data.get("cpu_bound", True))


def cpu_use_between(
    readings: Sequence[_Reading],
    start: float | None,
    end: float | None,
    *,
    usable_cpus: int,
    n_threads: int | None = None,
) -> CpuUse | None:
    """CPU use from the first reading at or after ``start`` to the last at or before ``end``
    (``perf_counter`` times); None when the readings do not cover at least
    :data:`MIN_WALL_S` with the three clocks."""
    if start is None or end is None:
        return None
    inside = sorted(
        (
            (r.t, r.cpu_s, r.own_cpu_s, r.busy_s)
            for r in readings
            if start <= r.t <= end
            and r.cpu_s is not None
            and r.own_cpu_s is not None
            and r.busy_s is not None
        ),
        key=lambda clocks: clocks[0],
    )
    if len(inside) < 2:
        return None
    (t0, cpu0, own0, busy0), (t1, cpu1, own1, busy1) = inside[0], inside[-1]
    wall = t1 - t0
    if wall < MIN_WALL_S:
        return None
    worker = max(0.0, cpu1 - cpu0)
    own = max(0.0, own1 - own0)
    busy = max(0.0, busy1 - busy0)
    return CpuUse(
        wall_s=wall,
        worker_cpu_s=worker,
        others_cpu_s=busy - worker - own,
        usable_cpus=usable_cpus,
        n_threads=n_threads,
    )
