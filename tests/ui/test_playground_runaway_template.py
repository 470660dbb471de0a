"""The Playground with a model whose own chat template would render for hours (issue 22): Esc
stops the render and the page is ready again, on a real worker."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.ui.main_window import MainWindow
from tests.fixtures.tiny_models import write_tiny_model
from tests.ui.test_playground import load, playground

pytestmark = pytest.mark.e2e

LOOP = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"


def test_escape_stops_a_chat_template_that_would_render_for_hours(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = write_tiny_model(tmp_path / "runaway-template.gguf", chat_template=LOOP)
    page = playground(window)
    load(qtbot, page, path, n_ctx=256)
    page.prompt.setPlainText("Hello")
    assert page.send()
    qtbot.wait(1_500)  # the template is rendering: no first token comes
    assert page.phase == "generating"
    assert page.transcript.answer == ""
    with qtbot.waitSignal(page.answer_finished, timeout=30_000) as finished:
        qtbot.keyClick(page.prompt, Qt.Key.Key_Escape)
    assert finished.args[0].finish_reason == "cancelled"
    assert page.phase == "ready"
