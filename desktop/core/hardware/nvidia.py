"""NVIDIA GPUs through NVML (the ``pynvml`` module of nvidia-ml-py), honouring CUDA_VISIBLE_DEVICES.

The probe takes the NVML module as an argument (default: ``import pynvml``) so tests run this
exact code over a fake module. Every NVML call is soft: a missing library, a driver that does
not answer, or one unsupported query leaves that value None and keeps the rest.

Theoretical memory bandwidth, GB/s = 2 x max memory clock (MHz) x bus width (bits) / 8 / 1000.
NVML's ``nvmlDeviceGetMaxClockInfo(NVML_CLOCK_MEM)`` reports the same memory clock as
``cudaDeviceProp.memoryClockRate`` (nvidia-smi's "Max Clocks: Memory"), and the factor 2 is the
one NVIDIA's own tools apply to it for every memory type ("global memory bus is DDR",
NVIDIA/nvbench ``device_info::get_global_memory_bandwidth``; the CUDA samples' bandwidthTest
and the Parallel Forall post "How to Implement Performance Metrics in CUDA C/C++" use it too).
GDDR6X/GDDR6 and HBM differ in how many transfers happen per clock, but NVML already reports
an effective clock for them that makes the factor 2 right. Checked against spec sheets:
RTX 4090 10501 MHz x 384 bit -> 1008 GB/s (spec 1008), RTX 3090 9751 x 384 -> 936 (936),
A100 80GB SXM 1593 x 5120 -> 2039 (2039), H100 SXM 2619 x 5120 -> 3352 (3350), A10G 6251 x 384
-> 600 (600), T4 5001 x 256 -> 320 (320).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop.core.hardware.profile import GpuInfo

log = logging.getLogger(__name__)

_NVML_CLOCK_MEM = 2  # pynvml.NVML_CLOCK_MEM
_NVML_ERROR_NOT_SUPPORTED = 3  # pynvml.NVML_ERROR_NOT_SUPPORTED


def bandwidth_gbps(memory_clock_mhz: int | None, bus_width_bits: int | None) -> float | None:
    """Theoretical memory bandwidth from NVML's max memory clock and bus width (see module doc)."""
    if not memory_clock_mhz or not bus_width_bits:
        return None
    return round(2 * memory_clock_mhz * bus_width_bits / 8 / 1000, 1)


def visible_indexes(uuids: list[str | None], spec: str | None) -> list[int]:
    """NVML indexes of the devices CUDA will see, in CUDA's order, for CUDA_VISIBLE_DEVICES.

    Follows the CUDA rules: unset means all devices; entries are indexes or (prefixes of)
    ``GPU-`` UUIDs; the list stops at the first entry that matches nothing (so ``""`` and
    ``-1`` hide every GPU); repeats are ignored. MIG instances (``MIG-...``) are not listed.
    Indexes are taken in NVML's PCI bus order, which is CUDA's order when
    ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` and on machines with one GPU model.
    """
    if spec is None:
        return list(range(len(uuids)))
    chosen: list[int] = []
    for raw in spec.split(","):
        entry = raw.strip()
        index: int | None = None
        if entry.isdigit():
            index = int(entry) if int(entry) < len(uuids) else None
        elif entry.upper().startswith("GPU-") or _looks_like_uuid(entry):
            wanted = entry.lower() if entry.lower().startswith("gpu-") else f"gpu-{entry.lower()}"
            matches = [i for i, u in enumerate(uuids) if u and u.lower().startswith(wanted)]
            index = matches[0] if len(matches) == 1 else None
        if index is None:
            break
        if index not in chosen:
            chosen.append(index)
    return chosen


def _looks_like_uuid(entry: str) -> bool:
    return len(entry) >= 8 and all(c in "0123456789abcdefABCDEF-" for c in entry)


def probe_nvidia(
    nvml: Any = None,
    *,
    env: Mapping[str, str] | None = None,
    system_memory_bytes: int | None = None,
    notes: list[str] | None = None,
) -> list[GpuInfo]:
    """All CUDA-visible NVIDIA GPUs; an empty list when NVML is missing or does not start."""
    notes = notes if notes is not None else []
    env = os.environ if env is None else env
    if nvml is None:
        try:
            import pynvml

            nvml = pynvml
        except ImportError:
            log.debug("nvidia-ml-py is not installed")
            return []
    error: type[BaseException] = getattr(nvml, "NVMLError", Exception)
    try:
        nvml.nvmlInit()
    except error as exc:
        log.debug("NVML did not start: %s", exc)
        return []
    except OSError as exc:  # a broken libnvidia-ml
        log.debug("NVML library could not be loaded: %s", exc)
        return []
    session = _Session(nvml, error, system_memory_bytes, notes)
    try:
        return session.devices(env)
    finally:
        try:
            nvml.nvmlShutdown()
        except error as exc:
            log.debug("nvmlShutdown failed: %s", exc)


@dataclass
class _Session:
    """One NVML session: every query soft, results gathered into GpuInfo values."""

    nvml: Any
    error: type[BaseException]
    system_memory_bytes: int | None
    notes: list[str]
    driver: str | None = None
    cuda: str | None = None

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except self.error as exc:
            log.debug("NVML %s failed: %s", getattr(fn, "__name__", fn), exc)
            return None

    def devices(self, env: Mapping[str, str]) -> list[GpuInfo]:
        nvml, call = self.nvml, self.call
        self.driver = _text(call(nvml.nvmlSystemGetDriverVersion))
        self.cuda = _cuda_version(call(nvml.nvmlSystemGetCudaDriverVersion))
        count = call(nvml.nvmlDeviceGetCount) or 0
        handles: list[Any] = []
        uuids: list[str | None] = []
        for i in range(count):
            handle = call(nvml.nvmlDeviceGetHandleByIndex, i)
            handles.append(handle)
            uuid = _text(call(nvml.nvmlDeviceGetUUID, handle)) if handle is not None else None
            uuids.append(uuid)

        spec = env.get("CUDA_VISIBLE_DEVICES")
        chosen = visible_indexes(uuids, spec)
        if spec is not None and len(chosen) < count:
            self.notes.append(
                f"CUDA_VISIBLE_DEVICES={spec!r} shows {len(chosen)} of {count} NVIDIA GPUs."
            )
        gpus: list[GpuInfo] = []
        for ordinal, nvml_index in enumerate(chosen):
            handle = handles[nvml_index]
            if handle is None:
                self.notes.append(f"NVIDIA GPU {nvml_index} did not answer NVML and is left out.")
                continue
            gpus.append(self.device(handle, ordinal, uuids[nvml_index]))
        return gpus

    def device(self, handle: Any, ordinal: int, uuid: str | None) -> GpuInfo:
        nvml, call, error, notes = self.nvml, self.call, self.error, self.notes
        system_memory_bytes = self.system_memory_bytes
        driver, cuda = self.driver, self.cuda
        name = _text(call(nvml.nvmlDeviceGetName, handle)) or "NVIDIA GPU"
        total = free = used = 0
        unified = False
        try:
            memory = nvml.nvmlDeviceGetMemoryInfo(handle)
            total, free, used = int(memory.total), int(memory.free), int(memory.used)
        except error as exc:
            not_supported = getattr(nvml, "NVML_ERROR_NOT_SUPPORTED", _NVML_ERROR_NOT_SUPPORTED)
            if getattr(exc, "value", None) == not_supported and system_memory_bytes:
                # Integrated GPUs with NVML (DGX Spark GB10, Thor) share system memory.
                unified = True
                total = free = system_memory_bytes
                notes.append(f"{name} reports no own memory: counted as unified system memory.")
            else:
                notes.append(f"{name}: NVML gave no memory information ({exc}).")

        capability = call(nvml.nvmlDeviceGetCudaComputeCapability, handle)
        bus = call(nvml.nvmlDeviceGetMemoryBusWidth, handle)
        clock = call(
            nvml.nvmlDeviceGetMaxClockInfo, handle, getattr(nvml, "NVML_CLOCK_MEM", _NVML_CLOCK_MEM)
        )
        power_mw = call(nvml.nvmlDeviceGetEnforcedPowerLimit, handle)
        if power_mw is None:
            power_mw = call(nvml.nvmlDeviceGetPowerManagementLimit, handle)
        pci = call(nvml.nvmlDeviceGetPciInfo, handle)
        bus_id = _text(getattr(pci, "busId", None)) if pci is not None else None
        return GpuInfo(
            vendor="nvidia",
            name=name,
            index=ordinal,
            uuid=uuid,
            memory_total_bytes=total,
            memory_free_bytes=free,
            memory_used_bytes=used,
            bandwidth_gbps=bandwidth_gbps(_int(clock), _int(bus)),
            compute_capability=f"{capability[0]}.{capability[1]}" if capability else None,
            unified_memory=unified,
            driver_version=driver,
            cuda_version=cuda,
            bus_width_bits=_int(bus),
            memory_clock_mhz=_int(clock),
            pcie_generation=_int(call(nvml.nvmlDeviceGetMaxPcieLinkGeneration, handle)),
            pcie_width=_int(call(nvml.nvmlDeviceGetMaxPcieLinkWidth, handle)),
            power_limit_w=round(power_mw / 1000, 1) if power_mw else None,
            pci_bus_id=bus_id[-12:].lower() if bus_id else None,
        )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    text = str(value).strip()
    return text or None


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def _cuda_version(value: Any) -> str | None:
    """NVML's CUDA driver version integer 12040 -> "12.4"."""
    number = _int(value)
    if number is None:
        return None
    return f"{number // 1000}.{number % 1000 // 10}"
