"""The Compare page as a person uses it: real widgets offscreen over the real core.

Models are added from the page's Add menu (the demo models, or a file through the file dialog),
the prompt is typed, Run is clicked; the e2e tests run real engine workers on the demo models
(SmolLM2 135M and Gemma 3 270M, 16 tokens an answer: a comparison takes seconds) and store it
in the history of the test's own ``LLM_SCOUT_HOME``. Set ``LLM_SCOUT_SCREENSHOT_DIR`` to write
``compare.png``, ``compare-blind.png`` and ``compare-failed.png`` there.
"""

from __future__ import annotations

import csv
import io
import json
import os
import string
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog
from pytestqt.qtbot import QtBot

from desktop import cli
from desktop.commands import compare as compare_command
from desktop.commands.common import workspace
from desktop.core import demo
from desktop.core.compare import ComparisonResult, builtin_names, open_comparison
from desktop.core.hardware import load_profile
from desktop.core.history import History
from desktop.ui.main_window import MainWindow
from desktop.ui.models.compare_summary import VALUE_ROLE, SummaryModel
from desktop.ui.pages.compare import ComparePage
from desktop.ui.widgets.chart_image import caption_lines
from desktop.ui.widgets.compare_setup import IMPORT
from desktop.ui.widgets.contestant_dialog import ContestantDialog
from desktop.ui.workers import wait_for_tasks

RUN_MS = 300_000  # a ceiling, not a timing: two models answering on a loaded 2-core machine
SMOLLM2 = "SmolLM2 135M Instruct Q4_1"
GEMMA3 = "Gemma 3 270M Q4_K_M"  # the Add menu's label
GEMMA3_NAME = "Gemma 3 270M (base) Q4_K_M"  # the contestant's name (no chat template)
PROMPT = "Name a fruit."
MIB = 1024 * 1024


@pytest.fixture(autouse=True)
def no_leftover_workers() -> Iterator[None]:
    yield
    workers = [child for child in psutil.Process().children(recursive=True) if _is_worker(child)]
    assert not workers, f"engine workers left behind: {workers}"


def _is_worker(process: psutil.Process) -> bool:
    try:
        alive = process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        return alive and "desktop.core.engine.worker" in " ".join(process.cmdline())
    except psutil.Error:
        return False


def compare_page(qtbot: QtBot, window: MainWindow) -> ComparePage:
    page = window.show_page("compare")
    assert isinstance(page, ComparePage)
    qtbot.waitUntil(lambda: len(page.models) >= 2, timeout=30_000)
    return page


def add_model(page: ComparePage, label: str) -> None:
    """Pick ``label`` in the Add menu."""
    actions = [
        a
        for a in page.setup.add_menu.actions()
        if a.text().split("\t")[0] == label and a.isEnabled()
    ]
    assert actions, (
        f"{label} is not in the Add menu: {[a.text() for a in page.setup.add_menu.actions()]}"
    )
    actions[0].trigger()


def add_file(page: ComparePage, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """ "Open a GGUF file…" in the Add menu, the file dialog answering ``path``."""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    (action,) = [a for a in page.setup.add_menu.actions() if a.text() == "Open a GGUF file…"]
    action.trigger()


def type_prompt(qtbot: QtBot, page: ComparePage, text: str, max_tokens: int = 16) -> None:
    spin = page.setup.max_tokens
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), str(max_tokens))
    qtbot.keyClick(spin, Qt.Key.Key_Tab)
    assert spin.value() == max_tokens
    page.setup.prompt_edit.clear()
    qtbot.keyClicks(page.setup.prompt_edit, text)


def run(qtbot: QtBot, page: ComparePage) -> ComparisonResult:
    with qtbot.waitSignal(page.comparison_finished, timeout=RUN_MS) as finished:
        qtbot.mouseClick(page.setup.run_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert isinstance(result, ComparisonResult)
    assert page.phase == "shown"
    return result


def screenshot(window: MainWindow, name: str) -> None:
    """With ``LLM_SCOUT_SCREENSHOT_DIR`` set, save the window as ``name`` there."""
    folder = os.environ.get("LLM_SCOUT_SCREENSHOT_DIR")
    if folder:
        window.grab().save(str(Path(folder) / name))


def cells(model: SummaryModel, column: int, role: int = VALUE_ROLE) -> list[object]:
    return [model.index(row, column).data(role) for row in range(model.rowCount())]


def texts(model: SummaryModel, column: int) -> list[str]:
    return [str(v) for v in cells(model, column, Qt.ItemDataRole.DisplayRole)]


# -- without running a model -----------------------------------------------------------------


def test_run_needs_two_models_and_the_menu_lists_each_demo_once(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path]
) -> None:
    page = compare_page(qtbot, window)
    labels = [a.text() for a in page.setup.add_menu.actions() if a.text()]
    assert labels.count(SMOLLM2) == 1  # a chat model: its name only
    # The base model says so where it is chosen (issue 23, item 17), its tooltip why.
    assert labels.count(f"{GEMMA3}\tbase model, not for chat") == 1
    (gemma,) = [a for a in page.setup.add_menu.actions() if a.text().startswith(GEMMA3)]
    assert "No chat template" in gemma.toolTip()
    assert page.setup.add_menu.toolTipsVisible()
    assert not page.setup.run_button.isEnabled()
    add_model(page, SMOLLM2)
    assert not page.setup.run_button.isEnabled()
    add_model(page, SMOLLM2)  # the same model twice is allowed
    assert page.setup.run_button.isEnabled()
    assert [c.title.text() for c in page.board.columns] == [SMOLLM2, SMOLLM2]

    # The second copy gets its own settings in the contestant dialog.
    qtbot.mouseClick(page.board.columns[1].edit_button, Qt.MouseButton.LeftButton)
    (dialog,) = page.findChildren(ContestantDialog)
    assert dialog.isVisible()
    qtbot.keyClicks(dialog.name_edit, "Cold")
    dialog.ctx_spin.setValue(1024)
    dialog.temp_spin.setValue(0.2)
    dialog.cache_combo.setCurrentIndex(dialog.cache_combo.findData("q8_0"))
    box = dialog.findChild(QDialogButtonBox)
    assert box is not None
    ok = box.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    first, second = page.board.columns
    assert second.title.text() == "Cold"
    assert second.settings_label.text() == "ctx 1024 · KV q8_0 · temp 0.20"
    assert first.title.text() == SMOLLM2
    assert page.entries[1].spec_text().endswith("@ctx=1024,cache=q8_0,temp=0.2,name=Cold")
    assert page.entries[0].spec_text() == str(demo_paths[0])

    qtbot.mouseClick(page.board.columns[1].remove_button, Qt.MouseButton.LeftButton)
    assert len(page.board.columns) == 1
    assert not page.setup.run_button.isEnabled()


def test_the_window_starts_a_comparison_from_the_clis_defaults(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path]
) -> None:
    """The same models and prompt get the same context (more than the setting: the prompt is
    long), seed, temperature, threads and flash attention from the window as from
    ``llm-scout compare``: one home for a comparison's defaults."""
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    prompt = "Summarise this. " + "The sea is wide and the ships are small. " * 600
    page.setup.prompt_edit.setPlainText(prompt)
    page.setup.max_tokens.setValue(64)
    request = page.new_request()
    assert request.load.n_ctx > window.state.settings.default_ctx
    models = [str(path) for path in demo_paths]
    argv = ["compare", "--models", *models, "--prompt", prompt, "--max-tokens", "64"]
    plan = compare_command._new_plan(cli.build_parser().parse_args(argv), workspace())
    assert [c.load for c in plan.contestants] == [request.load, request.load]
    assert [c.sampling for c in plan.contestants] == [request.sampling, request.sampling]


def test_parallel_mode_is_refused_with_the_numbers_on_a_small_what_if_profile(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path], tmp_path: Path
) -> None:
    # A board with 600 MiB of RAM: each demo model alone fits, both together do not.
    data = load_profile("raspberry-pi-5-8gb").to_dict()
    data["name"] = "Tiny board"
    data["memory"]["total_bytes"] = data["memory"]["available_bytes"] = 600 * MIB
    tiny = tmp_path / "tiny.json"
    tiny.write_text(json.dumps(data))
    assert window.open_profile(tiny)
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    qtbot.mouseClick(page.setup.parallel_radio, Qt.MouseButton.LeftButton)
    assert page.setup.mode == "parallel"
    type_prompt(qtbot, page, PROMPT)
    qtbot.mouseClick(page.setup.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.banner.isVisible, timeout=30_000)
    text = page.banner_label.text()
    assert text.startswith("Parallel mode refused on Tiny board: ")
    assert "600.0 MiB is available" in text
    assert f"{SMOLLM2} " in text
    assert f"{GEMMA3_NAME} " in text
    assert "Use fair mode" in text
    assert page.phase == "setup"
    assert page.setup.run_button.isEnabled()
    with History.open() as history:
        assert history.comparisons() == []  # nothing ran, nothing stored


# -- with the real demo models ---------------------------------------------------------------


@pytest.mark.e2e
def test_two_columns_stream_in_fair_mode_then_the_summary_history_and_exports_hold_the_numbers(
    qtbot: QtBot,
    window: MainWindow,
    demo_paths: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    type_prompt(qtbot, page, PROMPT)
    assert page.setup.mode == "fair"

    # What the columns show while it runs, sampled every 5 ms.
    seen: list[tuple[str, str, str]] = []

    def sample() -> None:
        columns = page.board.columns
        if page.phase == "running" and len(columns) == 2:
            seen.append(
                (
                    columns[0].answer.text,
                    columns[0].status_label.text(),
                    columns[1].status_label.text(),
                )
            )

    sampler = QTimer()
    sampler.setInterval(5)
    sampler.timeout.connect(sample)
    sampler.start()
    try:
        result = run(qtbot, page)
    finally:
        sampler.stop()

    # The first column streamed while the second waited for its turn.
    final = result.answer(0, 0)
    assert final is not None
    assert final.ok
    partial = [text for text, _s0, s1 in seen if text and s1 == "queued (fair mode)"]
    assert partial, seen[-5:]
    assert any(len(text) < len(final.text) and final.text.startswith(text) for text in partial)
    assert [o.status for o in result.outcomes] == ["done", "done"]

    # The columns: the finished answers and their measured figures.
    columns = page.board.columns
    assert [c.title.text() for c in columns] == [SMOLLM2, GEMMA3_NAME]
    for k, column in enumerate(columns):
        answer = result.answer(k, 0)
        assert answer is not None
        assert answer.report is not None
        assert column.status_label.text().startswith("done")
        assert "t/s" in column.figures_label.text()
        assert "TTFT" in column.figures_label.text()
        assert column.answer.toPlainText().strip()
        assert 0 < answer.report.metrics.generated_tokens <= 16

    # The summary table: measured numbers, as the core computes them.
    model = page.results.model
    assert texts(model, SummaryModel.COL_MODEL) == [SMOLLM2, GEMMA3_NAME]
    rows = result.summary()
    gen = cells(model, SummaryModel.COL_GEN)
    assert gen == [row.generation_tokens_per_s for row in rows]
    assert all(isinstance(v, float) and v > 0.0 for v in gen)
    assert all(isinstance(v, float) and v > 0.0 for v in cells(model, SummaryModel.COL_TTFT))
    assert all(isinstance(v, float) and v > 0.0 for v in cells(model, SummaryModel.COL_PROMPT))
    private = cells(model, SummaryModel.COL_PRIVATE)
    assert all(isinstance(v, int) and v > 20 * MIB for v in private)
    predicted = texts(model, SummaryModel.COL_PREDICTED)
    assert all(t.startswith("≈") and "%" in t for t in predicted)
    assert len(page.results.chart.points) == 2
    assert "fair mode" in page.results.caption.text()
    screenshot(window, "compare.png")
    # Every column in sight at 1280x800, the models' names whole: the columns with nothing to
    # show (the quant, which ends each name; video memory on this CPU-only machine; checks
    # without a suite; votes) are hidden, long headers take two lines.
    view = page.results.table
    header = view.horizontalHeader()
    hidden = {c for c in range(model.columnCount()) if view.isColumnHidden(c)}
    assert hidden == {
        SummaryModel.COL_QUANT,
        SummaryModel.COL_VRAM,
        SummaryModel.COL_CHECKS,
        SummaryModel.COL_VOTES,
    }
    visible = [c for c in range(model.columnCount()) if c not in hidden]
    for index in visible:
        right = header.sectionViewportPosition(index) + header.sectionSize(index)
        assert right <= view.viewport().width(), model.headerData(index, Qt.Orientation.Horizontal)
    assert not view.horizontalScrollBar().isVisible()
    metrics = view.fontMetrics()
    widest = max(metrics.horizontalAdvance(t) for t in texts(model, SummaryModel.COL_MODEL))
    assert header.sectionSize(SummaryModel.COL_MODEL) > widest
    assert "\n" in str(model.headerData(SummaryModel.COL_PREDICTED, Qt.Orientation.Horizontal))
    assert view.width() > page.results.chart.width()

    # Stored in the history as it ran.
    assert result.id is not None
    with History.open() as history:
        (summary,) = history.comparisons()
        assert summary.id == result.id
        assert summary.state == "complete"
        record = history.comparison(result.id)
        assert [r.report is not None for r in record.runs] == [True, True]
        stored = {r.report.metrics.tokens_per_s for r in record.runs if r.report}
    assert stored == {a.report.metrics.tokens_per_s for a in result.answers if a.report}

    # Export: the file dialog answers a path; each button writes its file.
    written: list[str] = []
    page.exported.connect(written.append)
    for kind in ("md", "csv", "json", "png"):
        target = tmp_path / f"report.{kind}"
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, t=target, **k: (str(t), ""))
        button = page.results.export_buttons[kind]
        assert button.isEnabled()
        with qtbot.waitSignal(page.exported, timeout=30_000):
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert (tmp_path / f"report.{kind}").is_file()
    assert written == [str(tmp_path / f"report.{k}") for k in ("md", "csv", "json", "png")]
    md = (tmp_path / "report.md").read_text("utf-8")
    assert f"| {SMOLLM2} | Q4_1 | 4096 |" in md
    assert f"{rows[0].generation_tokens_per_s:.1f}" in md
    table = list(csv.DictReader(io.StringIO((tmp_path / "report.csv").read_text("utf-8"))))
    assert [r["model"] for r in table] == [SMOLLM2, GEMMA3_NAME]
    assert [r["status"] for r in table] == ["ok", "ok"]
    assert all(int(r["rss_peak_bytes"]) > 50 * MIB for r in table)
    assert [float(r["generation_tokens_per_s"]) for r in table] == pytest.approx(gen)
    document = json.loads((tmp_path / "report.json").read_text("utf-8"))
    assert document["comparison"]["id"] == result.id
    assert [s["private_peak_bytes"] for s in document["summary"]] == private
    assert document["comparison"]["created_at"] == pytest.approx(summary.created_at)
    assert time.strftime("%Y-%m-%d", time.localtime(summary.created_at)) in md
    image = QImage(str(tmp_path / "report.png"))
    assert not image.isNull()
    # The chart under a caption that says which comparison it is: title, prompt, machine, date.
    chart = page.results.chart.grab().toImage()
    assert image.width() == chart.width() > 100
    top = image.height() - chart.height()
    assert top > 40
    assert any(image.pixelColor(x, y).lightness() < 100 for x in range(200) for y in range(top))
    live = page.view.live
    assert live is not None
    lines = caption_lines(live.result())
    assert lines[0] == result.title
    assert lines[1] == f"Prompt: {PROMPT}"
    assert lines[2].startswith(f"{result.machine or 'this machine'} · ")


@pytest.mark.e2e
def test_blind_mode_hides_the_names_until_the_votes_then_reveals_them_with_win_rates(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path]
) -> None:
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    type_prompt(qtbot, page, PROMPT, max_tokens=8)
    qtbot.mouseClick(page.setup.blind_check, Qt.MouseButton.LeftButton)
    assert page.setup.blind_check.isChecked()
    # What the columns say while it runs, read as a person would every 20 ms.
    seen: set[str] = set()
    sampler = QTimer()
    sampler.setInterval(20)
    sampler.timeout.connect(
        lambda: seen.update(
            f"{c.figures_label.text()} | {c.status_label.text()}" for c in page.board.columns
        )
    )
    sampler.start()
    result = run(qtbot, page)
    sampler.stop()
    assert result.blind is not None
    order = result.blind.order
    # No live speed, memory or load time gives a model away, while it runs or after.
    assert seen
    for text in seen:
        assert not any(unit in text for unit in ("t/s", "RAM", "MiB", "TTFT", "loaded in")), text
    for column in page.board.columns:
        assert column.figures_label.text() == "Speed and memory are shown after Reveal."
        assert not column.sparkline.isVisible()
    hidden = [
        c for c in range(page.results.model.columnCount()) if page.results.table.isColumnHidden(c)
    ]
    # the figures that tell the models apart, and the columns with nothing to show (no checks;
    # the quant each name ends with and video memory on this CPU-only machine, hidden anyway)
    empty = page.results.model.empty_columns()
    assert empty == {SummaryModel.COL_QUANT, SummaryModel.COL_VRAM, SummaryModel.COL_CHECKS}
    assert sorted(hidden) == sorted(set(SummaryModel.REVEALING) | empty)
    assert SummaryModel.COL_GEN in hidden
    assert SummaryModel.COL_PRIVATE in hidden
    assert page.results.chart.points == []

    # Hidden: letters only, everywhere the page names a model.
    columns = page.board.columns
    assert [c.title.text() for c in columns] == ["Answer A", "Answer B"]
    names = (SMOLLM2, GEMMA3_NAME, "SmolLM2", "Gemma")
    for column in columns:
        shown = " ".join(
            (column.title.text(), column.title.toolTip(), column.settings_label.text())
        )
        assert not any(name in shown for name in names), shown
        assert not column.edit_button.isVisible()
    model = page.results.model
    assert sorted(texts(model, SummaryModel.COL_MODEL)) == ["A", "B"]
    assert texts(model, SummaryModel.COL_QUANT) == ["-", "-"]
    assert not any(b.isEnabled() for b in page.results.export_buttons.values())
    assert page.setup.reveal_button.isVisible()
    screenshot(window, "compare-blind.png")

    # Vote: the answer in column B is better.
    vote_b = columns[1].vote_button
    assert vote_b.isVisible()
    assert vote_b.isEnabled()
    assert vote_b.text() == "B is better"
    qtbot.mouseClick(vote_b, Qt.MouseButton.LeftButton)
    assert vote_b.isChecked()
    winner, loser = order[1], order[0]
    assert result.id is not None

    def stored_votes() -> int:
        with History.open() as history:
            return len(history.comparison(result.id or 0).votes)

    qtbot.waitUntil(lambda: stored_votes() == 1, timeout=10_000)
    assert "1 of 1 prompts voted" in page.board.vote_label.text()
    assert sorted(texts(model, SummaryModel.COL_MODEL)) == ["A", "B"]  # still hidden
    # The vote as Bradley-Terry ratings under the summary, letters only, with how many more
    # votes would tell the two apart (the core's figure for the stored votes).
    ratings_view = page.results.ratings
    assert ratings_view.isVisible()
    assert ratings_view.table.rowCount() == 2
    rated = [ratings_view.table.item(i, 0).text() for i in range(2)]  # type: ignore[union-attr]
    assert rated == ["B", "A"]
    with History.open() as history:
        expected = open_comparison(history, result.id).vote_ratings()
    assert expected is not None
    more = expected.gaps[0].more_votes
    assert more is not None
    assert f"About {more} more votes to tell B and A apart." in ratings_view.gaps.text()

    # Reveal: names, letters and win rates.
    qtbot.mouseClick(page.setup.reveal_button, Qt.MouseButton.LeftButton)
    assert not page.setup.reveal_button.isVisible()
    real = {0: SMOLLM2, 1: GEMMA3_NAME}
    assert [c.title.text() for c in page.board.columns] == [
        f"{string.ascii_uppercase[k]} · {real[order[k]]}" for k in range(2)
    ]
    by_name = dict(
        zip(texts(model, SummaryModel.COL_MODEL), texts(model, SummaryModel.COL_VOTES), strict=True)
    )
    assert by_name[f"B · {real[winner]}"] == "1 W / 0 T / 0 L (100%)"
    assert by_name[f"A · {real[loser]}"] == "0 W / 0 T / 1 L (0%)"
    rates = dict(
        zip(cells(model, SummaryModel.COL_MODEL), cells(model, SummaryModel.COL_VOTES), strict=True)
    )
    assert rates == {real[winner]: 1.0, real[loser]: 0.0}
    assert ratings_view.table.item(0, 0).text() == f"B · {real[winner]}"  # type: ignore[union-attr]
    assert all(b.isEnabled() for b in page.results.export_buttons.values())
    # Revealed: the figures, the sparklines, the summary's columns and the chart are back.
    for column in page.board.columns:
        assert " t/s" in column.figures_label.text()
        assert column.sparkline.isVisible()
    # (bar what is empty: the quant each name ends with, video memory on this CPU-only machine)
    empty = page.results.model.empty_columns()
    assert empty == {SummaryModel.COL_QUANT, SummaryModel.COL_VRAM, SummaryModel.COL_CHECKS}
    revealed = [c for c in SummaryModel.REVEALING if c not in empty]
    assert SummaryModel.COL_GEN in revealed
    assert not any(page.results.table.isColumnHidden(c) for c in revealed)
    assert len(page.results.chart.points) == 2
    assert sorted(label.split(" · ")[1] for label in page.results.chart.labels) == sorted(
        real.values()
    )


@pytest.mark.e2e
def test_a_model_that_fails_to_load_is_marked_failed_with_its_reason_and_the_other_finishes(
    qtbot: QtBot,
    window: MainWindow,
    demo_paths: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A download cut short: the header is whole, a third of the weights are there.
    whole = demo.smollm2_path().read_bytes()
    cut = tmp_path / "cut-short.gguf"
    cut.write_bytes(whole[: len(whole) // 3])
    page = compare_page(qtbot, window)
    add_file(page, monkeypatch, cut)
    add_model(page, SMOLLM2)
    assert [c.title.text() for c in page.board.columns] == ["cut-short.gguf", SMOLLM2]
    type_prompt(qtbot, page, PROMPT, max_tokens=8)
    result = run(qtbot, page)
    assert [o.status for o in result.outcomes] == ["failed", "done"]
    reason = result.outcomes[0].reason
    assert reason
    failed, done = page.board.columns
    assert failed.status_label.text() == f"failed: {reason}"
    assert failed.answer.toPlainText() == "No answer: the model failed."
    screenshot(window, "compare-failed.png")
    assert done.status_label.text().startswith("done")
    answer = result.answer(1, 0)
    assert answer is not None
    assert answer.ok
    assert answer.text
    model = page.results.model
    assert texts(model, SummaryModel.COL_MODEL) == ["cut-short.gguf (failed)", SMOLLM2]
    tip = model.index(0, SummaryModel.COL_MODEL).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == f"cut-short.gguf (failed)\n{reason}"
    assert model.index(1, SummaryModel.COL_MODEL).data(Qt.ItemDataRole.ToolTipRole) == SMOLLM2
    gen = cells(model, SummaryModel.COL_GEN)
    assert gen[0] is None
    assert isinstance(gen[1], float)
    assert gen[1] > 0.0
    with History.open() as history:
        record = history.comparison(result.id or 0)
        statuses = [(c.status, c.reason) for c in record.contestants]
    assert statuses == [("failed", reason), ("done", None)]


@pytest.mark.e2e
def test_a_stopped_comparison_resumes_then_opens_by_id_and_runs_again_as_a_new_one(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path]
) -> None:
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, SMOLLM2)
    type_prompt(qtbot, page, PROMPT, max_tokens=4)
    first_column = page.board.columns[0]
    with qtbot.waitSignal(page.comparison_finished, timeout=RUN_MS) as stopped:
        qtbot.mouseClick(page.setup.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(
            lambda: first_column.status_label.text() in ("loading the model…", "answering…"),
            timeout=RUN_MS,
        )
        assert page.board.columns[1].status_label.text() == "queued (fair mode)"
        qtbot.mouseClick(page.setup.stop_button, Qt.MouseButton.LeftButton)
    first = stopped.args[0]
    assert isinstance(first, ComparisonResult)
    assert first.id is not None
    assert not first.complete
    assert first.answer(1, 0) is None  # the second model never started
    assert page.setup.resume_button.isVisible()
    assert "incomplete" in page.setup.progress_label.text()
    with History.open() as history:
        assert history.comparison(first.id).summary.state == "cancelled"

    # Resume: only the missing answers, into the same comparison.
    with qtbot.waitSignal(page.comparison_finished, timeout=RUN_MS) as resumed:
        qtbot.mouseClick(page.setup.resume_button, Qt.MouseButton.LeftButton)
    whole = resumed.args[0]
    assert isinstance(whole, ComparisonResult)
    assert whole.id == first.id
    assert whole.complete
    assert not page.setup.resume_button.isVisible()
    assert page.setup.progress_label.text() == "2 of 2 answers"
    with History.open() as history:
        record = history.comparison(first.id)
        assert record.summary.state == "complete"
        assert len(record.runs) == 2

    # Back to the setup, then the stored comparison opens by its id and runs again.
    qtbot.mouseClick(page.board.columns[1].remove_button, Qt.MouseButton.LeftButton)
    assert page.phase == "setup"
    assert len(page.board.columns) == 1
    with qtbot.waitSignal(page.comparison_opened, timeout=30_000) as opened:
        assert page.open_comparison(first.id)
    assert opened.args == [first.id]
    assert page.phase == "shown"
    assert len(page.board.columns) == 2
    assert page.setup.prompt_edit.toPlainText() == PROMPT
    assert cells(page.results.model, SummaryModel.COL_GEN) == [
        r.generation_tokens_per_s for r in whole.summary()
    ]

    with qtbot.waitSignal(page.comparison_finished, timeout=RUN_MS) as finished:
        assert page.rerun_comparison(first.id)
    second = finished.args[0]
    assert isinstance(second, ComparisonResult)
    assert second.id is not None
    assert second.id != first.id
    assert [o.status for o in second.outcomes] == ["done", "done"]
    assert [p.text for p in second.prompts] == [PROMPT]
    with History.open() as history:
        assert {s.id for s in history.comparisons()} == {first.id, second.id}


@pytest.mark.e2e
def test_closing_the_window_mid_run_ends_the_workers_and_keeps_the_comparison_resumable(
    qtbot: QtBot, window: MainWindow, demo_paths: tuple[Path, Path]
) -> None:
    page = compare_page(qtbot, window)
    add_model(page, SMOLLM2)
    add_model(page, GEMMA3)
    type_prompt(qtbot, page, "Write a long story about the sea.", max_tokens=256)
    qtbot.mouseClick(page.setup.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: page.board.columns[0].status_label.text() == "answering…", timeout=RUN_MS
    )
    assert [w for w in psutil.Process().children(recursive=True) if _is_worker(w)]
    window.close()  # the page stops the run and waits for its thread to close the workers
    assert not [w for w in psutil.Process().children(recursive=True) if _is_worker(w)]
    assert wait_for_tasks(30_000)
    with History.open() as history:
        (summary,) = history.comparisons()
        assert summary.state == "cancelled"


@pytest.mark.e2e
def test_an_imported_suite_names_its_bad_line_runs_its_prompts_and_scores_the_checks(
    qtbot: QtBot,
    window: MainWindow,
    demo_paths: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = compare_page(qtbot, window)
    combo = page.setup.suite_combo
    qtbot.waitUntil(lambda: combo.findData("chinese") >= 0, timeout=30_000)
    assert all(combo.findData(name) >= 0 for name in builtin_names())
    suite = tmp_path / "mine.csv"
    suite.write_text(
        "id,prompt,contains,max_tokens\n"
        "capital,What is the capital of France? One word.,Paris,6\n"
        "colour,Name a colour.,,6\n"
        "broken,,Paris,6\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(suite), ""))
    combo.activated.emit(combo.findData(IMPORT))  # "Import JSONL or CSV…"
    qtbot.waitUntil(lambda: page.setup.suite() is not None, timeout=30_000)
    label = page.setup.suite_label.text()
    assert label.startswith("2 prompts")
    assert "1 rows skipped: line 4: " in label
    assert combo.currentText() == "File: mine.csv"
    assert not page.setup.prompt_edit.isVisible()

    add_model(page, SMOLLM2)
    add_model(page, SMOLLM2)
    result = run(qtbot, page)
    assert [p.id for p in result.prompts] == ["capital", "colour"]
    assert result.complete
    checks = texts(page.results.model, SummaryModel.COL_CHECKS)
    passed = [
        sum(a.checks_passed or 0 for a in result.answers if a.contestant == c) for c in (0, 1)
    ]
    assert checks == [f"{n}/1" for n in passed]
    board = page.board
    assert board.prompt_combo.count() == 2
    qtbot.mouseClick(board.next_button, Qt.MouseButton.LeftButton)
    assert board.prompt == 1
    for column in board.columns:
        answer = result.answer(column.contestant, 1)
        assert answer is not None
        assert column.answer.text == answer.text
    with History.open() as history:
        assert history.comparison(result.id or 0).summary.suite == "mine"
