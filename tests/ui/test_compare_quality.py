"""Compare's quality check as a person uses it: real widgets offscreen over the real core.

The two demo models (SmolLM2 135M and Gemma 3 270M) answer one short prompt, then answer the
same two shipped GAOKAO-Bench questions one after the other; each column shows its accuracy
with the 95% interval, the results' quality table says the same, and History keeps them. A
question folder with a missing column fails every column's check in one sentence while the
answers are kept. Set ``LLM_SCOUT_SCREENSHOT_DIR`` to write ``compare-quality.png`` there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QTableWidget
from pytestqt.qtbot import QtBot

from desktop.core.history import History
from desktop.core.quality import LossResult
from desktop.ui.i18n import install_language
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.compare import ComparePage
from desktop.ui.widgets.compare_quality import (
    FOLDER,
    REFERENCE,
    SHIPPED,
    QualityChoice,
    figure_text,
)
from desktop.ui.widgets.compare_quality import (
    NONE as NONE_KEY,
)
from tests.ui.test_compare_page import (
    GEMMA3,
    SMOLLM2,
    _is_worker,
    add_model,
    compare_page,
    run,
    screenshot,
    type_prompt,
)

pytestmark = [pytest.mark.e2e]


@pytest.fixture(autouse=True)
def no_leftover_workers() -> Iterator[None]:
    yield
    workers = [child for child in psutil.Process().children(recursive=True) if _is_worker(child)]
    assert not workers, f"engine workers left behind: {workers}"


def choose(qtbot: QtBot, choice: QualityChoice, key: str) -> None:
    """Move the quality combo to ``key`` with the keyboard, as a person does."""
    combo = choice.combo
    combo.setFocus()
    target = combo.findData(key)
    assert target >= 0
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up)


def choose_text(qtbot: QtBot, choice: QualityChoice, key: str) -> None:
    """Move the text combo to ``key`` with the keyboard."""
    combo = choice.text_combo
    combo.setFocus()
    target = combo.findData(key)
    assert target >= 0
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up)


def set_questions(qtbot: QtBot, choice: QualityChoice, n: int) -> None:
    spin = choice.limit
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), str(n))
    qtbot.keyClick(spin, Qt.Key.Key_Tab)
    assert spin.value() == n


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None
    return item.text()


def quality_lines(page: ComparePage) -> list[str]:
    return [c.quality_label.text() for c in page.board.columns]


def test_every_model_answers_the_shipped_questions_and_the_results_show_it(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path]
) -> None:
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    type_prompt(qtbot, page, "Say hi.", max_tokens=2)
    choice = page.setup.quality
    assert not choice.limit.isVisible()  # nothing to count without a check
    choose(qtbot, choice, SHIPPED)
    assert choice.limit.isVisible()
    set_questions(qtbot, choice, 2)
    result = run(qtbot, page)

    assert [o.status for o in result.quality] == ["done", "done"]
    assert all(o.count == 2 for o in result.quality)
    lines = quality_lines(page)
    for outcome, line in zip(result.quality, lines, strict=True):
        assert line.startswith("Quality: accuracy ")
        assert figure_text(outcome) in line
        assert page.board.columns[outcome.contestant].quality_label.isVisible()
    table = page.view.results.quality
    assert table.isVisible()
    header = table.horizontalHeaderItem(0)
    assert header is not None
    assert "multiple choice" in header.text()
    rows = [[cell_text(table, r, c) for c in range(3)] for r in range(table.rowCount())]
    assert [r[0] for r in rows] == [c.name for c in result.contestants]
    for outcome, row in zip(result.quality, rows, strict=True):
        value = outcome.value
        assert value is not None
        assert f"{value * 100:.1f}" in row[1]  # the report's figure, one decimal
        assert row[2] == "2 questions"
    with History.open() as history:
        stored = history.measurements(kind="quality", comparison=result.id)
    assert sorted(m.value for m in stored if m.value is not None) == sorted(
        o.value for o in result.quality if o.value is not None
    )
    # Measured quality against measured speed, the front drawn: its own tab, chosen.
    charts = page.view.results.charts
    chart = page.view.results.quality_chart
    assert charts.currentWidget() is chart
    assert charts.isTabEnabled(1)
    points = result.quality_chart()
    assert [pt.contestant for pt in chart.points] == [0, 1]
    assert [pt.pareto for pt in chart.points] == [pt.pareto for pt in points]
    axis = chart.plot.getPlotItem().getAxis("left")
    assert axis.labelText == "accuracy (%)"
    _xs, ys = chart.line.getData()
    assert len(ys) == sum(pt.pareto for pt in points)
    assert sorted(ys) == sorted(pt.quality * 100 for pt in points if pt.pareto)
    screenshot(window, "compare-quality.png")


def test_a_question_folder_with_a_missing_column_fails_each_check_in_one_sentence(
    qtbot: QtBot,
    window: MainWindow,
    demo_paths: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "items" / "test"
    folder.mkdir(parents=True)
    (folder / "maths_test.csv").write_text(
        "question,A,B,C,answer\nOne plus one?,1,2,3,B\n", encoding="utf-8"
    )
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder.parent))
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    type_prompt(qtbot, page, "Say hi.", max_tokens=2)
    choose(qtbot, page.setup.quality, FOLDER)
    assert page.setup.quality.source_label.text() == "items"
    result = run(qtbot, page)
    assert result.complete  # the answers are kept
    for line in quality_lines(page):
        assert line.startswith("Quality: failed: ")
        assert "lacks the column D" in line
        assert "Traceback" not in line
    assert all(c.answer.text for c in page.board.columns)
    # Nothing measured, nothing to put against speed.
    assert not page.view.results.charts.isTabEnabled(1)
    assert page.view.results.charts.currentIndex() == 0
    lines = quality_lines(page)

    # Back to the setup, then opened again from the history: the same sentences, not
    # "not measured".
    qtbot.mouseClick(page.board.columns[1].remove_button, Qt.MouseButton.LeftButton)
    assert page.phase == "setup"
    assert len(page.board.columns) == 1
    assert result.id is not None
    with qtbot.waitSignal(page.comparison_opened, timeout=30_000):
        assert page.open_comparison(result.id)
    assert quality_lines(page) == lines
    table = page.view.results.quality
    rows = [cell_text(table, r, 1) for r in range(table.rowCount())]
    assert len(rows) == 2
    for row, outcome in zip(rows, result.quality, strict=True):
        assert outcome.reason is not None
        assert row == f"failed: {outcome.reason}"


@pytest.fixture
def english_after(qapp: QApplication) -> Iterator[None]:
    yield
    install_language(qapp, "en")


def test_the_reference_check_says_which_shipped_text_it_uses_chinese_in_a_chinese_window(  # noqa: PLR0917
    qtbot: QtBot,
    qapp: QApplication,
    smollm2_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    english_after: None,
) -> None:
    picked = {"path": str(smollm2_path)}
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (picked["path"], ""))
    # The keyboard passes "Questions from a folder…" on its way down.
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path))
    choice = QualityChoice()
    qtbot.addWidget(choice)
    choice.show()
    assert not choice.text_combo.isVisible()  # no loss chosen, no text to name
    choose(qtbot, choice, REFERENCE)
    # The English window: the English text, said beside the reference; Chinese on request.
    assert choice.text_combo.isVisible()
    assert choice.text_combo.currentText() == "English text (shipped)"
    assert [choice.text_combo.itemData(i) for i in range(choice.text_combo.count())] == [
        "en",
        "zh",
    ]  # what `llm-scout quality --text` offers
    check = choice.check()
    assert check is not None
    assert check.text == "en"
    choose_text(qtbot, choice, "zh")
    check = choice.check()
    assert check is not None
    assert (check.kind, check.source, check.text) == ("text", str(smollm2_path), "zh")
    # A reference pack brings its own text: no choice, and the setup says so.
    pack = tmp_path / "smollm2.refpack"
    pack.write_bytes(b"")
    picked["path"] = str(pack)
    choose(qtbot, choice, NONE_KEY)
    choose(qtbot, choice, REFERENCE)
    assert choice.source_label.text() == "smollm2.refpack"
    assert not choice.text_combo.isVisible()
    assert choice.pack_note.isVisible()
    assert choice.pack_note.text() == "on the pack's own text"

    # The Chinese window: the Chinese text first, in Chinese words.
    assert install_language(qapp, "zh_CN") == "zh_CN"
    picked["path"] = str(smollm2_path)
    chinese = QualityChoice()
    qtbot.addWidget(chinese)
    chinese.show()
    choose(qtbot, chinese, REFERENCE)
    assert chinese.text_combo.currentText() == "中文文本（内置）"
    assert chinese.text_label.text() == "文本"
    check = chinese.check()
    assert check is not None
    assert check.text == "zh"


def test_a_reference_check_on_the_chinese_text_is_measured_on_it_and_shown_again(  # noqa: PLR0917
    qtbot: QtBot,
    window: MainWindow,
    demo_paths: tuple[Path, Path],
    smollm2_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(smollm2_path), ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path))
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    type_prompt(qtbot, page, "Say hi.", max_tokens=2)
    choice = page.setup.quality
    choose(qtbot, choice, REFERENCE)
    choose_text(qtbot, choice, "zh")
    choice.minutes.setValue(0.5)  # what is scored by then counts
    result = run(qtbot, page)
    smollm2 = result.quality_of(0)
    assert smollm2 is not None
    assert smollm2.status == "done"
    assert isinstance(smollm2.result, LossResult)
    assert smollm2.result.text == "zh"  # measured on the Chinese text
    assert abs(smollm2.result.kld) < 1e-6  # against itself
    gemma = result.quality_of(1)
    assert gemma is not None
    assert gemma.status == "failed"  # another vocabulary
    header = page.view.results.quality.horizontalHeaderItem(0)
    assert header is not None
    assert header.text() == f"Quality (loss against {smollm2_path.name} on Chinese text (shipped))"
    with History.open() as history:
        stored = history.measurements(kind="quality", comparison=result.id)
    assert [m.data["text"] for m in stored] == ["zh"]

    # Opened again: the setup shows the text it ran on.
    choose_text(qtbot, choice, "en")
    qtbot.mouseClick(page.board.columns[1].remove_button, Qt.MouseButton.LeftButton)
    assert result.id is not None
    with qtbot.waitSignal(page.comparison_opened, timeout=30_000):
        assert page.open_comparison(result.id)
    assert choice.text_combo.currentData() == "zh"
    assert choice.text_combo.isVisible()
