"""NVIDIA Jetson: detected from ``/etc/nv_tegra_release`` or the device tree, memory from meminfo.

NVML does not work on Jetson (Tegra has no discrete GPU and no NVML), so the GPU is described
from the board: its name from ``/proc/device-tree/model``, its memory as the unified system RAM
(``MemTotal`` / ``MemAvailable``), and its bandwidth from NVIDIA's module data sheets below.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from desktop.core.hardware._fs import read_str, read_text, under
from desktop.core.hardware.memory import meminfo
from desktop.core.hardware.profile import GpuInfo

_GIB = 1 << 30


@dataclass(frozen=True)
class JetsonModule:
    key: str  # lower-case words that must all appear in the model string
    bandwidth_gbps: float
    compute_capability: str | None


# Memory bandwidth from NVIDIA's Jetson module data sheets / tech specs
# (https://developer.nvidia.com/embedded/jetson-modules,
#  https://www.nvidia.com/en-us/autonomous-machines/embedded-systems/jetson-orin/).
# Most specific first. Orin Nano "Super" (JetPack 6.1+ MAXN SUPER) raises the memory clock.
JETSON_MODULES = (
    JetsonModule("thor", 273.0, None),
    JetsonModule("agx orin", 204.8, "8.7"),
    JetsonModule("orin nx", 102.4, "8.7"),
    JetsonModule("orin nano super", 102.0, "8.7"),
    JetsonModule("orin nano", 68.0, "8.7"),
    JetsonModule("xavier nx", 59.7, "7.2"),
    JetsonModule("xavier", 136.5, "7.2"),
    JetsonModule("tx2 nx", 51.2, "6.2"),
    JetsonModule("tx2", 59.7, "6.2"),
    JetsonModule("tx1", 25.6, "5.3"),
    JetsonModule("nano", 25.6, "5.3"),
)
# Orin Nano 4GB has half the memory bus of the 8GB module (64 vs 128 bit).
_HALF_BUS_BELOW = 6 * _GIB
# When only the SoC is known: device-tree "compatible" -> compute capability.
_SOC_CAPABILITY = {"tegra264": None, "tegra234": "8.7", "tegra194": "7.2", "tegra186": "6.2"}
_SOC_CAPABILITY["tegra210"] = "5.3"


@dataclass(frozen=True)
class JetsonBoard:
    model: str
    l4t_release: str | None
    soc: str | None


def detect_jetson(root: Path = Path("/")) -> JetsonBoard | None:
    release_text = read_text(under(root, "/etc/nv_tegra_release"))
    model = read_str(under(root, "/proc/device-tree/model")) or ""
    compatible = (read_text(under(root, "/proc/device-tree/compatible")) or "").split("\x00")
    soc = next((c.split(",", 1)[1] for c in compatible if c.startswith("nvidia,tegra")), None)
    if release_text is None and "jetson" not in model.lower() and soc is None:
        return None
    return JetsonBoard(
        model=model or "NVIDIA Jetson",
        l4t_release=_l4t_release(release_text),
        soc=soc,
    )


def _l4t_release(text: str | None) -> str | None:
    """``# R36 (release), REVISION: 3.0, GCID: ...`` -> ``R36.3.0``."""
    if not text:
        return None
    match = re.search(r"R(\d+)\s*\(release\),\s*REVISION:\s*([\d.]+)", text)
    return f"R{match.group(1)}.{match.group(2)}" if match else None


def module_for(model: str) -> JetsonModule | None:
    words = model.lower()
    for module in JETSON_MODULES:
        if all(part in words for part in module.key.split()):
            return module
    return None


def probe_jetson(root: Path = Path("/"), *, notes: list[str] | None = None) -> list[GpuInfo]:
    notes = notes if notes is not None else []
    board = detect_jetson(root)
    if board is None:
        return []
    memory = meminfo(root)
    total = memory.get("MemTotal", 0)
    free = memory.get("MemAvailable", memory.get("MemFree", 0))
    module = module_for(board.model)
    bandwidth = module.bandwidth_gbps if module else None
    if module and module.key.startswith("orin nano") and 0 < total < _HALF_BUS_BELOW:
        bandwidth = module.bandwidth_gbps / 2
    capability = module.compute_capability if module else _SOC_CAPABILITY.get(board.soc or "")
    if module is None:
        notes.append(f"Unknown Jetson module {board.model!r}: memory bandwidth not known.")
    return [
        GpuInfo(
            vendor="nvidia",
            name=board.model,
            index=0,
            memory_total_bytes=total,
            memory_free_bytes=free,
            memory_used_bytes=max(0, total - free),
            bandwidth_gbps=bandwidth,
            compute_capability=capability,
            unified_memory=True,
            driver_version=f"L4T {board.l4t_release}" if board.l4t_release else None,
            cuda_version=_cuda_version(root),
        )
    ]


def _cuda_version(root: Path) -> str | None:
    text = read_text(under(root, "/usr/local/cuda/version.json"))
    if text:
        try:
            version = json.loads(text)["cuda"]["version"]  # "12.2.140"
        except (ValueError, KeyError, TypeError):
            version = None
        if isinstance(version, str):
            return ".".join(version.split(".")[:2])
    legacy = read_str(under(root, "/usr/local/cuda/version.txt"))  # "CUDA Version 10.2.89"
    match = re.search(r"(\d+\.\d+)", legacy or "")
    return match.group(1) if match else None
