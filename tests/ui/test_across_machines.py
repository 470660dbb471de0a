"""Results of another machine in the window: a bundle dropped on the History page, the list
filtered by machine, the same model side by side in "Across machines", and the Models page
estimating for that machine, calibrated by its own runs.

The other machine ("kitchen-pi", a Raspberry Pi 5 profile) is a second history in this test's
folder, exported through the real core to a real file; this machine's answers are stored with
its real probed profile. Set ``LLM_SCOUT_SCREENSHOT_DIR`` to write ``across-list.png``,
``across.png`` and ``across-models.png`` there.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QPushButton, QTableWidgetItem
from pytestqt.qtbot import QtBot

from desktop.core.bundle import export_results, read_bundle
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history import History
from desktop.ui import format as fmt
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.history import HistoryPage
from desktop.ui.pages.models import ModelsPage
from desktop.ui.state import MACHINE_PREFIX, AppState
from tests.core.bundle.test_bundle import PI, calibration_store
from tests.core.history.test_store import make_report
from tests.ui.test_models_page import click_row, entry, wait_for

READ_MS = 30_000
LOAD = LoadSettings(n_ctx=2048, n_gpu_layers=0)
VARIANT = "qwen2.5-7b-instruct:Q4_K_M"


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Library page scans other apps' folders under HOME: keep the real one out."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def shared_model(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "shared-q4.gguf"
    path.write_bytes(bytes(range(256)) * 64)
    return path


def store(history: History, model: Path, rates: list[float], profile: HardwareProfile) -> None:
    for i, rate in enumerate(rates):
        history.record_run(
            make_report(f"answer {i}", rate=rate),
            model=model,
            prompt=f"question {i}",
            label="Shared 1B Q4_0",
            load=LOAD,
            params=p.SamplingParams(seed=1),
            profile=profile,
            machine=THIS_MACHINE,
        )


def pi_bundle(folder: Path) -> Path:
    """The Pi's history (three answers, three calibration runs) exported to a file."""
    folder.mkdir(parents=True, exist_ok=True)
    with History(folder / "history.db") as pi:
        store(pi, shared_model(folder / "models"), [4.0, 5.0, 7.0], PI)
        bundle = folder / "kitchen-pi.jsonl"
        export_results(
            pi, bundle, name="kitchen-pi", profile=PI, calibration=calibration_store(folder, PI)
        )
    return bundle


def drop(page: HistoryPage, path: Path) -> bool:
    """Drag ``path`` over the page and drop it, as a file manager does; whether accepted."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        QPointF(20, 20), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    page.dragEnterEvent(enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(
        QPointF(20, 20), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    page.dropEvent(event)
    return event.isAccepted()


def text(item: QTableWidgetItem | None) -> str:
    assert item is not None
    return item.text()


def history_page(qtbot: QtBot, window: MainWindow) -> HistoryPage:
    page = window.pages["history"]
    assert isinstance(page, HistoryPage)
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        window.show_page("history")
    return page


def test_a_dropped_bundle_shows_in_the_list_across_machines_and_the_estimates(
    qtbot: QtBot, window: MainWindow, state: AppState, tmp_path: Path
) -> None:
    this = state.this_machine
    assert this is not None
    with History.open() as history:
        store(history, shared_model(tmp_path / "here"), [30.0, 50.0], this)
    bundle = pi_bundle(tmp_path / "pi")
    page = history_page(qtbot, window)
    assert [page.machine_filter.itemText(i) for i in range(page.machine_filter.count())] == [
        "All machines",
        "This machine",
    ]

    # Drop the file: the page says what came in and lists the Pi's answers by its name.
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS) as finished:
        assert drop(page, bundle)
    assert finished.args == [
        "Imported from kitchen-pi. Answers: 3; comparisons: 0 (their answers: 0); "
        "measurements: 0; calibration runs: 3."
    ]
    qtbot.waitUntil(lambda: page.model.rowCount() == 5, timeout=READ_MS)
    machines = [page.model.index(r, page.model.COL_MACHINE).data() for r in range(5)]
    assert sorted(machines) == ["This machine"] * 2 + ["kitchen-pi"] * 3
    combo = page.machine_filter
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "All machines",
        "This machine",
        "kitchen-pi",
    ]
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        combo.setCurrentIndex(2)
        combo.activated.emit(2)
    assert page.model.rowCount() == 3
    assert {page.model.index(r, page.model.COL_MACHINE).data() for r in range(3)} == {"kitchen-pi"}
    shots = os.environ.get("LLM_SCOUT_SCREENSHOT_DIR")
    if shots:
        window.grab().save(str(Path(shots) / "across-list.png"))
    # The imported machine is a profile to choose in the toolbar.
    key = MACHINE_PREFIX + str(combo.currentData())
    qtbot.waitUntil(lambda: window.profile_combo.findData(key) >= 0, timeout=READ_MS)
    assert window.profile_combo.itemText(window.profile_combo.findData(key)) == (
        "Imported: kitchen-pi"
    )

    # Across machines: one column per machine, the core's medians, the machines' hardware.
    across = page.across
    with qtbot.waitSignal(across.view_changed, timeout=READ_MS):
        page.tabs.setCurrentWidget(across)
    table = across.table
    headers = [text(table.horizontalHeaderItem(c)) for c in range(table.columnCount())]
    assert headers == ["This machine", "kitchen-pi"]
    rows = {text(table.verticalHeaderItem(r)): r for r in range(table.rowCount())}

    def cells(title: str) -> list[str]:
        return [text(table.item(rows[title], c)) for c in range(table.columnCount())]

    assert cells("Answers") == ["2", "3"]
    assert cells("Generation") == [fmt.rate(statistics.median([30.0, 50.0])), fmt.rate(5.0)]
    assert cells("Quality") == ["not measured", "not measured"]
    assert cells("CPU")[1] == "ARM Cortex-A76, 4 threads"
    assert cells("Memory")[1] == fmt.size(PI.memory.total_bytes)
    assert cells("Estimates calibrated") == [
        "by its own runs here",
        "from 3 runs measured there",
    ]
    assert across.model_combo.currentText() == "Shared 1B Q4_0 (2 machines)"
    assert across.settings_combo.currentText() == (
        f"context {fmt.integer(2048)} · GPU layers 0 · KV f16 · flash attention off (2 machines)"
    )
    if shots:
        window.grab().save(str(Path(shots) / "across.png"))

    # "Estimates for kitchen-pi": the Models page estimates for the Pi, from its own runs.
    (button,) = across.findChildren(QPushButton, "estimateForMachine")
    assert button.text() == "Estimates for kitchen-pi"
    with qtbot.waitSignal(state.profile_changed, timeout=READ_MS):
        button.click()
    assert state.profile_key == key
    assert state.profile is not None
    assert state.profile.name == "kitchen-pi"
    assert window.profile_combo.currentData() == key
    assert "kitchen-pi" in page.transfer.text()
    window.show_page("models")
    models = window.pages["models"]
    assert isinstance(models, ModelsPage)
    wait_for(qtbot, models, models.context, state.profile)
    calibrated = entry(models, VARIANT)
    assert calibrated.calibration_runs == 3
    assert calibrated.calibration_source == "profile"
    click_row(qtbot, models, VARIANT)
    assert "Calibrated from 3 runs measured on kitchen-pi." in models.detail.context_label.text()
    if shots:
        window.grab().save(str(Path(shots) / "across-models.png"))


def test_a_bundle_imported_twice_or_damaged_changes_nothing(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    bundle = pi_bundle(tmp_path / "pi")
    page = history_page(qtbot, window)
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS):
        page.import_file(bundle)
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=READ_MS)
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS) as again:
        page.import_file(bundle)
    assert again.args == [f"Nothing new in {bundle.name}: everything in it is already here."]

    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(bundle.read_bytes()[:-40])
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS) as damaged:
        page.import_file(cut)
    assert damaged.args == [
        "The results file is damaged: cut.jsonl is incomplete (it was cut short); copy it again."
    ]
    not_a_bundle = tmp_path / "notes.txt"
    not_a_bundle.write_text("shopping list\n")
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS) as foreign:
        assert drop(page, not_a_bundle)
    assert foreign.args == ["Wrong kind of file: notes.txt is not an LLM Scout results file."]
    assert "color" in page.transfer.styleSheet()
    with qtbot.waitSignal(page.listing_changed, timeout=READ_MS):
        page.refresh()
    assert page.model.rowCount() == 3
    # A folder or several files are not taken.
    assert not drop(page, tmp_path)


def test_export_writes_this_historys_results_under_this_machines_name(
    qtbot: QtBot, window: MainWindow, state: AppState, tmp_path: Path
) -> None:
    this = state.this_machine
    assert this is not None
    with History.open() as history:
        store(history, shared_model(tmp_path / "here"), [30.0], this)
    page = history_page(qtbot, window)
    out = tmp_path / "laptop.jsonl"
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS) as finished:
        page.export_file(out, "laptop")
    (text,) = finished.args
    assert text.startswith(f"Wrote {out} (")
    assert text.endswith(") as laptop. Answers: 1; comparisons: 0; measurements: 0.")
    header, results = read_bundle(out)
    assert header.machine_name == "laptop"
    assert [r["prompt"] for r in results.runs] == ["question 0"]
    assert {m["name"] for m in results.machines} == {"laptop"}
    # A folder that does not exist: one sentence, nothing written.
    missing = tmp_path / "nowhere" / "x.jsonl"
    with qtbot.waitSignal(page.transfer_finished, timeout=READ_MS) as failed:
        page.export_file(missing, "laptop")
    assert failed.args[0].startswith("The results file cannot be used: Cannot write the results")
    assert not missing.parent.exists()
