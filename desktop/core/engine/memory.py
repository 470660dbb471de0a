"""Memory of one worker process, read from outside it.

RSS comes from psutil. On NVIDIA the worker's own VRAM comes from NVML's per-process accounting
(the sum of ``usedGpuMemory`` over the devices whose compute or graphics process list holds the
pid), next to each device's used/total memory and utilisation. ``pynvml`` is imported lazily and
only once; where it is missing or NVML does not start (no driver, Jetson, macOS) the GPU fields
are None and nothing fails.

:class:`MemorySampler` runs a thread that reads at 4-10 Hz and hands every
:class:`ProcessMemory` to a callback; :meth:`MemorySampler.sample_now` takes an extra reading at
an instant that matters (load finished, first token).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from desktop.core import threads
from desktop.core.engine.metrics import MemorySample

log = logging.getLogger(__name__)

MIN_HZ = 4.0
_PROCESS_LISTERS = (
    "nvmlDeviceGetComputeRunningProcesses",
    "nvmlDeviceGetGraphicsRunningProcesses",
)
MAX_HZ = 10.0


@dataclass(frozen=True)
class ProcessMemory:
    """One reading. ``t`` is ``time.perf_counter()``; GPU fields are None without NVML."""

    t: float
    pid: int
    rss_bytes: int
    vram_bytes: int | None = None
    gpu_used_bytes: int | None = None
    gpu_total_bytes: int | None = None
    gpu_util_pct: float | None = None
    # RSS split (see split_rss): memory only this process holds (what must stay free), and
    # pages of mapped files (the model file) that the OS can drop and read again.
    private_bytes: int | None = None
    file_bytes: int | None = None
    # CPU clocks at the same instant (seconds; see desktop/core/engine/cpu_use.py): the
    # process's CPU time, the reading process's own, and the busy time of the CPUs it may use.
    cpu_s: float | None = None
    own_cpu_s: float | None = None
    busy_s: float | None = None

    def as_sample(self) -> MemorySample:
        """The reading as the metrics module counts it."""
        return MemorySample(
            t=self.t,
            rss_bytes=self.rss_bytes,
            vram_bytes=self.vram_bytes,
            private_bytes=self.private_bytes,
            file_bytes=self.file_bytes,
            cpu_s=self.cpu_s,
            own_cpu_s=self.own_cpu_s,
            busy_s=self.busy_s,
        )


@dataclass(frozen=True)
class GpuReading:
    process_bytes: int | None
    used_bytes: int
    total_bytes: int
    util_pct: float | None


class NvmlReader:
    """Per-process VRAM through NVML. ``nvml`` is the pynvml module (tests pass their own)."""

    def __init__(self, nvml: Any | None = None) -> None:
        self._nvml = nvml
        self._handles: list[Any] | None = None
        self._failed = False
        self._lock = threading.Lock()

    def _start(self) -> list[Any] | None:
        if self._handles is not None or self._failed:
            return self._handles
        try:
            if self._nvml is None:
                import pynvml

                self._nvml = pynvml
            self._nvml.nvmlInit()
            count = int(self._nvml.nvmlDeviceGetCount())
            self._handles = [self._nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        except Exception as exc:  # ImportError, NVMLError_LibraryNotFound, driver errors
            log.debug("NVML is not available: %s", exc)
            self._failed = True
            self._handles = None
        return self._handles

    @property
    def available(self) -> bool:
        with self._lock:
            return bool(self._start())

    def read(self, pid: int) -> GpuReading | None:
        """The pid's VRAM summed over devices, and totals over all devices; None without NVML."""
        with self._lock:
            handles = self._start()
            if not handles:
                return None
            nvml: Any = self._nvml
            process_bytes: int | None = None
            used = total = 0
            utils: list[float] = []
            for handle in handles:
                try:
                    info = nvml.nvmlDeviceGetMemoryInfo(handle)
                    used += int(info.used)
                    total += int(info.total)
                except Exception as exc:
                    log.debug("NVML memory info failed: %s", exc)
                try:
                    utils.append(float(nvml.nvmlDeviceGetUtilizationRates(handle).gpu))
                except Exception as exc:
                    log.debug("NVML utilisation failed: %s", exc)
                on_device = self._process_bytes_on(handle, pid)
                if on_device is not None:
                    process_bytes = (process_bytes or 0) + on_device
            util = max(utils) if utils else None
            return GpuReading(process_bytes, used, total, util)

    def _process_bytes_on(self, handle: Any, pid: int) -> int | None:
        """The pid's VRAM on one device: from the compute list, else the graphics list."""
        for lister in _PROCESS_LISTERS:
            func = getattr(self._nvml, lister, None)
            if func is None:
                continue
            try:
                processes = func(handle)
            except Exception as exc:
                log.debug("NVML %s failed: %s", lister, exc)
                continue
            found: int | None = None
            for proc in processes:
                if int(proc.pid) != pid:
                    continue
                amount = getattr(proc, "usedGpuMemory", None)
                # NVML reports "not available" (WDDM on Windows) as None or as 2**64 - 1.
                if amount is None or int(amount) >= 2**63:
                    continue
                found = (found or 0) + int(amount)
            if found is not None:
                return found  # a process shows in one list per device: don't count it twice
        return None

    def close(self) -> None:
        with self._lock:
            if self._handles is not None and self._nvml is not None:
                try:
                    self._nvml.nvmlShutdown()
                except Exception as exc:
                    log.debug("NVML shutdown failed: %s", exc)
            self._handles = None


def split_rss(info: Any, platform: str = sys.platform) -> tuple[int | None, int | None]:
    """(private, file-backed) bytes of a ``psutil`` memory_info() reading.

    - Linux: ``shared`` is the resident pages of mapped files and shared memory (RssFile +
      RssShmem in /proc/PID/status); private is RSS minus that (RssAnon: heap, llama.cpp's
      buffers, the KV cache). A model file llama.cpp mmaps counts as file-backed.
    - Windows: ``private`` is the private bytes (commit charge, the nearest equivalent; it may
      include pages not resident now); file-backed is the working set beyond it.
    - elsewhere (macOS): no cheap split; both None (the RSS total still is known).
    """
    rss = int(getattr(info, "rss", 0))
    if platform.startswith("linux") and hasattr(info, "shared"):
        shared = min(int(info.shared), rss)
        return rss - shared, shared
    if platform.startswith("win") and hasattr(info, "private"):
        private = min(int(info.private), rss)
        return private, rss - private
    return None, None


def read_process_memory(
    pid: int, nvml: NvmlReader | None = None, process: Any | None = None
) -> ProcessMemory | None:
    """One reading of ``pid`` (``process``: a ``psutil.Process`` of it to reuse); None when the
    process is gone."""
    import psutil

    t = time.perf_counter()
    try:
        handle = process if process is not None else psutil.Process(pid)
        info = handle.memory_info()
        times = handle.cpu_times()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None
    own = os.times()
    cpu_s = float(times.user + times.system)
    own_cpu_s = float(own.user + own.system)
    busy_s = cpu_busy_seconds()
    rss = int(info.rss)
    private, file_backed = split_rss(info)
    gpu = nvml.read(pid) if nvml is not None else None
    if gpu is None:
        return ProcessMemory(
            t=t,
            pid=pid,
            rss_bytes=rss,
            private_bytes=private,
            file_bytes=file_backed,
            cpu_s=cpu_s,
            own_cpu_s=own_cpu_s,
            busy_s=busy_s,
        )
    return ProcessMemory(
        t=t,
        pid=pid,
        rss_bytes=rss,
        vram_bytes=gpu.process_bytes,
        gpu_used_bytes=gpu.used_bytes,
        gpu_total_bytes=gpu.total_bytes,
        gpu_util_pct=gpu.util_pct,
        private_bytes=private,
        file_bytes=file_backed,
        cpu_s=cpu_s,
        own_cpu_s=own_cpu_s,
        busy_s=busy_s,
    )


def cpu_busy_seconds() -> float | None:
    """Busy time (not idle, not waiting for I/O) summed over the CPUs this process may use,
    in seconds since boot; None where the OS does not say."""
    import psutil

    try:
        per_cpu = psutil.cpu_times(percpu=True)
    except (OSError, AttributeError):  # pragma: no cover - every supported OS has them
        return None
    allowed: set[int] | None = None
    if hasattr(os, "sched_getaffinity"):
        try:
            allowed = set(os.sched_getaffinity(0))
        except OSError:  # pragma: no cover
            allowed = None
    total = 0.0
    for index, cpu in enumerate(per_cpu):
        if allowed is not None and index not in allowed:
            continue
        idle = cpu.idle + getattr(cpu, "iowait", 0.0)
        total += sum(cpu) - idle - getattr(cpu, "guest", 0.0) - getattr(cpu, "guest_nice", 0.0)
    return total


class MemorySampler:
    """Reads one process at ``hz`` (clamped to 4-10) on a daemon thread until :meth:`stop`.

    Callbacks: ``on_sample(ProcessMemory)`` for every reading, from the sampler thread (or from
    the caller of :meth:`sample_now`).
    """

    def __init__(
        self,
        pid: int,
        on_sample: Callable[[ProcessMemory], None],
        *,
        hz: float = 8.0,
        nvml: NvmlReader | None = None,
    ) -> None:
        self.pid = pid
        self.interval_s = 1.0 / min(MAX_HZ, max(MIN_HZ, hz))
        self._on_sample = on_sample
        self._nvml = nvml
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"engine-memory-{pid}", daemon=True)
        self.last: ProcessMemory | None = None
        self._process: Any | None = None  # psutil.Process, made once (it reads /proc)

    def start(self) -> None:
        threads.start(self._thread)

    def sample_now(self) -> ProcessMemory | None:
        if self._process is None:
            import psutil

            try:
                self._process = psutil.Process(self.pid)
            except psutil.Error:
                return None
        reading = read_process_memory(self.pid, self._nvml, self._process)
        if reading is not None:
            self.last = reading
            self._on_sample(reading)
        return reading

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.sample_now() is None:
                return  # the process is gone
            self._stop.wait(self.interval_s)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
