"""Ctrl+C in the terminal that started the window, and ``kill``, close it as its close button
does: exit code 0, window state saved, no "unexpected error" in the log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop.core import paths
from desktop.core.logs import LOG_FILE


def _wait_for(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX signals")
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_quits_the_window_cleanly(scout_home: Path, number: signal.Signals) -> None:
    log_file = paths.log_dir() / LOG_FILE
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LLM_SCOUT_HOME": str(scout_home)}
    window = subprocess.Popen(
        [sys.executable, "-m", "desktop", "gui"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        shown = _wait_for(
            lambda: log_file.exists() and "Window shown" in log_file.read_text("utf-8"), 120
        )
        assert shown, "the window never came up"
        window.send_signal(number)
        _out, err = window.communicate(timeout=60)
    finally:
        if window.poll() is None:
            window.kill()
            window.communicate()
    log = log_file.read_text("utf-8")
    assert window.returncode == 0, err
    assert f"Quitting on signal {number.name}" in log
    assert "Unexpected error" not in log
    assert "Traceback" not in err
    assert "KeyboardInterrupt" not in log + err
