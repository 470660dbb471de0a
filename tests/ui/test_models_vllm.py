"""The Models page's detail panel for an AWQ variant: the vLLM command and its Copy button."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from desktop.core.fit import FitTarget, plan_vllm, what_if_plan
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.models import ModelsPage
from tests.ui.test_models_page import choose_profile, click_row, entry, wait_for

AWQ_7B = "qwen2.5-7b-instruct:AWQ"


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Library page scans other apps' folders under HOME: keep the real one out."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture
def page(qtbot: QtBot, window: MainWindow) -> ModelsPage:
    window.show_page("models")
    found = window.pages["models"]
    assert isinstance(found, ModelsPage)
    wait_for(qtbot, found, found.context, window.state.profile)
    return found


def test_an_awq_variant_shows_the_vllm_command_and_copy_puts_it_on_the_clipboard(
    qtbot: QtBot, window: MainWindow, page: ModelsPage
) -> None:
    profile = choose_profile(qtbot, window, "what-if:rtx-3060-12gb")
    page.set_context(8192)
    wait_for(qtbot, page, 8192, profile)
    click_row(qtbot, page, AWQ_7B)
    detail = page.detail
    shown = entry(page, AWQ_7B)
    plan = plan_vllm(FitTarget.from_variant(shown.model, shown.variant), profile, n_ctx=8192)
    assert plan.fits
    assert detail.vllm_box.isVisible()
    command = detail.vllm_command_label.text()
    assert command == plan.command
    assert command.startswith("vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ --quantization awq")
    assert "--max-model-len 8192" in command
    assert "RTX 3060" in detail.vllm_note_label.text()
    assert detail.vllm_copy_button.isVisible()
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(detail.vllm_copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == command
    assert detail.vllm_copy_button.text() == "Copied"

    # A GGUF variant has no vLLM command.
    click_row(qtbot, page, "qwen2.5-7b-instruct:Q4_K_M")
    assert not detail.vllm_box.isVisible()


def test_without_an_nvidia_gpu_the_panel_says_what_is_needed(
    qtbot: QtBot, window: MainWindow, page: ModelsPage
) -> None:
    profile = choose_profile(qtbot, window, "what-if:laptop-16gb-cpu")
    assert profile.gpus == ()
    click_row(qtbot, page, AWQ_7B)
    detail = page.detail
    assert detail.vllm_box.isVisible()
    note = detail.vllm_note_label.text()
    assert "compute capability 7.5" in note
    assert "On the what-if profile rtx-3060-12gb:" in note
    shown = entry(page, AWQ_7B)
    assert shown.fit is not None
    target = FitTarget.from_variant(shown.model, shown.variant)
    found = what_if_plan(target, shown.fit.n_ctx)
    assert found is not None
    assert detail.vllm_command_label.text() == found[1].command
    assert detail.vllm_copy_button.isVisible()
