"""Hardware detection: one probe per source, each failing soft, combined into a profile.

Owns what the machine is: CPU (ISA flags, caches, measured memory bandwidth), RAM, the disk
holding the models folder (kind, free space, read speed), GPUs (NVIDIA through NVML, AMD, Intel,
Apple unified memory, Jetson), and the frozen :class:`HardwareProfile` with its JSON round trip,
so a profile saved on one machine (``llm-scout hw --save``) or a bundled what-if profile can be
evaluated anywhere.
"""

from desktop.core.hardware.bandwidth import cpu_bandwidth_gbps
from desktop.core.hardware.cpu import usable_cpus
from desktop.core.hardware.detect import THIS_MACHINE, probe
from desktop.core.hardware.disk import probe_disk
from desktop.core.hardware.profile import (
    CpuInfo,
    DiskInfo,
    GpuInfo,
    HardwareProfile,
    MemoryInfo,
)
from desktop.core.hardware.whatif import list_profiles, load_profile

__all__ = [
    "THIS_MACHINE",
    "CpuInfo",
    "DiskInfo",
    "GpuInfo",
    "HardwareProfile",
    "MemoryInfo",
    "cpu_bandwidth_gbps",
    "list_profiles",
    "load_profile",
    "probe",
    "probe_disk",
    "usable_cpus",
]
