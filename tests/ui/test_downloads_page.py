"""The Downloads page as a user drives it, over a real fake Hub on 127.0.0.1.

Jobs are submitted the way the Models page does it (``state.downloads.submit`` then
``state.downloads_changed``); the page pulls their progress on its timer. A finished download is
scanned into the library (the Library page shows it) and ``state.library_changed`` fires.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.download import (
    DownloadJob,
    DownloadProgress,
    DownloadState,
    request_for_files,
)
from desktop.ui.errors import title_for
from desktop.ui.main_window import MainWindow
from desktop.ui.models.downloads_model import DownloadsModel
from desktop.ui.pages.downloads import DownloadsPage
from desktop.ui.pages.library import LibraryPage
from desktop.ui.state import AppState
from desktop.ui.widgets.progress_delegate import PERCENT_ROLE
from tests.fixtures.hubserver import FakeHub
from tests.fixtures.library_files import write_tiny

REPO = "someone/Tiny-GGUF"
FILE = "tiny-test.Q4_K_M.gguf"
WAIT_MS = 30_000


@pytest.fixture
def model_bytes(tmp_path: Path) -> bytes:
    """A real GGUF of about 0.5 MiB (a big vocabulary of tiny embeddings)."""
    return write_tiny(tmp_path / "src" / FILE, n_vocab=8192, name="Tiny Test").read_bytes()


def page_of(window: MainWindow) -> DownloadsPage:
    window.show_page("downloads")
    page = window.pages["downloads"]
    assert isinstance(page, DownloadsPage)
    return page


def submit(state: AppState, repo: str = REPO, name: str = FILE) -> DownloadJob:
    """What the Models page does: submit, then tell the others."""
    job = state.downloads.submit(request_for_files(repo, [name]))
    state.downloads_changed.emit()
    return job


def percent(page: DownloadsPage, row: int = 0) -> int | None:
    value = page.model.index(row, DownloadsModel.COL_PROGRESS).data(PERCENT_ROLE)
    return None if value is None else int(value)


def cell(page: DownloadsPage, column: int, row: int = 0) -> str:
    return str(page.model.index(row, column).data() or "")


def snap(window: MainWindow, name: str) -> None:
    """Save a picture of the window when LLM_SCOUT_SCREENSHOTS names a folder."""
    folder = os.environ.get("LLM_SCOUT_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        window.grab().save(str(Path(folder) / f"{name}.png"))


def no_dialogs() -> bool:
    return not [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    ]


def test_an_empty_queue_says_how_to_start_and_where_downloads_come_from(
    qtbot: QtBot, state: AppState, window: MainWindow
) -> None:
    page = page_of(window)
    assert page.stack.currentWidget() is page.empty_hint
    assert "Models page" in page.empty_label.text()
    label = page.empty_label
    assert label.height() >= label.heightForWidth(label.width())  # no line is cut off
    assert page.endpoint_label.text() == "Downloading from https://huggingface.co"
    for button in (page.pause_button, page.resume_button, page.retry_button, page.cancel_button):
        assert not button.isEnabled()
    snap(window, "downloads-empty")
    state.update_settings(hub_endpoint="hf-mirror")
    assert page.endpoint_label.text() == "Downloading from https://hf-mirror.com (mirror)"
    qtbot.mouseClick(page.open_models_button, Qt.MouseButton.LeftButton)
    assert window.current_page == "models"


def test_a_download_fills_pauses_resumes_and_lands_in_the_library(
    qtbot: QtBot, state: AppState, window: MainWindow, hub: FakeHub, model_bytes: bytes
) -> None:
    hub.add_file(REPO, FILE, model_bytes)
    hub.file(REPO, FILE).rate_bps = 160_000  # about 3 s for the whole file
    state.update_settings(hub_endpoint=hub.url)
    page = page_of(window)
    assert page.endpoint_label.text() == f"Downloading from {hub.url} (custom address)"
    seen: list[int] = []
    page.model.dataChanged.connect(lambda *_: seen.append(percent(page) or 0))

    job = submit(state)
    assert page.stack.currentWidget() is page.table
    assert page.model.rowCount() == 1
    assert cell(page, DownloadsModel.COL_MODEL) == REPO
    page.select_row(0)
    qtbot.waitUntil(lambda: (percent(page) or 0) >= 15, timeout=WAIT_MS)
    assert cell(page, DownloadsModel.COL_STATE) == "Downloading"
    assert " of " in cell(page, DownloadsModel.COL_PROGRESS)
    assert cell(page, DownloadsModel.COL_PROGRESS).endswith("%")
    assert cell(page, DownloadsModel.COL_DETAILS) == FILE
    qtbot.waitUntil(lambda: cell(page, DownloadsModel.COL_SPEED).endswith("/s"), timeout=WAIT_MS)
    snap(window, "downloads-running")

    # Pause keeps what arrived; resume continues from there.
    assert page.pause_button.isEnabled()
    assert not page.resume_button.isEnabled()
    qtbot.mouseClick(page.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model.state_of(0) is DownloadState.PAUSED, timeout=WAIT_MS)
    assert cell(page, DownloadsModel.COL_STATE) == "Paused"
    assert page.resume_button.isEnabled()
    assert not page.pause_button.isEnabled()
    paused_at = percent(page) or 0
    assert paused_at > 0
    snap(window, "downloads-paused")

    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        qtbot.mouseClick(page.resume_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: job.state is DownloadState.DONE, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: page.model.state_of(0) is DownloadState.DONE, timeout=WAIT_MS)
    assert percent(page) == 100
    assert cell(page, DownloadsModel.COL_STATE) == "Done"
    increasing = [v for i, v in enumerate(seen) if i == 0 or v > seen[i - 1]]
    assert len(increasing) >= 3, seen  # the bar filled in steps, not at once
    assert max(seen) == 100
    assert not page.timer.isActive()  # nothing moves: no more polling
    # The resume fetched only what was missing.
    ranges = [r.range_start for r in hub.content_gets(REPO, FILE) if r.range_start]
    assert ranges
    assert ranges[-1] >= len(model_bytes) * paused_at // 100 - 65536

    installed = state.workspace.models_dir / REPO / FILE
    assert installed.read_bytes() == model_bytes
    library = window.pages["library"]
    assert isinstance(library, LibraryPage)
    qtbot.waitUntil(lambda: library.model.find(installed) >= 0, timeout=WAIT_MS)
    row = library.model.row(library.model.find(installed))
    assert row is not None
    assert row.source == "downloaded"
    assert row.downloaded
    snap(window, "downloads-done")

    # Removing it from the library deletes the file the app downloaded, and its record.
    window.show_page("library")
    assert library.select_path(installed)
    qtbot.mouseClick(library.remove_button, Qt.MouseButton.LeftButton)
    box = next(b for b in library.findChildren(QMessageBox, "removeBox") if b.isVisible())
    assert box.findChild(QPushButton, "forgetButton") is None
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        qtbot.mouseClick(box.findChild(QPushButton, "deleteButton"), Qt.MouseButton.LeftButton)
    assert not installed.exists()
    assert not list((state.workspace.models_dir / ".downloads").rglob("*.verified.json"))
    assert library.model.find(installed) < 0

    # Clear done takes it off the queue.
    window.show_page("downloads")
    assert page.clear_button.isEnabled()
    qtbot.mouseClick(page.clear_button, Qt.MouseButton.LeftButton)
    assert page.model.rowCount() == 0
    assert page.stack.currentWidget() is page.empty_hint


def test_cancel_stops_the_download_and_takes_it_off_the_list(
    qtbot: QtBot, state: AppState, window: MainWindow, hub: FakeHub, model_bytes: bytes
) -> None:
    hub.add_file(REPO, FILE, model_bytes)
    hub.file(REPO, FILE).rate_bps = 60_000
    state.update_settings(hub_endpoint=hub.url)
    page = page_of(window)
    job = submit(state)
    page.select_row(0)
    qtbot.waitUntil(lambda: (percent(page) or 0) > 0, timeout=WAIT_MS)
    assert page.cancel_button.isEnabled()
    with qtbot.waitSignal(state.downloads_changed, timeout=WAIT_MS):
        qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=WAIT_MS)
    assert job.state is DownloadState.CANCELLED
    assert page.stack.currentWidget() is page.empty_hint
    models_dir = state.workspace.models_dir
    assert not (models_dir / REPO / FILE).exists()
    assert not list(models_dir.rglob("*.part"))  # what arrived was deleted
    # A later look at the manager's jobs does not bring it back.
    state.downloads_changed.emit()
    assert page.model.rowCount() == 0


@pytest.mark.parametrize("replaced_manager", [False, True])
def test_a_gated_repo_is_one_sentence_with_its_title_and_retry_works(
    qtbot: QtBot,
    *,
    state: AppState,
    window: MainWindow,
    hub: FakeHub,
    model_bytes: bytes,
    replaced_manager: bool,
) -> None:
    hub.add_repo(REPO, gated=True, tokens=("hf_accepted",))
    hub.add_file(REPO, FILE, model_bytes)
    state.update_settings(hub_endpoint=hub.url)
    page = page_of(window)
    job = submit(state)
    qtbot.waitUntil(lambda: page.model.state_of(0) is DownloadState.FAILED, timeout=WAIT_MS)
    assert job.error is not None
    assert job.error.kind == "download.gated"
    title = title_for("download.gated")
    assert title == "Licence acceptance or token needed"
    assert cell(page, DownloadsModel.COL_STATE) == "Failed"
    assert cell(page, DownloadsModel.COL_DETAILS) == f"{title}: {job.error.message}"
    # Nothing selected: the latest failure is explained under the table.
    assert page.message_title.text() == title
    assert page.message_title.font().bold()
    assert page.message.text() == job.error.message
    assert "HF_TOKEN" in page.message.text()
    assert "hf auth login" in page.message.text()
    assert "Traceback" not in page.message.text()
    assert page.message.text().endswith(".")
    assert no_dialogs()
    page.select_row(0)
    assert page.retry_button.isEnabled()
    assert page.cancel_button.isEnabled()
    assert not page.resume_button.isEnabled()
    snap(window, "downloads-gated")

    # The licence is accepted; retry resumes the job (or resubmits it after a settings change
    # replaced the manager that ran it).
    hub.add_repo(REPO, gated=False)
    if replaced_manager:
        old = state.downloads
        state.update_settings(hub_endpoint=hub.url + "/")
        assert state.downloads is not old
        assert page.model.rowCount() == 1  # the old manager's job is still listed
    with qtbot.waitSignal(state.library_changed, timeout=WAIT_MS):
        qtbot.mouseClick(page.retry_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model.state_of(0) is DownloadState.DONE, timeout=WAIT_MS)
    assert page.model.rowCount() == 1
    assert (job.state is DownloadState.DONE) is not replaced_manager
    assert page.message.text().startswith(FILE)
    assert not page.message_title.isVisible()
    assert (state.workspace.models_dir / REPO / FILE).is_file()


def test_an_unknown_state_is_shown_by_its_name(qtbot: QtBot, window: MainWindow) -> None:
    model = page_of(window).model
    assert model.state_word("hashing_again") == "Hashing again"
    assert model.state_word(DownloadState.VERIFYING) == "Verifying"


class _Job:
    """A job frozen in one snapshot (VERIFYING is too short to catch on tiny test files)."""

    def __init__(self, progress: DownloadProgress) -> None:
        self.request = request_for_files(REPO, [FILE, "second.gguf"])
        self.progress = progress
        self.state = progress.state
        self.error = None


def test_verifying_shows_the_hashing_progress_and_keeps_the_bar(qtbot: QtBot) -> None:
    progress = DownloadProgress(
        state=DownloadState.VERIFYING,
        repo=REPO,
        file=FILE,
        bytes_done=300 << 20,
        bytes_total=1000 << 20,
        speed_bps=0.0,
        eta_s=None,
        files_done=0,
        files_total=2,
        verify_done=75 << 20,
        verify_total=300 << 20,
    )
    job = _Job(progress)
    model = DownloadsModel()
    model.add_jobs(SimpleNamespace(jobs=(job,)))  # type: ignore[arg-type]
    assert model.index(0, DownloadsModel.COL_STATE).data() == "Verifying"
    assert model.index(0, DownloadsModel.COL_PROGRESS).data(PERCENT_ROLE) == 30
    assert model.index(0, DownloadsModel.COL_DETAILS).data() == (
        f"Checking {FILE}: 75.0 MiB of 300.0 MiB (25%)"
    )
    assert model.index(0, DownloadsModel.COL_SPEED).data() == ""


@pytest.mark.parametrize("kind", ["download.offline", "download.verify_failed"])
def test_other_failures_are_one_sentence_with_their_title(
    qtbot: QtBot,
    *,
    state: AppState,
    window: MainWindow,
    hub: FakeHub,
    model_bytes: bytes,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
) -> None:
    hub.add_file(REPO, FILE, model_bytes)
    if kind == "download.offline":
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    else:
        hub.file(REPO, FILE).wrong_bytes = True  # right size and hash announced, bytes differ
    state.update_settings(hub_endpoint=hub.url)
    page = page_of(window)
    if kind == "download.offline":
        assert page.endpoint_label.text() == (
            "Downloads are unavailable because offline mode is on (HF_HUB_OFFLINE=1)."
        )
    job = submit(state)
    qtbot.waitUntil(lambda: page.model.state_of(0) is DownloadState.FAILED, timeout=WAIT_MS)
    assert job.error is not None
    assert job.error.kind == kind
    assert page.message_title.text() == title_for(kind)
    assert page.message.text() == job.error.message
    assert "Traceback" not in page.message.text()
    assert not (state.workspace.models_dir / REPO / FILE).exists()
    assert no_dialogs()
