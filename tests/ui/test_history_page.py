"""The History page over a real history database: list, search, filter, detail, open, re-run,
delete, and what survives a restart; and a real Playground answer stored as it ends.

Answers and comparisons are stored through the real core :class:`History` in this test's own
``LLM_SCOUT_HOME`` (the autouse ``scout_home`` fixture), so the page reads what the app would.
The e2e test runs the SmolLM2 demo model in the Playground. Set ``LLM_SCOUT_SCREENSHOT_DIR``
to write ``history.png`` there (a comparison selected).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.hardware import load_profile
from desktop.core.history import ContestantRecord, History, PromptRecord, settings_dict
from desktop.core.workspace import Workspace
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.compare import ComparePage
from desktop.ui.pages.history import HistoryPage
from desktop.ui.pages.playground import PlaygroundPage
from desktop.ui.state import AppState
from tests.core.history.test_store import make_report
from tests.ui.test_playground import ANSWER_MS, ask, load, playground

READ_MS = 30_000


def history_page(qtbot: QtBot, window: MainWindow) -> HistoryPage:
    """Show the page and wait for the list it reads then."""
    page = window.pages["history"]
    assert isinstance(page, HistoryPage)
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        window.show_page("history")
    return page


def reread(qtbot: QtBot, page: HistoryPage) -> None:
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        page.refresh()


def listed(page: HistoryPage) -> list[tuple[str, int]]:
    return [item.key for item in page.model.items]


def model_file(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_bytes(os.urandom(4096))
    return path


def store_examples(folder: Path) -> dict[str, int]:
    """Two Playground answers (Alpha, then Beta) and a comparison of both, newest last."""
    alpha, beta = model_file(folder, "alpha.gguf"), model_file(folder, "beta.gguf")
    profile = load_profile("rtx-3060-12gb")
    with History.open() as history:
        first = history.record_run(
            make_report("Canberra."),
            model=alpha,
            prompt="What is the capital of Australia?",
            system="Be brief.",
            label="Alpha 1B Q4_K_M",
            load=LoadSettings(n_ctx=2048, n_threads=4),
            params=p.SamplingParams(temperature=0.3, seed=11),
            profile=profile,
            machine="test machine",
        )
        second = history.record_run(
            make_report("Rain on the roof\nsoft drums in the night\nthe kettle sings", rate=42.0),
            model=beta,
            prompt="Write a haiku about rain.",
            label="Beta 2B Q8_0",
            load=LoadSettings(n_ctx=1024),
            params=p.SamplingParams(),
            profile=profile,
            machine="test machine",
        )
        refs = [history.model_ref(alpha, label="Alpha 1B Q4_K_M"), history.model_ref(beta)]
        comparison = history.create_comparison(
            title="Capitals quiz",
            mode="fair",
            contestants=[
                ContestantRecord("Alpha", str(alpha), {"load": {"n_ctx": 512}}, model=refs[0]),
                ContestantRecord("Beta", str(beta), {"load": {"n_ctx": 512}}, model=refs[1]),
            ],
            prompts=[PromptRecord("Name the capital of Japan.")],
            profile=profile,
            machine="test machine",
        )
        history.record_answer(comparison, 0, 0, output="Tokyo.", report=make_report("Tokyo."))
        history.record_answer(comparison, 1, 0, output="Kyoto?", report=make_report("Kyoto?"))
        for index in (0, 1):
            history.set_contestant_status(comparison, index, "done")
        history.set_comparison_status(comparison, "finished")
    return {"alpha": first.id, "beta": second.id, "comparison": comparison}


def detail_shows(qtbot: QtBot, page: HistoryPage, text: str) -> None:
    qtbot.waitUntil(lambda: text in page.detail.toPlainText(), timeout=READ_MS)


# -- listing ------------------------------------------------------------------------------------


def test_an_empty_history_says_so_and_shows_what_another_page_stored(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    page = history_page(qtbot, window)
    assert page.stack.currentWidget() is page.empty
    assert page.model.rowCount() == 0
    ids = store_examples(tmp_path)
    # The Playground says it stored something: the page reads again on its own.
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        window.pages["playground"].history_changed.emit()  # type: ignore[attr-defined]
    assert page.stack.currentWidget() is page.splitter
    assert listed(page) == [
        ("comparison", ids["comparison"]),
        ("run", ids["beta"]),
        ("run", ids["alpha"]),
    ]
    # The comparison's own answers belong to it: they are not listed one by one.
    assert page.count_label.text() == "3 items"
    # Compare says so too (a comparison or a vote stored): the page reads again.
    compare = window.pages["compare"]
    assert isinstance(compare, ComparePage)
    with History.open() as history:
        history.delete_run(ids["beta"])
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        compare.history_changed.emit()
    assert ("run", ids["beta"]) not in listed(page)


def test_a_hidden_page_reads_what_was_stored_when_it_is_shown(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    page = history_page(qtbot, window)
    window.show_page("playground")
    ids = store_examples(tmp_path)
    # Answers stored while the page is hidden are not read (nor laid out) one by one...
    with qtbot.assertNotEmitted(page.listing_changed, wait=500):
        for _ in range(3):
            window.pages["playground"].history_changed.emit()  # type: ignore[attr-defined]
    assert page.model.rowCount() == 0
    # ...showing the page reads them all, once.
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        window.show_page("history")
    assert ("run", ids["alpha"]) in listed(page)
    assert page.count_label.text() == "3 items"


def test_search_and_the_model_filter_narrow_the_list(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    ids = store_examples(tmp_path)
    page = history_page(qtbot, window)
    assert len(listed(page)) == 3
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        qtbot.keyClicks(page.search, "haiku")
    assert listed(page) == [("run", ids["beta"])]
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        page.search.setText("Tokyo")  # an answer inside the comparison
    assert listed(page) == [("comparison", ids["comparison"])]
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        page.search.setText("nothing like this was ever asked")
    assert listed(page) == []
    assert page.stack.currentWidget() is page.splitter  # not the empty state: something is stored
    assert "Nothing matches" in page.detail.toPlainText()
    page.search.clear()
    qtbot.waitUntil(lambda: len(listed(page)) == 3, timeout=READ_MS)

    combo = page.model_filter
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels[0] == "All models"
    assert labels[1:] == ["Alpha 1B Q4_K_M", "Beta 2B Q8_0"]
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        combo.setCurrentIndex(combo.findData("Alpha 1B Q4_K_M"))
        combo.activated.emit(combo.currentIndex())
    assert listed(page) == [("comparison", ids["comparison"]), ("run", ids["alpha"])]

    kinds = page.kind_filter
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        kinds.setCurrentIndex(kinds.findData("run"))
        kinds.activated.emit(kinds.currentIndex())
    assert listed(page) == [("run", ids["alpha"])]


def test_the_detail_shows_prompt_answer_measurements_settings_and_machine(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    ids = store_examples(tmp_path)
    page = history_page(qtbot, window)
    assert page.select("run", ids["alpha"])
    detail_shows(qtbot, page, "Canberra.")
    text = page.detail.toPlainText()
    for expected in (
        "Alpha 1B Q4_K_M",
        "What is the capital of Australia?",
        "Be brief.",  # the system prompt
        "Predicted vs measured",
        "101.5 t/s",  # measured generation speed
        "≈105 t/s",  # predicted
        "2048",  # the context it ran with
        "AMD Ryzen 5 5600X",  # the machine's snapshot
        "NVIDIA GeForce RTX 3060",
        str(tmp_path / "alpha.gguf"),
    ):
        assert expected in text, expected
    assert not page.open_button.isEnabled()  # Open is for comparisons
    assert page.rerun_button.isEnabled()
    assert page.delete_button.isEnabled()

    assert page.select("comparison", ids["comparison"])
    detail_shows(qtbot, page, "Capitals quiz")
    text = page.detail.toPlainText()
    assert "Name the capital of Japan." in text
    assert "Alpha" in text
    assert "Beta" in text
    assert "2/2 answers" in text
    assert "Tokyo." in text  # each contestant's answer under its prompt
    assert "Kyoto?" in text
    assert page.open_button.isEnabled()
    shots = os.environ.get("LLM_SCOUT_SCREENSHOT_DIR")
    if shots:
        window.grab().save(str(Path(shots) / "history.png"))


def test_an_answer_cut_off_is_marked(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    with History.open() as history:
        run = history.record_run(
            make_report("Half an ans"),
            model=model_file(tmp_path, "gone.gguf"),
            prompt="Tell me everything.",
            error="The engine stopped.",
            error_kind="engine.crashed",
        )
    page = history_page(qtbot, window)
    row = page.model.row_of(("run", run.id))
    assert row == 0
    result = page.model.index(row, page.model.COL_RESULT).data()
    assert result.startswith("cut off")
    detail_shows(qtbot, page, "Cut off: The engine stopped.")
    assert "Half an ans" in page.detail.toPlainText()


# -- actions ------------------------------------------------------------------------------------


def delete_box(qtbot: QtBot, page: HistoryPage) -> QMessageBox:
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    shown = [b for b in page.findChildren(QMessageBox, "deleteBox") if b.isVisible()]
    assert len(shown) == 1  # one question, asked once
    return shown[0]


def test_delete_asks_first_then_removes_from_the_database(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    ids = store_examples(tmp_path)
    page = history_page(qtbot, window)
    assert page.select("comparison", ids["comparison"])
    detail_shows(qtbot, page, "Capitals quiz")

    box = delete_box(qtbot, page)
    assert "Capitals quiz" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    with History.open() as history:
        assert history.comparison(ids["comparison"]).id == ids["comparison"]  # still there
    assert ("comparison", ids["comparison"]) in listed(page)

    box = delete_box(qtbot, page)
    confirm = box.findChild(QPushButton, "confirmDeleteButton")
    assert confirm is not None
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        confirm.click()
    assert ("comparison", ids["comparison"]) not in listed(page)
    with History.open() as history:
        assert [c.id for c in history.comparisons()] == []
        assert history.runs(comparison_id=ids["comparison"]) == []  # its answers went with it
        assert {r.id for r in history.runs()} == {ids["alpha"], ids["beta"]}
    # The next row is selected and shown.
    assert page.current is not None
    assert page.current.key == ("run", ids["beta"])

    assert page.select("run", ids["alpha"])
    box = delete_box(qtbot, page)
    confirm = box.findChild(QPushButton, "confirmDeleteButton")
    assert confirm is not None
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        confirm.click()
    with History.open() as history:
        assert [r.id for r in history.runs()] == [ids["beta"]]


def test_open_shows_the_comparison_in_the_compare_page(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    ids = store_examples(tmp_path)
    page = history_page(qtbot, window)
    assert page.select("comparison", ids["comparison"])
    detail_shows(qtbot, page, "Capitals quiz")
    compare = window.pages["compare"]
    opened = getattr(compare, "comparison_opened", None)
    if opened is None:
        qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)
    else:
        with qtbot.waitSignal(opened, timeout=READ_MS) as shown:
            qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)
        assert shown.args == [ids["comparison"]]
    assert window.current_page == "compare"


def test_rerun_of_a_comparison_goes_to_the_compare_page(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    ids = store_examples(tmp_path)
    page = history_page(qtbot, window)
    assert page.select("comparison", ids["comparison"])
    with qtbot.waitSignal(page.rerun_comparison_requested, timeout=READ_MS) as asked:
        qtbot.mouseClick(page.rerun_button, Qt.MouseButton.LeftButton)
    assert asked.args == [ids["comparison"]]
    assert window.current_page == "compare"
    compare = window.pages["compare"]
    stop = getattr(compare, "stop", None) or getattr(compare, "cancel", None)
    if callable(stop):  # the model files are random bytes: whatever started, end it
        stop()


def test_rerun_of_an_answer_opens_its_model_in_the_playground_with_its_prompt(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path, tmp_path: Path
) -> None:
    with History.open() as history:
        run = history.record_run(
            make_report("Paris."),
            model=smollm2_path,
            prompt="What is the capital of France?",
            system="Answer in one word.",
            label="SmolLM2 135M",
        )
        gone = history.record_run(
            make_report(), model=model_file(tmp_path, "moved.gguf"), prompt="Hello?"
        )
    (tmp_path / "moved.gguf").unlink()
    page = history_page(qtbot, window)

    assert page.select("run", gone.id)
    qtbot.mouseClick(page.rerun_button, Qt.MouseButton.LeftButton)
    assert window.current_page == "history"  # nothing to open
    assert "is gone" in page.message.text()

    assert page.select("run", run.id)
    qtbot.mouseClick(page.rerun_button, Qt.MouseButton.LeftButton)
    assert window.current_page == "playground"
    chat = window.pages["playground"]
    assert isinstance(chat, PlaygroundPage)
    assert chat.prompt.toPlainText() == "What is the capital of France?"
    assert chat.chat_settings.system() == "Answer in one word."
    qtbot.waitUntil(
        lambda: chat.model is not None and chat.model.path == smollm2_path, timeout=READ_MS
    )
    assert chat.phase == "empty"  # loading is left to the person


def test_rerun_of_a_server_answer_fills_in_its_server_in_the_playground(
    qtbot: QtBot, window: MainWindow
) -> None:
    remote = {"endpoint": "http://127.0.0.1:9/v1", "model": "qwen2.5-0.5b", "key_env": "MY_KEY"}
    with History.open() as history:
        run = history.record_run(
            make_report("Paris."),
            model=None,
            prompt="What is the capital of France?",
            system="Answer in one word.",
            label="qwen2.5-0.5b @ 127.0.0.1:9",
            settings=settings_dict(
                LoadSettings(n_ctx=2048), p.SamplingParams(), remote=remote
            ),  # as the Playground stores a server's answer
        )
        unknown = history.record_run(make_report(), model=None, prompt="Hello?")
    page = history_page(qtbot, window)

    assert page.select("run", unknown.id)
    qtbot.mouseClick(page.rerun_button, Qt.MouseButton.LeftButton)
    assert window.current_page == "history"  # neither a file nor a server to open
    assert "not known" in page.message.text()

    assert page.select("run", run.id)
    assert "server" in page.rerun_button.toolTip()
    qtbot.mouseClick(page.rerun_button, Qt.MouseButton.LeftButton)
    assert window.current_page == "playground"
    chat = window.pages["playground"]
    assert isinstance(chat, PlaygroundPage)
    assert chat.load_panel.source == "server"
    assert chat.load_panel.endpoint_fields() == (
        "http://127.0.0.1:9/v1",
        "qwen2.5-0.5b",
        "MY_KEY",
    )
    assert chat.prompt.toPlainText() == "What is the capital of France?"
    assert chat.chat_settings.system() == "Answer in one word."
    assert chat.phase == "empty"  # connecting is left to the person


def test_a_new_window_over_the_same_home_shows_the_same_history(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    ids = store_examples(tmp_path)
    page = history_page(qtbot, window)
    before = listed(page)
    assert len(before) == 3
    window.close()

    state = AppState(Workspace.load())  # a fresh start: nothing carried over in memory
    again = MainWindow(state)
    qtbot.addWidget(again)
    try:
        again.show()
        qtbot.waitExposed(again)
        assert again.current_page == "history"  # the last page is restored
        reopened = again.pages["history"]
        assert isinstance(reopened, HistoryPage)
        qtbot.waitUntil(lambda: listed(reopened) == before, timeout=READ_MS)
        assert reopened.select("comparison", ids["comparison"])
        detail_shows(qtbot, reopened, "Name the capital of Japan.")
    finally:
        again.close()
        state.close()


# -- the Playground stores its answers ---------------------------------------------------------


@pytest.mark.e2e
def test_a_real_playground_answer_lands_in_the_history(
    qtbot: QtBot, window: MainWindow, smollm2_path: Path
) -> None:
    chat = playground(window)
    load(qtbot, chat, smollm2_path)
    chat.chat_settings.set_system("You are a helpful assistant.")
    with qtbot.waitSignal(chat.history_changed, timeout=ANSWER_MS):
        answer = ask(qtbot, chat, "What is the capital of France?", max_tokens=24)
    assert answer.text.strip()

    with History.open() as history:
        runs = history.runs()
        assert len(runs) == 1
        stored = runs[0]
        assert stored.source == "playground"
        assert stored.prompt == "What is the capital of France?"
        assert stored.system == "You are a helpful assistant."
        assert stored.output == answer.text
        assert stored.ok
        assert stored.finish_reason == answer.finish_reason
        assert stored.model is not None
        assert stored.model.path == smollm2_path
        assert stored.model.sha256 is not None  # a small file is hashed once
        assert stored.settings["load"]["n_ctx"] == 1024
        assert stored.settings["sampling"]["max_tokens"] == 24
        assert stored.settings["sampling"]["temperature"] == 0.0
        assert stored.report is not None
        assert stored.report.metrics.generated_tokens == answer.report.metrics.generated_tokens
        assert stored.report.predicted_ram_bytes == answer.report.predicted_ram_bytes
        assert stored.report.rss_peak_bytes == answer.report.rss_peak_bytes
        profile = history.run_profile(stored.id)
        assert profile["cpu"]["logical_cores"] == window.state.this_machine.cpu.logical_cores  # type: ignore[union-attr]

    # A stopped answer is stored too, marked as stopped.
    settings = chat.chat_settings
    settings.max_tokens.setValue(2000)
    chat.prompt.setPlainText("Count from one to one thousand in words, one per line.")
    with qtbot.waitSignal(chat.answer_finished, timeout=ANSWER_MS) as finished:
        qtbot.keyClick(chat.prompt, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: bool(chat.transcript.answer), timeout=ANSWER_MS)
        chat.stop()
    assert finished.args[0].finish_reason == "cancelled"
    qtbot.waitUntil(lambda: chat.recorder.pending == 0, timeout=READ_MS)

    # An answer cut off by a dead worker keeps what came, marked.
    chat.prompt.setPlainText("Write a very long story about a lighthouse keeper.")
    assert chat.send()
    qtbot.waitUntil(lambda: len(chat.transcript.answer) > 10, timeout=ANSWER_MS)
    session = chat.session
    assert session is not None
    with qtbot.waitSignal(chat.history_changed, timeout=ANSWER_MS):
        session.client.kill()
    assert chat.phase == "error"
    with History.open() as history:
        cut = history.runs(limit=1)[0]
    assert cut.prompt == "Write a very long story about a lighthouse keeper."
    assert not cut.ok
    assert cut.error_kind == "engine.crashed"
    assert cut.finish_reason == "crashed"
    assert len(cut.output) > 10
    assert chat.conversation is not None
    assert cut.output == chat.conversation.turns[-1].answer  # what the transcript kept

    page = history_page(qtbot, window)
    assert len(listed(page)) == 3
    assert page.model.index(0, page.model.COL_RESULT).data().startswith("cut off")
    stopped = page.model.item(1)
    assert stopped is not None
    assert stopped.run is not None
    assert stopped.run.finish_reason == "cancelled"
    assert page.model.index(1, page.model.COL_RESULT).data().startswith("stopped")
    assert page.select("run", page.model.items[2].id)
    detail_shows(qtbot, page, answer.text.strip().splitlines()[0])


def store_interrupted(folder: Path) -> int:
    """What a comparison killed after its first answer leaves in the history (as the CLI's
    killed-process test shows): the Chinese suite at 32 tokens an answer, still ``running``,
    its first contestant ``running`` with one answer, the second never started."""
    from desktop.core.compare import find_suite

    suite = find_suite("chinese")
    alpha, beta = model_file(folder, "alpha.gguf"), model_file(folder, "beta.gguf")
    sampling = {"temperature": 0.0, "seed": 42, "max_tokens": 32}
    with History.open() as history:
        contestants = [
            ContestantRecord(
                name,
                str(path),
                {"load": {"n_ctx": 2048}, "sampling": sampling},
                model=history.model_ref(path),
            )
            for name, path in (("Alpha", alpha), ("Beta", beta))
        ]
        comparison = history.create_comparison(
            title=suite.title,
            mode="fair",
            contestants=contestants,
            prompts=[PromptRecord(q.text, key=q.id) for q in suite.prompts],
            suite="chinese",
            profile=load_profile("rtx-3060-12gb"),
        )
        history.set_contestant_status(comparison, 0, "running")
        history.record_answer(comparison, 0, 0, output="你好。", report=make_report("你好。"))
    return comparison


@pytest.mark.parametrize("first", ["compare", "history"])
def test_an_interrupted_comparison_opens_with_what_was_run(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, first: str
) -> None:
    """Re-opened, it shows its suite and max tokens (whether or not the Compare page had
    listed its suites yet), History says its column was interrupted, and the progress is
    read whole."""
    comparison = store_interrupted(tmp_path)
    if first == "compare":
        shown = window.show_page("compare")
        assert isinstance(shown, ComparePage)
        combo = shown.setup.suite_combo
        qtbot.waitUntil(lambda: combo.findData("chinese") >= 0, timeout=READ_MS)
    page = history_page(qtbot, window)
    assert page.select("comparison", comparison)
    detail_shows(qtbot, page, "Alpha")
    text = page.detail.toPlainText()
    assert "interrupted" in text
    assert "running" not in text
    compare = window.pages["compare"]
    assert isinstance(compare, ComparePage)
    with qtbot.waitSignal(compare.comparison_opened, timeout=READ_MS):
        qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)
    setup = compare.setup
    assert setup.max_tokens.value() == 32
    qtbot.waitUntil(lambda: setup.suite_combo.currentData() == "chinese", timeout=READ_MS)
    assert setup.suite() is not None
    assert not setup.prompt_edit.isVisible()
    progress = setup.progress_label
    assert "Resume" in progress.text() or "missing" in progress.text()
    assert setup.resume_button.isVisible()
    # Read whole: the label is as wide as its text needs.
    qtbot.waitUntil(
        lambda: progress.width() >= progress.fontMetrics().horizontalAdvance(progress.text()),
        timeout=2_000,
    )
    shots = os.environ.get("LLM_SCOUT_SCREENSHOT_DIR")
    if shots:
        window.grab().save(str(Path(shots) / f"compare-interrupted-{first}.png"))
