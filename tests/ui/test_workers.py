"""Background tasks: a task that ends after the window has gone (its signal object deleted at
quit, once ``wait_for_tasks`` gave up) ends quietly instead of raising in the pool's thread."""

from __future__ import annotations

import logging
import threading

import pytest
import shiboken6
from pytestqt.qtbot import QtBot

from desktop.ui.workers import TaskControl, run_task, wait_for_tasks


def _held_task(release: threading.Event, reported: list[str]) -> tuple[threading.Event, object]:
    started = threading.Event()

    def work(control: TaskControl) -> str:
        started.set()
        release.wait(30)
        control.progress("half")
        reported.append("progress sent")
        return "done"

    return started, work


def test_a_task_that_ends_after_the_window_is_gone_ends_quietly(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()
    reported: list[str] = []
    started, work = _held_task(release, reported)
    results: list[object] = []
    handle = run_task(work, on_done=results.append, on_progress=results.append)  # type: ignore[arg-type]
    assert started.wait(30)
    shiboken6.delete(handle.signals)  # what the interpreter's exit does to it
    caplog.set_level(logging.DEBUG, logger="desktop.ui.workers")
    release.set()
    assert wait_for_tasks(30_000)
    assert reported == ["progress sent"]
    assert results == []
    assert handle.control.should_stop()  # the progress that could not be told stops the task
    assert "A background task ended after the window had gone" in caplog.text


def test_a_task_whose_window_is_there_reports_as_before(qtbot: QtBot) -> None:
    release = threading.Event()
    reported: list[str] = []
    _started, work = _held_task(release, reported)
    results: list[object] = []
    run_task(work, on_done=results.append, on_progress=results.append)  # type: ignore[arg-type]
    release.set()
    qtbot.waitUntil(lambda: results == ["half", "done"], timeout=30_000)
