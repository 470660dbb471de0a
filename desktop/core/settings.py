"""User settings: one typed definition, kept as versioned JSON in the config dir, checked when read.

Each field's type says what it may hold (a ``Literal`` of choices, a range in ``Annotated``); the
file is checked against those types, not against hand-written rules. The file carries
``settings_version``: a file written by an earlier version is brought up to date by
:data:`MIGRATIONS` (as napari does), one written by a newer version is read as far as this
version understands it, and a copy of it is kept before this version first writes over it.

A settings file never stops the app and is never lost. One that cannot be read at all (not JSON,
nested beyond what a parser can follow, a number too long to convert, not an object, too large)
is moved aside to ``settings.json.broken-<time>`` and the defaults are used; a value of the wrong
type falls back to its default. Each of these is reported once as a :class:`SettingsProblem`
(the CLI prints it, the window shows it). Before a save replaces a file holding anything that
was ignored, that file is copied aside. Writes are atomic (temp file + rename), so a crash never
leaves half a file.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from desktop.core import paths
from desktop.core.errors import SettingsError
from desktop.core.hub import endpoint_problem
from desktop.core.kv_cache import CacheType
from desktop.core.storage import keep_aside

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
VERSION_KEY = "settings_version"
MAX_FILE_BYTES = 1 << 20  # a settings file is a few hundred bytes; a larger one is not ours


@dataclass(frozen=True)
class Range:
    """An ``Annotated`` bound: ``low <= value <= high``."""

    low: int
    high: int


@dataclass(frozen=True)
class Endpoint:
    """An ``Annotated`` check: empty, or a Hub address or mirror name."""


Language = Literal["", "en", "zh_CN"]  # empty: the system locale
Theme = Literal["system", "light", "dark"]
# How often the Playground redraws while a model answers: "auto" (~30 Hz; ~5 Hz when
# llama.cpp's threads take every CPU, where drawing slows the decode), "smooth" (~30 Hz),
# "light" (~5 Hz).
LiveRedraw = Literal["auto", "smooth", "light"]


@dataclass(frozen=True)
class Settings:
    """Every user-visible setting, with its default."""

    models_dir: str = ""  # empty: paths.models_dir()
    hub_endpoint: Annotated[str, Endpoint()] = ""  # empty: HF_ENDPOINT, else huggingface.co
    extra_model_dirs: tuple[str, ...] = ()  # folders the user added to the library scan
    language: Language = ""
    default_ctx: Annotated[int, Range(128, 1 << 20)] = 4096
    kv_cache_type: CacheType = "f16"
    max_parallel_downloads: Annotated[int, Range(1, 8)] = 2
    scan_known_apps: bool = True  # look in the HF cache, LM Studio, Ollama, GPT4All folders
    default_threads: Annotated[int, Range(0, 1024)] = 0  # 0: the physical core count
    theme: Theme = "system"
    live_redraw: LiveRedraw = "auto"
    # How long a remote engine may stay silent before it is given up, in seconds.
    remote_timeout_s: Annotated[int, Range(1, 3600)] = 60
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # keys of other versions

    def resolved_models_dir(self) -> Path:
        """The models folder: the setting, else :func:`desktop.core.paths.models_dir` (the one
        default: ``LLM_SCOUT_MODELS_DIR``, else ``<data dir>/models``)."""
        return Path(self.models_dir).expanduser() if self.models_dir else paths.models_dir()


def _v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Files from before ``settings_version`` hold the same keys: nothing to change."""
    return data


#: ``MIGRATIONS[n]`` turns a version-``n`` file's object into version ``n + 1``; the current
#: version is ``len(MIGRATIONS)``. Append one to change a key's name or meaning.
MIGRATIONS: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = (_v0_to_v1,)


@dataclass(frozen=True)
class SettingsProblem:
    """Something in the settings file that was not used, said once.

    ``kind``: ``unreadable`` (the whole file; ``kept`` is where it was moved, None when it could
    not be), ``invalid`` (the value of ``key`` was ignored), ``newer`` (written by a newer
    version: what this one knows is used). ``detail``: the reader's words, or the value.
    """

    kind: Literal["unreadable", "invalid", "newer"]
    path: Path
    detail: str = ""
    key: str = ""
    kept: Path | None = None

    def __str__(self) -> str:
        if self.kind == "invalid":
            return (
                f"The setting {self.key!r} has an invalid value {self.detail}; the default is used."
            )
        if self.kind == "newer":
            return (
                f"The settings file {self.path} was written by a newer LLM Scout (settings "
                f"version {self.detail}); the settings this version knows are used, and the "
                "file is copied aside before it is first changed."
            )
        if self.kept is not None:
            return (
                f"The settings file {self.path} could not be read ({self.detail}); it was moved "
                f"to {self.kept} and the defaults are used."
            )
        return (
            f"The settings file {self.path} could not be read ({self.detail}); the defaults are "
            "used."
        )


class _Unreadable(Exception):
    """The file cannot be used at all; the message says why."""


def settings_path() -> Path:
    return paths.config_dir() / SETTINGS_FILE


def load_settings_checked(
    path: Path | None = None,
    *,
    migrations: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = MIGRATIONS,
) -> tuple[Settings, list[SettingsProblem]]:
    """Read the settings; return them with what was not used. A file that cannot be read at
    all is moved aside (once: the next read finds no file and says nothing)."""
    path = path or settings_path()
    try:
        raw = _read(path)
    except FileNotFoundError:
        return Settings(), []
    except OSError as exc:  # no permission, a folder: not damage, left where it is
        return Settings(), [SettingsProblem("unreadable", path, exc.strerror or str(exc))]
    except _Unreadable as exc:
        try:
            kept: Path | None = keep_aside(path, "broken")
        except OSError as move_error:
            log.warning("cannot move the settings file %s aside: %s", path, move_error)
            kept = None
        return Settings(), [SettingsProblem("unreadable", path, str(exc), kept=kept)]
    return _parse(raw, path, migrations)


def _read(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise _Unreadable(f"larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _Unreadable(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
    except RecursionError as exc:
        raise _Unreadable("nested too deeply") from exc
    except json.JSONDecodeError as exc:
        raise _Unreadable(str(exc)) from exc
    except ValueError as exc:  # Python's limit on the digits of an integer it converts
        raise _Unreadable("a number with more digits than can be read") from exc
    if not isinstance(raw, dict):
        raise _Unreadable(f"a JSON {type(raw).__name__}, not an object")
    return raw


def _parse(
    raw: dict[str, Any],
    path: Path,
    migrations: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...],
) -> tuple[Settings, list[SettingsProblem]]:
    problems: list[SettingsProblem] = []
    version = raw.pop(VERSION_KEY, 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        problems.append(SettingsProblem("invalid", path, _shown(version), key=VERSION_KEY))
        version = 0
    if version > len(migrations):
        problems.append(SettingsProblem("newer", path, str(version)))
    for migration in migrations[version:]:
        raw = migration(raw)
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    hints = _hints()
    for key, value in raw.items():
        hint = hints.get(key)
        if hint is None or key == "extra":
            extra[key] = value
        elif _conforms(value, hint):
            values[key] = tuple(value) if isinstance(value, list) else value
        else:
            problems.append(SettingsProblem("invalid", path, _shown(value), key=key))
    return Settings(**values, extra=extra), problems


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


@cache
def _hints() -> dict[str, Any]:
    """Field name -> its type, ``Annotated`` bounds included (``extra`` left out)."""
    hints = get_type_hints(Settings, include_extras=True)
    return {f.name: hints[f.name] for f in fields(Settings) if f.name != "extra"}


def _conforms(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a field's type (JSON arrays stand for tuples)."""
    origin = get_origin(hint)
    if origin is Annotated:
        base, *bounds = get_args(hint)
        return _conforms(value, base) and all(_within(value, b) for b in bounds)
    if origin is Literal:
        return any(type(value) is type(choice) and value == choice for choice in get_args(hint))
    if origin is tuple:
        item, *rest = get_args(hint)
        return (
            rest == [Ellipsis]
            and isinstance(value, list | tuple)
            and all(_conforms(v, item) for v in value)
        )
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    raise TypeError(f"no rule for the settings type {hint!r}")


def _within(value: Any, bound: Any) -> bool:
    if isinstance(bound, Range):
        return bool(bound.low <= value <= bound.high)
    if isinstance(bound, Endpoint):
        return value == "" or endpoint_problem(value) is None
    raise TypeError(f"no rule for the settings bound {bound!r}")


def load_settings(path: Path | None = None) -> Settings:
    """The settings, problems logged only (a front end tells them once, from the
    :class:`~desktop.core.workspace.Workspace` it read at start)."""
    settings, problems = load_settings_checked(path)
    for problem in problems:
        log.info("%s", problem)
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Check and write the settings atomically; a file there that held anything this version
    did not use (or could not read) is copied aside first."""
    data = asdict(settings)
    extra = data.pop("extra")
    hints = _hints()
    for key, value in data.items():
        if not _conforms(list(value) if isinstance(value, tuple) else value, hints[key]):
            raise SettingsError(f"The setting {key!r} cannot be {value!r}.")
    data = {
        VERSION_KEY: len(MIGRATIONS),
        **{k: v for k, v in extra.items() if k != VERSION_KEY},
        **{k: list(v) if isinstance(v, tuple) else v for k, v in data.items()},
    }
    path = path or settings_path()
    _keep_before_overwrite(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SettingsError(f"Cannot save the settings to {path}: {exc.strerror}.") from exc


def _keep_before_overwrite(path: Path) -> None:
    """Copy ``path`` aside when writing over it would lose something: it cannot be read, or
    holds a value that was ignored, or comes from a newer version."""
    try:
        raw = _read(path)
    except FileNotFoundError:
        return
    except (OSError, _Unreadable) as exc:
        reason = str(exc)
    else:
        problems = _parse(raw, path, MIGRATIONS)[1]
        if not problems:
            return
        reason = str(problems[0])
    try:
        kept = keep_aside(path, "broken", copy=True)
    except OSError as exc:
        raise SettingsError(
            f"The settings file {path} could not be read ({reason}) nor copied aside "
            f"({exc.strerror or exc}); nothing was saved, so that it is not lost.",
        ) from exc
    log.warning("The settings file %s was copied to %s before saving: %s", path, kept, reason)


def update_settings(**changes: Any) -> Settings:
    """Load, change some values, check and save; returns the new settings."""
    settings = replace(load_settings(), **changes)
    save_settings(settings)
    return settings
