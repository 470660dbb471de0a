"""CPU, memory, disk, AMD, Intel and Jetson probes over fake /proc, /sys and /etc trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop.core.hardware import MemoryInfo, probe_disk
from desktop.core.hardware.amd import probe_amd, probe_amd_sysfs
from desktop.core.hardware.cpu import probe_cpu
from desktop.core.hardware.disk import identify
from desktop.core.hardware.intel import probe_intel
from desktop.core.hardware.jetson import detect_jetson, probe_jetson
from desktop.core.hardware.memory import probe_memory
from tests.fixtures.fake_sysfs import FakeRoot

KB = 1024
GIB = 1 << 30


@pytest.fixture
def fake(tmp_path: Path) -> FakeRoot:
    return FakeRoot(tmp_path / "root")


# --- CPU ---------------------------------------------------------------------------------------

X86_CPUINFO_BLOCK = """processor\t: {n}
vendor_id\t: GenuineIntel
model name\t: Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz
physical id\t: 0
core id\t\t: {core}
cpu cores\t: 2
flags\t\t: fpu sse sse2 pni ssse3 fma sse4_1 sse4_2 avx f16c avx2 bmi2 avx512f avx512_vnni
"""


def _x86_cpu(fake: FakeRoot) -> None:
    blocks = [X86_CPUINFO_BLOCK.format(n=n, core=n % 2) for n in range(4)]
    fake.write("/proc/cpuinfo", "\n".join(blocks))
    fake.write("/sys/devices/system/cpu/online", "0-3\n")
    for n in range(4):
        topo = f"/sys/devices/system/cpu/cpu{n}/topology"
        fake.write(f"{topo}/core_cpus_list", f"{n % 2},{n % 2 + 2}\n")
        fake.write(f"{topo}/physical_package_id", "0\n")
    cache = "/sys/devices/system/cpu/cpu0/cache"
    caches = [
        (1, "Data", "32K", "0,2"),
        (1, "Instruction", "32K", "0,2"),
        (2, "Unified", "256K", "0,2"),
        (3, "Unified", "12288K", "0-3"),
    ]
    for index, (level, kind, size, shared) in enumerate(caches):
        fake.write(f"{cache}/index{index}/level", f"{level}\n")
        fake.write(f"{cache}/index{index}/type", f"{kind}\n")
        fake.write(f"{cache}/index{index}/size", f"{size}\n")
        fake.write(f"{cache}/index{index}/shared_cpu_list", f"{shared}\n")


def test_x86_cpu_from_fake_proc_and_sys(fake: FakeRoot) -> None:
    _x86_cpu(fake)
    cpu = probe_cpu(fake.path, system="Linux")
    assert cpu.brand == "Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz"
    assert cpu.arch == "x86_64"
    assert (cpu.physical_cores, cpu.logical_cores) == (2, 4)
    # pni is SSE3; bmi2 and the base SSE flags are not llama.cpp-relevant and are dropped.
    expected = ["avx", "avx2", "avx512_vnni", "avx512f", "f16c", "fma", "sse3", "sse4_1"]
    assert list(cpu.flags) == [*expected, "sse4_2", "ssse3"]
    assert (cpu.l1d_bytes, cpu.l2_bytes, cpu.l3_bytes) == (32 * KB, 256 * KB, 12 * 1024 * KB)


def test_two_l3_instances_are_summed(fake: FakeRoot) -> None:
    _x86_cpu(fake)
    fake.write("/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0-1\n")
    assert probe_cpu(fake.path, system="Linux").l3_bytes == 2 * 12 * 1024 * KB


PI5_FEATURES = (
    "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop"
    " asimddp"
)
PI5_CPUINFO = (
    "".join(
        f"""processor\t: {n}
BogoMIPS\t: 108.00
Features\t: {PI5_FEATURES}
CPU implementer\t: 0x41
CPU architecture: 8
CPU variant\t: 0x4
CPU part\t: 0xd0b
CPU revision\t: 1

"""
        for n in range(4)
    )
    + "Revision\t: d04170\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n"
)


def test_arm_cpu_brand_from_part_numbers_and_features(fake: FakeRoot) -> None:
    fake.write("/proc/cpuinfo", PI5_CPUINFO)
    cpu = probe_cpu(fake.path, system="Linux")
    assert cpu.brand == "ARM Cortex-A76"
    assert cpu.arch == "aarch64"
    assert cpu.flags == ("dotprod", "fp16", "neon")
    assert "sve" not in cpu.flags
    # No /sys topology in this tree: cores come from the processor blocks.
    assert cpu.logical_cores == 4
    assert cpu.physical_cores == 4


def test_empty_tree_gives_a_cpu_not_an_exception(fake: FakeRoot) -> None:
    cpu = probe_cpu(fake.path, system="Linux")
    assert cpu.logical_cores >= 1
    assert cpu.physical_cores >= 1
    assert cpu.flags == ()


# --- memory ------------------------------------------------------------------------------------


def test_memory_from_meminfo(fake: FakeRoot) -> None:
    fake.meminfo(16 * 1024 * 1024, 12 * 1024 * 1024, swap_total_kb=2048, swap_free_kb=1024)
    memory = probe_memory(fake.path, system="Linux")
    assert memory == MemoryInfo(16 * GIB, 12 * GIB, 2048 * KB, 1024 * KB)


def test_memory_without_memavailable_uses_free_plus_caches(fake: FakeRoot) -> None:
    fake.meminfo(8 * 1024 * 1024, None)
    memory = probe_memory(fake.path, system="Linux")
    assert memory.available_bytes == (4 * 1024 * 1024 + 1000 + 20000) * KB


def test_cgroup_v2_limit_caps_total_and_available(fake: FakeRoot) -> None:
    fake.meminfo(64 * 1024 * 1024, 60 * 1024 * 1024)
    fake.write("/proc/self/cgroup", "0::/user.slice/app.scope\n")
    fake.write("/sys/fs/cgroup/user.slice/memory.max", "max\n")
    fake.write("/sys/fs/cgroup/user.slice/app.scope/memory.max", f"{8 * GIB}\n")
    fake.write("/sys/fs/cgroup/user.slice/app.scope/memory.current", f"{3 * GIB}\n")
    memory = probe_memory(fake.path, system="Linux")
    assert memory.total_bytes == 8 * GIB
    assert memory.limit_bytes == 8 * GIB
    assert memory.available_bytes == 5 * GIB


def test_cgroup_v1_unlimited_is_no_limit(fake: FakeRoot) -> None:
    fake.meminfo(4 * 1024 * 1024, 3 * 1024 * 1024)
    fake.write("/proc/self/cgroup", "4:memory:/docker/abc\n1:cpu:/\n")
    fake.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
    memory = probe_memory(fake.path, system="Linux")
    assert memory.total_bytes == 4 * GIB
    assert memory.limit_bytes is None


def test_cgroup_v1_limit_inside_a_container(fake: FakeRoot) -> None:
    fake.meminfo(64 * 1024 * 1024, 60 * 1024 * 1024)
    fake.write("/proc/self/cgroup", "4:memory:/docker/abc\n")
    # Inside the container the cgroup path is not mounted: the limit sits at the mount root.
    fake.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", f"{2 * GIB}\n")
    fake.write("/sys/fs/cgroup/memory/memory.usage_in_bytes", f"{GIB // 2}\n")
    memory = probe_memory(fake.path, system="Linux")
    assert (memory.total_bytes, memory.available_bytes) == (2 * GIB, GIB + GIB // 2)


# --- disk --------------------------------------------------------------------------------------


def _numbers(folder: Path) -> str:
    dev = os.stat(folder).st_dev
    return f"{os.major(dev)}:{os.minor(dev)}"


@pytest.fixture
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    return folder


def test_nvme_partition_maps_to_its_disk(fake: FakeRoot, models: Path) -> None:
    disk = fake.block_disk("nvme0n1", "259:0", 0, parent="pci0000:00/0000:00:1d.0/nvme/nvme0")
    fake.block_partition(disk, "nvme0n1p2", _numbers(models))
    assert identify(models, fake.path) == ("nvme0n1p2", "nvme")


@pytest.mark.parametrize(("rotational", "kind"), [(1, "hdd"), (0, "ssd")])
def test_sata_disk_kind_from_rotational(
    fake: FakeRoot, models: Path, rotational: int, kind: str
) -> None:
    disk = fake.block_disk("sda", "8:0", rotational)
    fake.block_partition(disk, "sda1", _numbers(models))
    assert identify(models, fake.path) == ("sda1", kind)


@pytest.mark.parametrize(
    ("name", "rotational", "kind"),
    [("vda", 1, "unknown"), ("vda", 0, "ssd"), ("mmcblk0", 0, "unknown"), ("loop3", 0, "unknown")],
)
def test_virtual_and_removable_disks(
    fake: FakeRoot, models: Path, name: str, rotational: int, kind: str
) -> None:
    fake.block_disk(name, _numbers(models), rotational)
    assert identify(models, fake.path) == (name, kind)


def test_device_mapper_takes_the_kind_of_the_disks_below(fake: FakeRoot, models: Path) -> None:
    nvme = fake.block_disk("nvme0n1", "259:0", 0)
    part = fake.block_partition(nvme, "nvme0n1p3", "259:3")
    fake.block_dm("dm-0", _numbers(models), "cryptroot", [part])
    assert identify(models, fake.path) == ("dm-0", "nvme")


def test_btrfs_anonymous_device_falls_back_to_mountinfo(fake: FakeRoot, models: Path) -> None:
    # No /sys/dev/block entry for the folder's own st_dev (as for a btrfs subvolume).
    disk = fake.block_disk("sdb", "8:16", 1)
    fake.block_partition(disk, "sdb2", "8:18")
    fake.mountinfo(("/", "0:30", "ext4", "/dev/vda"), (str(models), "0:45", "btrfs", "/dev/sdb2"))
    assert identify(models, fake.path) == ("sdb2", "hdd")


def test_overlay_filesystem_is_unknown(fake: FakeRoot, models: Path) -> None:
    fake.mountinfo(("/", "0:52", "overlay", "overlay"))
    assert identify(models, fake.path) == ("overlay", "unknown")


def test_probe_disk_uses_nearest_existing_parent(fake: FakeRoot, models: Path) -> None:
    fake.block_disk("nvme1n1", _numbers(models), 0)
    missing = models / "not" / "created"
    info = probe_disk(missing, fake.path)
    assert info.path == str(missing)
    assert info.kind == "nvme"
    assert info.total_bytes > info.free_bytes > 0
    assert info.read_bytes_per_s is None
    assert not (models / "not").exists()


# --- AMD ---------------------------------------------------------------------------------------


def test_amd_sysfs_card(fake: FakeRoot) -> None:
    fake.drm_card(
        "card1",
        "0000:03:00.0",
        (0x1002, 0x744C),
        "amdgpu",
        files={
            "mem_info_vram_total": f"{24 * GIB}\n",
            "mem_info_vram_used": f"{GIB}\n",
            "max_link_speed": "16.0 GT/s PCIe\n",
            "max_link_width": "16\n",
            "unique_id": "a1b2c3d4e5f60718\n",
        },
    )
    fake.link("/sys/class/drm/card1-DP-1", "/sys/devices/pci0000:00/0000:03:00.0/drm/card1-DP-1")
    fake.write(
        "/usr/share/hwdata/pci.ids",
        "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
        "\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]\n"
        "10de  NVIDIA Corporation\n",
    )
    (gpu,) = probe_amd_sysfs(fake.path)
    assert gpu.vendor == "amd"
    assert gpu.name == "AMD Radeon RX 7900 XT/7900 XTX/7900M"
    assert (gpu.memory_total_bytes, gpu.memory_used_bytes) == (24 * GIB, GIB)
    assert gpu.memory_free_bytes == 23 * GIB
    assert (gpu.pcie_generation, gpu.pcie_width) == (4, 16)
    assert gpu.pci_bus_id == "0000:03:00.0"
    assert gpu.uuid == "a1b2c3d4e5f60718"
    assert not gpu.unified_memory


def test_amd_probe_without_amdsmi_uses_sysfs_and_ignores_other_vendors(fake: FakeRoot) -> None:
    fake.drm_card("card0", "0000:00:02.0", (0x8086, 0x46A6), "i915")
    fake.drm_card(
        "card1", "0000:0a:00.0", (0x1002, 0x73BF), "amdgpu", files={"product_name": "MI210\n"}
    )
    gpus = probe_amd(fake.path, use_amdsmi=False)
    assert [(g.name, g.index) for g in gpus] == [("AMD MI210", 0)]


class FakeAmdSmi:
    """The amdsmi functions the probe calls, with ROCm's return shapes (MB, dicts)."""

    class AmdSmiException(Exception):
        pass

    def __init__(self) -> None:
        self.shut_down = False

    def amdsmi_init(self) -> None:
        return None

    def amdsmi_shut_down(self) -> None:
        self.shut_down = True

    def amdsmi_get_processor_handles(self) -> list[str]:
        return ["h0"]

    def amdsmi_get_gpu_asic_info(self, handle: str) -> dict[str, object]:
        return {"market_name": "AMD Instinct MI300X", "device_id": "0x74a1"}

    def amdsmi_get_gpu_vram_usage(self, handle: str) -> dict[str, int]:
        return {"vram_total": 196592, "vram_used": 592}

    def amdsmi_get_gpu_vram_info(self, handle: str) -> dict[str, object]:
        return {"vram_type": "HBM3", "vram_bit_width": 8192, "vram_max_bandwidth": 5300}

    def amdsmi_get_gpu_device_uuid(self, handle: str) -> str:
        raise self.AmdSmiException("not supported")

    def amdsmi_get_gpu_device_bdf(self, handle: str) -> str:
        return "0000:0c:00.0"

    def amdsmi_get_gpu_driver_info(self, handle: str) -> dict[str, str]:
        return {"driver_name": "amdgpu", "driver_version": "6.10.5"}


def test_amdsmi_path_with_one_failing_call(fake: FakeRoot) -> None:
    smi = FakeAmdSmi()
    (gpu,) = probe_amd(fake.path, amdsmi=smi)
    assert gpu.name == "AMD Instinct MI300X"
    assert gpu.memory_total_bytes == 196592 << 20
    assert gpu.memory_free_bytes == 196000 << 20
    assert gpu.bandwidth_gbps == 5300.0
    assert gpu.bus_width_bits == 8192
    assert gpu.uuid is None  # the failing call stays soft
    assert gpu.driver_version == "6.10.5"
    assert gpu.pci_bus_id == "0000:0c:00.0"
    assert smi.shut_down


# --- Intel -------------------------------------------------------------------------------------


def test_intel_integrated_gpu_shares_system_memory(fake: FakeRoot) -> None:
    fake.drm_card("card0", "0000:00:02.0", (0x8086, 0x46A6), "i915")
    memory = MemoryInfo(total_bytes=32 * GIB, available_bytes=20 * GIB)
    (gpu,) = probe_intel(fake.path, memory)
    assert gpu.vendor == "intel"
    assert gpu.unified_memory
    assert (gpu.memory_total_bytes, gpu.memory_free_bytes) == (32 * GIB, 20 * GIB)
    assert gpu.name == "Intel GPU 0x46a6"


def test_intel_discrete_xe_card_reads_tile_vram(fake: FakeRoot) -> None:
    fake.drm_card(
        "card1",
        "0000:03:00.0",
        (0x8086, 0xE20B),
        "xe",
        files={
            "tile0/physical_vram_size_bytes": f"{12 * GIB}\n",
            "max_link_speed": "8.0 GT/s PCIe\n",
        },
    )
    notes: list[str] = []
    (gpu,) = probe_intel(fake.path, MemoryInfo(16 * GIB, 8 * GIB), notes=notes)
    assert not gpu.unified_memory
    assert gpu.memory_total_bytes == 12 * GIB
    assert gpu.pcie_generation == 3
    assert notes == []


def test_intel_discrete_i915_without_vram_file_gets_a_note(fake: FakeRoot) -> None:
    fake.drm_card("card1", "0000:03:00.0", (0x8086, 0x56A0), "i915")
    notes: list[str] = []
    (gpu,) = probe_intel(fake.path, MemoryInfo(16 * GIB, 8 * GIB), notes=notes)
    assert gpu.memory_total_bytes == 0
    assert not gpu.unified_memory
    assert "VRAM size" in notes[0]


# --- Jetson ------------------------------------------------------------------------------------


def _jetson(fake: FakeRoot, model: str, total_kb: int) -> None:
    fake.write(
        "/etc/nv_tegra_release",
        "# R36 (release), REVISION: 3.0, GCID: 36923193, BOARD: generic, EABI: aarch64\n",
    )
    fake.write("/proc/device-tree/model", model + "\x00")
    fake.write(
        "/proc/device-tree/compatible", "nvidia,p3768-0000+p3767-0005\x00nvidia,tegra234\x00"
    )
    fake.meminfo(total_kb, total_kb - 1024 * 1024)
    fake.write("/usr/local/cuda/version.json", '{"cuda": {"name": "CUDA", "version": "12.6.68"}}')


def test_jetson_orin_nano_from_fake_tree(fake: FakeRoot) -> None:
    _jetson(fake, "NVIDIA Jetson Orin Nano Developer Kit", 7_620_000)
    board = detect_jetson(fake.path)
    assert board is not None
    assert board.l4t_release == "R36.3.0"
    assert board.soc == "tegra234"
    (gpu,) = probe_jetson(fake.path)
    assert gpu.vendor == "nvidia"
    assert gpu.name == "NVIDIA Jetson Orin Nano Developer Kit"
    assert gpu.unified_memory
    assert gpu.memory_total_bytes == 7_620_000 * KB
    assert gpu.memory_free_bytes == (7_620_000 - 1024 * 1024) * KB
    assert gpu.bandwidth_gbps == 68.0
    assert gpu.compute_capability == "8.7"
    assert gpu.driver_version == "L4T R36.3.0"
    assert gpu.cuda_version == "12.6"


@pytest.mark.parametrize(
    ("model", "total_kb", "bandwidth"),
    [
        ("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super", 7_620_000, 102.0),
        ("NVIDIA Jetson Orin Nano Developer Kit", 3_700_000, 34.0),
        ("NVIDIA Jetson AGX Orin Developer Kit", 64_000_000, 204.8),
        ("NVIDIA Jetson Xavier NX Developer Kit", 7_700_000, 59.7),
    ],
)
def test_jetson_bandwidth_table(
    fake: FakeRoot, model: str, total_kb: int, bandwidth: float
) -> None:
    _jetson(fake, model, total_kb)
    (gpu,) = probe_jetson(fake.path)
    assert gpu.bandwidth_gbps == bandwidth


def test_not_a_jetson(fake: FakeRoot) -> None:
    fake.write("/proc/device-tree/model", "Raspberry Pi 5 Model B Rev 1.0\x00")
    assert detect_jetson(fake.path) is None
    assert probe_jetson(fake.path) == []


def test_unknown_tegra_module_keeps_soc_capability_and_notes_it(fake: FakeRoot) -> None:
    fake.write("/proc/device-tree/model", "Custom carrier board\x00")
    fake.write("/proc/device-tree/compatible", "acme,board\x00nvidia,tegra194\x00")
    fake.meminfo(16_000_000, 12_000_000)
    notes: list[str] = []
    (gpu,) = probe_jetson(fake.path, notes=notes)
    assert gpu.compute_capability == "7.2"
    assert gpu.bandwidth_gbps is None
    assert "Custom carrier board" in notes[0]
