"""What-if hardware profiles: "would this model run on a Jetson Orin Nano / an RTX 4090 / ...?"

The bundled profiles live in ``resources/hardware_profiles/<name>.json`` in the
:meth:`HardwareProfile.to_dict` format, with ``source: "what-if"`` and a ``sources`` list that
cites the spec sheets their numbers come from. A saved profile (``llm-scout hw --save FILE``)
loads the same way from its path.
"""

from __future__ import annotations

from pathlib import Path

from desktop.core import paths
from desktop.core.errors import HardwareError
from desktop.core.hardware.profile import HardwareProfile

PROFILE_SUFFIX = ".json"


def profiles_dir() -> Path:
    return paths.resources_dir() / "hardware_profiles"


def list_profiles() -> list[str]:
    """Names of the bundled what-if profiles, sorted."""
    folder = profiles_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob(f"*{PROFILE_SUFFIX}") if p.is_file())


def load_profile(name_or_path: str) -> HardwareProfile:
    """A bundled profile by name (``rtx-4090-24gb``) or any profile file by path."""
    text = name_or_path.strip()
    if not text:
        raise HardwareError("No hardware profile name or file was given.")
    names = list_profiles()
    key = text.lower().removesuffix(PROFILE_SUFFIX)
    if key in names and "/" not in text and "\\" not in text:
        return HardwareProfile.load(profiles_dir() / f"{key}{PROFILE_SUFFIX}")
    path = Path(text).expanduser()
    if path.is_file():
        return HardwareProfile.load(path)
    if path.exists():
        raise HardwareError(f"The hardware profile {path} is not a file.")
    known = ", ".join(names) if names else "none installed"
    raise HardwareError(
        f"No hardware profile named {text!r} and no such file (known profiles: {known})."
    )
