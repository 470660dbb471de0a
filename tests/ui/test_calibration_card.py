"""This machine's calibration in the window: the Hardware page lists the runs behind it (and why
a run made while the machine was busy does not count), Undo last run and Reset take runs back,
and the Models page follows at once, also runs recorded by another process (the CLI) meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.fit import CalibrationEntry, CalibrationStore, machine_fingerprint
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.hardware import HardwarePage
from desktop.ui.pages.models import ModelsPage
from desktop.ui.state import AppState
from desktop.ui.widgets.calibration_card import CalibrationCard
from tests.ui.test_models_page import entry, wait_for

VARIANT = "qwen2.5-7b-instruct:Q4_K_M"
HOUR = 3600.0


def run(machine: str, ratio: float, t: float, busy: str | None = None) -> CalibrationEntry:
    return CalibrationEntry(
        machine=machine,
        source="run",
        model="SmolLM2 135M Instruct Q4_1",
        device="cpu",
        n_gpu_layers=0,
        n_ctx=2048,
        generated_tokens=128,
        predicted_tokens_per_s=100.0,
        measured_tokens_per_s=100.0 * ratio,
        time=t,
        busy=busy,
        others_cpus=1.1 if busy else 0.0,
    )


def card(window: MainWindow) -> CalibrationCard:
    page = window.pages["hardware"]
    assert isinstance(page, HardwarePage)
    found = page.calibration_card
    assert found is not None
    return found


def runs_text(window: MainWindow) -> str:
    label = card(window).findChild(QLabel, "calibrationRuns")
    assert label is not None
    return label.text()


def lines(window: MainWindow) -> list[str]:
    return [w.text() for w in card(window).findChildren(QLabel, "calibrationRun")]


def test_the_calibration_is_shown_taken_back_and_followed(
    qtbot: QtBot, window: MainWindow, state: AppState, tmp_path: Path
) -> None:
    this = state.this_machine
    assert this is not None
    me = machine_fingerprint(this)
    window.show_page("models")
    models = window.pages["models"]
    assert isinstance(models, ModelsPage)
    wait_for(qtbot, models, models.context, state.profile)
    raw = entry(models, VARIANT).fit
    assert raw is not None
    assert raw.tokens_per_s is not None

    # Runs recorded meanwhile by another process (the CLI): two at half the predicted speed
    # in two hours, then one made while other programs used the CPU.
    CalibrationStore().replace(
        [run(me, 0.5, HOUR), run(me, 0.5, 2 * HOUR), run(me, 0.1, 3 * HOUR, busy="busy loops")]
    )
    window.show_page("hardware")
    assert runs_text(window) == "3 stored: 2 count, 1 left out"
    shown = lines(window)
    assert "speed left out: other programs used 1.1 CPUs meanwhile" in shown[0]
    assert shown[1].endswith("counts")

    # Back on the Models page the estimates follow without a restart.
    window.show_page("models")
    qtbot.waitUntil(lambda: entry(models, VARIANT).calibration_runs == 2, timeout=30_000)
    calibrated = entry(models, VARIANT).fit
    assert calibrated is not None
    assert calibrated.tokens_per_s == pytest.approx(raw.tokens_per_s * 0.5, rel=0.01)

    # Undo forgets the newest run (the busy one): the figure stays, the card says so.
    window.show_page("hardware")
    undo = card(window).findChild(QPushButton, "undoCalibrationButton")
    assert undo is not None
    with qtbot.waitSignal(state.calibration_changed, timeout=5_000):
        undo.click()
    assert runs_text(window) == "2 stored: 2 count, 0 left out"
    assert [e.time for e in CalibrationStore().load()] == [HOUR, 2 * HOUR]

    # Reset asks first; Cancel keeps everything, Reset forgets and keeps a copy aside.
    def answer(button: QMessageBox.StandardButton) -> None:
        reset = card(window).findChild(QPushButton, "resetCalibrationButton")
        assert reset is not None
        reset.click()
        box = window.pages["hardware"].findChild(QMessageBox, "resetCalibrationBox")
        assert box is not None
        box.button(button).click()

    answer(QMessageBox.StandardButton.Cancel)
    assert len(CalibrationStore().load()) == 2
    with qtbot.waitSignal(state.calibration_changed, timeout=5_000):
        answer(QMessageBox.StandardButton.Reset)
    assert CalibrationStore().load() == []
    copies = list(CalibrationStore().path.parent.glob("calibration.json.before-reset-*"))
    assert len(copies) == 1
    assert runs_text(window) == "none yet: every answer and benchmark records one"
    qtbot.waitUntil(lambda: entry(models, VARIANT).calibration_runs == 0, timeout=30_000)
    back = entry(models, VARIANT).fit
    assert back is not None
    assert back.tokens_per_s == pytest.approx(raw.tokens_per_s, rel=0.01)
