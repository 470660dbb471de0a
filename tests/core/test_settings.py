from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core import settings as settings_mod
from desktop.core.errors import SettingsError
from desktop.core.hub import Hub
from desktop.core.settings import Settings, load_settings_checked, save_settings, update_settings


def test_defaults_when_no_file(scout_home: Path) -> None:
    loaded, problems = load_settings_checked()
    assert loaded == Settings()
    assert problems == []
    assert loaded.resolved_models_dir() == scout_home / "data" / "models"


def test_round_trip_keeps_values_and_unknown_keys(scout_home: Path) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"future_key": [1, 2], "default_ctx": 8192}), encoding="utf-8")
    changed = update_settings(hub_endpoint="hf-mirror", extra_model_dirs=("/data/models",))
    assert changed.default_ctx == 8192
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["future_key"] == [1, 2]
    assert data["extra_model_dirs"] == ["/data/models"]
    reloaded, problems = load_settings_checked()
    assert problems == []
    assert reloaded == changed
    assert Hub.from_settings(reloaded.hub_endpoint).endpoint == "https://hf-mirror.com"


def test_bad_values_fall_back_to_defaults_with_a_sentence(scout_home: Path) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {"default_ctx": "big", "language": "fr", "kv_cache_type": "q8_0", "live_redraw": "60"}
        )
    )
    loaded, problems = load_settings_checked()
    assert loaded.default_ctx == Settings().default_ctx
    assert loaded.language == ""
    assert loaded.kv_cache_type == "q8_0"
    assert loaded.live_redraw == "auto"
    assert len(problems) == 3
    assert any("default_ctx" in p for p in problems)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", "\xff\xfe"])
def test_broken_file_gives_defaults(scout_home: Path, content: str) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(content.encode("latin-1"))
    loaded, problems = load_settings_checked()
    assert loaded == Settings()
    assert len(problems) == 1
    assert str(path) in problems[0]


def test_save_refuses_invalid_values_and_leaves_old_file(scout_home: Path) -> None:
    save_settings(Settings(default_ctx=2048))
    with pytest.raises(SettingsError, match="max_parallel_downloads"):
        save_settings(Settings(max_parallel_downloads=0))
    assert load_settings_checked()[0].default_ctx == 2048
    assert not list(settings_mod.settings_path().parent.glob("*.tmp"))


def test_endpoint_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9999/")
    assert Hub.from_settings(Settings().hub_endpoint).endpoint == "http://127.0.0.1:9999"
    setting = Settings(hub_endpoint="https://example.org").hub_endpoint
    assert Hub.from_settings(setting).endpoint == "https://example.org"


def test_an_endpoint_that_is_no_url_is_refused(scout_home: Path) -> None:
    with pytest.raises(SettingsError, match="hub_endpoint"):
        save_settings(Settings(hub_endpoint="huggingface.co"))
