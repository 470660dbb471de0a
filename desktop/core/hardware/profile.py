"""The frozen hardware profile and its JSON round trip.

A profile taken on one machine (``llm-scout hw --save``) can be evaluated on another
(``--profile FILE``); the what-if profiles in ``resources/hardware_profiles/`` use the same format.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

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
    # A container (cgroup) memory limit below the machine's RAM; total_bytes is already capped.
    limit_bytes: int | None = None


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
    pci_bus_id: str | None = None  # "0000:01:00.0": stable across tools, unlike indexes


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
    # Where the numbers come from (spec sheets for what-if profiles).
    sources: tuple[str, ...] = field(default=(), compare=False)
    # What this machine's own runs say about the fit model (``hw --save`` writes it; read by
    # desktop.core.fit.calibration). None: none carried; old files have no such key.
    calibration: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def unified_memory(self) -> bool:
        return any(g.unified_memory for g in self.gpus)

    @property
    def models_disk(self) -> DiskInfo | None:
        """The disk holding the models folder (the probe puts it first), if known."""
        return self.disks[0] if self.disks else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = PROFILE_FORMAT
        if data["calibration"] is None:
            del data["calibration"]
        return data

    def to_json(self) -> str:
        """The profile as the JSON text ``hw --save`` writes (read back by ``from_json``)."""
        return json.dumps(self.to_dict(), indent=2)

    def summary_dict(self, name: str) -> dict[str, Any]:
        """One line of ``hw --list-profiles --json``: the machine in a few numbers."""
        gpu = self.gpus[0] if self.gpus else None
        return {
            "name": name,
            "title": self.name,
            "memory_total_bytes": self.memory.total_bytes,
            "gpu": gpu.name if gpu else None,
            "gpu_memory_total_bytes": gpu.memory_total_bytes if gpu else None,
            "unified_memory": self.unified_memory,
        }

    def save(self, path: Path) -> None:
        """Write the profile as JSON (``hw --save``), atomically; HardwareError on failure."""
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(self.to_json() + "\n", encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise HardwareError(
                f"Cannot write the hardware profile to {path}: {exc.strerror or exc}."
            ) from exc

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HardwareProfile:
        try:
            cpu = _build(CpuInfo, data["cpu"])
            if min(cpu.physical_cores, cpu.logical_cores) < 1:
                raise ValueError("a CPU has at least one core")
            memory = _build(MemoryInfo, data["memory"])
            disks = tuple(_build(DiskInfo, d) for d in data.get("disks", ()))
            gpus = tuple(_build(GpuInfo, g) for g in data.get("gpus", ()))
        except KeyError as exc:
            raise HardwareError(
                f"The hardware profile has no {exc.args[0]!r} section; save a profile with "
                "`llm-scout hw --save FILE` to see the format."
            ) from exc
        except (TypeError, ValueError, AttributeError) as exc:
            raise HardwareError(f"The hardware profile is not valid: {_words(exc)}.") from exc
        return cls(
            cpu=cpu,
            memory=memory,
            disks=disks,
            gpus=gpus,
            os=str(data.get("os", "")),
            name=str(data.get("name", "")),
            source=str(data.get("source", "file")),
            notes=_strings(data, "notes"),
            sources=_strings(data, "sources"),
            calibration=_calibration(data),
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


def _calibration(data: dict[str, Any]) -> dict[str, Any] | None:
    value = data.get("calibration")
    if value is not None and not isinstance(value, dict):
        raise HardwareError("The hardware profile is not valid: calibration must be an object.")
    return value


def _strings(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, ())
    if not isinstance(value, (list, tuple)):
        raise HardwareError(f"The hardware profile is not valid: {key} must be a list.")
    return tuple(str(v) for v in value)


def _build(kind: type[Any], data: Any) -> Any:
    """One dataclass from a JSON object: unknown keys ignored, every known value type-checked."""
    section = _SECTIONS.get(kind.__name__, kind.__name__)
    if not isinstance(data, dict):
        raise TypeError(f"the {section} section must be a JSON object")
    hints = get_type_hints(kind)
    values: dict[str, Any] = {}
    for f in fields(kind):
        if f.name not in data:
            required = f.default is MISSING and f.default_factory is MISSING
            if required:
                raise ValueError(f"the {section} section has no {f.name!r}")
            continue
        value = data[f.name]
        if isinstance(value, list):
            value = tuple(value)
        if not _matches(value, hints[f.name]):
            raise ValueError(f"the {section}'s {f.name!r} cannot be {value!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"the {section}'s {f.name!r} cannot be negative ({value!r})")
        values[f.name] = float(value) if _wants_float(hints[f.name], value) else value
    return kind(**values)


_SECTIONS = {"CpuInfo": "cpu", "MemoryInfo": "memory", "DiskInfo": "disk", "GpuInfo": "GPU"}


def _matches(value: Any, hint: Any) -> bool:
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        return any(_matches(value, arg) for arg in get_args(hint))
    if origin is Literal:
        return value in get_args(hint)
    if origin is tuple:
        item = get_args(hint)[0]
        return isinstance(value, tuple) and all(_matches(v, item) for v in value)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _wants_float(hint: Any, value: Any) -> bool:
    """JSON writes 600.0 as 600: keep floats floats so a round trip compares equal."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    args = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
    return float in args and int not in args


def _words(exc: BaseException) -> str:
    """An exception's message without Python's repr decorations, as the end of a sentence."""
    return str(exc).strip().rstrip(".") or type(exc).__name__
