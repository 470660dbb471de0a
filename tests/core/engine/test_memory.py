"""Worker memory readings: psutil RSS for real, NVML per-process VRAM through a fake pynvml.

The fake is the pynvml module object itself (its functions return what a driver would), so the
reader's real code path runs; only the GPU is missing here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from desktop.core.engine import ProcessMemory
from desktop.core.engine.memory import (
    MAX_HZ,
    MIN_HZ,
    MemorySampler,
    NvmlReader,
    read_process_memory,
)

GIB = 1 << 30


@dataclass
class _Proc:
    pid: int
    usedGpuMemory: int | None  # pynvml's field name


@dataclass
class _MemInfo:
    used: int
    total: int


@dataclass
class _Util:
    gpu: int


class FakeNvml:
    """The subset of pynvml the reader calls, for two GPUs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.calls: list[str] = []
        self.init_error: Exception | None = None

    def nvmlInit(self) -> None:
        self.calls.append("init")
        if self.init_error is not None:
            raise self.init_error

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlDeviceGetCount(self) -> int:
        return 2

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"gpu{index}"

    def nvmlDeviceGetMemoryInfo(self, handle: str) -> _MemInfo:
        return _MemInfo(used=3 * GIB, total=8 * GIB) if handle == "gpu0" else _MemInfo(GIB, 4 * GIB)

    def nvmlDeviceGetUtilizationRates(self, handle: str) -> _Util:
        return _Util(gpu=87 if handle == "gpu0" else 5)

    def nvmlDeviceGetComputeRunningProcesses(self, handle: str) -> list[_Proc]:
        if handle == "gpu0":
            return [_Proc(self.pid, 2 * GIB), _Proc(self.pid + 1, 5 * GIB)]
        return [_Proc(self.pid, 512 << 20)]

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: str) -> list[_Proc]:
        # The same process again in the graphics list must not be counted twice.
        return [_Proc(self.pid, 2 * GIB)] if handle == "gpu0" else []


def test_vram_of_the_worker_is_summed_over_devices_and_other_processes_are_ignored() -> None:
    fake = FakeNvml(pid=4242)
    reading = NvmlReader(fake).read(4242)
    assert reading is not None
    assert reading.process_bytes == 2 * GIB + (512 << 20)
    assert reading.used_bytes == 4 * GIB
    assert reading.total_bytes == 12 * GIB
    assert reading.util_pct == 87.0


def test_a_process_without_vram_reads_none_but_device_totals_remain() -> None:
    reading = NvmlReader(FakeNvml(pid=1)).read(99999)
    assert reading is not None
    assert reading.process_bytes is None
    assert reading.total_bytes == 12 * GIB


def test_unavailable_per_process_numbers_are_skipped() -> None:
    fake = FakeNvml(pid=7)
    fake.nvmlDeviceGetComputeRunningProcesses = lambda handle: [_Proc(7, None)]  # type: ignore[method-assign]
    fake.nvmlDeviceGetGraphicsRunningProcesses = lambda handle: [_Proc(7, 2**64 - 1)]  # type: ignore[method-assign]
    reading = NvmlReader(fake).read(7)
    assert reading is not None
    assert reading.process_bytes is None


def test_nvml_that_does_not_start_gives_none_once_and_never_raises() -> None:
    fake = FakeNvml(pid=1)
    fake.init_error = RuntimeError("NVML Shared Library Not Found")
    reader = NvmlReader(fake)
    assert reader.read(1) is None
    assert reader.read(1) is None
    assert fake.calls == ["init"]  # not retried on every sample
    assert not reader.available


def test_the_real_pynvml_here_reports_no_gpu_without_failing() -> None:
    assert NvmlReader().read(os.getpid()) is None  # no NVIDIA driver on this machine


def test_reading_a_process_combines_psutil_rss_and_nvml_vram() -> None:
    pid = os.getpid()
    reading = read_process_memory(pid, NvmlReader(FakeNvml(pid)))
    assert reading is not None
    assert reading.rss_bytes == pytest.approx(psutil.Process().memory_info().rss, rel=0.2)
    assert reading.vram_bytes == 2 * GIB + (512 << 20)
    assert reading.gpu_total_bytes == 12 * GIB
    sample = reading.as_sample()
    assert (sample.t, sample.rss_bytes, sample.vram_bytes) == (
        reading.t,
        reading.rss_bytes,
        reading.vram_bytes,
    )


def test_a_finished_process_reads_none() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert read_process_memory(child.pid) is None


def test_the_sampler_reads_at_its_rate_and_stops() -> None:
    readings: list[ProcessMemory] = []
    sampler = MemorySampler(os.getpid(), readings.append, hz=10.0)
    assert sampler.interval_s == pytest.approx(1 / MAX_HZ)
    sampler.start()
    time.sleep(0.65)
    sampler.stop()
    count = len(readings)
    assert 3 <= count <= 8  # 10 Hz for 0.65 s: about 7, fewer on a busy machine
    time.sleep(0.25)
    assert len(readings) == count  # stopped
    assert all(r.rss_bytes > 10 << 20 for r in readings)
    assert [r.t for r in readings] == sorted(r.t for r in readings)


def test_the_rate_is_clamped_to_4_to_10_hz() -> None:
    assert MemorySampler(1, lambda r: None, hz=100).interval_s == pytest.approx(1 / MAX_HZ)
    assert MemorySampler(1, lambda r: None, hz=0.5).interval_s == pytest.approx(1 / MIN_HZ)


def test_the_sampler_ends_by_itself_when_the_process_is_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"])
    readings: list[ProcessMemory] = []
    sampler = MemorySampler(child.pid, readings.append, hz=10.0)
    sampler.start()
    child.wait()
    sampler._thread.join(timeout=3.0)
    assert not sampler._thread.is_alive()
    assert readings  # it read the process while it lived


def test_rss_splits_into_private_and_file_backed_memory() -> None:
    from types import SimpleNamespace

    from desktop.core.engine.memory import split_rss

    linux = SimpleNamespace(rss=1000, vms=5000, shared=300, text=1, lib=0, data=1, dirty=0)
    assert split_rss(linux, "linux") == (700, 300)
    windows = SimpleNamespace(rss=1000, vms=5000, private=1200)
    assert split_rss(windows, "win32") == (1000, 0)  # private bytes past the working set
    mac = SimpleNamespace(rss=1000, vms=5000)
    assert split_rss(mac, "darwin") == (None, None)


def test_a_process_that_maps_a_file_shows_it_as_file_backed(tmp_path: Path) -> None:
    import mmap
    import os

    from desktop.core.engine.memory import read_process_memory

    data = tmp_path / "model.bin"
    data.write_bytes(os.urandom(64 << 20))
    before = read_process_memory(os.getpid())
    with data.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as m:
        total = sum(m[i] for i in range(0, len(m), 4096))  # touch every page
        during = read_process_memory(os.getpid())
        assert total >= 0
    assert before is not None
    assert during is not None
    assert before.file_bytes is not None
    assert during.file_bytes is not None
    assert during.file_bytes - before.file_bytes > 48 << 20
    assert during.private_bytes is not None
    assert abs(during.private_bytes - (before.private_bytes or 0)) < 32 << 20
