"""Intel GPUs from sysfs (i915 and xe drivers).

An integrated GPU (always PCI ``0000:00:02.0`` on Intel platforms) shares system memory, so it is
reported as unified memory sized like the RAM. A discrete Arc card's VRAM is read from
``device/tileN/physical_vram_size_bytes`` (xe) or ``cardN/lmem_total_bytes`` (Intel's DKMS i915);
mainline i915 publishes no VRAM size, which is left at 0 with a note rather than guessed.
"""

from __future__ import annotations

from pathlib import Path

from desktop.core.hardware._drm import VENDOR_INTEL, drm_cards
from desktop.core.hardware._fs import pci_device_name, pcie_link, read_int
from desktop.core.hardware.profile import GpuInfo, MemoryInfo

INTEGRATED_SLOT = "0000:00:02.0"


def probe_intel(
    root: Path = Path("/"),
    memory: MemoryInfo | None = None,
    *,
    notes: list[str] | None = None,
) -> list[GpuInfo]:
    notes = notes if notes is not None else []
    gpus: list[GpuInfo] = []
    for card in drm_cards(root, VENDOR_INTEL):
        if card.driver not in ("i915", "xe"):
            continue
        name = pci_device_name(root, card.vendor, card.device) or f"GPU 0x{card.device:04x}"
        if not name.startswith("Intel"):
            name = f"Intel {name}"
        vram = _vram_total(card.card_dir, card.device_dir)
        integrated = vram is None and card.slot == INTEGRATED_SLOT
        if integrated:
            total = memory.total_bytes if memory else 0
            free = memory.available_bytes if memory else 0
            generation = width = None
        else:
            total = free = vram or 0
            generation, width = pcie_link(card.device_dir)
            if vram is None:
                notes.append(f"{name}: the {card.driver} driver does not publish the VRAM size.")
        gpus.append(
            GpuInfo(
                vendor="intel",
                name=name,
                index=len(gpus),
                memory_total_bytes=total,
                memory_free_bytes=free,
                memory_used_bytes=max(0, total - free) if integrated else 0,
                unified_memory=integrated,
                pcie_generation=generation,
                pcie_width=width,
                pci_bus_id=card.slot,
            )
        )
    return gpus


def _vram_total(card_dir: Path, device_dir: Path) -> int | None:
    tiles = 0
    for tile in range(16):  # multi-tile parts split VRAM across tiles; stop at the first gap
        size = read_int(device_dir / f"tile{tile}" / "physical_vram_size_bytes")
        if size is None:
            break
        tiles += size
    if tiles:
        return tiles
    return read_int(card_dir / "lmem_total_bytes")
