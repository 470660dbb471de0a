"""The Playground as a person uses it: load a real model, chat, watch the plots, stop, save.

Tests marked e2e run the real engine worker on the demo models (SmolLM2 135M: about 100
tokens/s here; Gemma 3 270M without a chat template). ``streamed_answer`` drives the page to the
state the screenshot shows: set ``LLM_SCOUT_SCREENSHOT_DIR`` to write ``playground.png`` there
(``LLM_SCOUT_SCREENSHOT_DIR=/tmp .venv/bin/python -m pytest tests/ui/test_playground.py -k
streams``).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFontInfo, QTextCursor
from PySide6.QtWidgets import QApplication, QComboBox, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.engine import Answer, RunReport, default_threads
from desktop.core.engine import protocol as p
from desktop.core.fit import CalibrationStore, machine_fingerprint
from desktop.core.hardware import load_profile, usable_cpus
from desktop.core.playground import ACTIVE_TICK_MS, IDLE_TICK_MS, SPARING_TICK_MS
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.playground import PlaygroundPage
from desktop.ui.widgets.live_plots import RingBuffer
from desktop.ui.widgets.transcript import TranscriptView, keep_line_breaks

LOAD_MS = 60_000
ANSWER_MS = 300_000  # a ceiling, not a timing: llama.cpp on a loaded 2-core machine


def playground(window: MainWindow) -> PlaygroundPage:
    page = window.show_page("playground")
    assert isinstance(page, PlaygroundPage)
    return page


def choose(qtbot: QtBot, page: PlaygroundPage, path: Path) -> None:
    """Pick the model and wait for its facts and the fit's prediction."""
    page.open_model(path)
    qtbot.waitUntil(lambda: page.model is not None and page.model.path == path, timeout=LOAD_MS)
    qtbot.waitUntil(lambda: page.estimate_result is not None, timeout=LOAD_MS)


def load(qtbot: QtBot, page: PlaygroundPage, path: Path, n_ctx: int = 1024) -> p.Loaded:
    choose(qtbot, page, path)
    page.load_panel.ctx_spin.setValue(n_ctx)
    with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS) as loaded:
        assert page.load(confirm=False)
    assert page.phase == "ready"
    event = loaded.args[0]
    assert isinstance(event, p.Loaded)
    return event


def ask(
    qtbot: QtBot, page: PlaygroundPage, text: str, *, max_tokens: int = 48, seed: int = 1
) -> Answer:
    settings = page.chat_settings
    settings.max_tokens.setValue(max_tokens)
    settings.seed.setValue(seed)
    settings.temperature.setValue(0.0)
    page.prompt.setPlainText(text)
    with qtbot.waitSignal(page.answer_finished, timeout=ANSWER_MS) as finished:
        qtbot.keyClick(page.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    answer = finished.args[0]
    assert isinstance(answer, Answer)
    return answer


def streamed_answer(qtbot: QtBot, window: MainWindow, model: Path) -> PlaygroundPage:
    """The screenshot's state: a model loaded, one answer streamed, the plots drawn."""
    page = playground(window)
    load(qtbot, page, model)
    page.chat_settings.set_system("You are a helpful assistant.")
    ask(qtbot, page, "Write a short poem about the sea, in Markdown, with a title.", max_tokens=96)
    return page


def shows_answer(page: PlaygroundPage, text: str, words: int = 4) -> bool:
    """Whether the transcript shows the answer ``text``: its first ``words`` words in a row.
    (The view renders Markdown: a blank line or ``**`` in the raw text is not in its plain
    text.)"""
    wanted = re.findall(r"\w+", text)[:words]
    shown = " ".join(re.findall(r"\w+", page.transcript.toPlainText()))
    return bool(wanted) and " ".join(wanted) in shown


def worker_children() -> list[psutil.Process]:
    """Engine workers started by this test process (and still alive)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            alive = child.is_running() and child.status() != psutil.STATUS_ZOMBIE
            if alive and "desktop.core.engine.worker" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


# -- without a model ----------------------------------------------------------------------------


def test_the_ring_buffer_keeps_the_newest_rows_in_order() -> None:
    ring = RingBuffer(4, 2)
    assert len(ring.view()) == 0
    for i in range(6):
        ring.append((i, i * 10))
    assert ring.view()[:, 0].tolist() == [2, 3, 4, 5]
    last = ring.last()
    assert last is not None
    assert last.tolist() == [5, 50]


def test_an_answer_keeps_its_line_breaks_stanzas_lists_and_code(qtbot: QtBot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    view.begin_answer("Model")
    view.append_answer(
        "# The sea\nWaves roll in,\nwaves roll out.\n\nSecond stanza,\nends here.\n"
        "- one\n- two\n\n```\na = 1\nb = 2\n```"
    )
    view.end_answer()
    text = view.toPlainText()
    assert "Waves roll in,\nwaves roll out." in text  # not one joined line
    assert "one\ntwo" in text  # still a list (no "- " left)
    assert "a = 1\nb = 2" in text
    blocks = [
        view.document().findBlockByNumber(i).text() for i in range(view.document().blockCount())
    ]
    assert "Waves roll in,\u2028waves roll out." in blocks  # one paragraph, two lines
    assert keep_line_breaks("```\ncode\nmore\n```") == "```\ncode\nmore\n```"
    assert keep_line_breaks("a\n- b\n- c") == "a\n- b\n- c"


def test_markdown_answers_render_code_in_a_fixed_pitch_font_and_no_html(qtbot: QtBot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    view.add_user("Show me <b>code</b>")
    view.begin_answer("Model")
    view.append_answer("Here:\n\n```python\nprint('你好')\n```\n\nand <i>no markup</i>")
    assert view.flush()
    view.end_answer("footer")
    text = view.toPlainText()
    assert "<b>code</b>" in text  # what the person wrote is plain text
    assert "<i>no markup</i>" in text  # a model cannot inject HTML
    assert "```" not in text  # Markdown was rendered
    block = view.document().findBlock(text.index("print"))
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
    assert QFontInfo(cursor.charFormat().font()).fixedPitch()
    assert "\ufffd" not in text


def test_the_settings_are_prefilled_from_the_fit(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    page = playground(window)
    choose(qtbot, page, smollm2_path)
    panel = page.load_panel
    assert page.model is not None
    assert page.model.has_template
    assert panel.template_combo.itemText(0) == "the file's own"
    assert not panel.base_note.isVisible()  # a chat model
    assert panel.ctx_spin.value() == window.state.settings.default_ctx
    machine = window.state.this_machine
    assert machine is not None
    assert panel.threads_spin.value() == default_threads()  # the engine's own default
    assert panel.layers_spin.llama_value == 0  # no GPU here: the fit's best is the CPU
    assert panel.cache_type == window.state.settings.kv_cache_type
    assert "predicted" in panel.prediction_label.text()
    assert "t/s" in panel.prediction_label.text()
    assert panel.load_button.isEnabled()
    # A quantized cache turns "auto" flash attention on; forcing it off is refused in words.
    panel.cache_combo.setCurrentIndex(panel.cache_combo.findData("q8_0"))
    assert panel.load_settings().flash_attn
    panel.flash_combo.setCurrentIndex(panel.flash_combo.findData("off"))
    assert "flash attention" in panel.problem_label.text()
    assert not panel.load_button.isEnabled()


def test_open_in_playground_on_the_models_page_shows_the_model_here(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    models = window.pages["models"]
    models.open_in_playground_requested.emit(str(smollm2_path))  # type: ignore[attr-defined]
    assert window.current_page == "playground"
    page = playground(window)
    qtbot.waitUntil(lambda: page.model is not None, timeout=LOAD_MS)
    assert page.model is not None
    assert page.model.path == smollm2_path
    assert page.load_panel.current_path() == str(smollm2_path)
    assert page.phase == "empty"  # the settings come first: nothing loads by itself


def test_a_model_that_will_not_fit_asks_first_with_the_numbers(
    qtbot: QtBot, window: MainWindow, gemma3_path: Path, tmp_path: Path
) -> None:
    # A small board with 256 MiB of RAM: Gemma 3 270M does not fit there.
    data = load_profile("raspberry-pi-5-8gb").to_dict()
    data["name"] = "Tiny board"
    data["memory"]["total_bytes"] = data["memory"]["available_bytes"] = 256 * 1024 * 1024
    tiny = tmp_path / "tiny.json"
    tiny.write_text(json.dumps(data))
    assert window.open_profile(tiny)
    page = playground(window)
    choose(qtbot, page, gemma3_path)
    qtbot.waitUntil(
        lambda: page.estimate_result is not None and page.estimate_result.verdict == "no",
        timeout=LOAD_MS,
    )
    assert "Tiny board" in page.load_panel.prediction_label.text()
    assert not page.load()  # not started: a question first
    boxes = [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    ]
    assert len(boxes) == 1
    text = boxes[0].text()
    assert "will not fit" in text
    assert "256.0 MiB is available" in text
    boxes[0].reject()
    assert page.phase == "empty"
    assert page.session is None


# -- with a real model --------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_real_chat_streams_into_the_transcript_and_every_plot(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    page = streamed_answer(qtbot, window, smollm2_path)
    answer = page.last_answer
    assert answer is not None
    assert answer.text.strip()
    assert page.transcript.renders >= 2  # streamed, not drawn once at the end
    plain = page.transcript.toPlainText()
    assert "You are a helpful assistant." in plain
    assert answer.text.split()[0] in plain
    plots = page.plots
    assert plots.speed_points > 0
    assert plots.memory_points > 0
    assert plots.gpu_points == 0
    assert plots.gpu_message == "no GPU"
    # The bands in order, each ended by the session's own instants (not by an engine event
    # that a busy machine may hand over late).
    kinds = [kind for kind, _start, _end in plots.phases]
    assert kinds == ["load", "prompt", "generation"]
    assert all(end is not None for _kind, _start, end in plots.phases)
    # Predicted next to measured: the same figures as `llm-scout run --json`.
    report = answer.report
    assert page.metrics_panel.report_dict == report.to_dict()
    assert page.metrics_panel.cells["ram"][0].text() != "-"
    assert page.metrics_panel.cells["ram"][1].text() != "-"
    assert "%" in page.metrics_panel.cells["ram"][2].text()
    assert "t/s" in page.metrics_panel.cells["speed"][1].text()
    # The finished answer on this machine also calibrates its estimates (as `llm-scout run`).
    qtbot.waitUntil(lambda: page.recorder.pending == 0, timeout=10_000)
    entries = CalibrationStore().load()
    assert [e.source for e in entries] == ["run"]
    assert entries[0].generated_tokens == report.metrics.generated_tokens
    assert entries[0].predicted_tokens_per_s == report.predicted_tokens_per_s
    this_machine = page.state.this_machine
    assert this_machine is not None
    assert entries[0].machine == machine_fingerprint(this_machine)
    summary = page.chat.answer_label.text()
    for word in ("TTFT", "prompt", "t/s", "stop:"):
        assert word in summary
    qtbot.waitUntil(lambda: "measured" in page.load_panel.measured_label.text(), timeout=5_000)
    directory = os.environ.get("LLM_SCOUT_SCREENSHOT_DIR")
    if directory:
        window.resize(1280, 800)
        qtbot.wait(300)
        window.grab().save(str(Path(directory) / "playground.png"))


@pytest.mark.e2e
def test_escape_stops_within_a_second_and_keeps_the_partial_answer(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    page = playground(window)
    load(qtbot, page, smollm2_path)
    page.chat_settings.max_tokens.setValue(900)
    page.chat_settings.temperature.setValue(0.8)
    page.prompt.setPlainText("Write a very long story about a lighthouse keeper and the sea.")
    assert page.send()
    qtbot.waitUntil(lambda: len(page.transcript.answer) > 20, timeout=ANSWER_MS)
    with qtbot.waitSignal(page.answer_finished, timeout=1_000) as finished:
        started = time.perf_counter()
        qtbot.keyClick(page.prompt, Qt.Key.Key_Escape)
    assert time.perf_counter() - started < 1.0
    answer = finished.args[0]
    assert answer.finish_reason == "cancelled"
    assert answer.text
    assert shows_answer(page, answer.text)
    assert "stopped" in page.chat.answer_label.text()
    assert page.conversation is not None
    assert page.conversation.turns[-1].finish_reason == "cancelled"
    assert page.phase == "ready"


@pytest.mark.e2e
def test_a_chinese_prompt_renders_without_replacement_characters(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    page = playground(window)
    load(qtbot, page, smollm2_path)
    answer = ask(qtbot, page, "请用中文简述 Transformer 架构的核心组件。", max_tokens=40)
    plain = page.transcript.toPlainText()
    assert "请用中文简述" in plain
    assert "\ufffd" not in plain
    assert "\ufffd" not in answer.text


@pytest.mark.e2e
def test_gemma_without_a_template_answers_through_the_fallback(
    qtbot: QtBot, window: MainWindow, gemma3_path: Path
) -> None:
    page = playground(window)
    choose(qtbot, page, gemma3_path)
    assert page.model is not None
    assert page.model.has_template is False
    panel = page.load_panel
    assert panel.template_combo.itemText(0) == "by architecture: gemma"
    # Shown whole (it was cut to "by architecture"), and the base model said where it is chosen.
    # (Its new width comes with the layout's next pass, after the items changed.)
    shown = panel.template_combo.fontMetrics().horizontalAdvance("by architecture: gemma")
    qtbot.waitUntil(lambda: panel.template_combo.width() > shown, timeout=10_000)
    assert panel.base_note.isVisible()
    assert panel.base_note.text().startswith("⚠ Base model, not for chat")
    loaded = load(qtbot, page, gemma3_path, n_ctx=512)
    assert loaded.template_source == "family"
    assert loaded.template_name == "gemma"
    assert "gemma" in page.transcript.toPlainText()
    answer = ask(qtbot, page, "What is the capital of France?", max_tokens=24)
    assert answer.report.metrics.generated_tokens > 0
    assert answer.text.strip()


@pytest.mark.e2e
def test_a_killed_worker_shows_the_error_keeps_the_transcript_and_reloads(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    page = playground(window)
    load(qtbot, page, smollm2_path)
    status = page.chat.answer_label
    assert page.load_panel.load_label.text().startswith("loaded in")
    first = ask(qtbot, page, "Say hello.", max_tokens=16)
    assert "t/s" in status.text()  # after an answer: its figures, not "waiting"
    page.chat_settings.max_tokens.setValue(900)
    page.prompt.setPlainText("Write a very long story about a lighthouse keeper.")
    assert page.send()
    assert status.text() == "Waiting for the first token…"
    qtbot.waitUntil(lambda: len(page.transcript.answer) > 10, timeout=ANSWER_MS)
    assert status.text() == "Generating…"  # text streams: no longer waiting
    session = page.session
    assert session is not None
    with qtbot.waitSignal(
        page.state_changed, timeout=10_000, check_params_cb=lambda s: s == "error"
    ):
        session.client.kill()
    # The engine is gone: the status line says so and its load time goes with it.
    assert status.text() == "The engine stopped; Reload loads the model again."
    assert page.load_panel.load_label.text() == ""
    assert page.load_panel.measured_label.text() == ""
    banner = page.error_banner
    assert banner.isVisible()
    assert "SIGKILL" in banner.sentence.text()
    assert banner.sentence.text().endswith(".")
    assert not banner.details.isVisible()
    side_height = page.metrics_panel.height() + page.plots.height()
    banner.details_button.click()
    assert banner.details.isVisible()
    assert banner.details.toPlainText().strip()
    # llama.cpp's debug dumps (when its log has them) are left out of the log shown; which
    # lines are kept is tested on a real log in tests/core/engine/test_log_lines.py.
    assert "llama_graph_n_input_tensors" not in banner.details.toPlainText()
    # The log opens over the chat it is about: the plots and figures beside it keep their room.
    assert page.chat.isAncestorOf(banner) or banner.parentWidget() is page.chat.parentWidget()
    qtbot.waitUntil(
        lambda: page.metrics_panel.height() + page.plots.height() == side_height, timeout=2_000
    )
    assert shows_answer(page, first.text)  # the transcript stays
    assert page.conversation is not None
    assert page.conversation.turns[-1].finish_reason == "crashed"  # the partial answer too
    assert not page.chat.send_button.isEnabled()
    with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS):
        banner.reload_button.click()
    assert not banner.isVisible()
    assert page.phase == "ready"
    assert status.text() == ""
    assert page.load_panel.load_label.text().startswith("loaded in")
    assert page.conversation.turns[0].user == "Say hello."
    again = ask(qtbot, page, "Say goodbye.", max_tokens=8)
    assert again.report.metrics.generated_tokens > 0
    # A worker that dies while the model waits is noticed too.
    session = page.session
    assert session is not None
    with qtbot.waitSignal(
        page.state_changed, timeout=10_000, check_params_cb=lambda s: s == "error"
    ):
        session.client.kill()
    assert banner.isVisible()
    assert "SIGKILL" in banner.sentence.text()
    assert status.text() == "The engine stopped; Reload loads the model again."
    assert page.load_panel.load_label.text() == ""


@pytest.mark.e2e
def test_a_damaged_file_says_why_it_cannot_be_loaded(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged.gguf"
    data = smollm2_path.read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    page = playground(window)
    page.open_model(damaged)
    qtbot.waitUntil(lambda: page.model is not None, timeout=LOAD_MS)
    label = page.load_panel.prediction_label
    qtbot.waitUntil(lambda: "cut short" in label.text(), timeout=LOAD_MS)  # before loading
    with qtbot.waitSignal(
        page.state_changed, timeout=LOAD_MS, check_params_cb=lambda s: s == "error"
    ):
        assert page.load()
    banner = page.error_banner
    assert banner.title.text() == "The model file is incomplete"
    assert "incomplete or damaged" in banner.sentence.text()
    assert "Loading failed" in page.transcript.toPlainText()
    qtbot.waitUntil(lambda: not worker_children(), timeout=15_000)


@pytest.mark.e2e
def test_closing_the_window_leaves_no_worker_process(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    page = playground(window)
    load(qtbot, page, smollm2_path)
    assert worker_children()
    page.chat_settings.max_tokens.setValue(900)
    page.prompt.setPlainText("Write a long story.")
    assert page.send()  # closing in the middle of an answer
    qtbot.waitUntil(lambda: bool(page.transcript.answer), timeout=ANSWER_MS)
    started = time.perf_counter()
    window.close()
    assert time.perf_counter() - started < 0.5  # the GUI thread does not wait for the worker
    qtbot.waitUntil(lambda: not worker_children(), timeout=15_000)


@pytest.mark.e2e
def test_a_saved_transcript_has_the_settings_and_the_metrics(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path, tmp_path: Path
) -> None:
    page = playground(window)
    load(qtbot, page, smollm2_path, n_ctx=768)
    answer = ask(qtbot, page, "Name three colours.", max_tokens=24, seed=7)
    as_json, as_markdown = tmp_path / "chat.json", tmp_path / "chat.md"
    assert page.save_transcript(as_json)
    assert page.save_transcript(as_markdown)
    document = json.loads(as_json.read_text(encoding="utf-8"))
    assert document["load"]["n_ctx"] == 768
    assert document["load"]["cache_type"] == "f16"
    assert document["sampling"]["seed"] == 7
    assert document["sampling"]["max_tokens"] == 24
    turn = document["turns"][0]
    assert turn["user"] == "Name three colours."
    assert turn["assistant"] == answer.text
    metrics = turn["metrics"]
    report: RunReport = answer.report
    assert metrics["generated_tokens"] == report.metrics.generated_tokens
    assert metrics["predicted_ram_bytes"] == report.predicted_ram_bytes
    assert metrics["rss_peak_bytes"] == report.rss_peak_bytes
    assert document["fit"]["n_ctx"] == 768
    markdown = as_markdown.read_text(encoding="utf-8")
    assert markdown.startswith("# Chat with ")
    assert "context 768" in markdown
    assert "seed 7" in markdown
    assert "tokens/s" in markdown
    assert "Name three colours." in markdown
    # Regenerate replaces the last answer; Clear forgets the conversation.
    with qtbot.waitSignal(page.answer_finished, timeout=ANSWER_MS):
        assert page.regenerate()
    assert page.conversation is not None
    assert len(page.conversation.turns) == 1
    said = page.conversation.turns[0].answer

    # Copy puts plain Markdown on the clipboard (no <sub> tags); each message has its own Copy.
    clipboard = QApplication.clipboard()
    qtbot.mouseClick(page.chat.copy_button, Qt.MouseButton.LeftButton)
    copied = clipboard.text()
    assert copied.startswith("# Chat with ")
    assert "<sub>" not in copied
    assert said in copied
    links = copy_links(page.transcript)
    assert len(links) == 2  # the question and the answer
    click_link(qtbot, page.transcript, links[1])
    assert clipboard.text() == said
    click_link(qtbot, page.transcript, links[0])
    assert clipboard.text() == "Name three colours."

    # Clear asks first: Cancel keeps the conversation, Clear forgets it.
    qtbot.mouseClick(page.chat.clear_button, Qt.MouseButton.LeftButton)
    box = page.findChild(QMessageBox, "clearBox")
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    assert box.text() == "Clear the conversation (one answer)?"
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.findChild(QMessageBox, "clearBox") is None)  # answered, gone
    assert len(page.conversation.turns) == 1
    assert "Name three colours." in page.transcript.toPlainText()
    qtbot.mouseClick(page.chat.clear_button, Qt.MouseButton.LeftButton)
    box = page.findChild(QMessageBox, "clearBox")
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    confirm = box.findChild(QPushButton, "confirmClearButton")
    assert confirm is not None
    qtbot.mouseClick(confirm, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.conversation is not None and page.conversation.turns == [])
    assert "Name three colours." not in page.transcript.toPlainText()
    assert page.transcript.messages == []


def copy_links(view: TranscriptView) -> list[int]:
    """Positions of the messages' Copy links in the transcript, in order."""
    found = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref().startswith("copy:"):
                found.append(fragment.position() + 2)  # inside the word
            it += 1
        block = block.next()
    return found


def click_link(qtbot: QtBot, view: TranscriptView, position: int) -> None:
    cursor = view.textCursor()
    cursor.setPosition(position)
    view.ensureCursorVisible()
    view.setTextCursor(cursor)
    view.ensureCursorVisible()
    rect = view.cursorRect(cursor)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def choose_live_redraw(window: MainWindow, key: str) -> None:
    """Pick the Live plots setting on the Settings page, as a person does."""
    combo = window.pages["settings"].findChild(QComboBox, "liveRedrawCombo")
    assert isinstance(combo, QComboBox)
    index = combo.findData(key)
    assert index >= 0
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    assert window.state.settings.live_redraw == key


def answer_drawn_every(qtbot: QtBot, page: PlaygroundPage, prompt: str) -> int | None:
    """Ask ``prompt``; how often the page drew while the answer ran (ms)."""
    with qtbot.waitSignal(page.answer_finished, timeout=ANSWER_MS):
        assert page.send(prompt)
        assert page.phase == "generating"
        interval = page.drawing_interval_ms
    return interval


@pytest.mark.e2e
def test_answers_on_threads_that_take_every_cpu_are_drawn_less_often(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = playground(window)
    choose(qtbot, page, smollm2_path)
    every_cpu = usable_cpus()
    page.load_panel.threads_spin.setValue(every_cpu)
    with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS):
        assert page.load(confirm=False)
    note = page.plots.note
    assert note.isVisibleTo(page)
    assert "5 times a second" in note.text()
    assert "every CPU" in note.text()
    assert page.drawing_interval_ms == IDLE_TICK_MS  # waiting: memory readings only
    page.chat_settings.max_tokens.setValue(48)
    page.chat_settings.temperature.setValue(0.0)
    tick = page.findChild(QTimer, "playgroundTick")
    assert isinstance(tick, QTimer)
    ticks: list[float] = []
    tick.timeout.connect(lambda: ticks.append(time.perf_counter()))
    assert answer_drawn_every(qtbot, page, "Write a short poem about the sea.") == SPARING_TICK_MS
    tick.timeout.disconnect()
    # Drawn all the same, in steps: a point of the tokens/s plot per batch of tokens the worker
    # sent (every 40 ms; the first only starts the clock), however few the redraws.
    assert ticks
    meter = page.chat_session.meter
    assert meter is not None
    assert meter.batches > 1
    assert page.plots.speed_points == meter.batches - 1
    assert page.last_answer is not None
    assert shows_answer(page, page.last_answer.text)
    # The Live plots setting "smooth": ~30 Hz all the same, with a warning under the plots.
    choose_live_redraw(window, "smooth")
    assert "~30 Hz" in note.text()
    assert answer_drawn_every(qtbot, page, "Name three colours.") == ACTIVE_TICK_MS
    # Back to "auto", with one CPU more than the threads (the OS's answer, faked): ~30 Hz.
    choose_live_redraw(window, "auto")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(every_cpu + 1)))
    with qtbot.waitSignal(page.model_loaded, timeout=LOAD_MS):
        assert page.load(confirm=False)
    assert not note.isVisibleTo(page)
    assert answer_drawn_every(qtbot, page, "Name three fruits.") == ACTIVE_TICK_MS
    # "light": ~5 Hz even with a CPU to spare, and said so.
    choose_live_redraw(window, "light")
    assert note.isVisibleTo(page)
    assert "5 times a second" in note.text()
    assert answer_drawn_every(qtbot, page, "Name three birds.") == SPARING_TICK_MS
    page.unload()
    assert not note.isVisibleTo(page)
    assert page.drawing_interval_ms is None
