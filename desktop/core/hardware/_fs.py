"""Small readers for /proc, /sys and /etc that fail soft and can be pointed at a fake tree.

Every probe takes a ``root`` (``Path("/")`` on a real machine, a temporary folder in tests) and
reads ``root / "proc/meminfo"`` instead of ``/proc/meminfo``. A missing or unreadable file is
``None``, never an exception: "not there" is a normal answer for hardware detection.
"""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

# Runs a command and returns its standard output, or None when it cannot run or fails.
Runner = Callable[[Sequence[str]], str | None]

_PCI_SPEED_TO_GEN = {"2.5": 1, "5.0": 2, "5": 2, "8.0": 3, "8": 3, "16.0": 4, "16": 4}
_PCI_SPEED_TO_GEN.update({"32.0": 5, "32": 5, "64.0": 6, "64": 6})


def under(root: Path, absolute: str) -> Path:
    """``under(root, "/proc/meminfo")`` -> ``root/proc/meminfo``."""
    return root / absolute.lstrip("/")


def read_text(path: Path, *, limit: int = 1 << 20) -> str | None:
    """The text of a small file, or None when it is missing or unreadable."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def read_str(path: Path) -> str | None:
    """A one-value sysfs/procfs file: stripped, NUL bytes removed, None when empty."""
    text = read_text(path, limit=4096)
    if text is None:
        return None
    value = text.replace("\x00", " ").strip()
    return value or None


def read_int(path: Path, base: int = 10) -> int | None:
    value = read_str(path)
    if value is None:
        return None
    try:
        return int(value.split()[0], base)
    except ValueError:
        return None


def parse_colon_table(text: str) -> dict[str, str]:
    """``key : value`` lines (cpuinfo, meminfo, sysctl) -> dict; the first value of a key wins."""
    table: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        table.setdefault(key.strip(), value.strip())
    return table


def parse_size(text: str) -> int | None:
    """Cache sizes as sysfs writes them: ``32K``, ``1024K``, ``32M``, ``512`` -> bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, flags=re.IGNORECASE)
    if not match:
        return None
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2).upper()]
    return int(match.group(1)) * scale


def parse_cpu_list(text: str) -> list[int]:
    """``0-3,8,10-11`` -> ``[0, 1, 2, 3, 8, 10, 11]``; garbage gives an empty list."""
    cpus: list[int] = []
    for raw in text.strip().split(","):
        part = raw.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            lo = int(first)
            hi = int(last) if last else lo
        except ValueError:
            return []
        cpus.extend(range(lo, hi + 1))
    return cpus


def pcie_link(device_dir: Path) -> tuple[int | None, int | None]:
    """Maximum PCIe generation and width of a PCI device from ``max_link_speed/width``."""
    speed = read_str(device_dir / "max_link_speed")  # "16.0 GT/s PCIe"
    width = read_int(device_dir / "max_link_width")
    generation = None
    if speed:
        generation = _PCI_SPEED_TO_GEN.get(speed.split()[0])
    return generation, width


def run_command(argv: Sequence[str], timeout: float = 3.0) -> str | None:
    """The default :data:`Runner`: stdout of a successful command, None otherwise."""
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("cannot run %s: %s", argv[0], exc)
        return None
    if done.returncode != 0 and not done.stdout:
        log.debug("%s exited with %s: %s", argv[0], done.returncode, done.stderr.strip())
        return None
    return done.stdout


def pci_device_name(root: Path, vendor: int, device: int) -> str | None:
    """Marketing name from the system's ``pci.ids`` (hwdata), when it is installed."""
    for candidate in ("/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids"):
        text = read_text(under(root, candidate), limit=8 << 20)
        if text is None:
            continue
        return _lookup_pci_ids(text, vendor, device)
    return None


def _lookup_pci_ids(text: str, vendor: int, device: int) -> str | None:
    vendor_key = f"{vendor:04x}"
    device_key = f"\t{device:04x}"
    text = "\n" + text
    start = text.find(f"\n{vendor_key}  ")
    if start < 0:
        return None
    for line in text[start + 1 :].splitlines()[1:]:
        if line and not line.startswith(("\t", "#")):
            break  # next vendor
        if line.startswith(device_key + "  "):
            name = line[len(device_key) + 2 :].strip()
            # "Navi 31 [Radeon RX 7900 XT/7900 XTX]" -> the bracketed marketing name
            bracket = re.search(r"\[([^\]]+)\]", name)
            return bracket.group(1) if bracket else name
    return None
