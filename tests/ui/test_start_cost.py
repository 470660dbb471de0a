"""What a start of the window costs: the pages nobody looks at, and what they import, are not
paid for before the window is shown (issue: the start grew with every page and with use)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SHOWN = """
import json, sys
from PySide6.QtCore import QTimer
from desktop.core.workspace import Workspace
from desktop.ui.app import Controller, make_application
app = make_application()
controller = Controller(app, Workspace.load())
controller.start()
def shown():
    print(json.dumps({
        "pages": sorted(controller.window.pages.made()),
        "modules": sorted(m for m in sys.modules if m.split(".")[0] in
                          ("pyqtgraph", "huggingface_hub", "desktop")),
    }), flush=True)
    controller.shutdown()
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def test_the_window_is_shown_before_the_other_pages_and_their_imports(scout_home: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "LLM_SCOUT_HOME": str(scout_home),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    done = subprocess.run(
        [sys.executable, "-c", SHOWN],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
        cwd=str(scout_home),
    )
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["pages"] == ["models"]
    modules = set(shown["modules"])
    assert "pyqtgraph" not in modules  # the plots of Playground and Compare
    assert "huggingface_hub" not in modules  # the Hub's client (Settings' token, downloads)
    for page in ("playground", "compare", "history", "library", "settings"):
        assert f"desktop.ui.pages.{page}" not in modules, page
