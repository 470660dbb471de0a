"""A model behind a server in the window: the Playground connects to an OpenAI-compatible
server and chats with it, and Compare runs the same model local and served side by side.

The server is llama-cpp-python's own ``llama_cpp.server`` serving the SmolLM2 demo model on
127.0.0.1 (one per module: ``tests.fixtures.llama_server``); the faults (a server that dies in
the middle of an answer) come from the small scripted server of ``tests.fixtures.sse_server``.
Set ``LLM_SCOUT_SCREENSHOT_DIR`` to write ``remote_playground.png`` there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from desktop.core.fit import CalibrationStore
from desktop.core.history import History
from desktop.ui.main_window import MainWindow
from desktop.ui.models.compare_summary import SummaryModel
from desktop.ui.models.history_model import run_model_label
from desktop.ui.pages.playground import PlaygroundPage
from desktop.ui.window_settings import window_settings
from tests.fixtures.llama_server import LlamaServer
from tests.fixtures.sse_server import FakeOpenAI, closed_port
from tests.ui.test_compare_page import (
    PROMPT,
    SMOLLM2,
    add_model,
    compare_page,
    run,
    screenshot,
    type_prompt,
)
from tests.ui.test_playground import ANSWER_MS, LOAD_MS, ask, playground

pytestmark = [pytest.mark.e2e]


def letters(text: str) -> str:
    return re.sub(r"[^A-Za-z]+", "", text)


def connect(qtbot: QtBot, page: PlaygroundPage, url: str, model: str = "") -> None:
    """Choose the server as the source and fill its URL (and model name, when given)."""
    panel = page.load_panel
    panel.set_source("server")
    panel.set_endpoint(url, model, "")
    assert panel.server_box.isVisible()
    assert not panel.local_box.isVisible()
    assert not panel.local_settings.isVisible()


def error_after_connecting(qtbot: QtBot, page: PlaygroundPage) -> str:
    with qtbot.waitSignal(
        page.state_changed, timeout=LOAD_MS, check_params_cb=lambda s: s == "error"
    ):
        assert page.load(confirm=False)
    banner = page.error_banner
    assert banner.isVisible()
    return banner.sentence.text()


# -- the Playground -----------------------------------------------------------------------------


def test_the_playground_chats_with_a_served_model_and_says_what_it_cannot_know(
    qtbot: QtBot, window: MainWindow, llama_server: LlamaServer
) -> None:
    page = playground(window)
    connect(qtbot, page, llama_server.url)
    panel = page.load_panel
    assert not panel.load_button.isEnabled()  # no model name yet
    panel.list_button.click()
    qtbot.waitUntil(lambda: panel.served_combo.count() > 0, timeout=LOAD_MS)
    assert panel.list_button.isEnabled()
    assert [panel.served_combo.itemText(i) for i in range(panel.served_combo.count())] == [
        llama_server.model
    ]
    assert panel.served_combo.currentText() == llama_server.model
    assert panel.load_button.isEnabled()
    assert panel.load_button.text() == "Connect"
    assert panel.prediction_label.text() == "no prediction: remote"
    with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS) as loaded:
        assert page.load(confirm=False)
    assert loaded.args[0].architecture == "remote"
    assert page.phase == "ready"
    assert page.remote is not None
    assert page.remote.model == llama_server.model
    assert "connected in" in panel.load_label.text()
    assert llama_server.url in page.transcript.toPlainText()  # "Connected to smollm2 at …"

    answer = ask(qtbot, page, "Name three fruits.", max_tokens=32)
    assert answer.text.strip()
    # The transcript renders Markdown (a list loses its numbers): compare the letters.
    assert letters(answer.text) in letters(page.transcript.toPlainText())
    report = answer.report
    assert report.memory_source == "unknown"
    assert report.timing_source == "client"
    assert report.rss_peak_bytes is None  # unknown, never 0
    # Streamed, not one block at the end: the live speed plot got points during the answer.
    assert page.plots.speed_points >= 2
    assert page.plots.memory_points == 0
    assert "memory unknown" in page.plots.memory_message
    assert page.plots.gpu_message == "not measured: remote"
    metrics = page.metrics_panel
    assert metrics.cells["ram"][1].text() == "unknown"
    assert metrics.cells["vram"][1].text() == "unknown"
    assert metrics.cells["speed"][1].text() not in ("", "-")
    sources = metrics.sources.text()
    assert metrics.sources.isVisible()
    assert "no prediction: remote" in sources
    assert "measured on this client" in sources
    assert "memory unknown" in sources
    assert not metrics.calibration_label.isVisible()
    qtbot.waitUntil(lambda: "memory unknown" in panel.measured_label.text(), timeout=10_000)
    assert "(client)" in panel.measured_label.text()

    # Stored in the history with its endpoint and model name (no file, never the key), and it
    # does not calibrate this machine's estimates.
    qtbot.waitUntil(lambda: page.recorder.pending == 0, timeout=10_000)
    with History.open() as history:
        runs = history.runs()
    assert len(runs) == 1
    run = runs[0]
    assert run.model is None
    assert run.settings["remote"] == {"endpoint": llama_server.url, "model": llama_server.model}
    assert run.output == answer.text
    assert run.report is not None
    assert run.report.memory_source == "unknown"
    assert run_model_label(run) == f"{llama_server.model} @ {llama_server.url}"
    assert CalibrationStore().load() == []

    # The endpoint and model are remembered; the key never is (only its variable's name).
    settings = window_settings()
    page.save_state(settings)
    assert settings.value("playground/endpoint") == llama_server.url
    assert settings.value("playground/endpoint_model") == llama_server.model
    assert settings.value("playground/source") == "server"
    keys = " ".join(settings.allKeys()).lower()
    assert "api_key" not in keys

    directory = os.environ.get("LLM_SCOUT_SCREENSHOT_DIR")
    if directory:
        window.resize(1280, 800)
        qtbot.wait(600)
        window.grab().save(str(Path(directory) / "remote_playground.png"))

    panel.unload_button.click()
    assert page.phase == "empty"


def test_a_refused_endpoint_and_a_missing_model_show_the_error_state(
    qtbot: QtBot, window: MainWindow, llama_server: LlamaServer
) -> None:
    page = playground(window)
    connect(qtbot, page, f"http://127.0.0.1:{closed_port()}/v1", "smollm2")
    sentence = error_after_connecting(qtbot, page)
    assert "refused" in sentence
    assert sentence.endswith(".")
    assert "Connecting failed" in page.transcript.toPlainText()
    assert page.error_banner.reload_button.isEnabled()
    assert not page.chat.send_button.isEnabled()

    # Listing the models of a refused server says why in the panel, in one sentence.
    page.load_panel.list_button.click()
    qtbot.waitUntil(lambda: "refused" in page.load_panel.problem_label.text(), timeout=LOAD_MS)

    connect(qtbot, page, llama_server.url, "no-such-model")
    sentence = error_after_connecting(qtbot, page)
    assert "no-such-model" in sentence
    assert llama_server.model in sentence  # it says what the server does serve


def test_a_server_that_dies_mid_answer_keeps_the_partial_answer(
    qtbot: QtBot, window: MainWindow
) -> None:
    with FakeOpenAI(pieces=["The", " sea", " is", " deep", " and", " wide"], after=3) as fake:
        page = playground(window)
        connect(qtbot, page, fake.url, "smol")
        with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS):
            assert page.load(confirm=False)
        fake.fault = "die"
        page.prompt.setPlainText("Tell me about the sea.")
        with qtbot.waitSignal(
            page.state_changed, timeout=ANSWER_MS, check_params_cb=lambda s: s == "error"
        ):
            assert page.send()
        sentence = page.error_banner.sentence.text()
        assert "closed the connection" in sentence
        assert "kept" in sentence
        assert "The sea is" in page.transcript.toPlainText()
        conversation = page.conversation
        assert conversation is not None
        assert conversation.turns[-1].answer == "The sea is"
        assert conversation.turns[-1].finish_reason == "crashed"
        # Reload connects again and the conversation goes on.
        fake.fault = None
        with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS):
            page.error_banner.reload_button.click()
        assert page.phase == "ready"
        assert conversation.turns[0].user == "Tell me about the sea."


# -- Compare ------------------------------------------------------------------------------------


def test_compare_runs_a_local_model_and_the_same_model_served_side_by_side(
    qtbot: QtBot, window: MainWindow, llama_server: LlamaServer
) -> None:
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    dialog = page.add_server_dialog()
    assert dialog is not None
    assert dialog.server
    assert not dialog.ngl_spin.isEnabled()  # the server's business
    assert not dialog.cache_combo.isEnabled()
    box = dialog.findChild(QDialogButtonBox)
    assert box is not None
    ok = box.button(QDialogButtonBox.StandardButton.Ok)
    # A URL that is not http(s) is refused in one sentence; the dialog stays open.
    dialog.url_edit.setText("ftp://127.0.0.1/v1")
    dialog.served_combo.setCurrentText(llama_server.model)
    ok.click()
    assert dialog.isVisible()
    assert "http" in dialog.problem_label.text()
    assert len(page.entries) == 1
    dialog.url_edit.setText(llama_server.url)
    dialog.served_combo.setCurrentText("")
    dialog.list_button.click()
    qtbot.waitUntil(lambda: dialog.served_combo.count() > 0, timeout=LOAD_MS)
    assert dialog.served_combo.currentText() == llama_server.model
    ok.click()
    assert len(page.entries) == 2
    served = page.entries[1]
    assert served.remote
    assert served.spec_text() == f"{llama_server.url}@model={llama_server.model}"
    column = page.board.columns[1]
    assert llama_server.url in column.settings_label.text()  # the column says where it runs

    type_prompt(qtbot, page, PROMPT, max_tokens=24)
    assert page.setup.mode == "fair"
    result = run(qtbot, page)

    assert [c.remote for c in result.contestants] == [False, True]
    assert all(a.ok and a.text.strip() for a in result.answers)
    live = page.live
    assert live is not None
    # Both columns streamed: their sparklines got live tokens/s points during the answers.
    assert all(len(state.spark) > 0 for state in live.columns)
    assert all(page.board.columns[i].answer.text.strip() for i in range(2))
    local_row, remote_row = result.summary()
    assert local_row.rss_peak_bytes is not None
    assert local_row.rss_peak_bytes > 0
    assert remote_row.remote
    assert remote_row.memory_source == "unknown"
    assert remote_row.rss_peak_bytes is None
    assert remote_row.generation_tokens_per_s is not None
    model = page.results.model
    assert model.rowCount() == 2
    assert model.index(1, SummaryModel.COL_PRIVATE).data() == "unknown"
    assert model.index(1, SummaryModel.COL_VRAM).data() == "unknown"
    assert model.index(1, SummaryModel.COL_PREDICTED).data() == "no prediction: remote"
    assert model.index(0, SummaryModel.COL_PRIVATE).data() not in ("unknown", "-")
    assert model.index(0, SummaryModel.COL_PREDICTED).data().startswith("≈")
    assert model.index(1, SummaryModel.COL_GEN).data() not in ("", "-")
    # The chart places the local model only, and its caption says why the other is missing.
    chart = page.results.chart
    assert [p.contestant for p in chart.points] == [0]
    assert chart.left_out == [remote_row.name]
    assert "memory unknown" in chart.caption.text()
    assert remote_row.name in chart.caption.text()
    assert "memory unknown" in page.board.columns[1].figures_label.text()
    assert "RAM" in page.board.columns[0].figures_label.text()
    screenshot(window, "compare-remote.png")
