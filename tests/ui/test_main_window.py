"""The main window as a user drives it: pages, the profile selector, drops, persistence."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core.hardware import list_profiles, load_profile
from desktop.ui.main_window import MainWindow
from desktop.ui.state import AppState


def click_page(qtbot: QtBot, window: MainWindow, key: str) -> None:
    for row in range(window.sidebar.count()):
        item = window.sidebar.item(row)
        if item.data(Qt.ItemDataRole.UserRole) == key:
            rect = window.sidebar.visualItemRect(item)
            qtbot.mouseClick(
                window.sidebar.viewport(), Qt.MouseButton.LeftButton, pos=rect.center()
            )
            return
    raise AssertionError(key)


def test_every_page_is_reached_from_the_sidebar(qtbot: QtBot, window: MainWindow) -> None:
    keys = [
        window.sidebar.item(r).data(Qt.ItemDataRole.UserRole) for r in range(window.sidebar.count())
    ]
    assert keys == [
        "hardware", "models", "downloads", "library",
        "playground", "compare", "history", "settings",
    ]  # fmt: skip
    for key in keys:
        click_page(qtbot, window, key)
        assert window.current_page == key
        assert window.stack.currentWidget() is window.pages[key]


def test_a_what_if_profile_is_followed_and_marked(qtbot: QtBot, window: MainWindow) -> None:
    name = next(n for n in list_profiles() if "4090" in n)
    combo = window.profile_combo
    index = combo.findData(f"what-if:{name}")
    assert index > 0
    with qtbot.waitSignal(window.state.profile_changed):
        combo.setCurrentIndex(index)
        combo.activated.emit(index)
    profile = load_profile(name)
    assert window.state.profile == profile
    assert "4090" in window.profile_summary.text()
    assert window.status_profile.text().startswith("What if")
    assert "background" in window._toolbar.styleSheet()  # tinted: not this machine
    card = window.pages["hardware"].findChild(QFrame, "cpuCard")
    assert card is not None
    assert any(profile.cpu.brand in label.text() for label in card.findChildren(QLabel))


def test_a_saved_profile_opens_by_the_drop_path_and_a_bad_one_is_one_sentence(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    saved = tmp_path / "edge-box.json"
    profile = load_profile(list_profiles()[0])
    data = profile.to_dict()
    data["name"] = "Edge box"
    saved.write_text(json.dumps(data))
    window.open_files([saved])
    assert window.state.profile_key == f"file:{saved}"
    assert window.state.profile_name == "Edge box"
    broken = tmp_path / "broken.json"
    broken.write_text('{"cpu": "nope"}')
    assert not window.open_profile(broken)
    boxes = [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    ]
    assert len(boxes) == 1
    assert "Traceback" not in boxes[0].text()
    assert boxes[0].text().endswith(".")
    boxes[0].close()
    assert window.state.profile_name == "Edge box"  # the app keeps the working profile


def test_page_profile_and_geometry_persist_across_a_restart(
    qtbot: QtBot, state: AppState, window: MainWindow
) -> None:
    click_page(qtbot, window, "library")
    name = list_profiles()[1]
    state.select_profile(f"what-if:{name}")
    window.resize(1100, 700)
    window.close()
    again = MainWindow(state)
    qtbot.addWidget(again)
    assert again.current_page == "library"
    assert again.state.profile_key == f"what-if:{name}"
    assert again.size().width() == 1100


def test_a_model_given_on_the_command_line_opens_in_the_playground(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    window.open_from_command_line([smollm2_path])
    assert window.current_page == "playground"
    page = window.pages["playground"]
    qtbot.waitUntil(lambda: getattr(page, "model", None) is not None, timeout=30_000)
    assert page.model.path == smollm2_path  # type: ignore[attr-defined]


def test_a_page_is_made_when_first_shown_and_the_working_ones_after_the_window_is_up(
    qtbot: QtBot, window: MainWindow
) -> None:
    # The window starts on the Models page; pages nobody looked at are not made (nor their
    # modules' costs paid), except those that work while hidden, made right after the show.
    assert window.current_page == "models"
    assert window.pages.is_made("models")
    qtbot.waitUntil(
        lambda: window.pages.is_made("library") and window.pages.is_made("downloads"),
        timeout=10_000,
    )
    for key in ("compare", "playground", "history", "settings", "hardware"):
        assert not window.pages.is_made(key), key
    assert set(window.pages.made()) == {"models", "library", "downloads"}
    click_page(qtbot, window, "compare")
    assert window.pages.is_made("compare")
    assert window.stack.currentWidget() is window.pages.made()["compare"]
    assert window.stack.count() == len(window.pages)  # the placeholder gave its place


def test_the_history_stored_elsewhere_reaches_a_history_page_made_later(
    qtbot: QtBot, window: MainWindow
) -> None:
    # Pages made in either order are connected to each other.
    compare = window.pages["compare"]
    history = window.pages["history"]
    with qtbot.waitSignal(history.listing_changed, timeout=30_000):  # type: ignore[attr-defined]
        click_page(qtbot, window, "history")
    with qtbot.waitSignal(history.listing_changed, timeout=30_000):  # type: ignore[attr-defined]
        compare.history_changed.emit()  # type: ignore[attr-defined]
    playground = window.pages["playground"]
    with qtbot.waitSignal(history.listing_changed, timeout=30_000):  # type: ignore[attr-defined]
        playground.history_changed.emit()  # type: ignore[attr-defined]
