"""AMD GPUs: through amdsmi (ROCm's Python bindings) when importable, else from sysfs.

The sysfs path reads ``/sys/class/drm/cardN/device`` for vendor 0x1002 with the amdgpu driver:
``mem_info_vram_total`` / ``mem_info_vram_used`` (bytes), ``product_name`` where the board has
one, else the name from the system's ``pci.ids``. sysfs has no bus width, so the bandwidth is
only known through amdsmi (``vram_max_bandwidth``, GB/s, reported by ROCm 6.x and later).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from desktop.core.hardware._drm import VENDOR_AMD, drm_cards
from desktop.core.hardware._fs import pci_device_name, pcie_link, read_int, read_str
from desktop.core.hardware.profile import GpuInfo

log = logging.getLogger(__name__)

_MIB = 1 << 20


def probe_amd(
    root: Path = Path("/"),
    *,
    amdsmi: Any = None,
    use_amdsmi: bool = True,
    notes: list[str] | None = None,
) -> list[GpuInfo]:
    """AMD GPUs; amdsmi first (when ``use_amdsmi``), sysfs when it is missing or finds none."""
    notes = notes if notes is not None else []
    if use_amdsmi:
        if amdsmi is None:
            try:
                import amdsmi as amdsmi_module

                amdsmi = amdsmi_module
            except ImportError:
                amdsmi = None
        if amdsmi is not None:
            gpus = _probe_amdsmi(amdsmi, notes)
            if gpus:
                return gpus
    return probe_amd_sysfs(root)


def _probe_amdsmi(amdsmi: Any, notes: list[str]) -> list[GpuInfo]:
    error: type[BaseException] = getattr(amdsmi, "AmdSmiException", Exception)
    try:
        amdsmi.amdsmi_init()
    except (error, OSError) as exc:
        log.debug("amdsmi did not start: %s", exc)
        return []

    def call(name: str, *args: Any) -> Any:
        fn = getattr(amdsmi, name, None)
        if fn is None:
            return None
        try:
            return fn(*args)
        except error as exc:
            log.debug("amdsmi %s failed: %s", name, exc)
            return None

    try:
        gpus: list[GpuInfo] = []
        for index, handle in enumerate(call("amdsmi_get_processor_handles") or []):
            asic = call("amdsmi_get_gpu_asic_info", handle) or {}
            usage = call("amdsmi_get_gpu_vram_usage", handle) or {}
            vram = call("amdsmi_get_gpu_vram_info", handle) or {}
            driver = call("amdsmi_get_gpu_driver_info", handle) or {}
            total = _num(usage.get("vram_total")) * _MIB
            used = _num(usage.get("vram_used")) * _MIB
            if not total:
                notes.append(f"AMD GPU {index}: amdsmi gave no VRAM size.")
            bandwidth = _num(vram.get("vram_max_bandwidth"))
            bus_width = _num(vram.get("vram_bit_width"))
            gpus.append(
                GpuInfo(
                    vendor="amd",
                    name=str(asic.get("market_name") or "AMD GPU"),
                    index=index,
                    uuid=_str(call("amdsmi_get_gpu_device_uuid", handle)),
                    memory_total_bytes=total,
                    memory_free_bytes=max(0, total - used),
                    memory_used_bytes=used,
                    bandwidth_gbps=float(bandwidth) if bandwidth else None,
                    driver_version=_str(driver.get("driver_version")),
                    bus_width_bits=bus_width or None,
                    pci_bus_id=_str(call("amdsmi_get_gpu_device_bdf", handle)),
                )
            )
        return gpus
    finally:
        try:
            amdsmi.amdsmi_shut_down()
        except error as exc:
            log.debug("amdsmi_shut_down failed: %s", exc)


def probe_amd_sysfs(root: Path = Path("/")) -> list[GpuInfo]:
    gpus: list[GpuInfo] = []
    for card in drm_cards(root, VENDOR_AMD):
        if card.driver not in (None, "amdgpu"):
            continue
        dev = card.device_dir
        total = read_int(dev / "mem_info_vram_total") or 0
        used = read_int(dev / "mem_info_vram_used") or 0
        name = (
            read_str(dev / "product_name")
            or pci_device_name(root, card.vendor, card.device)
            or f"AMD GPU 0x{card.device:04x}"
        )
        if not name.startswith("AMD"):
            name = f"AMD {name}"
        generation, width = pcie_link(dev)
        gpus.append(
            GpuInfo(
                vendor="amd",
                name=name,
                index=len(gpus),
                uuid=read_str(dev / "unique_id"),
                memory_total_bytes=total,
                memory_free_bytes=max(0, total - used),
                memory_used_bytes=used,
                pcie_generation=generation,
                pcie_width=width,
                pci_bus_id=card.slot,
            )
        )
    return gpus


def _num(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)):
        return int(value)
    try:
        return int(str(value))
    except ValueError:
        return 0  # amdsmi writes "N/A" for unsupported values


def _str(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text if text and text != "N/A" else None
