"""The application: QApplication, language, palette, the window, and what runs at start.

:class:`Controller` owns the shared :class:`~desktop.ui.state.AppState` and the
:class:`~desktop.ui.main_window.MainWindow`. When the language changes it rebuilds the window
in the new language (the state, running downloads included, stays); a theme change applies at
once. Start-up work (probing this machine, learning the llama.cpp build) runs off the GUI thread
after the window is shown.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSocketNotifier, QTimer
from PySide6.QtWidgets import QApplication

from desktop import __version__
from desktop.core.logs import setup_logging
from desktop.core.settings import Settings
from desktop.core.workspace import Workspace
from desktop.ui.errors import install_excepthook
from desktop.ui.i18n import install_language
from desktop.ui.main_window import MainWindow
from desktop.ui.state import AppState
from desktop.ui.theme import app_icon, apply_theme
from desktop.ui.widgets.refcount_guard import guard_refcounts
from desktop.ui.workers import wait_for_tasks

log = logging.getLogger(__name__)


def make_application(argv: Sequence[str] = ()) -> QApplication:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    QApplication.setApplicationName("LLM Scout")
    QApplication.setOrganizationName("LLM Scout")
    QApplication.setApplicationVersion(__version__)
    QApplication.setDesktopFileName("llm-scout")
    app = QApplication([sys.argv[0] if sys.argv else "llm-scout", *argv])
    guard_refcounts()  # before anything emits: see refcount_guard
    app.setWindowIcon(app_icon())
    return app


class Controller:
    """The app's one owner: state, window, language and theme."""

    def __init__(self, app: QApplication, workspace: Workspace) -> None:
        self.app = app
        self.state = AppState(workspace)
        self.language = install_language(app, workspace.settings.language)
        apply_theme(app, workspace.settings.theme)
        self.window = MainWindow(self.state)
        self.state.settings_changed.connect(self._on_state_settings_changed)
        self.state.engine_changed.connect(self._on_state_engine_changed)
        app.aboutToQuit.connect(self.shutdown)

    def start(self) -> None:
        """Show the window (with what the settings file held that could not be used, told
        once) and begin the background work it waits for."""
        self.window.show()
        log.info("Window shown")
        self.window.tell_settings_problems(self.state.workspace.settings_problems)
        self.state.workspace.settings_problems = ()
        QTimer.singleShot(0, self.state.probe_this_machine)
        QTimer.singleShot(0, self.state.probe_engine)

    def _on_state_settings_changed(self, settings: Settings) -> None:
        apply_theme(self.app, settings.theme)
        if settings.language != self.language:
            language = install_language(self.app, settings.language)
            if language != self.language:
                self.language = language
                self.rebuild_window()

    def rebuild_window(self) -> None:
        """The same window in the current language: same place, page and profile."""
        old = self.window
        old.save_state()
        old.shutdown()
        self.window = MainWindow(self.state)
        self._on_state_engine_changed()
        self.window.show()
        old.hide()
        old.deleteLater()

    def _on_state_engine_changed(self) -> None:
        info = self.state.engine
        if info is not None:
            self.window.set_backend_text(info.summary())
        elif self.state.engine_error:
            self.window.set_backend_text(
                QCoreApplication.translate(
                    "MainWindow", "llama.cpp: the engine could not be started"
                )
            )

    def shutdown(self) -> None:
        """Stop background work: pause downloads (they resume next time), end workers."""
        self.window.save_state()
        self.window.shutdown()
        self.state.close()
        wait_for_tasks(10_000)


def quit_on_signals(app: QApplication) -> QSocketNotifier | None:
    """Ctrl+C in the terminal (SIGINT) and ``kill`` (SIGTERM) close the window as its close
    button does: state saved, downloads paused, workers ended, exit code 0.

    Python runs a signal handler only when the interpreter gets control, which it does not
    while Qt's event loop waits; the wake-up file descriptor turns the signal into a readable
    socket that Qt watches, so the handler runs at once. Returns the notifier to keep alive
    (``None`` where the platform has no such socket)."""
    try:
        reader, writer = socket.socketpair()
    except OSError:
        return None
    reader.setblocking(False)
    writer.setblocking(False)
    try:
        signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:  # not the main thread
        reader.close()
        writer.close()
        return None

    def on_signal(number: int, _frame: object) -> None:
        log.info("Quitting on signal %s", signal.Signals(number).name)
        app.quit()

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, on_signal)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, app)

    def drain() -> None:
        try:
            while reader.recv(64):
                pass
        except OSError:
            pass

    notifier.activated.connect(drain)
    _SIGNAL_SOCKETS.extend((reader, writer))
    return notifier


_SIGNAL_SOCKETS: list[socket.socket] = []  # kept open for the process's life


def run(argv: Sequence[str] = (), files: Sequence[Path] = ()) -> int:
    """``llm-scout`` with a display, or ``llm-scout gui [FILE...]``: the window until it is
    closed; ``files`` (models, saved profiles) are opened once it is shown."""
    setup_logging()
    app = make_application(argv)
    install_excepthook()
    quit_on_signals(app)
    controller = Controller(app, Workspace.load())
    for problem in controller.state.workspace.settings_problems:
        log.warning("%s", problem)
    controller.start()
    if files:
        paths = [Path(f).expanduser().absolute() for f in files]
        QTimer.singleShot(0, lambda: controller.window.open_from_command_line(paths))
    return int(app.exec())
