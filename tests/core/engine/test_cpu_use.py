"""Who had the CPU during an answer: the arithmetic over the client's readings and the one rule
that calls a run "made under contention" (then it never calibrates)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from desktop.core.engine.cpu_use import MIN_WALL_S, CpuUse, cpu_use_between


@dataclass(frozen=True)
class Reading:
    t: float
    cpu_s: float | None
    own_cpu_s: float | None
    busy_s: float | None


def readings(seconds: float, worker: float, own: float, others: float) -> list[Reading]:
    """Readings every 0.1 s over ``seconds``, each clock advancing at a steady rate (CPUs)."""
    out = []
    steps = round(seconds / 0.1)
    for k in range(steps + 1):
        t = 100.0 + k * 0.1
        dt = k * 0.1
        out.append(
            Reading(t, 5.0 + worker * dt, 1.0 + own * dt, 50.0 + (worker + own + others) * dt)
        )
    return out


def test_the_clocks_over_the_interval_give_each_ones_cpus() -> None:
    use = cpu_use_between(readings(4.0, 1.9, 0.05, 1.1), 100.0, 104.0, usable_cpus=2, n_threads=2)
    assert use is not None
    assert use.wall_s == pytest.approx(4.0)
    assert use.worker_cpus == pytest.approx(1.9)
    assert use.others_cpus == pytest.approx(1.1)
    assert use.thread_share == pytest.approx(0.95)


def test_only_readings_inside_the_interval_count() -> None:
    rows = readings(10.0, 2.0, 0.0, 0.0)
    use = cpu_use_between(rows, 102.0, 104.0, usable_cpus=2, n_threads=2)
    assert use is not None
    assert use.wall_s == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("rows", "start", "end"),
    [
        (readings(0.1, 2.0, 0.0, 0.0), 100.0, 100.1),  # shorter than MIN_WALL_S
        (readings(2.0, 2.0, 0.0, 0.0), None, 102.0),  # no first token
        ([Reading(100.0, None, None, None), Reading(101.0, None, None, None)], 100.0, 101.0),
    ],
)
def test_too_little_to_say_is_none(rows: list[Reading], start: float | None, end: float) -> None:
    assert MIN_WALL_S > 0.1
    assert cpu_use_between(rows, start, end, usable_cpus=2, n_threads=2) is None


@pytest.mark.parametrize(
    ("worker", "others", "machine", "cpu_bound", "busy"),
    [
        (2.0, 0.05, (2, 2), True, False),  # a quiet 2-core machine
        (1.0, 1.0, (2, 2), True, True),  # two busy loops share it: others took a CPU
        (4.0, 1.2, (8, 4), True, False),  # a program on a CPU the threads leave free
        (4.0, 4.6, (8, 4), True, True),  # more than the free CPUs
        (1.2, 0.1, (2, 2), True, True),  # threads starved though nobody else shows (e.g. a VM)
        (0.9, 0.3, (2, 2), False, False),  # on the GPU: the CPU thread mostly waits
        (0.9, 1.8, (2, 2), False, True),  # on the GPU with the CPU taken
    ],
)
def test_the_contention_rule(
    worker: float, others: float, machine: tuple[int, int], cpu_bound: bool, busy: bool
) -> None:
    cpus, threads = machine
    use = CpuUse(
        wall_s=2.0,
        worker_cpu_s=worker * 2,
        others_cpu_s=others * 2,
        usable_cpus=cpus,
        n_threads=threads,
    )
    reason = use.busy_reason(cpu_bound)
    assert (reason is not None) is busy
    if busy:
        assert reason
        assert use.to_dict(cpu_bound)["busy"] == reason
