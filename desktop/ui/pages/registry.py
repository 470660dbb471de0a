"""Which pages the window shows, in sidebar order, and how each is made.

A page's module is imported when the page is first made (see :class:`LazyPages`), not when the
window starts: the pages and what they bring (pyqtgraph, the Hub's client) cost more to import
than the window itself, and most starts show one page.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from PySide6.QtWidgets import QStackedWidget, QWidget

from desktop.ui.state import AppState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PageSpec:
    key: str
    icon: str  # a name in resources/icons/
    module: str  # under desktop.ui.pages
    cls: str
    # The page does work for the whole app while hidden (the Library's first scan lists the demo
    # models and downloads; the Downloads page puts finished downloads into the library): made
    # right after the window is up rather than when first shown.
    background: bool = False

    def make(self, state: AppState) -> QWidget:
        module = importlib.import_module(f"desktop.ui.pages.{self.module}")
        factory: Callable[[AppState], QWidget] = getattr(module, self.cls)
        return factory(state)


def page_specs() -> list[PageSpec]:
    return [
        PageSpec("hardware", "hardware", "hardware", "HardwarePage"),
        PageSpec("models", "models", "models", "ModelsPage"),
        PageSpec("downloads", "downloads", "downloads", "DownloadsPage", background=True),
        PageSpec("library", "library", "library", "LibraryPage", background=True),
        PageSpec("playground", "playground", "playground", "PlaygroundPage"),
        PageSpec("compare", "compare", "compare", "ComparePage"),
        PageSpec("history", "history", "history", "HistoryPage"),
        PageSpec("settings", "settings", "settings", "SettingsPage"),
    ]


class LazyPages(Mapping[str, QWidget]):
    """The window's pages by key, each made the first time it is asked for.

    The stack holds an empty placeholder for a page not made yet; asking for the page (showing
    it, or ``pages["compare"]``) makes it and puts it in the placeholder's place. ``made()``
    lists only the pages that exist (saving state and shutting down must not make the others).
    ``on_made`` is called with (key, page) once per page, to connect it to the window.
    """

    def __init__(
        self,
        specs: list[PageSpec],
        state: AppState,
        stack: QStackedWidget,
        on_made: Callable[[str, QWidget], None],
    ) -> None:
        self._specs = {spec.key: spec for spec in specs}
        self._order = [spec.key for spec in specs]
        self._state = state
        self._stack = stack
        self._on_made = on_made
        self._made: dict[str, QWidget] = {}
        for key in self._order:
            placeholder = QWidget()
            placeholder.setObjectName(f"placeholder_{key}")
            stack.addWidget(placeholder)

    def __getitem__(self, key: str) -> QWidget:
        page = self._made.get(key)
        if page is not None:
            return page
        spec = self._specs[key]  # KeyError for an unknown page, as a dict would
        index = self._order.index(key)
        page = spec.make(self._state)
        page.setObjectName(f"page_{key}")
        self._made[key] = page
        placeholder = self._stack.widget(index)
        current = self._stack.currentIndex()
        self._stack.insertWidget(index, page)
        if placeholder is not None:
            self._stack.removeWidget(placeholder)
            placeholder.deleteLater()
        if current == index:
            self._stack.setCurrentIndex(index)
        log.debug("page %s made", key)
        self._on_made(key, page)
        return page

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, key: object) -> bool:
        return key in self._specs

    def is_made(self, key: str) -> bool:
        return key in self._made

    def background_keys(self) -> list[str]:
        """The pages that work while hidden and are not made yet."""
        return [k for k in self._order if self._specs[k].background and k not in self._made]

    def made(self) -> dict[str, QWidget]:
        """The pages made so far, in sidebar order."""
        return {key: self._made[key] for key in self._order if key in self._made}
