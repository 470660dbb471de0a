"""What the window tells once: a damaged history or library set aside (and the library rebuilt
by a scan), a settings file that could not be read; the Settings page never writes over a file
it could not read without a copy kept; an unexpected error in a background task is logged.

Real files in this test's own home, damaged for real; the real window offscreen."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import get_args

from PySide6.QtWidgets import QComboBox, QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core import paths
from desktop.core import settings as settings_mod
from desktop.core.history import History
from desktop.core.library import Library, ScanRoot
from desktop.core.settings import Settings
from desktop.core.workspace import Workspace
from desktop.ui.app import Controller
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.library import LibraryPage
from desktop.ui.pages.settings import SettingsPage
from desktop.ui.state import AppState
from desktop.ui.workers import run_task, wait_for_tasks
from tests.core.history.test_store import make_report
from tests.fixtures.damage import flip_middle
from tests.fixtures.library_files import write_tiny
from tests.ui.test_history_page import history_page

WAIT_MS = 60_000


def notice_boxes(window: MainWindow) -> list[QMessageBox]:
    return [b for b in window.findChildren(QMessageBox, "noticeBox") if b.isVisible()]


def open_window(qtbot: QtBot, state: AppState) -> MainWindow:
    main = MainWindow(state)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    qtbot.waitExposed(main)
    return main


def test_a_damaged_library_is_told_once_and_rebuilt_by_a_scan(
    qtbot: QtBot, state: AppState, tmp_path: Path
) -> None:
    db = paths.library_db_path(ensure=True)
    folder = tmp_path / "models"
    state.update_settings(extra_model_dirs=(str(folder),))  # a folder only a full scan sees
    with Library(db) as library:
        for i in range(20):
            write_tiny(folder / f"m{i}.gguf", name=f"Model {i}")
        library.scan([ScanRoot("folder", folder)])
    flip_middle(db)
    window = open_window(qtbot, state)  # the Library page scans at start: the damage is found
    page = window.pages["library"]
    assert isinstance(page, LibraryPage)
    qtbot.waitUntil(lambda: len(notice_boxes(window)) == 1, timeout=WAIT_MS)
    kept = list(db.parent.glob("library.db.broken-*"))
    assert len(kept) == 1
    text = notice_boxes(window)[0].text()
    assert str(kept[0]) in text
    assert "rebuilt by a scan" in text
    # ...and rebuilt: the scan of every folder it started finds the 20 models again.
    qtbot.waitUntil(lambda: not page.is_busy and page.model.rowCount() >= 22, timeout=WAIT_MS)
    assert notice_boxes(window)[0].text() == text  # told once
    window.close()


def test_a_damaged_history_is_told_once_with_what_was_recovered(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x" * 4096)
    with History.open() as history:
        for i in range(40):
            history.record_run(make_report(f"answer {i} " * 40), model=model, prompt=f"q{i}")
    db = paths.history_db_path()
    flip_middle(db)
    page = history_page(qtbot, window)
    qtbot.waitUntil(lambda: len(notice_boxes(window)) == 1, timeout=WAIT_MS)
    text = notice_boxes(window)[0].text()
    kept = list(db.parent.glob("history.db.broken-*"))
    assert len(kept) == 1
    assert str(kept[0]) in text
    assert "rows that could still be read" in text
    assert 0 < page.model.rowCount() <= 40  # what could be read is listed again
    page.refresh()
    qtbot.wait(200)
    assert len(notice_boxes(window)) == 1
    assert notice_boxes(window)[0].text() == text


def test_a_settings_file_that_cannot_be_read_is_told_in_the_window_at_start(
    qtbot: QtBot, qapp: object
) -> None:
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    nested = b"[" * 100_000 + b"]" * 100_000  # a RecursionError on every start, before
    path.write_bytes(nested)
    controller = Controller(qapp, Workspace.load())  # type: ignore[arg-type]
    qtbot.addWidget(controller.window)
    try:
        controller.start()
        qtbot.waitUntil(lambda: len(notice_boxes(controller.window)) == 1, timeout=WAIT_MS)
        text = notice_boxes(controller.window)[0].text()
        kept = list(path.parent.glob("settings.json.broken-*"))
        assert len(kept) == 1
        assert kept[0].read_bytes() == nested
        assert str(kept[0]) in text
        assert "defaults are used" in text
        assert controller.state.settings == Settings()
        qtbot.waitUntil(
            lambda: controller.state.engine is not None or bool(controller.state.engine_error),
            timeout=WAIT_MS,
        )
    finally:
        controller.window.close()
        controller.shutdown()
    assert wait_for_tasks(30_000)


def test_the_first_change_on_the_settings_page_keeps_a_file_it_could_not_read(
    qtbot: QtBot, window: MainWindow
) -> None:
    page = window.pages["settings"]
    assert isinstance(page, SettingsPage)
    path = settings_mod.settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = b'{"theme": "dark", "default_ctx": ' + b"9" * 5000 + b"}"  # too long to convert
    path.write_bytes(broken)  # written by someone else while the window runs
    window.show_page("settings")
    combo = page.theme
    combo.setCurrentIndex(combo.findData("light"))
    combo.activated.emit(combo.currentIndex())
    assert page.message.text() == "Saved."
    kept = list(path.parent.glob("settings.json.broken-*"))
    assert [k.read_bytes() for k in kept] == [broken]
    assert json.loads(path.read_text())["theme"] == "light"


def test_the_settings_choices_are_exactly_what_each_setting_allows(
    window: MainWindow,
) -> None:
    page = window.pages["settings"]
    assert isinstance(page, SettingsPage)
    for combo, allowed in (
        (page.language, settings_mod.Language),
        (page.theme, settings_mod.Theme),
        (page.live_redraw, settings_mod.LiveRedraw),
    ):
        assert isinstance(combo, QComboBox)
        offered = [combo.itemData(i) for i in range(combo.count())]
        assert sorted(offered) == sorted(get_args(allowed))


def test_an_unexpected_error_in_a_background_task_is_logged_with_its_traceback(
    qtbot: QtBot, caplog: object
) -> None:
    failures: list[Exception] = []

    def work(control: object) -> None:
        sqlite3.connect(":memory:").execute("SELECT * FROM nowhere")

    with caplog.at_level(logging.ERROR):  # type: ignore[attr-defined]
        run_task(work, on_failed=failures.append)
        qtbot.waitUntil(lambda: bool(failures), timeout=WAIT_MS)
    records = [r for r in caplog.records if r.exc_info]  # type: ignore[attr-defined]
    assert len(records) == 1
    assert "no such table: nowhere" in str(records[0].exc_info[1])
