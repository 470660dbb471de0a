"""Where LLM Scout keeps its files.

Platform directories come from platformdirs. ``LLM_SCOUT_HOME`` puts everything under one folder
(tests, portable installs); ``LLM_SCOUT_MODELS_DIR`` moves just the models. Nothing here creates
a directory until a caller asks for it with ``ensure=True``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "llm-scout"


def _home() -> Path | None:
    value = os.environ.get("LLM_SCOUT_HOME")
    return Path(value).expanduser() if value else None


def _dir(kind: str, ensure: bool) -> Path:
    home = _home()
    if home is not None:
        path = home / kind
    else:
        import platformdirs

        getter = {
            "config": platformdirs.user_config_dir,
            "data": platformdirs.user_data_dir,
            "cache": platformdirs.user_cache_dir,
            "log": platformdirs.user_log_dir,
        }[kind]
        path = Path(getter(APP_NAME, appauthor=False))
    if ensure:
        path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir(ensure: bool = False) -> Path:
    return _dir("config", ensure)


def data_dir(ensure: bool = False) -> Path:
    return _dir("data", ensure)


def cache_dir(ensure: bool = False) -> Path:
    return _dir("cache", ensure)


def log_dir(ensure: bool = False) -> Path:
    return _dir("log", ensure)


def models_dir(ensure: bool = False) -> Path:
    """Default folder for downloaded models (a setting may point elsewhere)."""
    value = os.environ.get("LLM_SCOUT_MODELS_DIR")
    path = Path(value).expanduser() if value else data_dir() / "models"
    if ensure:
        path.mkdir(parents=True, exist_ok=True)
    return path


def library_db_path(ensure: bool = False) -> Path:
    """The library database (models found on this machine)."""
    return data_dir(ensure) / "library.db"


def history_db_path(ensure: bool = False) -> Path:
    """The history database (every run, comparison and vote)."""
    return data_dir(ensure) / "history.db"


def resources_dir() -> Path:
    """The ``resources/`` folder: beside the package in a checkout, in the bundle when frozen."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


def bundled_catalog_path() -> Path:
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root) / "models_catalog.json"
    return Path(__file__).resolve().parents[2] / "models_catalog.json"


def user_catalog_path() -> Path:
    return config_dir() / "user_catalog.json"


def calibration_path(ensure: bool = False) -> Path:
    """This machine's runs, predicted vs measured, that calibrate the fit estimates."""
    return data_dir(ensure) / "calibration.json"
