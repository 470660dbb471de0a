"""The Models page's detail panel for an AWQ variant: the vLLM command and its Copy button, and
"Start server" with the stand-in executable as vLLM (``LLM_SCOUT_VLLM``): ready, opened in the
Playground (which chats with it), stopped, and stopped when the window closes."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from desktop.core.engine import managed
from desktop.core.fit import FitTarget, plan_vllm, what_if_plan
from desktop.ui.main_window import MainWindow
from desktop.ui.pages.models import ModelsPage
from desktop.ui.pages.playground import PlaygroundPage
from desktop.ui.widgets.vllm_server_box import VllmServerBox
from tests.fixtures.vllm_stand_in import ANSWER, stand_in_executable
from tests.ui.test_models_page import choose_profile, click_row, entry, wait_for
from tests.ui.test_playground import ask

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
    # Nothing runs here: no memory bar, no context, speed or load time for it.
    assert shown.fit.unsupported
    assert not detail.ram_bar.isVisible()
    assert not detail.vram_bar.isVisible()
    assert (detail.max_ctx_label.text(), detail.speed_label.text()) == ("-", "-")
    assert detail.load_label.text() == "-"
    # A GGUF variant on the same profile has them.
    click_row(qtbot, page, "qwen2.5-7b-instruct:Q4_K_M")
    assert detail.ram_bar.isVisible()
    assert detail.load_label.text() != "-"


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def server_family(box: VllmServerBox) -> list[int]:
    """The server process and the helper it started (as vLLM starts its engine core)."""
    assert box.server is not None
    assert box.server.pid is not None
    pid = box.server.pid
    return [pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))]


def start_and_wait(qtbot: QtBot, box: VllmServerBox) -> None:
    assert box.start_button.isVisible()
    qtbot.mouseClick(box.start_button, Qt.MouseButton.LeftButton)
    assert box.state == "starting"
    assert box.progress_bar.isVisible()
    assert box.stop_button.isVisible()
    assert box.stop_button.text() == "Cancel"
    assert not box.start_button.isVisible()
    # The stand-in answers after 1.5 s: the wait shows how long it has been waiting.
    qtbot.waitUntil(
        lambda: "Waiting for the vLLM server" in box.status_label.text(), timeout=10_000
    )
    qtbot.waitUntil(lambda: box.state == "ready", timeout=30_000)


def show_awq(qtbot: QtBot, window: MainWindow, page: ModelsPage) -> VllmServerBox:
    profile = choose_profile(qtbot, window, "what-if:rtx-3060-12gb")
    page.set_context(8192)
    wait_for(qtbot, page, 8192, profile)
    click_row(qtbot, page, AWQ_7B)
    return page.detail.vllm_server


@pytest.fixture
def fake_vllm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake = stand_in_executable(tmp_path / "bin")
    monkeypatch.setenv("LLM_SCOUT_VLLM", str(fake))
    monkeypatch.setenv("STAND_IN_DELAY", "1.5")
    return fake


def test_start_server_then_the_playground_chats_with_it_and_closing_the_window_stops_it(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, fake_vllm: Path
) -> None:
    box = show_awq(qtbot, window, page)
    assert box.isVisible()
    assert box.start_button.isVisible()
    assert not box.stop_button.isVisible()
    assert not box.playground_button.isVisible()
    start_and_wait(qtbot, box)
    assert box.server is not None
    base_url = box.server.base_url
    assert base_url.startswith("http://127.0.0.1:")
    assert box.status_label.text() == f"vLLM serves Qwen/Qwen2.5-7B-Instruct-AWQ at {base_url}."
    assert not box.progress_bar.isVisible()
    assert box.stop_button.text() == "Stop server"
    assert box.playground_button.isVisible()
    family = server_family(box)
    assert len(family) >= 2
    # The log's last lines, one click away: the command it was started with, as vLLM gets it.
    assert not box.log_view.isVisible()
    qtbot.mouseClick(box.log_toggle, Qt.MouseButton.LeftButton)
    assert box.log_view.isVisible()
    log_text = box.log_view.toPlainText()
    assert "stand-in starting: serve Qwen/Qwen2.5-7B-Instruct-AWQ --quantization awq" in log_text
    assert "--max-model-len 8192" in log_text

    qtbot.mouseClick(box.playground_button, Qt.MouseButton.LeftButton)
    assert window.current_page == "playground"
    playground = window.pages["playground"]
    assert isinstance(playground, PlaygroundPage)
    panel = playground.load_panel
    assert panel.source == "server"
    assert panel.endpoint_fields()[:2] == (base_url, "Qwen/Qwen2.5-7B-Instruct-AWQ")
    qtbot.waitUntil(lambda: playground.phase == "ready", timeout=30_000)
    assert playground.remote is not None
    assert playground.remote.base_url == base_url
    answer = ask(qtbot, playground, "Say hello.", max_tokens=16)
    assert answer.text == "".join(ANSWER)

    window.close()
    assert box.server is None
    assert all(gone(pid) for pid in family), [pid for pid in family if not gone(pid)]


def test_stop_server_ends_every_process_and_start_is_offered_again(
    qtbot: QtBot, window: MainWindow, page: ModelsPage, fake_vllm: Path
) -> None:
    box = show_awq(qtbot, window, page)
    start_and_wait(qtbot, box)
    family = server_family(box)
    qtbot.mouseClick(box.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.state == "idle", timeout=30_000)
    assert all(gone(pid) for pid in family)
    assert box.server is None
    assert box.status_label.text() == "The vLLM server was stopped."
    assert box.start_button.isVisible()
    assert not box.playground_button.isVisible()


def test_a_server_that_fails_to_start_says_why_with_its_log(
    qtbot: QtBot,
    window: MainWindow,
    page: ModelsPage,
    fake_vllm: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STAND_IN_MODE", "fail")
    monkeypatch.setenv("STAND_IN_DELAY", "0.1")
    box = show_awq(qtbot, window, page)
    qtbot.mouseClick(box.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: box.state == "idle", timeout=30_000)
    assert "exited with code 3" in box.status_label.text()
    assert box.log_view.isVisible()
    assert "CUDA out of memory" in box.log_view.toPlainText()
    assert box.start_button.isVisible()  # it can be tried again


def test_where_vllm_cannot_start_there_is_no_button_and_the_box_says_what_is_needed(
    qtbot: QtBot,
    window: MainWindow,
    page: ModelsPage,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LLM_SCOUT_VLLM", raising=False)
    monkeypatch.setattr("desktop.core.engine.managed.platform.system", lambda: "Linux")
    monkeypatch.setattr(managed, "NVIDIA_DRIVER", tmp_path / "no-nvidia-driver")
    box = show_awq(qtbot, window, page)
    assert page.detail.vllm_command_label.isVisible()  # the command is still there to copy
    assert box.isVisible()
    assert not box.start_button.isVisible()
    assert box.status_label.text().startswith("To start it here: vLLM needs an NVIDIA GPU")
