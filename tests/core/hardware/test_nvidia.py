"""The NVIDIA probe over a fake ``pynvml`` module: the real probe code runs, only NVML is faked."""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desktop.core.hardware import probe
from desktop.core.hardware.nvidia import bandwidth_gbps, probe_nvidia, visible_indexes

GIB = 1 << 30
UUID_4090 = "GPU-4f2a9c1e-0b1d-4c57-9d8e-1a2b3c4d5e6f"
UUID_3060 = "GPU-8be07d55-77aa-4e0f-b2a1-0f9e8d7c6b5a"


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


@dataclass
class FakeGpu:
    name: str
    uuid: str
    total: int
    used: int
    capability: tuple[int, int]
    bus_width: int
    memory_clock: int
    pcie: tuple[int, int]
    power_mw: int
    bus_id: str


@dataclass
class Memory:
    total: int
    free: int
    used: int


@dataclass
class Pci:
    busId: str  # NVML's field name


@dataclass
class FakeNvml:
    """The pynvml functions the probe calls, answering from ``gpus``.

    ``failing`` holds (function name, device index or None) pairs that raise NVMLError(error).
    """

    gpus: list[FakeGpu]
    failing: set[tuple[str, int | None]] = field(default_factory=set)
    error: int = 999
    init_error: BaseException | None = None
    calls: list[str] = field(default_factory=list)

    NVMLError = NVMLError
    NVML_CLOCK_MEM = 2
    NVML_ERROR_NOT_SUPPORTED = 3

    def _check(self, name: str, handle: int | None = None) -> None:
        self.calls.append(name)
        if (name, handle) in self.failing:
            raise NVMLError(self.error)

    def nvmlInit(self) -> None:
        self.calls.append("nvmlInit")
        if self.init_error is not None:
            raise self.init_error

    def nvmlShutdown(self) -> None:
        self.calls.append("nvmlShutdown")

    def nvmlSystemGetDriverVersion(self) -> str:
        self._check("nvmlSystemGetDriverVersion")
        return "550.54.14"

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._check("nvmlSystemGetCudaDriverVersion")
        return 12040

    def nvmlDeviceGetCount(self) -> int:
        self._check("nvmlDeviceGetCount")
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        self._check("nvmlDeviceGetHandleByIndex", index)
        return index

    def nvmlDeviceGetUUID(self, handle: int) -> str:
        self._check("nvmlDeviceGetUUID", handle)
        return self.gpus[handle].uuid

    def nvmlDeviceGetName(self, handle: int) -> bytes:
        self._check("nvmlDeviceGetName", handle)
        return self.gpus[handle].name.encode()  # old pynvml versions return bytes

    def nvmlDeviceGetMemoryInfo(self, handle: int) -> Memory:
        self._check("nvmlDeviceGetMemoryInfo", handle)
        gpu = self.gpus[handle]
        return Memory(total=gpu.total, free=gpu.total - gpu.used, used=gpu.used)

    def nvmlDeviceGetCudaComputeCapability(self, handle: int) -> tuple[int, int]:
        self._check("nvmlDeviceGetCudaComputeCapability", handle)
        return self.gpus[handle].capability

    def nvmlDeviceGetMemoryBusWidth(self, handle: int) -> int:
        self._check("nvmlDeviceGetMemoryBusWidth", handle)
        return self.gpus[handle].bus_width

    def nvmlDeviceGetMaxClockInfo(self, handle: int, clock: int) -> int:
        self._check("nvmlDeviceGetMaxClockInfo", handle)
        assert clock == self.NVML_CLOCK_MEM
        return self.gpus[handle].memory_clock

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: int) -> int:
        self._check("nvmlDeviceGetMaxPcieLinkGeneration", handle)
        return self.gpus[handle].pcie[0]

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: int) -> int:
        self._check("nvmlDeviceGetMaxPcieLinkWidth", handle)
        return self.gpus[handle].pcie[1]

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: int) -> int:
        self._check("nvmlDeviceGetEnforcedPowerLimit", handle)
        return self.gpus[handle].power_mw

    def nvmlDeviceGetPowerManagementLimit(self, handle: int) -> int:
        self._check("nvmlDeviceGetPowerManagementLimit", handle)
        return self.gpus[handle].power_mw - 1000

    def nvmlDeviceGetPciInfo(self, handle: int) -> Pci:
        self._check("nvmlDeviceGetPciInfo", handle)
        return Pci(busId=self.gpus[handle].bus_id)


def two_gpus(**kwargs: Any) -> FakeNvml:
    return FakeNvml(
        gpus=[
            FakeGpu(
                "NVIDIA GeForce RTX 4090",
                UUID_4090,
                24 * GIB,
                GIB,
                (8, 9),
                384,
                10501,
                (4, 16),
                450_000,
                "00000000:01:00.0",
            ),
            FakeGpu(
                "NVIDIA GeForce RTX 3060",
                UUID_3060,
                12 * GIB,
                2 * GIB,
                (8, 6),
                192,
                7501,
                (4, 16),
                170_000,
                "00000000:2B:00.0",
            ),
        ],
        **kwargs,
    )


def test_two_gpus_all_fields() -> None:
    nvml = two_gpus()
    first, second = probe_nvidia(nvml, env={})
    assert (first.name, first.index, first.uuid) == ("NVIDIA GeForce RTX 4090", 0, UUID_4090)
    assert (first.memory_total_bytes, first.memory_used_bytes) == (24 * GIB, GIB)
    assert first.memory_free_bytes == 23 * GIB
    assert first.compute_capability == "8.9"
    assert first.bandwidth_gbps == 1008.1  # 2 x 10501 MHz x 384 bit / 8 / 1000 (spec: 1008)
    assert (first.bus_width_bits, first.memory_clock_mhz) == (384, 10501)
    assert (first.pcie_generation, first.pcie_width) == (4, 16)
    assert first.power_limit_w == 450.0
    assert (first.driver_version, first.cuda_version) == ("550.54.14", "12.4")
    assert first.pci_bus_id == "0000:01:00.0"
    assert not first.unified_memory
    assert (second.name, second.index, second.bandwidth_gbps) == (
        "NVIDIA GeForce RTX 3060",
        1,
        360.0,
    )
    assert second.pci_bus_id == "0000:2b:00.0"
    assert nvml.calls[0] == "nvmlInit"
    assert nvml.calls[-1] == "nvmlShutdown"


@pytest.mark.parametrize(
    ("spec", "names"),
    [
        ("1", ["NVIDIA GeForce RTX 3060"]),
        ("1,0", ["NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 4090"]),
        (UUID_3060, ["NVIDIA GeForce RTX 3060"]),
        ("GPU-4f2a", ["NVIDIA GeForce RTX 4090"]),  # a unique UUID prefix is enough
        ("GPU-", []),  # ambiguous prefix: CUDA stops there
        ("0,7,1", ["NVIDIA GeForce RTX 4090"]),  # an invalid entry ends the list
        ("", []),
        ("-1", []),
        ("0,0", ["NVIDIA GeForce RTX 4090"]),
    ],
)
def test_cuda_visible_devices(spec: str, names: list[str]) -> None:
    notes: list[str] = []
    gpus = probe_nvidia(two_gpus(), env={"CUDA_VISIBLE_DEVICES": spec}, notes=notes)
    assert [g.name for g in gpus] == names
    assert [g.index for g in gpus] == list(range(len(names)))
    assert notes == (
        []
        if len(names) == 2
        else [f"CUDA_VISIBLE_DEVICES={spec!r} shows {len(names)} of 2 NVIDIA GPUs."]
    )


def test_visible_indexes_without_env_is_everything() -> None:
    assert visible_indexes(["GPU-a", None, "GPU-c"], None) == [0, 1, 2]
    assert visible_indexes(["GPU-a", None, "GPU-c"], "2, 0") == [2, 0]


def test_one_failing_query_leaves_only_that_value_empty() -> None:
    nvml = two_gpus(
        failing={("nvmlDeviceGetMemoryBusWidth", 0), ("nvmlDeviceGetEnforcedPowerLimit", 1)}
    )
    first, second = probe_nvidia(nvml, env={})
    assert first.bus_width_bits is None
    assert first.bandwidth_gbps is None
    assert first.memory_total_bytes == 24 * GIB
    assert first.compute_capability == "8.9"
    assert second.bandwidth_gbps == 360.0
    assert second.power_limit_w == 169.0  # fell back to the power management limit


def test_device_without_handle_is_left_out_with_a_note() -> None:
    notes: list[str] = []
    gpus = probe_nvidia(two_gpus(failing={("nvmlDeviceGetHandleByIndex", 0)}), env={}, notes=notes)
    assert [g.name for g in gpus] == ["NVIDIA GeForce RTX 3060"]
    assert "did not answer" in notes[0]


def test_memory_not_supported_means_unified_memory() -> None:
    nvml = two_gpus(failing={("nvmlDeviceGetMemoryInfo", 0)}, error=3)
    notes: list[str] = []
    first, _ = probe_nvidia(nvml, env={}, system_memory_bytes=128 * GIB, notes=notes)
    assert first.unified_memory
    assert first.memory_total_bytes == 128 * GIB
    assert "unified" in notes[0]


def test_other_memory_error_is_soft_and_noted() -> None:
    nvml = two_gpus(failing={("nvmlDeviceGetMemoryInfo", 1)}, error=15)
    notes: list[str] = []
    _, second = probe_nvidia(nvml, env={}, system_memory_bytes=128 * GIB, notes=notes)
    assert not second.unified_memory
    assert second.memory_total_bytes == 0
    assert "no memory information" in notes[0]


def test_init_failure_means_no_nvidia_gpu() -> None:
    nvml = two_gpus(init_error=NVMLError(9))  # NVML_ERROR_DRIVER_NOT_LOADED
    assert probe_nvidia(nvml, env={}) == []
    assert "nvmlShutdown" not in nvml.calls


def test_real_pynvml_without_its_library_is_soft(monkeypatch: pytest.MonkeyPatch) -> None:
    # The real nvidia-ml-py, on a machine without the NVIDIA driver's libnvidia-ml: its loader
    # fails (as here, made to fail at the lowest level, whatever this machine has), nvmlInit
    # raises, and the probe says "no NVIDIA GPU".
    import pynvml

    def no_library(name: str, *args: object, **kwargs: object) -> object:
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(pynvml, "nvmlLib", None)
    monkeypatch.setattr(pynvml, "CDLL", no_library)
    notes: list[str] = []
    assert probe_nvidia(env={}, notes=notes) == []


def test_the_real_probe_agrees_with_nvml_on_this_machine() -> None:
    """On any machine: as many GPUs as NVML reports (none without a driver), each named, with
    its memory."""
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        expected = 0
    else:
        try:
            expected = pynvml.nvmlDeviceGetCount()
        finally:
            pynvml.nvmlShutdown()
    gpus = probe_nvidia(env={})
    assert len(gpus) == expected
    for gpu in gpus:
        assert gpu.name
        assert gpu.memory_total_bytes > 0


def test_bandwidth_formula() -> None:
    assert bandwidth_gbps(1593, 5120) == 2039.0  # A100 80GB SXM (HBM2e)
    assert bandwidth_gbps(2619, 5120) == 3352.3  # H100 SXM (HBM3)
    assert bandwidth_gbps(None, 384) is None
    assert bandwidth_gbps(9751, 0) is None


def test_probe_combines_the_fake_nvml(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "meminfo").write_text("MemTotal: 33554432 kB\nMemAvailable: 30000000 kB\n")
    profile = probe(
        tmp_path,
        root=root,
        system="Linux",
        nvml=two_gpus(),
        env={"CUDA_VISIBLE_DEVICES": UUID_4090},
    )
    assert [g.name for g in profile.gpus] == ["NVIDIA GeForce RTX 4090"]
    assert profile.memory.total_bytes == 32 * GIB
    assert any("CUDA_VISIBLE_DEVICES" in n for n in profile.notes)


def test_probe_survives_an_nvml_that_raises_something_unexpected(tmp_path: Path) -> None:
    profile = probe(
        tmp_path,
        root=tmp_path,
        system="Linux",
        nvml=two_gpus(failing={("nvmlDeviceGetCount", None)}, init_error=None),
        env={},
    )
    assert profile.gpus == ()
    broken = two_gpus(init_error=RuntimeError("segfault averted"))
    profile = probe(tmp_path, root=tmp_path, system="Linux", nvml=broken, env={})
    assert profile.gpus == ()
    assert any("nvidia probe failed" in n for n in profile.notes)


class HungNvml(FakeNvml):
    """nvmlInit blocks until released, like a driver that stopped answering."""

    release = threading.Event()

    def nvmlInit(self) -> None:
        self.release.wait(30)
        super().nvmlInit()


def test_a_hung_nvml_does_not_hang_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.modules["desktop.core.hardware.detect"], "NVML_TIMEOUT_S", 0.2)
    nvml = HungNvml(gpus=two_gpus().gpus)
    try:
        profile = probe(tmp_path, root=tmp_path, system="Linux", nvml=nvml, env={})
    finally:
        HungNvml.release.set()
    assert profile.gpus == ()
    assert any("NVML did not answer within" in n for n in profile.notes)
