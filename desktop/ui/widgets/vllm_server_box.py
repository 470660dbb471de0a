"""Start a vLLM server from the Models page: the part of the detail panel's "Run with vLLM" box
that runs the command instead of only showing it.

Where :func:`~desktop.core.engine.managed.vllm_available` says vLLM can start here (Linux, an
NVIDIA GPU, vLLM installed, or ``LLM_SCOUT_VLLM`` naming a stand-in) and the plan fits, "Start
server" starts :func:`~desktop.core.engine.managed.vllm_server`'s process (on the GUI thread: a
fork, milliseconds) and waits for it to answer off the GUI thread, showing how long it has
waited; the log's last lines are one click away. Once it answers: "Stop server" and "Open in
Playground" (``playground_requested(base_url, model)``). Otherwise it says what is needed.
One server at a time; :meth:`shutdown` (the window closes) stops it and every process it started.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine import (
    READY_TIMEOUT_S,
    ManagedServer,
    ServerProgress,
    VllmAvailability,
    vllm_available,
    vllm_server,
)
from desktop.core.errors import ScoutError
from desktop.core.fit import VllmPlan
from desktop.ui.errors import describe
from desktop.ui.workers import TaskControl, TaskHandle, run_task

REFRESH_MS = 500
LOG_LINES_SHOWN = 40
STOP_GRACE_S = 5.0  # at window close: SIGKILL after this


class VllmServerBox(QWidget):
    """Start/stop a managed vLLM server for the shown plan (see the module docstring).

    Signals:
        playground_requested(str, str): the ready server's base URL and the model it serves.
        state_changed(str): ``idle``, ``starting``, ``ready`` or ``stopping``.
    """

    playground_requested = Signal(str, str)
    state_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vllmServerBox")
        self.server: ManagedServer | None = None
        self.model = ""  # what the server serves
        self.state = "idle"
        self._plan: VllmPlan | None = None
        self._available: VllmAvailability | None = None
        self._task: TaskHandle | None = None
        self._log_source: ManagedServer | None = None  # the last server's log, kept after it
        self._closed = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.status_label = QLabel()
        self.status_label.setObjectName("vllmServerStatus")
        self.status_label.setWordWrap(True)
        layout.addWidget(self.status_label)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("vllmServerProgress")
        self.progress_bar.setRange(0, 0)  # vLLM reports no percentage of its start-up
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(8)
        self.progress_bar.setAccessibleName(self.tr("Waiting for the vLLM server"))
        layout.addWidget(self.progress_bar)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.start_button = QPushButton(self.tr("Start server"))
        self.start_button.setObjectName("vllmStartButton")
        self.start_button.setToolTip(
            self.tr(
                "Run this command here as a server on 127.0.0.1, managed by LLM Scout: it "
                "stops when you stop it or close the window."
            )
        )
        self.start_button.clicked.connect(self._on_start_button_clicked)
        self.stop_button = QPushButton(self.tr("Stop server"))
        self.stop_button.setObjectName("vllmStopButton")
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        self.playground_button = QPushButton(self.tr("Open in Playground"))
        self.playground_button.setObjectName("vllmPlaygroundButton")
        self.playground_button.setToolTip(
            self.tr("Chat with the served model in the Playground, connected to this server.")
        )
        self.playground_button.clicked.connect(self._on_playground_button_clicked)
        for button in (self.start_button, self.stop_button, self.playground_button):
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)

        self.log_toggle = QToolButton()
        self.log_toggle.setObjectName("vllmLogToggle")
        self.log_toggle.setCheckable(True)
        self.log_toggle.setText(self.tr("Show the server log"))
        self.log_toggle.toggled.connect(self._on_log_toggle_toggled)
        layout.addWidget(self.log_toggle)
        self.log_view = QPlainTextEdit()
        self.log_view.setObjectName("vllmLogView")
        self.log_view.setReadOnly(True)
        self.log_view.setAccessibleName(self.tr("vLLM server log"))
        self.log_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_view.setMaximumHeight(180)
        self.log_view.setVisible(False)
        layout.addWidget(self.log_view)

        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._show()

    # -- what is shown --------------------------------------------------------------------------

    def availability(self) -> VllmAvailability:
        """Whether vLLM can start here (asked once: a PATH and module look-up)."""
        if self._available is None:
            self._available = vllm_available()
        return self._available

    def set_plan(self, plan: VllmPlan | None) -> None:
        """The plan of the variant shown (None: none that fits on the chosen profile)."""
        self._plan = plan if plan is not None and plan.fits else None
        self._show()

    def _set_state(self, state: str) -> None:
        self.state = state
        self._show()
        self.state_changed.emit(state)

    def _show(self) -> None:
        state = self.state
        server = self.server
        plan = self._plan
        can_start = False
        status = ""
        if state == "starting" and server is not None:
            status = self.tr("Starting the vLLM server for %1…").replace("%1", self.model)
        elif state == "ready" and server is not None:
            status = (
                self.tr("vLLM serves %1 at %2.")
                .replace("%1", self.model)
                .replace("%2", server.base_url)
            )
        elif state == "stopping":
            status = self.tr("Stopping the vLLM server…")
        elif plan is not None:
            available = self.availability()
            can_start = available.ok
            if not available.ok:
                status = self.tr("To start it here: %1").replace("%1", available.reason)
        self.start_button.setVisible(state == "idle" and can_start)
        self.stop_button.setVisible(state in ("starting", "ready"))
        self.stop_button.setText(
            self.tr("Cancel") if state == "starting" else self.tr("Stop server")
        )
        self.playground_button.setVisible(state == "ready")
        self.progress_bar.setVisible(state in ("starting", "stopping"))
        if status or state != "idle":
            self.status_label.setText(status)
        self.status_label.setVisible(bool(self.status_label.text()))
        has_log = self._log_source is not None
        self.log_toggle.setVisible(has_log)
        self.log_view.setVisible(has_log and self.log_toggle.isChecked())
        self.setVisible(can_start or state != "idle" or bool(self.status_label.text()))

    # -- life -----------------------------------------------------------------------------------

    def start(self) -> bool:
        """Start the server for the shown plan; False (and the reason shown) when it cannot."""
        plan = self._plan
        available = self.availability()
        if self.state != "idle" or plan is None or not available.ok:
            return False
        try:
            server = vllm_server(plan, command=available.command)
            server.start()
        except ScoutError as exc:
            message = self.tr("The server could not start: %1")
            self.status_label.setText(message.replace("%1", str(exc)))
            self._show()
            return False
        self.server = server
        self._log_source = server
        self.model = plan.repo
        self.log_view.clear()
        self._set_state("starting")
        self._timer.start()

        def work(control: TaskControl) -> str:
            try:
                return server.wait_ready(
                    READY_TIMEOUT_S, on_progress=control.progress, cancelled=control.should_stop
                )
            except BaseException:
                server.stop()
                raise

        self._task = run_task(
            work,
            on_done=self._on_ready,
            on_failed=self._on_start_failed,
            on_progress=self._on_progress,
        )
        return True

    def stop(self) -> None:
        """Stop the server off the GUI thread (a start in progress is cancelled)."""
        server = self.server
        if server is None or self.state == "stopping":
            return
        if self._task is not None:
            self._task.stop()
            self._task = None
        self._set_state("stopping")

        def work(_control: TaskControl) -> int | None:
            return server.stop()

        run_task(work, on_done=self._on_stopped, on_failed=self._on_stopped)

    def shutdown(self) -> None:
        """The window closes: stop the server now (SIGKILL after a few seconds), every process
        it started included. Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self._timer.stop()
        if self._task is not None:
            self._task.stop()
            self._task = None
        server, self.server = self.server, None
        if server is not None:
            server.stop(grace=STOP_GRACE_S)

    # -- reports --------------------------------------------------------------------------------

    def _on_progress(self, progress: object) -> None:
        if self._closed or self.state != "starting" or not isinstance(progress, ServerProgress):
            return
        self.status_label.setText(
            self.tr("Waiting for the vLLM server to answer: %1 s (it may take minutes).").replace(
                "%1", f"{progress.elapsed_s:.0f}"
            )
        )
        self.progress_bar.setToolTip(progress.last_line)
        self._refresh_log()

    def _on_ready(self, _base_url: str) -> None:
        self._task = None
        if self._closed:
            return
        self._set_state("ready")
        self._refresh_log()

    def _on_start_failed(self, error: Exception) -> None:
        self._task = None
        self.server = None
        if self._closed:
            return
        title, sentence = describe(error)
        self.state = "idle"
        self._timer.stop()
        self._refresh_log()
        self.status_label.setText(f"{title}: {sentence}")
        if not self.log_toggle.isChecked():
            self.log_toggle.setChecked(True)  # what it said last says why
        self._show()
        self.state_changed.emit("idle")

    def _on_stopped(self, _result: object) -> None:
        self.server = None
        if self._closed:
            return
        self._timer.stop()
        self._refresh_log()
        self.status_label.setText(self.tr("The vLLM server was stopped."))
        self._set_state("idle")

    def _on_timer_timeout(self) -> None:
        server = self.server
        if server is None:
            self._timer.stop()
            return
        self._refresh_log()
        if self.state == "ready" and not server.running:  # it ended by itself
            code = server.returncode
            server.stop()  # reap it and anything it left behind
            self.server = None
            self._timer.stop()
            self.status_label.setText(
                self.tr("The vLLM server exited (code %1); its log: %2")
                .replace("%1", str(code))
                .replace("%2", str(server.log_path))
            )
            self._set_state("idle")

    def _refresh_log(self) -> None:
        source = self._log_source
        if source is None or not self.log_toggle.isChecked():
            return
        text = "\n".join(source.log_lines()[-LOG_LINES_SHOWN:])
        if text != self.log_view.toPlainText():
            self.log_view.setPlainText(text)
            bar = self.log_view.verticalScrollBar()
            bar.setValue(bar.maximum())

    # -- buttons --------------------------------------------------------------------------------

    def _on_start_button_clicked(self) -> None:
        self.start()

    def _on_stop_button_clicked(self) -> None:
        self.stop()

    def _on_playground_button_clicked(self) -> None:
        server = self.server
        if server is not None and self.state == "ready":
            self.playground_requested.emit(server.base_url, self.model)

    def _on_log_toggle_toggled(self, shown: bool) -> None:
        self.log_toggle.setText(
            self.tr("Hide the server log") if shown else self.tr("Show the server log")
        )
        self.log_view.setVisible(shown)
        self._refresh_log()
