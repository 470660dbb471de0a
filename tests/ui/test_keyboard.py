"""The keyboard and the models folder (issue 23, item 18), in the real window offscreen: page
shortcuts, Ctrl+F to the current page's search field, Ctrl+Q, Library → Open models folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton
from pytestqt.qtbot import QtBot

from desktop.ui.main_window import MainWindow


def press(qtbot: QtBot, window: MainWindow, key: Qt.Key) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)


def test_ctrl_and_a_number_shows_that_page_of_the_sidebar(qtbot: QtBot, window: MainWindow) -> None:
    keys = [window.sidebar.item(r).data(Qt.ItemDataRole.UserRole) for r in range(8)]
    assert keys[:2] == ["hardware", "models"]
    for number in (7, 2, 1):
        press(qtbot, window, getattr(Qt.Key, f"Key_{number}"))
        assert window.current_page == keys[number - 1]
    assert "Ctrl+7" in window.sidebar.item(6).toolTip()


def test_ctrl_f_goes_to_the_search_field_of_the_table_shown(
    qtbot: QtBot, window: MainWindow
) -> None:
    for key, name in (("models", "searchEdit"), ("history", "historySearch")):
        page = window.show_page(key)
        field = page.findChild(QLineEdit, name)
        assert field is not None
        qtbot.waitUntil(field.isVisible)
        window.sidebar.setFocus()
        field.setText("qwen")
        press(qtbot, window, Qt.Key.Key_F)
        qtbot.waitUntil(field.hasFocus)
        assert field.selectedText() == "qwen"  # ready to type over
        field.clear()


def test_ctrl_q_quits(qtbot: QtBot, window: MainWindow) -> None:
    assert window.isVisible()
    press(qtbot, window, Qt.Key.Key_Q)
    qtbot.waitUntil(lambda: not window.isVisible())


def test_the_library_opens_the_models_folder(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    # The file manager is the desktop's: the call that would start it is the lowest fake.
    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    page = window.show_page("library")
    button = page.findChild(QPushButton, "modelsFolderButton")
    assert button is not None
    qtbot.waitUntil(button.isVisible)
    folder = window.state.workspace.models_dir
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert [Path(u.toLocalFile()) for u in opened] == [folder]
    assert folder.is_dir()
