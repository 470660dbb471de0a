"""User settings: one typed definition, stored as JSON in the config dir, validated when read.

A broken or partly wrong settings file never stops the app: unknown keys are ignored, wrong
values fall back to their defaults and are reported through :func:`load_settings_checked`.
Writes are atomic (temp file + rename), so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.errors import SettingsError
from desktop.core.hub import endpoint_problem

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"


@dataclass(frozen=True)
class Settings:
    """Every user-visible setting, with its default."""

    models_dir: str = ""  # empty: paths.models_dir()
    hub_endpoint: str = ""  # empty: HF_ENDPOINT from the environment, else huggingface.co
    extra_model_dirs: tuple[str, ...] = ()  # folders the user added to the library scan
    language: str = ""  # empty: the system locale; "en" or "zh_CN"
    default_ctx: int = 4096
    kv_cache_type: str = "f16"
    max_parallel_downloads: int = 2
    scan_known_apps: bool = True  # look in the HF cache, LM Studio, Ollama, GPT4All folders
    default_threads: int = 0  # 0: the physical core count
    theme: str = "system"  # "system", "light" or "dark" (the window)
    # How often the Playground redraws while a model answers: "auto" (~30 Hz; ~5 Hz when
    # llama.cpp's threads take every CPU, where drawing slows the decode), "smooth" (~30 Hz),
    # "light" (~5 Hz).
    live_redraw: str = "auto"
    remote_timeout_s: int = 60  # how long a remote engine may stay silent before it is given up
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def resolved_models_dir(self) -> Path:
        """The models folder: the setting, else :func:`desktop.core.paths.models_dir` (the one
        default: ``LLM_SCOUT_MODELS_DIR``, else ``<data dir>/models``)."""
        return Path(self.models_dir).expanduser() if self.models_dir else paths.models_dir()


_VALIDATORS: dict[str, Any] = {
    "models_dir": lambda v: isinstance(v, str),
    "hub_endpoint": lambda v: isinstance(v, str) and (v == "" or endpoint_problem(v) is None),
    "extra_model_dirs": lambda v: (
        isinstance(v, list | tuple) and all(isinstance(x, str) for x in v)
    ),
    "language": lambda v: v in ("", "en", "zh_CN"),
    "default_ctx": lambda v: isinstance(v, int) and not isinstance(v, bool) and 128 <= v <= 1 << 20,
    "kv_cache_type": lambda v: v in ("f16", "q8_0", "q4_0"),
    "max_parallel_downloads": lambda v: (
        isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 8
    ),
    "scan_known_apps": lambda v: isinstance(v, bool),
    "default_threads": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1024,
    "theme": lambda v: v in ("system", "light", "dark"),
    "live_redraw": lambda v: v in ("auto", "smooth", "light"),
    "remote_timeout_s": lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 3600,
}


def settings_path() -> Path:
    return paths.config_dir() / SETTINGS_FILE


def load_settings_checked(path: Path | None = None) -> tuple[Settings, list[str]]:
    """Read the settings; return them with one sentence per value that was ignored."""
    path = path or settings_path()
    problems: list[str] = []
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings(), problems
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"The settings file {path} could not be read ({exc}); defaults are used.")
        return Settings(), problems
    if not isinstance(raw, dict):
        problems.append(f"The settings file {path} is not a JSON object; defaults are used.")
        return Settings(), problems
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    known = {f.name for f in fields(Settings)} - {"extra"}
    for key, value in raw.items():
        if key not in known:
            extra[key] = value
            continue
        if not _VALIDATORS[key](value):
            problems.append(
                f"The setting {key!r} has an invalid value {value!r}; the default is used."
            )
            continue
        values[key] = tuple(value) if isinstance(value, list) else value
    return Settings(**values, extra=extra), problems


def load_settings(path: Path | None = None) -> Settings:
    settings, problems = load_settings_checked(path)
    for problem in problems:
        log.warning("%s", problem)
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Validate and write the settings atomically."""
    data = asdict(settings)
    extra = data.pop("extra")
    for key, value in data.items():
        if not _VALIDATORS[key](value):
            raise SettingsError(f"The setting {key!r} cannot be {value!r}.")
    data = {**extra, **{k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}}
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SettingsError(f"Cannot save the settings to {path}: {exc.strerror}.") from exc


def update_settings(**changes: Any) -> Settings:
    """Load, change some values, validate and save; returns the new settings."""
    settings = replace(load_settings(), **changes)
    save_settings(settings)
    return settings
