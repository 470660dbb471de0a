"""Memory probe: total and available RAM and swap, capped by a container's memory limit.

Linux reads ``/proc/meminfo`` and the process's cgroup (v1 or v2): inside a container with a
memory limit, ``MemTotal`` shows the host, but a model larger than the limit is killed, so the
limit becomes the total. macOS uses ``sysctl hw.memsize``; elsewhere psutil.
"""

from __future__ import annotations

import logging
import platform
import re
from pathlib import Path

from desktop.core.hardware._fs import parse_colon_table, read_str, read_text, under
from desktop.core.hardware.profile import MemoryInfo

log = logging.getLogger(__name__)

# cgroup v1 writes "no limit" as a huge page-aligned number; anything above this is no limit.
_NO_LIMIT = 1 << 60


def probe_memory(
    root: Path = Path("/"),
    *,
    system: str | None = None,
    sysctl: dict[str, str] | None = None,
) -> MemoryInfo:
    """RAM and swap; ``sysctl`` is the table macOS' probe already read (see cpu.read_sysctl)."""
    system = system or platform.system()
    info: MemoryInfo | None = None
    if system == "Linux":
        info = probe_memory_linux(root)
    elif system == "Darwin" and sysctl:
        info = memory_from_sysctl(sysctl)
    return info if info is not None else _psutil_memory()


def meminfo(root: Path) -> dict[str, int]:
    """``/proc/meminfo`` in bytes (``MemTotal: 24684084 kB`` -> 25276502016)."""
    text = read_text(under(root, "/proc/meminfo"))
    values: dict[str, int] = {}
    for key, raw in parse_colon_table(text or "").items():
        parts = raw.split()
        if not parts or not parts[0].isdigit():
            continue
        scale = 1024 if len(parts) > 1 and parts[1].lower() == "kb" else 1
        values[key] = int(parts[0]) * scale
    return values


def probe_memory_linux(root: Path) -> MemoryInfo | None:
    values = meminfo(root)
    total = values.get("MemTotal")
    if not total:
        return None
    available = values.get("MemAvailable")
    if available is None:  # kernels before 3.14
        available = sum(values.get(k, 0) for k in ("MemFree", "Buffers", "Cached"))
    limit, usage = cgroup_limit(root)
    if limit is not None and limit < total:
        total = limit
        if usage is not None:
            available = min(available, max(0, limit - usage))
        available = min(available, limit)
    else:
        limit = None
    return MemoryInfo(
        total_bytes=total,
        available_bytes=available,
        swap_total_bytes=values.get("SwapTotal", 0),
        swap_free_bytes=values.get("SwapFree", 0),
        limit_bytes=limit,
    )


def cgroup_limit(root: Path) -> tuple[int | None, int | None]:
    """The tightest memory limit over this process's cgroup and its parents, and its usage."""
    text = read_text(under(root, "/proc/self/cgroup")) or ""
    best: tuple[int | None, int | None] = (None, None)
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # cgroup v2 unified hierarchy
            base, limit_file, usage_file = "/sys/fs/cgroup", "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            base = "/sys/fs/cgroup/memory"
            limit_file, usage_file = "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        for folder in _ancestors(under(root, base), path):
            limit = _limit_value(read_str(folder / limit_file))
            if limit is not None and (best[0] is None or limit < best[0]):
                usage = _limit_value(read_str(folder / usage_file))
                best = (limit, usage)
    return best


def _ancestors(base: Path, cgroup_path: str) -> list[Path]:
    """``base/a/b``, ``base/a``, ``base`` (inside a container the path often is not mounted)."""
    parts = [p for p in cgroup_path.strip().split("/") if p and p != ".."]
    folders = [base.joinpath(*parts[:n]) for n in range(len(parts), 0, -1)]
    folders.append(base)
    return [f for f in folders if f.is_dir()]


def _limit_value(text: str | None) -> int | None:
    if text is None or not re.fullmatch(r"\d+", text):
        return None  # "max" or missing
    value = int(text)
    return value if 0 < value < _NO_LIMIT else None


def _psutil_memory() -> MemoryInfo:
    import psutil

    vm = psutil.virtual_memory()
    try:
        swap = psutil.swap_memory()
        swap_total, swap_free = int(swap.total), int(swap.free)
    except (OSError, RuntimeError) as exc:  # some sandboxes hide swap
        log.debug("no swap information: %s", exc)
        swap_total = swap_free = 0
    return MemoryInfo(
        total_bytes=int(vm.total),
        available_bytes=int(vm.available),
        swap_total_bytes=swap_total,
        swap_free_bytes=swap_free,
    )


def memory_from_sysctl(table: dict[str, str]) -> MemoryInfo | None:
    """macOS: ``hw.memsize`` and ``vm.swapusage``; available comes from psutil, capped to total."""
    try:
        total = int(table["hw.memsize"])
    except (KeyError, ValueError):
        return None
    base = _psutil_memory()
    swap_total = swap_free = 0
    usage = table.get("vm.swapusage", "")  # "total = 2048.00M  used = 1024.00M  free = 1024.00M"
    sizes = dict(re.findall(r"(\w+) = ([\d.]+)M", usage))
    if "total" in sizes:
        swap_total = int(float(sizes["total"]) * (1 << 20))
        swap_free = int(float(sizes.get("free", "0")) * (1 << 20))
    return MemoryInfo(
        total_bytes=total,
        available_bytes=min(base.available_bytes, total),
        swap_total_bytes=swap_total,
        swap_free_bytes=swap_free,
    )
