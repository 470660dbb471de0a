"""The Library page as a user drives it: the demos on a first start, imports (the drop path),
broken files as error rows, folders, rescans with progress, reveal and remove.

Real widgets offscreen over the real core: a real SQLite library in this test's home, real GGUF
files written with the ``gguf`` package, the real demo models. Tests that rescan point ``HOME``
at an empty folder, so the scan of other apps' folders (LM Studio, Ollama, GPT4All) is theirs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QObject, QPointF, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.errors import GGUFError
from desktop.core.gguf import read_gguf_split
from desktop.ui.errors import title_for
from desktop.ui.main_window import MainWindow
from desktop.ui.models.library_model import ROW_ROLE, LibraryModel, LibraryRow
from desktop.ui.pages.library import LibraryPage
from desktop.ui.state import AppState
from tests.fixtures.library_files import write_tiny

WAIT_MS = 30_000


@pytest.fixture
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home for the scan of other apps' folders; ask for it after ``window`` (the
    demo models are found through the real home when the state is made)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return home


def library_page(qtbot: QtBot, window: MainWindow) -> LibraryPage:
    window.show_page("library")
    page = window.pages["library"]
    assert isinstance(page, LibraryPage)
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)  # the start-up scan
    return page


def rows(page: LibraryPage) -> list[LibraryRow]:
    return page.model.rows()


def row_for(page: LibraryPage, path: Path) -> LibraryRow | None:
    return next((r for r in rows(page) if r.path == path), None)


def snap(window: MainWindow, name: str) -> None:
    """Save a picture of the window when LLM_SCOUT_SCREENSHOTS names a folder."""
    folder = os.environ.get("LLM_SCOUT_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        window.grab().save(str(Path(folder) / f"{name}.png"))


def remove_box(page: LibraryPage) -> QMessageBox:
    """The question Remove asks (the visible one: an answered box is deleted later)."""
    boxes = [b for b in page.findChildren(QMessageBox, "removeBox") if b.isVisible()]
    assert len(boxes) == 1
    return boxes[0]


def message_boxes() -> list[QMessageBox]:
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    ] + [
        w
        for top in QApplication.topLevelWidgets()
        for w in top.findChildren(QMessageBox)
        if w.isVisible()
    ]


def test_the_demo_models_are_listed_on_a_first_start(
    qtbot: QtBot, state: AppState, window: MainWindow
) -> None:
    demos = {d.path for d in state.workspace.demos}
    assert len(demos) == 2, "the demo models are installed (and Gemma assembled) by make"
    page = window.pages["library"]
    assert isinstance(page, LibraryPage)
    qtbot.waitUntil(lambda: demos <= {r.path for r in rows(page)}, timeout=WAIT_MS)
    for row in rows(page):
        if row.path in demos:
            assert row.entry is not None
            assert row.source == "demo"
            assert page.model.text(row, LibraryModel.COL_SOURCE) == "Demo model"
            assert page.model.text(row, LibraryModel.COL_ARCH) in ("llama", "gemma3")
            assert page.model.text(row, LibraryModel.COL_SIZE).endswith("MiB")
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)
    window.show_page("library")
    assert not page.busy.isVisible()
    assert page.table.isVisible()
    assert "model" in page.summary.text()
    snap(window, "library-first-start")


def test_import_by_the_drop_path_adds_a_row_and_tells_the_others(
    qtbot: QtBot, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    model = write_tiny(tmp_path / "elsewhere" / "tiny-test.Q4_K_M.gguf", name="Tiny Test")
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        window.open_files([model])  # what a drop on the window does
    assert window.current_page == "library"
    row = row_for(page, model)
    assert row is not None
    assert row.entry is not None
    assert row.source == "imported"
    assert page.model.text(row, LibraryModel.COL_SOURCE) == "Imported"
    assert page.model.text(row, LibraryModel.COL_NAME).startswith("Tiny Test")
    assert page.selected_row() == row  # the new row is selected and described
    assert str(model) in page.details.text()
    assert "Imported 1 file" in page.message.text()
    assert model.is_file()  # referenced in place, not moved


def test_files_dropped_on_the_page_are_imported_and_others_refused(
    qtbot: QtBot, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    model = write_tiny(tmp_path / "dropped.gguf")
    text = tmp_path / "notes.txt"
    text.write_text("not a model")
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(text))])
    point = QPointF(page.rect().center())
    refused = QDragEnterEvent(
        point, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    page.dragEnterEvent(refused)
    assert not refused.isAccepted()
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(model)), QUrl.fromLocalFile(str(text))])
    enter = QDragEnterEvent(
        point, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    page.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        point, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        page.dropEvent(drop)
    assert row_for(page, model) is not None
    assert row_for(page, text) is None  # only .gguf files are taken from a drop


def test_a_broken_gguf_is_an_error_row_with_the_readers_sentence(
    qtbot: QtBot, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(os.urandom(4096))
    with pytest.raises(GGUFError) as reader:
        read_gguf_split(broken)
    page.import_files([broken])
    qtbot.waitUntil(lambda: row_for(page, broken) is not None, timeout=WAIT_MS)
    row = row_for(page, broken)
    assert row is not None
    assert row.problem is not None
    text = page.model.text(row, LibraryModel.COL_ARCH)
    assert text == f"{title_for(reader.value.kind)}: {reader.value.message}"
    assert "Traceback" not in text
    # The row does not read as a success: its source says the import failed.
    assert page.model.text(row, LibraryModel.COL_SOURCE) == "Not imported"
    assert reader.value.message in page.message.text()
    assert not message_boxes()  # shown in place, no dialog
    window.show_page("library")
    snap(window, "library-broken-file")

    # A text file named .gguf: its first bytes as a person reads them, no Python literal.
    notes = tmp_path / "notes.gguf"
    notes.write_text("# LLama notes\nhello\n")
    page.import_files([notes])
    qtbot.waitUntil(lambda: row_for(page, notes) is not None, timeout=WAIT_MS)
    notes_row = row_for(page, notes)
    assert notes_row is not None
    said = page.model.text(notes_row, LibraryModel.COL_ARCH)
    assert 'starts with "# LL" instead of GGUF' in said
    assert "b'" not in said
    assert "b'" not in page.message.text()
    assert page.message.text().startswith("notes.gguf was not imported: ")
    assert page.model.text(notes_row, LibraryModel.COL_SOURCE) == "Not imported"

    # The page keeps working: a good file imports next to it.
    good = write_tiny(tmp_path / "good.gguf")
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        page.import_files([good])
    assert row_for(page, good) is not None
    assert row_for(page, broken) is not None

    # Removing the error row asks, then forgets it (the file was never ours to delete).
    assert page.select_path(broken)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    box = remove_box(page)
    assert box.findChild(QPushButton, "deleteButton") is None
    forget = box.findChild(QPushButton, "forgetButton")
    assert forget is not None
    qtbot.mouseClick(forget, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row_for(page, broken) is None, timeout=WAIT_MS)
    assert broken.is_file()


def test_add_folder_then_rescan_shows_progress_and_finds_a_new_file(
    qtbot: QtBot, state: AppState, window: MainWindow, own_home: Path, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    folder = tmp_path / "my models"
    first = write_tiny(folder / "first.gguf", name="First")
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        assert page.add_folder(folder)
    assert str(folder) in state.settings.extra_model_dirs
    assert row_for(page, first) is not None
    assert page.model.text(row_for(page, first), LibraryModel.COL_SOURCE) == "Your folder"  # type: ignore[arg-type]

    second = write_tiny(folder / "deeper" / "second.gguf", name="Second")
    values: list[int] = []
    labels: list[str] = []
    page.progress.valueChanged.connect(values.append)
    shown: list[bool] = []

    def watch() -> None:
        shown.append(page.busy.isVisible())
        labels.append(page.busy_label.text())

    page.progress.valueChanged.connect(lambda _v: watch())
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        qtbot.mouseClick(page.rescan_button, Qt.MouseButton.LeftButton)
        assert page.busy.isVisible()
        assert page.cancel_button.isEnabled()
        assert not page.rescan_button.isEnabled()  # one rescan at a time
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)
    assert row_for(page, second) is not None
    assert values
    assert any(shown)
    assert any(label.startswith("Scanning folder") for label in labels)
    assert "Scan done" in page.message.text()
    assert not page.busy.isVisible()
    assert page.rescan_button.isEnabled()


def test_a_scan_can_be_cancelled_and_the_page_goes_on(
    qtbot: QtBot, state: AppState, window: MainWindow, own_home: Path, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    folder = tmp_path / "many"
    files = [write_tiny(folder / f"m{index:03d}.gguf") for index in range(150)]
    state.update_settings(extra_model_dirs=(str(folder),))  # the page scans a new folder
    assert page.is_busy
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert page.busy_label.text() == "Stopping…"
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)
    assert page.message.text().startswith("Scan stopped")
    assert len([r for r in rows(page) if r.path in set(files)]) < len(files)

    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        qtbot.mouseClick(page.rescan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)
    assert {r.path for r in rows(page)} >= set(files)


def test_remove_of_a_file_the_app_did_not_download_only_forgets_it(
    qtbot: QtBot, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    model = write_tiny(tmp_path / "keep-me.gguf")
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        page.import_files([model])
    assert page.select_path(model)
    assert page.remove_button.isEnabled()

    # Cancel first: nothing happens.
    box = page.ask_remove(page.selected_row())  # type: ignore[arg-type]
    assert "stays on the disk" in box.informativeText()
    box.reject()
    assert row_for(page, model) is not None

    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    box = remove_box(page)
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        qtbot.mouseClick(box.findChild(QPushButton, "forgetButton"), Qt.MouseButton.LeftButton)
    assert row_for(page, model) is None
    assert model.is_file()
    assert "stays on disk" in page.message.text()


class _UrlCatcher(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_reveal_opens_the_folder_of_the_file(
    qtbot: QtBot, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    model = write_tiny(tmp_path / "shown" / "here.gguf")
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        page.import_files([model])
    catcher = _UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")  # type: ignore[arg-type]
    try:
        assert page.select_path(model)
        qtbot.mouseClick(page.reveal_button, Qt.MouseButton.LeftButton)
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [Path(u.toLocalFile()) for u in catcher.urls] == [model.parent]


def test_the_table_sorts_by_numbers_not_by_text(
    qtbot: QtBot, state: AppState, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    files = [
        write_tiny(tmp_path / "s" / "small.gguf", n_vocab=32),
        write_tiny(tmp_path / "s" / "large.gguf", n_vocab=20_000),
    ]
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        page.import_files(files)
    page.table.sortByColumn(LibraryModel.COL_SIZE, Qt.SortOrder.DescendingOrder)
    top = page.proxy.index(0, 0).data(int(Qt.ItemDataRole.UserRole) + 1)
    sizes = [r.entry.size_bytes for r in rows(page) if r.entry is not None]
    assert top.entry.size_bytes == max(sizes)


def test_a_listing_that_shows_the_same_costs_no_reset_and_a_change_does(qtbot: QtBot) -> None:
    """A rescan that found nothing new (only the scan times moved) leaves the table alone; a
    changed row is shown changed."""
    from desktop.core.library import LibraryProblem

    def rows(message: str, seen: float) -> list[LibraryRow]:
        return [
            LibraryRow(
                Path(f"/models/m{k}.gguf"),
                problem=LibraryProblem(
                    Path(f"/models/m{k}.gguf"), "folder", f"{message} {k}", "gguf.truncated",
                    first_seen=seen, last_seen=seen,
                ),
            )
            for k in range(3)
        ]  # fmt: skip

    model = LibraryModel()
    model.set_rows(rows("cut short", 1.0))
    assert model.rowCount() == 3
    with qtbot.assertNotEmitted(model.modelReset, wait=0):
        model.set_rows(rows("cut short", 2.0))
    problem = model.rows()[0].problem
    assert problem is not None
    assert problem.last_seen == 2.0  # the rows are the new ones
    with qtbot.waitSignal(model.modelReset, timeout=1000):
        model.set_rows(rows("damaged", 3.0))
    shown = model.index(1, LibraryModel.COL_ARCH).data()
    assert "damaged 1" in shown
    assert model.index(1, 0).data(ROW_ROLE).problem.last_seen == 3.0


def test_a_folder_added_on_the_library_page_is_listed_in_settings_at_once(
    qtbot: QtBot,
    state: AppState,
    window: MainWindow,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Settings → Library folders follows the settings, whichever page changed them."""
    from desktop.ui.pages.settings import SettingsPage

    settings_page = window.show_page("settings")
    assert isinstance(settings_page, SettingsPage)
    listed = settings_page.folders
    assert listed.count() == 0
    page = library_page(qtbot, window)
    folder = tmp_path / "more-models"
    folder.mkdir()
    write_tiny(folder / "tiny.gguf")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    qtbot.mouseClick(page.add_folder_button, Qt.MouseButton.LeftButton)
    assert state.settings.extra_model_dirs == (str(folder),)
    assert [listed.item(i).text() for i in range(listed.count())] == [str(folder)]
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)

    # Removed in Settings: gone from the list and the settings, once.
    window.show_page("settings")
    listed.setCurrentRow(0)
    remove = settings_page.findChild(QPushButton, "removeLibraryFolderButton")
    assert remove is not None
    qtbot.mouseClick(remove, Qt.MouseButton.LeftButton)
    assert not state.settings.extra_model_dirs
    assert listed.count() == 0
    # Added in Settings: listed once (not once by the page and once by the signal).
    add = settings_page.findChild(QPushButton, "addLibraryFolderButton")
    assert add is not None
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert [listed.item(i).text() for i in range(listed.count())] == [str(folder)]
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)
