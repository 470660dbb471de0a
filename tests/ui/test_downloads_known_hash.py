"""The Downloads page says when a finished file was checked only against the hash the server
publishes, not one known before (issue 22)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.download import DownloadState, request_for_files
from desktop.ui.main_window import MainWindow
from desktop.ui.models.downloads_model import DownloadsModel
from desktop.ui.pages.downloads import DownloadsPage
from desktop.ui.state import AppState
from tests.fixtures.hubserver import FakeHub, blob

REPO = "someone/Tiny-GGUF"
FILE = "tiny-unknown.Q4_K_M.gguf"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as server:
        yield server


def test_a_file_checked_only_against_the_servers_hash_says_so(
    qtbot: QtBot, state: AppState, window: MainWindow, hub: FakeHub
) -> None:
    hub.add_file(REPO, FILE, blob(60_000, seed=3))
    state.update_settings(hub_endpoint=hub.url)
    window.show_page("downloads")
    page = window.pages["downloads"]
    assert isinstance(page, DownloadsPage)
    job = state.downloads.submit(request_for_files(REPO, [FILE]))
    state.downloads_changed.emit()
    qtbot.waitUntil(lambda: page.model.state_of(0) is DownloadState.DONE, timeout=30_000)
    assert job.result(0).files[0].known_hash is False
    details = str(page.model.index(0, DownloadsModel.COL_DETAILS).data())
    assert details == f"{FILE} · not verified against a known hash"
