"""The Settings page as a person uses it: values typed into its fields are saved and read back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.settings import load_settings
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.settings import SettingsPage


def test_the_remote_engine_timeout_is_typed_and_saved(qtbot: QtBot, window: MainWindow) -> None:
    page = window.show_page("settings")
    assert isinstance(page, SettingsPage)
    spin = page.remote_timeout
    assert spin.value() == load_settings().remote_timeout_s == 60
    spin.selectAll()
    qtbot.keyClicks(spin, "17")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    assert page.message.text() == "Saved."
    assert load_settings().remote_timeout_s == 17
    assert window.state.settings.remote_timeout_s == 17
