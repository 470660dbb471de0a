"""CPU memory bandwidth: measured once with a short copy benchmark, then cached.

Token generation on the CPU is bound by how fast the weights stream from RAM, so the fit
estimate needs this machine's sustained memory bandwidth. :func:`measure_copy_bandwidth` copies
one half of a buffer several times larger than the L3 cache onto the other half with numpy
(which releases the GIL), split over one thread per physical core, and keeps the best of a few
runs; bytes read plus bytes written over the time is the STREAM "copy" convention. The result
is cached in ``cache_dir()/cpu_bandwidth.json`` keyed by CPU brand and core counts, so probes
after the first cost nothing.
"""

from __future__ import annotations

import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.hardware.profile import CpuInfo

log = logging.getLogger(__name__)

CACHE_FILE = "cpu_bandwidth.json"
MIN_BUFFER = 64 << 20
MAX_BUFFER = 256 << 20
RUNS = 5


def cache_key(cpu: CpuInfo) -> str:
    return f"{cpu.brand}|{cpu.physical_cores}c/{cpu.logical_cores}t"


def cache_path(ensure: bool = False) -> Path:
    return paths.cache_dir(ensure=ensure) / CACHE_FILE


def cached_bandwidth(cpu: CpuInfo) -> float | None:
    entry = _read_cache().get(cache_key(cpu))
    if isinstance(entry, dict):
        value = entry.get("gbps")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


def store_bandwidth(cpu: CpuInfo, gbps: float) -> None:
    data = _read_cache()
    data[cache_key(cpu)] = {
        "gbps": round(gbps, 2),
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    path = cache_path(ensure=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        log.warning("cannot cache the CPU bandwidth in %s: %s", path, exc)


def cpu_bandwidth_gbps(measure_if_missing: bool, *, cpu: CpuInfo | None = None) -> float | None:
    """This machine's CPU memory bandwidth in GB/s: cached, or measured when allowed."""
    if cpu is None:
        from desktop.core.hardware.cpu import probe_cpu

        cpu = probe_cpu()
    cached = cached_bandwidth(cpu)
    if cached is not None or not measure_if_missing:
        return cached
    try:
        measured = measure_copy_bandwidth(
            threads=cpu.physical_cores, l3_bytes=cpu.l3_bytes or cpu.l2_bytes
        )
    except (MemoryError, OSError) as exc:
        log.warning("cannot measure the CPU memory bandwidth: %s", exc)
        return None
    store_bandwidth(cpu, measured)
    return round(measured, 2)


def buffer_bytes(l3_bytes: int | None) -> int:
    """Four times the last-level cache, within [64 MiB, 256 MiB]."""
    wanted = 4 * (l3_bytes or 0)
    return max(MIN_BUFFER, min(MAX_BUFFER, wanted))


def measure_copy_bandwidth(
    *, threads: int = 1, l3_bytes: int | None = None, runs: int = RUNS, size: int | None = None
) -> float:
    """Best-of-``runs`` copy bandwidth in GB/s over a buffer much larger than the L3 cache."""
    import numpy as np

    total = size if size is not None else buffer_bytes(l3_bytes)
    half = total // 2 // 4096 * 4096
    buffer = np.empty(2 * half, dtype=np.uint8)
    buffer.fill(1)  # touch every page before timing
    src, dst = buffer[:half], buffer[half:]
    workers = max(1, min(threads, 64))
    step = -(-half // workers)
    bounds = [(i, min(i + step, half)) for i in range(0, half, step)]

    def copy(span: tuple[int, int]) -> None:
        np.copyto(dst[span[0] : span[1]], src[span[0] : span[1]])

    best = float("inf")
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in range(max(1, runs)):
            start = time.perf_counter()
            if workers == 1:
                copy((0, half))
            else:
                list(pool.map(copy, bounds))
            best = min(best, time.perf_counter() - start)
    return 2 * half / best / 1e9


def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
