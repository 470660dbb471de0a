"""The window's part of the smoke test, in a fresh process as an installer would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.conftest import SCREEN


@pytest.mark.e2e
def test_the_window_is_shown_probed_and_estimated_then_closed(scout_home: Path) -> None:
    code = (
        "import json; from desktop.ui.smoke import window_report; "
        "print(json.dumps(window_report()))"
    )
    env = {
        **os.environ,
        "LLM_SCOUT_HOME": str(scout_home),
        "QT_QPA_PLATFORM": f"offscreen:configfile={SCREEN}",
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["pages"][:4] == ["hardware", "models", "downloads", "library"]
    assert report["profile"] == "this machine"
    assert report["llama_cpp"].startswith("llama.cpp ")
    assert report["catalog_rows"] > 100
    assert 0 < report["seconds_to_shown"] <= report["seconds_to_estimated"]
