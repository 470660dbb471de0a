"""The workspace: settings and catalog read once, the profile to estimate for, the Hub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.errors import HardwareError
from desktop.core.hardware import THIS_MACHINE, list_profiles
from desktop.core.settings import Settings
from desktop.core.workspace import Workspace


def test_a_bundled_profile_by_name() -> None:
    ws = Workspace.load(with_demos=False)
    name = list_profiles()[0]
    profile, title = ws.profile(name)
    assert profile.source == "what-if"
    assert title == profile.name != ""


def test_no_profile_means_this_machine_with_the_models_disk(scout_home: Path) -> None:
    ws = Workspace.load(Settings(models_dir=str(scout_home / "my-models")), with_demos=False)
    profile, title = ws.profile()
    assert title == THIS_MACHINE
    assert profile.source == "probe"
    assert profile.memory.total_bytes > 0
    assert profile.disks[0].path  # the disk holding the models folder


def test_an_unknown_profile_is_one_sentence() -> None:
    with pytest.raises(HardwareError, match="No hardware profile named"):
        Workspace.load(with_demos=False).profile("no-such-machine")


def test_settings_are_read_once_and_passed_down(scout_home: Path) -> None:
    config = scout_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(
        json.dumps({"models_dir": str(scout_home / "elsewhere"), "hub_endpoint": "hf-mirror"})
    )
    ws = Workspace.load(with_demos=False)
    (config / "settings.json").unlink()  # later reads of the file would see defaults
    assert ws.models_dir == scout_home / "elsewhere"
    assert ws.resolver.models_dir == scout_home / "elsewhere"
    assert ws.hub().endpoint == "https://hf-mirror.com"


def test_a_catalog_with_no_usable_layer_raises(
    scout_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.core import paths
    from desktop.core.errors import CatalogError

    broken = scout_home / "catalog.json"
    broken.write_text("{}")
    monkeypatch.setattr(paths, "bundled_catalog_path", lambda: broken)
    with pytest.raises(CatalogError):
        Workspace.load(with_demos=False)
