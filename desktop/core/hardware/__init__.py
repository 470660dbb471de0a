"""Hardware detection: one probe per source, each failing soft, combined into a profile."""

from desktop.core.hardware.profile import (
    CpuInfo,
    DiskInfo,
    GpuInfo,
    HardwareProfile,
    MemoryInfo,
)

__all__ = ["CpuInfo", "DiskInfo", "GpuInfo", "HardwareProfile", "MemoryInfo"]
