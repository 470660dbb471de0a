"""The CPUs this process may run on: its affinity, not the machine's count."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.core.hardware import usable_cpus

ROOT = Path(__file__).resolve().parents[3]


def test_follows_this_process_affinity() -> None:
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert usable_cpus() == expected


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_a_process_pinned_to_one_cpu_may_use_one() -> None:
    # A child pins itself to its first CPU (as taskset or a container's cpuset would).
    code = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from desktop.core.hardware import usable_cpus; print(usable_cpus(), os.cpu_count())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=True,
    )
    usable, machine = (int(word) for word in done.stdout.split())
    assert usable == 1
    assert machine == os.cpu_count()


def test_without_affinity_every_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    # macOS and Windows have no sched_getaffinity: the machine's count.
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 12)
    assert usable_cpus() == 12
