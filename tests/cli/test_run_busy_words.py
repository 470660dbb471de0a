"""`run`'s "predicted speed" row says, as the window's error column does, that a run made while
the machine was busy is not compared with the prediction, instead of a signed percent in the
thousands; a quiet run gets its percent (issue 23, noticed)."""

from __future__ import annotations

import dataclasses

from desktop.commands.run import _compared
from desktop.core.engine import CpuUse
from tests.core.history.test_store import make_report

BUSY = CpuUse(wall_s=10.0, worker_cpu_s=6.0, others_cpu_s=15.0, usable_cpus=2, n_threads=2)
QUIET = CpuUse(wall_s=10.0, worker_cpu_s=19.0, others_cpu_s=0.5, usable_cpus=2, n_threads=2)


def test_a_busy_run_is_not_compared_in_words() -> None:
    busy = dataclasses.replace(make_report(rate=0.88), cpu=BUSY)
    assert _compared(busy) == " (the machine was busy: not compared with the prediction)"


def test_a_quiet_run_gets_its_signed_percent() -> None:
    quiet = dataclasses.replace(make_report(), cpu=QUIET)
    assert _compared(quiet) == " (+3.4% vs measured)"
    slow = dataclasses.replace(make_report(rate=210.0), cpu=QUIET)
    assert _compared(slow) == " (-50.0% vs measured)"
