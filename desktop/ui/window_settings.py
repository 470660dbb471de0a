"""Where the window keeps its own state (geometry, page, profile, each page's filters).

Apart from :mod:`desktop.ui.main_window` so that pages can read their state back in their
constructors without importing the window (which imports the pages).
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

from desktop.core import paths


def window_settings() -> QSettings:
    """The window's own state (geometry, page, profile, filters): ``window.ini`` in the config
    folder, so it follows ``LLM_SCOUT_HOME`` like every other file."""
    path = paths.config_dir(ensure=True) / "window.ini"
    return QSettings(str(path), QSettings.Format.IniFormat)
