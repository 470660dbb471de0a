"""Importing many bad files in the window (issue 22): the page says how many, by reason, in one
short line instead of every file's sentence; each file is an error row whose sentence shows
when it is selected."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.ui.main_window import MainWindow
from tests.fixtures.gguf_bombs import tensor_infos
from tests.fixtures.library_files import write_tiny
from tests.ui.test_library_page import WAIT_MS, library_page, row_for


def test_forty_refused_files_are_summed_up_and_listed_in_the_table(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    page = library_page(qtbot, window)
    broken = []
    whole = write_tiny(tmp_path / "whole.gguf").read_bytes()
    for i in range(30):  # cut short in the middle of the header
        path = tmp_path / f"cut-{i:02d}.gguf"
        path.write_bytes(whole[: 200 + i])
        broken.append(path)
    for i in range(10):  # a valid header whose tensors overlap: llama.cpp refuses them
        broken.append(tensor_infos(tmp_path / f"overlap-{i:02d}.gguf", 3))
    page.import_files(broken)
    qtbot.waitUntil(lambda: all(row_for(page, p) is not None for p in broken), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "40" in page.message.text(), timeout=WAIT_MS)
    message = page.message.text()
    assert "40 files were not imported" in message
    assert "30 ×" in message
    assert "10 ×" in message
    assert len(message) < 300  # one line, not forty sentences
    assert "cut-" not in message
    row = row_for(page, broken[-1])
    assert row is not None
    assert row.problem is not None
    assert "overlaps" in row.problem.message
    assert page.select_path(broken[-1])
    assert "overlaps" in page.details.text()
