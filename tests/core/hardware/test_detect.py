"""The full probe on this machine, its soft failures, and the Apple path over a fake sysctl."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from desktop.core import paths
from desktop.core.hardware import HardwareProfile, probe, probe_disk
from desktop.core.hardware.apple import gpu_working_set_bytes
from desktop.core.hardware.cpu import probe_cpu_darwin, read_sysctl, windows_flags
from desktop.core.hardware.disk import measure_read_speed

GIB = 1 << 30


def test_this_machine_is_sane() -> None:
    profile = probe()
    cpu, memory = profile.cpu, profile.memory
    assert cpu.brand
    assert cpu.arch
    assert 1 <= cpu.physical_cores <= cpu.logical_cores == os.cpu_count()
    assert all(flag == flag.lower() for flag in cpu.flags)
    if cpu.arch == "x86_64":
        assert "sse3" in cpu.flags  # every x86-64 CPU llama.cpp supports has it
    if cpu.l3_bytes is not None:
        assert cpu.l3_bytes >= (cpu.l2_bytes or 0)
    assert 0 < memory.available_bytes <= memory.total_bytes
    assert memory.swap_free_bytes <= memory.swap_total_bytes
    (disk,) = profile.disks
    assert profile.models_disk == disk
    assert disk.path == str(paths.models_dir())
    assert disk.kind in ("nvme", "ssd", "hdd", "unknown")
    assert disk.device
    assert disk.total_bytes >= disk.free_bytes > 0
    for gpu in profile.gpus:
        assert gpu.memory_total_bytes >= gpu.memory_free_bytes >= 0
    assert profile.os.startswith(("Linux", "macOS", "Windows"))
    assert (profile.name, profile.source) == ("this machine", "probe")
    # The default models folder is probed but never created.
    assert not paths.models_dir().exists()


def test_probe_round_trips_through_json() -> None:
    profile = probe()
    again = HardwareProfile.from_json(profile.to_json())
    assert again == profile
    assert again.to_dict() == profile.to_dict()


def test_an_empty_fake_root_still_gives_a_profile(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    profile = probe(tmp_path, root=root, system="Linux", env={"CUDA_VISIBLE_DEVICES": ""})
    assert profile.cpu.logical_cores >= 1  # from os.cpu_count() when /proc is missing
    assert profile.memory.total_bytes > 0  # psutil when /proc/meminfo is missing
    assert profile.gpus == ()
    assert profile.disks[0].path == str(tmp_path)


def test_measured_disk_read_speed_leaves_no_scratch_file(tmp_path: Path) -> None:
    info = probe_disk(tmp_path / "models", measure=True, read_bytes=8 << 20, scratch_bytes=8 << 20)
    assert info.read_bytes_per_s is not None
    assert info.read_bytes_per_s > 1e6  # more than 1 MB/s on any disk this runs on
    assert list(tmp_path.iterdir()) == []


def test_measure_read_speed_samples_an_existing_model_file(tmp_path: Path) -> None:
    sample = tmp_path / "model.gguf"
    sample.write_bytes(os.urandom(4 << 20))
    speed = measure_read_speed(tmp_path, read_bytes=4 << 20)
    assert speed is not None
    assert speed > 1e6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.gguf"]


def test_measure_read_speed_where_nothing_can_be_written_is_none() -> None:
    # procfs refuses new files even for root: no scratch file, so no number (and no exception).
    assert measure_read_speed(Path("/proc"), use_files=False) is None


# --- Apple, through a fake sysctl runner --------------------------------------------------------

M3_MAX_SYSCTL = """hw.ncpu: 14
hw.physicalcpu: 14
hw.logicalcpu: 14
hw.memsize: 38654705664
hw.perflevel0.l1dcachesize: 131072
hw.perflevel0.l2cachesize: 16777216
hw.l1dcachesize: 65536
hw.l2cachesize: 4194304
hw.optional.neon: 1
hw.optional.arm.FEAT_DotProd: 1
hw.optional.arm.FEAT_I8MM: 1
hw.optional.arm.FEAT_BF16: 1
hw.optional.arm.FEAT_FP16: 1
hw.optional.arm.FEAT_SME: 0
hw.machine: arm64
machdep.cpu.brand_string: Apple M3 Max
iogpu.wired_limit_mb: 0
vm.swapusage: total = 2048.00M  used = 512.00M  free = 1536.00M  (encrypted)
kern.osproductversion: 14.5
"""


class FakeRunner:
    def __init__(self, outputs: dict[str, str]) -> None:
        self.outputs = outputs
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> str | None:
        self.calls.append(list(argv))
        return self.outputs.get(argv[0])


def test_apple_silicon_through_the_full_probe(tmp_path: Path) -> None:
    run = FakeRunner({"sysctl": M3_MAX_SYSCTL})
    profile = probe(tmp_path, system="Darwin", run=run)
    assert run.calls[0][0] == "sysctl"
    cpu = profile.cpu
    assert (cpu.brand, cpu.arch, cpu.physical_cores) == ("Apple M3 Max", "arm64", 14)
    assert cpu.flags == ("bf16", "dotprod", "fp16", "i8mm", "neon")
    assert (cpu.l1d_bytes, cpu.l2_bytes) == (131072, 16 << 20)
    assert profile.memory.total_bytes == 36 * GIB
    assert profile.memory.swap_total_bytes == 2048 << 20
    assert profile.memory.swap_free_bytes == 1536 << 20
    (gpu,) = profile.gpus
    assert (gpu.vendor, gpu.name) == ("apple", "Apple M3 Max GPU")
    assert gpu.unified_memory
    assert gpu.memory_total_bytes == 27 * GIB  # 3/4 of 36 GiB (Metal's default above 32 GiB)
    assert gpu.bandwidth_gbps == 300.0  # the 14-core M3 Max
    assert profile.unified_memory
    assert profile.os == "macOS 14.5"


def test_raised_wired_limit_is_the_gpu_memory() -> None:
    assert gpu_working_set_bytes(16 * GIB, 14336) == 14 * GIB
    assert gpu_working_set_bytes(16 * GIB, 0) == 16 * GIB * 2 // 3
    assert gpu_working_set_bytes(8 * GIB, 999_999) == 8 * GIB


def test_intel_mac_has_no_apple_gpu(tmp_path: Path) -> None:
    text = (
        "hw.physicalcpu: 8\nhw.logicalcpu: 16\nhw.memsize: 17179869184\n"
        "machdep.cpu.brand_string: Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz\n"
        "machdep.cpu.features: FPU VME SSE3 SSSE3 FMA SSE4.1 SSE4.2 AVX1.0 F16C\n"
        "machdep.cpu.leaf7_features: BMI1 AVX2 SMEP\n"
    )
    profile = probe(tmp_path, system="Darwin", run=FakeRunner({"sysctl": text}))
    assert profile.gpus == ()
    assert profile.cpu.flags == ("avx", "avx2", "f16c", "fma", "sse3", "sse4_1", "sse4_2", "ssse3")
    assert (profile.cpu.physical_cores, profile.cpu.logical_cores) == (8, 16)


def test_on_linux_the_apple_probe_is_skipped(tmp_path: Path) -> None:
    run = FakeRunner({"sysctl": M3_MAX_SYSCTL})
    profile = probe(tmp_path, system="Linux", run=run)
    assert run.calls == []
    assert all(g.vendor != "apple" for g in profile.gpus)


def test_sysctl_that_cannot_run_is_soft() -> None:
    assert read_sysctl(FakeRunner({})) == {}
    cpu = probe_cpu_darwin(FakeRunner({}))
    assert cpu.logical_cores >= 1


def test_windows_flags_from_feature_codes() -> None:
    present = {13, 39, 40}  # SSE3, AVX, AVX2
    assert windows_flags(lambda code: code in present) == ("avx", "avx2", "sse3")


def test_restricted_cpu_affinity_is_noted(tmp_path: Path) -> None:
    everything = os.sched_getaffinity(0)
    assert not any("CPU affinity" in n for n in probe(tmp_path).notes)
    if len(everything) < 2:  # a one-CPU machine cannot be restricted further
        return
    os.sched_setaffinity(0, {min(everything)})
    try:
        notes = probe(tmp_path).notes
    finally:
        os.sched_setaffinity(0, everything)
    assert f"This process may run on 1 of the {os.cpu_count()} CPU threads" in notes[0]


def test_a_measured_disk_speed_is_remembered_for_later_probes(tmp_path: Path) -> None:
    """The window's Measure button, `hw --measure-disk` and `fit` then use one figure."""
    models = tmp_path / "models"
    assert probe_disk(models).read_bytes_per_s is None  # this test's own cache folder: empty
    measured = probe_disk(models, measure=True, read_bytes=8 << 20, scratch_bytes=8 << 20)
    assert measured.read_bytes_per_s is not None
    later = probe_disk(models)
    assert later.device == measured.device
    if measured.device:  # a folder whose device is known (every Linux disk)
        assert later.read_bytes_per_s == pytest.approx(measured.read_bytes_per_s, rel=1e-6)
