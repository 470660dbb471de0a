"""Fixtures of the window tests: real Qt widgets offscreen over the real core.

``state`` is the window's :class:`AppState` over a fresh workspace (settings and catalog of this
test's own home) with this machine probed for real; ``window`` is the main window on it, shown.

Every test must leave nothing running behind it (as napari's tests check): a QTimer the app
started and did not stop, a QThread still running, or a thread-pool task that has not ended
within :data:`POOL_GRACE_MS` of the test's end (closing a window ends its engine workers on the
pool, which takes a moment) fails the test, saying where it was started. Qt's own warnings fail
a test too (``qt_log_level_fail`` in pyproject.toml).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Qt's offscreen screen is 800x800 by default; a desktop-sized one lets the window be 1280x800.
SCREEN = Path(__file__).resolve().parents[1] / "fixtures" / "offscreen_screen.json"
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={SCREEN}"

from PySide6.QtCore import QThreadPool  # noqa: E402
from pytestqt.qtbot import QtBot  # noqa: E402

from desktop.core.workspace import Workspace  # noqa: E402
from desktop.ui.main_window import MainWindow  # noqa: E402
from desktop.ui.state import AppState  # noqa: E402
from desktop.ui.theme import apply_theme  # noqa: E402
from desktop.ui.widgets.refcount_guard import guard_refcounts  # noqa: E402
from desktop.ui.workers import wait_for_tasks  # noqa: E402
from tests.ui.left_running import LeftRunning  # noqa: E402

POOL_GRACE_MS = 30_000

# As make_application does for the app: this PySide6 drops references to None, True and False,
# and the whole test session emits millions of signals in one process.
guard_refcounts()


@pytest.fixture(autouse=True)
def nothing_left_running(monkeypatch: pytest.MonkeyPatch, qapp: object) -> Iterator[None]:
    """Fail a test that leaves a QTimer, a QThread or a thread-pool task behind (set up before,
    so checked after, the window's own teardown)."""
    watch = LeftRunning(monkeypatch)
    yield
    left = watch.check(POOL_GRACE_MS)
    assert not left, "The test left work running behind it:\n" + "\n".join(left)


@pytest.fixture
def state(qtbot: QtBot, qapp: object) -> Iterator[AppState]:
    apply_theme(qapp, "light")  # type: ignore[arg-type]
    app_state = AppState(Workspace.load())
    with qtbot.waitSignal(app_state.profile_changed, timeout=30_000):
        app_state.probe_this_machine()
    yield app_state
    app_state.close()
    assert wait_for_tasks(30_000)
    assert QThreadPool.globalInstance().activeThreadCount() == 0


@pytest.fixture
def window(qtbot: QtBot, state: AppState) -> Iterator[MainWindow]:
    main = MainWindow(state)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    qtbot.waitExposed(main)
    yield main
    main.close()
