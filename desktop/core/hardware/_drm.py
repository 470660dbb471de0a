"""GPUs listed by the kernel's DRM subsystem (``/sys/class/drm/cardN``), for AMD and Intel."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from desktop.core.hardware._fs import read_int, under

VENDOR_AMD = 0x1002
VENDOR_INTEL = 0x8086
VENDOR_NVIDIA = 0x10DE


@dataclass(frozen=True)
class DrmCard:
    card_dir: Path  # /sys/class/drm/card0
    device_dir: Path  # the PCI device: /sys/devices/pci0000:00/0000:00:02.0
    vendor: int
    device: int
    driver: str | None  # amdgpu, i915, xe, nvidia, ...
    slot: str  # PCI address "0000:00:02.0" (the device folder's name)


def drm_cards(root: Path, vendor: int | None = None) -> list[DrmCard]:
    """``cardN`` entries (not connectors like ``card0-DP-1``), in card number order."""
    base = under(root, "/sys/class/drm")
    found: list[tuple[int, DrmCard]] = []
    for card in base.glob("card*"):
        match = re.fullmatch(r"card(\d+)", card.name)
        if not match:
            continue
        device_dir = (card / "device").resolve()
        card_vendor = read_int(device_dir / "vendor", 16)
        if card_vendor is None or (vendor is not None and card_vendor != vendor):
            continue
        driver_link = device_dir / "driver"
        driver = driver_link.resolve().name if driver_link.exists() else None
        found.append(
            (
                int(match.group(1)),
                DrmCard(
                    card_dir=card,
                    device_dir=device_dir,
                    vendor=card_vendor,
                    device=read_int(device_dir / "device", 16) or 0,
                    driver=driver,
                    slot=device_dir.name,
                ),
            )
        )
    cards: list[DrmCard] = []
    seen: set[Path] = set()
    for _, card_info in sorted(found, key=lambda item: item[0]):
        if card_info.device_dir not in seen:  # one PCI device may own several DRM minors
            seen.add(card_info.device_dir)
            cards.append(card_info)
    return cards
