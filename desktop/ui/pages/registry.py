"""Which pages the window shows, in sidebar order, and how each is made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QWidget

from desktop.ui.pages.compare import ComparePage
from desktop.ui.pages.downloads import DownloadsPage
from desktop.ui.pages.hardware import HardwarePage
from desktop.ui.pages.history import HistoryPage
from desktop.ui.pages.library import LibraryPage
from desktop.ui.pages.models import ModelsPage
from desktop.ui.pages.playground import PlaygroundPage
from desktop.ui.pages.settings import SettingsPage
from desktop.ui.state import AppState


@dataclass(frozen=True)
class PageSpec:
    key: str
    icon: str  # a name in resources/icons/
    factory: Callable[[AppState], QWidget]


def page_specs() -> list[PageSpec]:
    return [
        PageSpec("hardware", "hardware", HardwarePage),
        PageSpec("models", "models", ModelsPage),
        PageSpec("downloads", "downloads", DownloadsPage),
        PageSpec("library", "library", LibraryPage),
        PageSpec("playground", "playground", PlaygroundPage),
        PageSpec("compare", "compare", ComparePage),
        PageSpec("history", "history", HistoryPage),
        PageSpec("settings", "settings", SettingsPage),
    ]
