"""Combine the per-source probes into one :class:`HardwareProfile`.

Each source fails soft: a missing library, file or command means "not present" and at most
a note in ``profile.notes``, never an exception. NVML (which can take a moment to start on
machines with GPUs) runs on a thread while the file-based probes run. ``root`` redirects every
/proc, /sys and /etc read to a fake tree; ``nvml``, ``amdsmi``, ``run`` and ``system`` replace
the libraries, the command runner and the OS name, so tests drive the real code paths.
"""

from __future__ import annotations

import logging
import os
import platform
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from desktop.core import paths, threads
from desktop.core.hardware._fs import Runner, read_int, read_str, read_text, run_command, under
from desktop.core.hardware.amd import probe_amd
from desktop.core.hardware.apple import probe_apple
from desktop.core.hardware.bandwidth import cpu_bandwidth_gbps
from desktop.core.hardware.cpu import probe_cpu, read_sysctl
from desktop.core.hardware.disk import probe_disk
from desktop.core.hardware.intel import probe_intel
from desktop.core.hardware.jetson import detect_jetson, probe_jetson
from desktop.core.hardware.memory import probe_memory
from desktop.core.hardware.nvidia import probe_nvidia
from desktop.core.hardware.profile import CpuInfo, DiskInfo, GpuInfo, HardwareProfile, MemoryInfo

log = logging.getLogger(__name__)

T = TypeVar("T")

THIS_MACHINE = "this machine"
NVML_TIMEOUT_S = 15.0


def probe(
    models_dir: Path | None = None,
    *,
    measure_disk: bool = False,
    measure_bandwidth: bool = False,
    root: Path = Path("/"),
    system: str | None = None,
    run: Runner | None = None,
    nvml: Any = None,
    amdsmi: Any = None,
    env: Mapping[str, str] | None = None,
    timings: dict[str, float] | None = None,
) -> HardwareProfile:
    """Probe this machine (see the module docstring for the test hooks).

    ``timings``, when given, receives the milliseconds each source took (for the benchmark).
    """
    system = system or platform.system()
    runner = run or run_command
    notes: list[str] = []
    if timings is None:
        timings = {}

    def soft(name: str, fn: Callable[[], T], fallback: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return fn()
        except Exception as exc:  # one failing source must never take the probe down
            if threads.quitting():  # the app quit under the probe: nobody reads the result
                log.debug("The %s probe stopped: the program is quitting (%s)", name, exc)
                return fallback()
            log.warning("The %s probe failed: %s", name, exc, exc_info=log.isEnabledFor(10))
            notes.append(f"The {name} probe failed: {exc}.")
            return fallback()
        finally:
            timings[name] = timings.get(name, 0.0) + (time.perf_counter() - start) * 1000

    sysctl: dict[str, str] = {}
    if system == "Darwin":
        sysctl = soft("sysctl", lambda: read_sysctl(runner), dict)
    memory = soft("memory", lambda: probe_memory(root, system=system, sysctl=sysctl), _empty_memory)
    jetson = system == "Linux" and soft("jetson", lambda: detect_jetson(root) is not None, bool)

    # NVML on a thread: it is the one source that can take a while to answer (and a hung
    # driver must not hang the app, hence a daemon thread and a bounded wait).
    nvidia: _Background | None = None
    if not jetson and system in ("Linux", "Windows"):
        nvidia_notes: list[str] = []
        nvidia = _Background(
            lambda: probe_nvidia(
                nvml, env=env, system_memory_bytes=memory.total_bytes, notes=nvidia_notes
            )
        )

    cpu = soft("cpu", lambda: probe_cpu(root, system=system, run=runner), _fallback_cpu)
    if root == Path("/") and hasattr(os, "sched_getaffinity"):
        usable = len(os.sched_getaffinity(0))
        if usable < cpu.logical_cores:
            notes.append(
                f"This process may run on {usable} of the {cpu.logical_cores} CPU threads "
                "(CPU affinity or a container's cpuset)."
            )
    cpu = soft(
        "cpu_bandwidth",
        lambda: replace(cpu, memory_bandwidth_gbps=cpu_bandwidth_gbps(measure_bandwidth, cpu=cpu)),
        lambda: cpu,
    )
    target = models_dir if models_dir is not None else paths.models_dir()
    disks: tuple[DiskInfo, ...] = soft(
        "disk", lambda: (probe_disk(target, root, measure=measure_disk),), tuple
    )

    gpus: list[GpuInfo] = []
    if nvidia is not None:
        found, elapsed, error = nvidia.wait(NVML_TIMEOUT_S)
        if error is not None:  # the probe itself is soft; this guards a broken fake or library
            log.warning("The nvidia probe failed: %s", error)
            notes.append(f"The nvidia probe failed: {error}.")
        gpus.extend(found)
        timings["nvidia"] = elapsed
        notes.extend(nvidia_notes)
    if system == "Linux":
        if jetson:
            gpus.extend(soft("jetson", lambda: probe_jetson(root, notes=notes), list))
        elif not gpus:
            soft("nvidia_sysfs", lambda: _note_nvidia_without_nvml(root, notes), lambda: None)
        gpus.extend(soft("amd", lambda: probe_amd(root, amdsmi=amdsmi, notes=notes), list))
        gpus.extend(soft("intel", lambda: probe_intel(root, memory, notes=notes), list))
    elif system == "Darwin":
        gpus.extend(soft("apple", lambda: probe_apple(sysctl, memory), list))
    elif system == "Windows":
        gpus.extend(soft("amd", lambda: probe_amd(root, amdsmi=amdsmi, notes=notes), list))

    return HardwareProfile(
        cpu=cpu,
        memory=memory,
        disks=disks,
        gpus=tuple(gpus),
        os=soft("os", lambda: os_name(root, system, sysctl), str),
        name=THIS_MACHINE,
        source="probe",
        notes=tuple(notes),
    )


class _Background:
    """Run a GPU probe on a daemon thread; :meth:`wait` gives (gpus, ms, error)."""

    def __init__(self, fn: Callable[[], list[GpuInfo]]) -> None:
        self._fn = fn
        self._gpus: list[GpuInfo] = []
        self._error: BaseException | None = None
        self._start = time.perf_counter()
        self._elapsed = 0.0
        self._thread = threading.Thread(target=self._run, name="llm-scout-nvml", daemon=True)
        threads.start(self._thread)

    def _run(self) -> None:
        try:
            self._gpus = self._fn()
        except Exception as exc:  # reported by wait(), never raised across threads
            self._error = exc
        self._elapsed = (time.perf_counter() - self._start) * 1000

    def wait(self, timeout: float) -> tuple[list[GpuInfo], float, BaseException | None]:
        self._thread.join(timeout)
        if self._thread.is_alive():
            waited = (time.perf_counter() - self._start) * 1000
            return [], waited, TimeoutError(f"NVML did not answer within {timeout:.0f} s")
        return self._gpus, self._elapsed, self._error


def _empty_memory() -> MemoryInfo:
    return MemoryInfo(total_bytes=0, available_bytes=0)


def _fallback_cpu() -> CpuInfo:
    count = os.cpu_count() or 1
    return CpuInfo(
        brand=platform.processor() or "unknown CPU",
        arch=platform.machine(),
        physical_cores=count,
        logical_cores=count,
    )


def _note_nvidia_without_nvml(root: Path, notes: list[str]) -> None:
    """An NVIDIA display controller on the PCI bus that NVML did not report."""
    for device in sorted(under(root, "/sys/bus/pci/devices").glob("*")):
        if read_int(device / "vendor", 16) != 0x10DE:
            continue
        pci_class = read_int(device / "class", 16) or 0
        if pci_class >> 16 == 0x03:  # display controller
            notes.append(
                f"An NVIDIA GPU is present at {device.name} but NVML did not answer "
                "(is the NVIDIA driver loaded?); it is not counted."
            )
            return


def os_name(root: Path, system: str, sysctl: Mapping[str, str] | None = None) -> str:
    if system == "Linux":
        kernel = read_str(under(root, "/proc/sys/kernel/osrelease")) or platform.release()
        release = parse_os_release(read_text(under(root, "/etc/os-release")) or "")
        pretty = release.get("PRETTY_NAME")
        return f"Linux {kernel} ({pretty})" if pretty else f"Linux {kernel}"
    if system == "Darwin":
        version = (sysctl or {}).get("kern.osproductversion") or platform.mac_ver()[0]
        return f"macOS {version}".strip()
    if system == "Windows":
        return f"Windows {platform.release()} ({platform.version()})"
    return f"{system} {platform.release()}".strip()


def parse_os_release(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values[key.strip()] = value.strip().strip('"').strip("'")
    return values


__all__ = ["THIS_MACHINE", "os_name", "probe"]
