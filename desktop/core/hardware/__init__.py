"""Hardware detection: one probe per source, each failing soft, combined into a profile."""

from desktop.core.hardware.bandwidth import cpu_bandwidth_gbps
from desktop.core.hardware.probe import probe
from desktop.core.hardware.profile import (
    CpuInfo,
    DiskInfo,
    GpuInfo,
    HardwareProfile,
    MemoryInfo,
)
from desktop.core.hardware.whatif import list_profiles, load_profile

__all__ = [
    "CpuInfo",
    "DiskInfo",
    "GpuInfo",
    "HardwareProfile",
    "MemoryInfo",
    "cpu_bandwidth_gbps",
    "list_profiles",
    "load_profile",
    "probe",
]
