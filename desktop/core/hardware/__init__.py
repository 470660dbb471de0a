"""Hardware detection: one probe per source, each failing soft, combined into a profile.

``probe()`` lives in :mod:`desktop.core.hardware.probe` (not re-exported here, so the module
name stays the module).
"""

from desktop.core.hardware.bandwidth import cpu_bandwidth_gbps
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
]
