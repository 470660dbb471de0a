"""The frozen hardware profile and its JSON round trip.

A profile taken on one machine (``llm-scout hw --save``) can be evaluated on another
(``--profile FILE``); the what-if profiles in ``resources/hardware_profiles/`` use the same format.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from desktop.core.errors import HardwareError

PROFILE_FORMAT = 1

DiskKind = Literal["nvme", "ssd", "hdd", "unknown"]
GpuVendor = Literal["nvidia", "amd", "intel", "apple"]


@dataclass(frozen=True)
class CpuInfo:
    brand: str
    arch: str  # platform.machine(): x86_64, aarch64, arm64
    physical_cores: int
    logical_cores: int
    # Normalised lower-case ISA flags: sse3, avx, avx2, avx512f, fma, f16c, neon, sve ...
    flags: tuple[str, ...] = ()
    l1d_bytes: int | None = None
    l2_bytes: int | None = None
    l3_bytes: int | None = None
    # Sustained memory read bandwidth in GB/s: measured (cached) here, or from a spec sheet.
    memory_bandwidth_gbps: float | None = None


@dataclass(frozen=True)
class MemoryInfo:
    total_bytes: int
    available_bytes: int
    swap_total_bytes: int = 0
    swap_free_bytes: int = 0


@dataclass(frozen=True)
class DiskInfo:
    path: str
    device: str
    kind: DiskKind
    total_bytes: int
    free_bytes: int
    read_bytes_per_s: float | None = None  # measured sequential read, opt-in


@dataclass(frozen=True)
class GpuInfo:
    vendor: GpuVendor
    name: str
    index: int = 0
    uuid: str | None = None
    memory_total_bytes: int = 0
    memory_free_bytes: int = 0
    memory_used_bytes: int = 0
    bandwidth_gbps: float | None = None
    compute_capability: str | None = None  # NVIDIA "8.6"
    unified_memory: bool = False  # Apple, Jetson: GPU and CPU share one pool
    driver_version: str | None = None
    cuda_version: str | None = None
    bus_width_bits: int | None = None
    memory_clock_mhz: int | None = None
    pcie_generation: int | None = None
    pcie_width: int | None = None
    power_limit_w: float | None = None


@dataclass(frozen=True)
class HardwareProfile:
    cpu: CpuInfo
    memory: MemoryInfo
    disks: tuple[DiskInfo, ...] = ()
    gpus: tuple[GpuInfo, ...] = ()
    os: str = ""
    name: str = ""  # "this machine" or the what-if profile's name
    source: str = "probe"  # "probe", "file", "what-if"
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def unified_memory(self) -> bool:
        return any(g.unified_memory for g in self.gpus)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = PROFILE_FORMAT
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.to_json() + "\n", encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HardwareProfile:
        try:
            cpu = _build(CpuInfo, data["cpu"])
            memory = _build(MemoryInfo, data["memory"])
            disks = tuple(_build(DiskInfo, d) for d in data.get("disks", ()))
            gpus = tuple(_build(GpuInfo, g) for g in data.get("gpus", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise HardwareError(f"The hardware profile is not valid: {exc}.") from exc
        return cls(
            cpu=cpu,
            memory=memory,
            disks=disks,
            gpus=gpus,
            os=str(data.get("os", "")),
            name=str(data.get("name", "")),
            source=str(data.get("source", "file")),
            notes=tuple(str(n) for n in data.get("notes", ())),
        )

    @classmethod
    def from_json(cls, text: str) -> HardwareProfile:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HardwareError(f"The hardware profile is not JSON: {exc.msg}.") from exc
        if not isinstance(data, dict):
            raise HardwareError("The hardware profile must be a JSON object.")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: Path) -> HardwareProfile:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise HardwareError(
                f"Cannot read the hardware profile {path}: {exc.strerror}."
            ) from exc
        return cls.from_json(text)


def _build(kind: type[Any], data: Any) -> Any:
    if not isinstance(data, dict):
        raise TypeError(f"{kind.__name__} must be an object")
    known = {f.name for f in fields(kind)}
    values = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in known}
    return kind(**values)
