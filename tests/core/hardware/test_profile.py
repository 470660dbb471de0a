"""HardwareProfile JSON round trip and validation, and the bundled what-if profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import HardwareError
from desktop.core.hardware import (
    CpuInfo,
    DiskInfo,
    GpuInfo,
    HardwareProfile,
    MemoryInfo,
    list_profiles,
    load_profile,
)
from desktop.core.hardware.whatif import profiles_dir

GIB = 1 << 30

REQUIRED = {
    "jetson-orin-nano-8gb": (8 * GIB, "nvidia", True),
    "jetson-agx-orin-64gb": (64 * GIB, "nvidia", True),
    "rtx-3060-12gb": (12 * GIB, "nvidia", False),
    "rtx-4090-24gb": (24 * GIB, "nvidia", False),
    "a10g-24gb": (24 * GIB, "nvidia", False),
    "a100-80gb": (80 * GIB, "nvidia", False),
    "h100-80gb": (80 * GIB, "nvidia", False),
    "apple-m2-16gb": (16 * GIB * 2 // 3, "apple", True),
    "laptop-16gb-cpu": (None, None, False),
    "raspberry-pi-5-8gb": (None, None, False),
}


def sample() -> HardwareProfile:
    return HardwareProfile(
        cpu=CpuInfo("Test CPU", "x86_64", 8, 16, ("avx2", "fma"), 32768, 1 << 20, 32 << 20, 41.5),
        memory=MemoryInfo(64 * GIB, 40 * GIB, 8 * GIB, 8 * GIB, limit_bytes=None),
        disks=(DiskInfo("/models", "nvme0n1p2", "nvme", 10**12, 5 * 10**11, 2.5e9),),
        gpus=(
            GpuInfo(
                "nvidia",
                "RTX",
                0,
                "GPU-1",
                24 * GIB,
                20 * GIB,
                4 * GIB,
                1008.1,
                "8.9",
                power_limit_w=450.0,
                pci_bus_id="0000:01:00.0",
            ),
        ),
        os="Linux 6.8",
        name="this machine",
        source="probe",
        notes=("a note",),
        sources=("https://example.org/spec",),
    )


def test_round_trip_equality_and_keys() -> None:
    profile = sample()
    data = json.loads(profile.to_json())
    assert set(data) >= {"cpu", "memory", "disks", "gpus", "format"}
    assert set(data["memory"]) >= {"total_bytes", "available_bytes"}
    assert set(data["disks"][0]) >= {"path", "kind", "total_bytes", "free_bytes"}
    assert set(data["gpus"][0]) >= {
        "vendor",
        "name",
        "memory_total_bytes",
        "memory_free_bytes",
        "bandwidth_gbps",
        "compute_capability",
        "unified_memory",
    }
    again = HardwareProfile.from_json(profile.to_json())
    assert again == profile
    assert again.notes == profile.notes
    assert again.sources == profile.sources
    assert again.models_disk == profile.disks[0]


def test_whole_number_floats_stay_floats() -> None:
    data = sample().to_dict()
    data["gpus"][0]["bandwidth_gbps"] = 600  # JSON writers may drop the ".0"
    gpu = HardwareProfile.from_dict(data).gpus[0]
    assert gpu.bandwidth_gbps == 600.0
    assert isinstance(gpu.bandwidth_gbps, float)


def test_save_and_load(tmp_path: Path) -> None:
    path = tmp_path / "me.json"
    sample().save(path)
    assert HardwareProfile.load(path) == sample()
    assert not (tmp_path / "me.json.tmp").exists()


def test_unknown_keys_are_ignored() -> None:
    data = sample().to_dict()
    data["cpu"]["future_field"] = 1
    data["something_new"] = {"x": 1}
    assert HardwareProfile.from_dict(data) == sample()


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("cpu", "physical_cores"), "eight"),
        (("cpu", "flags"), "avx2"),
        (("memory", "total_bytes"), 1.5),
        (("memory", "available_bytes"), True),
        (("disks", 0, "kind"), "floppy"),
        (("gpus", 0, "vendor"), "3dfx"),
        (("gpus", 0, "unified_memory"), "yes"),
        (("memory", "total_bytes"), -1),
        (("gpus", 0, "bandwidth_gbps"), -600.0),
        (("cpu", "logical_cores"), 0),
    ],
)
def test_wrong_types_are_a_clear_error(path: tuple[Any, ...], value: Any) -> None:
    data: Any = sample().to_dict()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(HardwareError, match="not valid"):
        HardwareProfile.from_dict(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"cpu": {}}', "the cpu section has no 'brand'"),
        ('{"memory": {"total_bytes": 1, "available_bytes": 1}}', "has no 'cpu' section"),
        ('{"cpu": [], "memory": {}}', "the cpu section must be a JSON object"),
    ],
)
def test_broken_files(text: str, message: str) -> None:
    with pytest.raises(HardwareError, match=message):
        HardwareProfile.from_json(text)


def test_missing_file_is_a_hardware_error(tmp_path: Path) -> None:
    with pytest.raises(HardwareError, match="Cannot read"):
        HardwareProfile.load(tmp_path / "nope.json")


# --- what-if profiles -------------------------------------------------------------------------


def test_all_required_profiles_ship() -> None:
    assert set(REQUIRED) <= set(list_profiles())


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_what_if_profile_is_sane(name: str) -> None:
    profile = load_profile(name)
    raw = json.loads((profiles_dir() / f"{name}.json").read_text(encoding="utf-8"))
    assert raw["source"] == "what-if"
    assert raw["format"] == 1
    assert profile.source == "what-if"
    assert profile.name
    assert profile.sources
    assert all(s.startswith("https://") for s in profile.sources)
    cpu, memory = profile.cpu, profile.memory
    assert 1 <= cpu.physical_cores <= cpu.logical_cores
    assert cpu.memory_bandwidth_gbps is not None
    assert 5 < cpu.memory_bandwidth_gbps < 1000
    assert 0 < memory.available_bytes <= memory.total_bytes
    assert profile.disks
    assert all(0 < d.free_bytes <= d.total_bytes for d in profile.disks)
    vram, vendor, unified = REQUIRED[name]
    if vram is None:
        assert profile.gpus == ()
    else:
        (gpu,) = profile.gpus
        assert (gpu.vendor, gpu.memory_total_bytes, gpu.unified_memory) == (vendor, vram, unified)
        assert 0 < gpu.memory_free_bytes <= gpu.memory_total_bytes
        assert gpu.bandwidth_gbps is not None
        assert 10 < gpu.bandwidth_gbps < 5000
        if gpu.unified_memory:
            assert gpu.memory_total_bytes <= memory.total_bytes
    assert HardwareProfile.from_json(profile.to_json()) == profile
    assert HardwareProfile.from_json(profile.to_json()).sources == profile.sources


def test_spec_numbers_match_the_public_data_sheets() -> None:
    bandwidth = {n: load_profile(n).gpus[0].bandwidth_gbps for n in REQUIRED if REQUIRED[n][0]}
    assert bandwidth == {
        "jetson-orin-nano-8gb": 68.0,
        "jetson-agx-orin-64gb": 204.8,
        "rtx-3060-12gb": 360.0,
        "rtx-4090-24gb": 1008.0,
        "a10g-24gb": 600.0,
        "a100-80gb": 2039.0,
        "h100-80gb": 3350.0,
        "apple-m2-16gb": 100.0,
    }
    assert load_profile("raspberry-pi-5-8gb").cpu.memory_bandwidth_gbps == 17.1


def test_load_profile_by_path_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    sample().save(path)
    assert load_profile(str(path)) == sample()
    assert load_profile("RTX-4090-24GB.json") == load_profile("rtx-4090-24gb")
    with pytest.raises(HardwareError, match="No hardware profile named 'nope'"):
        load_profile("nope")
    with pytest.raises(HardwareError, match="not a file"):
        load_profile(str(tmp_path))
    with pytest.raises(HardwareError, match="No hardware profile name"):
        load_profile("  ")
