"""Apple Silicon GPU from ``sysctl``: chip, unified memory and the GPU working-set limit.

Metal lets the GPU wire only part of the unified memory (``recommendedMaxWorkingSetSize``).
``sysctl iogpu.wired_limit_mb`` shows a limit the user raised (0 = the default). The default is
not in sysctl; llama.cpp's Metal start-up logs show it as 2/3 of RAM up to 32 GiB (8 GiB ->
5461 MiB, 16 GiB -> 10923 MiB) and 3/4 above (64 GiB -> 49152 MiB, 128 GiB -> 98304 MiB), which
is what :func:`gpu_working_set_bytes` returns. Bandwidth comes from Apple's chip specifications.
"""

from __future__ import annotations

from desktop.core.hardware.profile import GpuInfo, MemoryInfo

_GIB = 1 << 30

# Unified memory bandwidth in GB/s from Apple's newsroom announcements and tech specs pages
# (https://www.apple.com/newsroom/, https://support.apple.com/specs). Chips whose bandwidth
# depends on the binning are keyed by CPU core count.
APPLE_BANDWIDTH: dict[str, float | dict[int, float]] = {
    "M1": 68.25,
    "M1 Pro": 200.0,
    "M1 Max": 400.0,
    "M1 Ultra": 800.0,
    "M2": 100.0,
    "M2 Pro": 200.0,
    "M2 Max": 400.0,
    "M2 Ultra": 800.0,
    "M3": 100.0,
    "M3 Pro": 150.0,
    "M3 Max": {14: 300.0, 16: 400.0},
    "M3 Ultra": 819.0,
    "M4": 120.0,
    "M4 Pro": 273.0,
    "M4 Max": {14: 410.0, 16: 546.0},
    "M5": 153.0,
}


def chip_bandwidth_gbps(chip: str, cpu_cores: int) -> float | None:
    """``chip`` as sysctl names it without "Apple " ("M3 Max"); None when unknown."""
    value = APPLE_BANDWIDTH.get(chip)
    if isinstance(value, dict):
        return value.get(cpu_cores, min(value.values()))
    return value


def gpu_working_set_bytes(memsize: int, wired_limit_mb: int | None) -> int:
    if wired_limit_mb:
        return min(memsize, wired_limit_mb << 20)
    fraction = 2 / 3 if memsize <= 32 * _GIB else 3 / 4
    return int(memsize * fraction)


def probe_apple(table: dict[str, str], memory: MemoryInfo | None = None) -> list[GpuInfo]:
    """The Apple GPU from a ``sysctl`` table (see cpu.read_sysctl); [] on Intel Macs."""
    brand = table.get("machdep.cpu.brand_string", "")
    if not brand.startswith("Apple"):
        return []
    try:
        memsize = int(table["hw.memsize"])
    except (KeyError, ValueError):
        memsize = memory.total_bytes if memory else 0
    try:
        wired_mb: int | None = int(table.get("iogpu.wired_limit_mb", "0"))
    except ValueError:
        wired_mb = None
    try:
        cores = int(table.get("hw.physicalcpu", "0"))
    except ValueError:
        cores = 0
    limit = gpu_working_set_bytes(memsize, wired_mb)
    available = memory.available_bytes if memory else limit
    chip = brand.removeprefix("Apple").strip()
    return [
        GpuInfo(
            vendor="apple",
            name=f"{brand} GPU",
            index=0,
            memory_total_bytes=limit,
            memory_free_bytes=min(limit, available),
            memory_used_bytes=max(0, limit - min(limit, available)),
            bandwidth_gbps=chip_bandwidth_gbps(chip, cores),
            unified_memory=True,
        )
    ]
