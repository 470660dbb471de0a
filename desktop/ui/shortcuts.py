"""The window's keyboard: Ctrl+Q quits, Ctrl+1…Ctrl+8 show the pages in the sidebar's order,
Ctrl+F puts the cursor in the current page's search field (the Models table's, History's).

A page offers its search field by giving a line edit the ``findField`` property (see
:func:`mark_find_field`); Ctrl+F on a page without one does nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QLineEdit, QWidget

FIND_FIELD = "findField"


def mark_find_field(edit: QLineEdit) -> None:
    """``edit`` is where Ctrl+F goes on its page."""
    edit.setProperty(FIND_FIELD, True)


def find_field(page: QWidget | None) -> QLineEdit | None:
    """The visible search field of ``page`` (None when it has none)."""
    if page is None:
        return None
    for edit in page.findChildren(QLineEdit):
        if edit.property(FIND_FIELD) and edit.isVisible():
            return edit
    return None


def focus_find_field(page: QWidget | None) -> bool:
    edit = find_field(page)
    if edit is None:
        return False
    edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
    edit.selectAll()
    return True


def install_shortcuts(
    window: QWidget,
    page_keys: list[str],
    show_page: Callable[[str], object],
    current_page: Callable[[], QWidget | None],
) -> None:
    """Ctrl+Q, Ctrl+1…Ctrl+9 for the first pages, Ctrl+F (see the module docstring)."""
    quit_action = QAction(QCoreApplication.translate("Shortcuts", "Quit"), window)
    quit_action.setObjectName("quitAction")
    quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    quit_action.triggered.connect(window.close)
    window.addAction(quit_action)
    for number, key in enumerate(page_keys[:9], start=1):
        page = QShortcut(QKeySequence(f"Ctrl+{number}"), window)
        page.setObjectName(f"pageShortcut{number}")
        page.activated.connect(lambda k=key: show_page(k))
    find = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), window)
    find.setObjectName("findShortcut")
    find.activated.connect(lambda: focus_find_field(current_page()))
