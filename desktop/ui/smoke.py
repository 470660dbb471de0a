"""The window's part of ``llm-scout --smoke-test``: build it (offscreen when there is no
screen), wait until it is shown, this machine is probed and the catalog is estimated, then
close it and say what was there.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

WAIT_S = 120.0


def window_report(timeout_s: float = WAIT_S) -> dict[str, Any]:
    """Build the real window over the real core; returns pages, profile, llama.cpp backend,
    catalog rows estimated and the seconds to shown and to estimated. Raises RuntimeError when
    the window does not get there within ``timeout_s``."""
    started = time.perf_counter()
    if not os.environ.get("QT_QPA_PLATFORM") and sys.platform.startswith("linux"):
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    from desktop.core.workspace import Workspace
    from desktop.ui.app import Controller, make_application

    app = make_application()
    controller = Controller(app, Workspace.load())
    window = controller.window
    controller.start()
    shown_at: float | None = None
    models: Any = window.pages.get("models")

    def ready() -> bool:
        return (
            window.isVisible()
            and controller.state.profile is not None
            and models is not None
            and not models.busy
            and (controller.state.engine is not None or controller.state.engine_error is not None)
        )

    loop = QEventLoop()
    deadline = started + timeout_s
    timer = QTimer()
    timer.setInterval(20)

    def tick() -> None:
        nonlocal shown_at
        if shown_at is None and window.isVisible():
            shown_at = time.perf_counter()
        if ready() or time.perf_counter() > deadline:
            loop.quit()

    timer.timeout.connect(tick)
    timer.start()
    loop.exec()
    timer.stop()
    estimated_at = time.perf_counter()
    if not ready():
        controller.shutdown()
        raise RuntimeError(f"The window was not ready within {timeout_s:.0f} s.")
    rows = models.model.rowCount() if models is not None else 0
    report = {
        "pages": list(window.pages),
        "profile": controller.state.profile_name,
        "llama_cpp": controller.state.engine.summary() if controller.state.engine else None,
        "catalog_rows": rows,
        "seconds_to_shown": round((shown_at or estimated_at) - started, 3),
        "seconds_to_estimated": round(estimated_at - started, 3),
    }
    window.close()
    controller.shutdown()
    QCoreApplication.processEvents()
    return report
