"""``EngineClient.memory_snapshot`` read from other threads while the readings grow.

A real worker generates while the sampler thread and a second writer (the phase readings the
reader thread takes, here taken in a tight loop) append readings, and a third thread copies the
history as fast as it can: no copy raises, each is in time order and extends the one before.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p
from desktop.core.engine.client import MEMORY_HISTORY
from desktop.core.engine.memory import ProcessMemory

pytestmark = [pytest.mark.e2e]

TIMEOUT = 180.0


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    yield
    left = [c for c in psutil.Process().children(recursive=True) if c.pid not in before]
    assert not left, f"processes left behind: {left}"


def test_snapshots_during_a_generation_are_consistent(smollm2_path: Path) -> None:
    client = EngineClient(sample_hz=10.0)
    client.start()
    stop = threading.Event()
    failures: list[BaseException] = []
    snapshots: list[tuple[ProcessMemory, ...]] = []
    since_checks: list[bool] = []

    def read() -> None:
        try:
            while not stop.is_set():
                snapshot = client.memory_snapshot()
                snapshots.append(snapshot)
                if snapshot:
                    cut = snapshot[len(snapshot) // 2].t
                    window = client.memory_snapshot(since=cut)
                    since_checks.append(bool(window) and all(r.t >= cut for r in window))
                time.sleep(0.002)  # two cores: leave the worker some CPU
        except BaseException as exc:  # handed to the test thread
            failures.append(exc)

    def write() -> None:
        try:
            while not stop.is_set():
                client.sample_memory()  # what the reader thread does at first token and done
                time.sleep(0.01)  # 100 Hz, ten times the sampler
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=read), threading.Thread(target=write)]
    try:
        client.load_model(smollm2_path, n_ctx=512, timeout=TIMEOUT)
        for thread in threads:
            thread.start()
        request = client.generate(
            prompt="Tell me about the sea.",
            params=p.SamplingParams(max_tokens=40, ignore_eos=True, seed=1),
        )
        assert isinstance(request.wait(TIMEOUT), p.Done)
        time.sleep(0.3)  # a few more sampler readings
    finally:
        stop.set()
        for thread in threads:
            thread.join(10.0)
        client.close()
    assert not failures, failures
    assert len(snapshots) > 50
    assert since_checks
    assert all(since_checks)
    previous: set[float] = set()
    for snapshot in snapshots:
        times = [r.t for r in snapshot]
        assert times == sorted(times), "a snapshot is out of time order"
        assert len(snapshot) < MEMORY_HISTORY  # so nothing was dropped yet
        assert previous <= set(times)  # each copy holds every reading of the one before
        previous = set(times)
    final = client.memory_snapshot()
    assert len(final) > 20
    assert [r.t for r in final] == sorted(r.t for r in final)
    assert len({r.pid for r in final}) == 1


def test_a_late_reading_is_kept_in_time_order_even_when_the_history_is_full() -> None:
    client = EngineClient()
    client._memory = deque(maxlen=4)  # a short history, as if half an hour had passed
    for t in (1.0, 2.0, 4.0):
        client._record_memory(ProcessMemory(t=t, pid=1, rss_bytes=int(t)))
    client._record_memory(ProcessMemory(t=3.0, pid=1, rss_bytes=3))  # read before 4.0, came after
    assert [r.t for r in client.memory_snapshot()] == [1.0, 2.0, 3.0, 4.0]
    client._record_memory(ProcessMemory(t=2.5, pid=1, rss_bytes=2))  # full: 1.0 makes room
    assert [r.t for r in client.memory_snapshot()] == [2.0, 2.5, 3.0, 4.0]
    client._record_memory(ProcessMemory(t=0.5, pid=1, rss_bytes=0))  # older than all kept
    assert [r.t for r in client.memory_snapshot()] == [2.0, 2.5, 3.0, 4.0]
    client._record_memory(ProcessMemory(t=5.0, pid=1, rss_bytes=5))
    assert [r.t for r in client.memory_snapshot()] == [2.5, 3.0, 4.0, 5.0]
    assert [r.t for r in client.memory_snapshot(since=3.0)] == [3.0, 4.0, 5.0]
