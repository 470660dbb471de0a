"""A real answer made while busy loops take the CPUs is measured as such, and never calibrates:
the SmolLM2 demo on llama.cpp, with one busy-loop process per CPU this process may use."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.engine import LoadSettings, Session
from desktop.core.engine import protocol as p
from desktop.core.fit import CalibrationStore, FitTarget, compute_calibration, record_run
from desktop.core.fit import machine_fingerprint as fingerprint
from desktop.core.gguf import read_gguf_split
from desktop.core.hardware import probe, usable_cpus

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def hogs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """One busy loop per usable CPU (as ../shared/tools/busy does), stopped after the test."""
    procs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(usable_cpus())
    ]
    time.sleep(0.5)  # let them take the CPUs
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def test_an_answer_under_busy_loops_is_measured_as_contended_and_does_not_calibrate(
    smollm2_path: Path, hogs: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    profile = probe()
    target = FitTarget.from_gguf(read_gguf_split(smollm2_path))
    threads = usable_cpus()
    with Session(
        smollm2_path, LoadSettings(n_ctx=512, n_threads=threads), target=target, profile=profile
    ) as session:
        loaded = session.open()
        request = session.generate(
            messages=[p.ChatMessage("user", "Describe the sea in a few sentences.")],
            params=p.SamplingParams(temperature=0.0, max_tokens=96, ignore_eos=True),
        )
        session.stream(request)
        report = session.report(request)
    assert report.cpu is not None
    # The busy loops (other programs) kept at least half a CPU busy beyond what the threads
    # left free: that is the rule, and here it holds by construction.
    assert report.cpu.others_cpus > 0.5
    assert report.busy_reason is not None
    assert report.to_dict()["cpu"]["busy"] == report.busy_reason
    store = CalibrationStore(tmp_path / "calibration.json")
    assert record_run(report, loaded, profile, label="SmolLM2", store=store)
    (entry,) = store.load()
    assert entry.busy == report.busy_reason
    assert entry.speed_ratio is None  # never counts
    cal = compute_calibration(store.load(), fingerprint(profile))
    assert cal.cpu_speed_runs == 0
    assert cal.cpu_speed_factor is None
