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
    assert sorted(p.key for p in problems) == ["default_ctx", "language", "live_redraw"]
    assert all(p.kind == "invalid" for p in problems)
    assert any("default_ctx" in str(p) and '"big"' in str(p) for p in problems)


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


# -- types, version, files that cannot be read -----------------------------------------------

UNREADABLE = {
    "deeply nested": b"[" * 100_000 + b"]" * 100_000,
    "nested in an object": b'{"theme": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "a 5,000-digit integer": b'{"default_ctx": ' + b"7" * 5000 + b"}",
    "invalid JSON": b'{"theme": "dark",',
    "not UTF-8": b'{"theme": "\xff\xfe"}',
    "not an object": b"[1, 2]",
    "empty": b"",
    "too large": b'{"x": "' + b"a" * (2 << 20) + b'"}',
}


@pytest.mark.parametrize("name", list(UNREADABLE))
def test_a_file_that_cannot_be_read_is_moved_aside_once_and_defaults_used(
    scout_home: Path, name: str
) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(UNREADABLE[name])
    loaded, problems = load_settings_checked()
    assert loaded == Settings()
    assert [p.kind for p in problems] == ["unreadable"]
    kept = problems[0].kept
    assert kept is not None
    assert kept.parent == path.parent
    assert kept.name.startswith("settings.json.broken-")
    assert kept.read_bytes() == UNREADABLE[name]  # kept whole, never deleted
    assert not path.exists()
    assert str(kept) in str(problems[0])
    assert "defaults are used" in str(problems[0])
    # told once: the next read finds no file, and the first save keeps the copy
    assert load_settings_checked() == (Settings(), [])
    save_settings(Settings(theme="dark"))
    assert kept.read_bytes() == UNREADABLE[name]
    assert load_settings_checked()[0].theme == "dark"


def test_a_file_that_cannot_be_opened_is_left_where_it_is(scout_home: Path) -> None:
    path = settings_mod.settings_path()
    path.mkdir(parents=True)  # a folder where the file should be
    loaded, problems = load_settings_checked()
    assert loaded == Settings()
    assert [(p.kind, p.kept) for p in problems] == [("unreadable", None)]
    assert path.is_dir()
    with pytest.raises(SettingsError, match="nothing was saved"):
        save_settings(Settings(theme="dark"))
    assert path.is_dir()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("default_ctx", True),  # a bool is no count
        ("default_ctx", 64),  # below its range
        ("default_ctx", 1 << 21),
        ("default_threads", -1),
        ("max_parallel_downloads", 9),
        ("extra_model_dirs", "/models"),  # a string, not a list
        ("extra_model_dirs", ["/models", 3]),
        ("scan_known_apps", "yes"),
        ("kv_cache_type", "q5_1"),
        ("theme", None),
        ("language", "zh"),
        ("hub_endpoint", "huggingface.co"),  # no scheme
        ("models_dir", 3),
    ],
)
def test_each_value_is_checked_against_its_type(scout_home: Path, key: str, value: object) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({key: value, "theme": "dark"} if key != "theme" else {key: value}))
    loaded, problems = load_settings_checked()
    assert getattr(loaded, key) == getattr(Settings(), key)
    assert [(p.kind, p.key) for p in problems] == [("invalid", key)]
    if key != "theme":
        assert loaded.theme == "dark"  # the rest of the file is used


def test_every_field_has_a_type_the_checker_knows() -> None:
    good = Settings(
        models_dir="/m",
        hub_endpoint="hf-mirror",
        extra_model_dirs=("/a",),
        language="zh_CN",
        default_ctx=8192,
        kv_cache_type="q4_0",
        max_parallel_downloads=8,
        scan_known_apps=False,
        default_threads=4,
        theme="light",
        live_redraw="smooth",
    )
    save_settings(good)
    assert load_settings_checked() == (good, [])


def test_the_file_carries_its_version_and_an_older_file_is_migrated(scout_home: Path) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"theme": "dark"}))  # as written before settings_version
    assert load_settings_checked() == (Settings(theme="dark"), [])
    save_settings(Settings(theme="dark"))
    assert json.loads(path.read_text())[settings_mod.VERSION_KEY] == len(settings_mod.MIGRATIONS)

    def rename_theme(data: dict[str, object]) -> dict[str, object]:
        if "look" in data:
            data["theme"] = data.pop("look")
        return data

    path.write_text(json.dumps({settings_mod.VERSION_KEY: 1, "look": "light"}))
    migrations = (*settings_mod.MIGRATIONS, rename_theme)
    loaded, problems = load_settings_checked(migrations=migrations)
    assert (loaded.theme, problems) == ("light", [])
    path.write_text(json.dumps({settings_mod.VERSION_KEY: 2, "look": "light"}))
    assert load_settings_checked(migrations=migrations)[0].theme == "system"  # not run again


def test_a_file_from_a_newer_version_is_used_and_copied_before_it_is_changed(
    scout_home: Path,
) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    text = json.dumps({settings_mod.VERSION_KEY: 99, "theme": "dark", "future": {"a": 1}})
    path.write_text(text)
    loaded, problems = load_settings_checked()
    assert loaded.theme == "dark"
    assert loaded.extra == {"future": {"a": 1}}
    assert [(p.kind, p.detail) for p in problems] == [("newer", "99")]
    assert path.read_text() == text  # reading changes nothing
    save_settings(replace_theme(loaded, "light"))
    kept = list(path.parent.glob("settings.json.broken-*"))
    assert [k.read_text() for k in kept] == [text]
    saved = json.loads(path.read_text())
    assert saved["future"] == {"a": 1}
    assert saved["theme"] == "light"
    assert saved[settings_mod.VERSION_KEY] == len(settings_mod.MIGRATIONS)


def test_a_file_with_an_ignored_value_is_copied_before_the_first_save_only(
    scout_home: Path,
) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True)
    text = json.dumps({"default_ctx": "8k", "theme": "dark"})
    path.write_text(text)
    update_settings(language="en")
    update_settings(language="zh_CN")
    kept = list(path.parent.glob("settings.json.broken-*"))
    assert [k.read_text() for k in kept] == [text]  # the value "8k" is not lost
    assert load_settings_checked() == (Settings(theme="dark", language="zh_CN"), [])


def test_a_file_broken_after_it_was_read_is_copied_before_it_is_replaced(
    scout_home: Path,
) -> None:
    save_settings(Settings(theme="dark"))
    path = settings_mod.settings_path()
    path.write_bytes(UNREADABLE["deeply nested"])  # someone wrote it meanwhile
    save_settings(Settings(theme="light"))
    kept = list(path.parent.glob("settings.json.broken-*"))
    assert [k.read_bytes() for k in kept] == [UNREADABLE["deeply nested"]]
    assert load_settings_checked()[0].theme == "light"


def replace_theme(settings: Settings, theme: str) -> Settings:
    import dataclasses

    return dataclasses.replace(settings, theme=theme)  # type: ignore[arg-type]
