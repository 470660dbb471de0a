"""The Library's Quality window, clicked like a user: it opens on a demo model, measures the
model against itself (KL divergence 0) with the running interval drawn, answers multiple-choice
questions, stops on request keeping what is done, and shows bad input as one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core import demo
from desktop.core.history import History
from desktop.core.quality import ChoiceResult, LossResult
from desktop.ui.i18n import install_language
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.library import LibraryPage
from desktop.ui.widgets.quality_dialog import ModelChoice, QualityDialog, default_reference

RUN_MS = 600_000


def _smollm2() -> ModelChoice:
    path = demo.smollm2_path()
    return ModelChoice("SmolLM2 135M Instruct Q4_1", path, "llama", "Q4_1", path.stat().st_size)


@pytest.fixture
def short_text(tmp_path: Path) -> Path:
    from desktop.core.paths import resources_dir

    text = (resources_dir() / "quality" / "texts" / "en.txt").read_text(encoding="utf-8")
    path = tmp_path / "short.txt"
    path.write_text(text[:1800], encoding="utf-8")
    return path


def _dialog(qtbot: QtBot, others: list[ModelChoice] | None = None) -> QualityDialog:
    model = _smollm2()
    dialog = QualityDialog(model, [model, *(others or [])], threads=2)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_the_library_opens_the_quality_window_on_a_model(qtbot: QtBot, window: MainWindow) -> None:
    window.show_page("library")
    page = window.pages["library"]
    assert isinstance(page, LibraryPage)
    smollm2 = demo.smollm2_path()
    qtbot.waitUntil(lambda: page.select_path(smollm2), timeout=30_000)
    assert page.quality_button.isEnabled()
    qtbot.mouseClick(page.quality_button, Qt.MouseButton.LeftButton)
    dialogs = [d for d in page.findChildren(QualityDialog) if d.isVisible()]
    assert len(dialogs) == 1
    dialog = dialogs[0]
    assert dialog.model.path == smollm2
    assert "SmolLM2" in dialog.windowTitle()
    assert not dialog.isModal()
    # The other demo (another architecture) is offered, but not first.
    texts = [dialog.reference_combo.itemText(i) for i in range(dialog.reference_combo.count())]
    assert any("Gemma" in t for t in texts)
    dialog.close()


def test_a_model_against_itself_shows_zero_and_draws_the_interval(
    qtbot: QtBot, short_text: Path
) -> None:
    dialog = _dialog(qtbot)
    index = dialog.reference_combo.findData(str(_smollm2().path))
    dialog.reference_combo.setCurrentIndex(index)
    dialog.set_text(short_text)
    dialog.chunk_spin.setValue(64)
    with qtbot.waitSignal(dialog.measured, timeout=RUN_MS) as caught:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.start_button.isEnabled()
        assert dialog.stop_button.isEnabled()
    result = caught.args[0]
    assert isinstance(result, LossResult)
    assert result.kld == 0.0
    assert dialog.plot.points == result.chunks
    cell = dialog.table.item(0, 1)
    assert cell is not None
    assert cell.text() == "0.00000"
    assert "Q8_0" in dialog.summary.text()  # placed on llama.cpp's scale: below Q8_0
    assert dialog.start_button.isEnabled()
    assert not dialog.stop_button.isEnabled()
    # Kept in the history: one measurement of the model, its figure, interval and reference.
    assert "Kept in the history" in dialog.status.text()
    with History.open() as history:
        (kept,) = history.measurements(kind="quality")
    assert (kept.kind, kept.metric, kept.value) == ("quality.kld", "kld", result.kld)
    assert kept.model is not None
    assert kept.model.path == _smollm2().path
    assert kept.settings["reference"] == result.reference
    assert kept.data["kld_ci"] == list(result.kld_ci or ())


def test_multiple_choice_and_a_stop_that_keeps_what_is_done(qtbot: QtBot, tmp_path: Path) -> None:
    rows = "".join(
        f"What is {i} plus {i}?,{2 * i},{2 * i + 1},{2 * i - 1},{i},A\n" for i in range(2, 40)
    )
    (tmp_path / "arithmetic_test.csv").write_text(rows, encoding="utf-8")
    dialog = _dialog(qtbot)
    dialog.mode_combo.setCurrentIndex(dialog.mode_combo.findData("choice"))
    assert dialog.pages.currentIndex() == 1
    dialog.set_items(tmp_path)
    progress: list[object] = []
    with qtbot.waitSignal(dialog.measured, timeout=RUN_MS) as caught:
        dialog.start()
        qtbot.waitUntil(lambda: dialog.plot.points >= 3, timeout=RUN_MS)
        progress.append(dialog.status.text())
        qtbot.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
    result = caught.args[0]
    assert isinstance(result, ChoiceResult)
    assert 3 <= result.n < 38
    assert result.stopped == "cancelled"
    assert "Question" in str(progress[0])
    assert dialog.table.rowCount() == 2  # the subject and "All"
    assert "of 38 questions" in dialog.summary.text()
    with History.open() as history:
        (kept,) = history.measurements(kind="quality")
    assert (kept.kind, kept.value, kept.settings["n"]) == (
        "quality.choice",
        result.accuracy,
        result.n,
    )


def test_a_result_the_history_cannot_take_is_said_beside_it(
    qtbot: QtBot, tmp_path: Path, scout_home: Path
) -> None:
    (tmp_path / "sums_test.csv").write_text(
        "".join(f"What is {i} plus 2?,{i + 2},{i},{i + 1},{i + 3},A\n" for i in range(2, 6)),
        encoding="utf-8",
    )
    from desktop.core import paths

    blocker = paths.history_db_path()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.mkdir()  # a folder where the history's file should be
    dialog = _dialog(qtbot)
    dialog.mode_combo.setCurrentIndex(dialog.mode_combo.findData("choice"))
    dialog.set_items(tmp_path)
    with qtbot.waitSignal(dialog.measured, timeout=RUN_MS) as caught:
        dialog.start()
    assert isinstance(caught.args[0], ChoiceResult)
    assert caught.args[0].n == 4
    assert dialog.kept_error
    assert "Not kept in the history" in dialog.status.text()
    assert dialog.table.rowCount() == 2  # the result is shown all the same


def test_bad_input_is_one_sentence_in_the_window(qtbot: QtBot, tmp_path: Path) -> None:
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("Too short.", encoding="utf-8")
    dialog = _dialog(qtbot)
    dialog.reference_combo.setCurrentIndex(dialog.reference_combo.findData(str(_smollm2().path)))
    dialog.set_text(tiny)
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=RUN_MS)
    assert "tiny.txt is" in dialog.status.text()
    assert "one chunk" in dialog.status.text()
    assert dialog.outcome is None
    assert dialog.start_button.isEnabled()


def test_the_default_reference_is_the_least_quantized_of_the_same_model() -> None:
    model = _smollm2()
    q8 = ModelChoice("q8", Path("/m/q8.gguf"), "llama", "Q8_0", 150)
    f16 = ModelChoice("f16", Path("/m/f16.gguf"), "llama", "F16", 270)
    other = ModelChoice("gemma", Path("/m/g.gguf"), "gemma3", "F16", 900)
    assert default_reference(model, [model, q8, f16, other]) == f16
    assert default_reference(model, [model, q8, other]) == q8
    assert default_reference(model, [model, other]) is None


def test_the_chinese_window_measures_on_the_chinese_text_first(
    qtbot: QtBot, qapp: QApplication
) -> None:
    english = _dialog(qtbot)
    assert english.text_combo.currentData() == "en"
    assert english.text_combo.currentText() == "English text (shipped)"
    try:
        assert install_language(qapp, "zh_CN") == "zh_CN"
        chinese = _dialog(qtbot)
        assert chinese.text_combo.currentData() == "zh"
        assert chinese.text_combo.currentText() == "中文文本（内置）"
    finally:
        install_language(qapp, "en")
