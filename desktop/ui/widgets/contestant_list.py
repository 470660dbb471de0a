"""Compare's contestants being set up, and the lists they and the prompts are picked from.

:class:`ContestantList` holds the entries of the setup (two to six
:class:`~desktop.ui.models.compare_entries.ContestantEntry`): added from the Add menu (the
models on this machine: the demos and the library's files, read off the GUI thread), a file, a
server (the contestant dialog, prefilled with the server added last), or the Playground; edited
in the contestant dialog; removed. Nothing changes while a comparison is being prepared or runs.
It also fills the setup's prompt suites (the built-in ones, and JSONL/CSV files imported, whose
bad rows are listed with their line numbers).

Signals:
    changed(): the entries changed (the board shows the setup again).
    problem(object): a list or a suite file could not be read (the exception).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget
from shiboken6 import isValid

from desktop.core.compare import MAX_CONTESTANTS, PromptSuite, list_suites, load_suite_file
from desktop.core.playground import local_models
from desktop.ui.models.compare_entries import ContestantEntry, remote_entry
from desktop.ui.state import AppState
from desktop.ui.widgets.compare_setup import CompareSetup
from desktop.ui.widgets.contestant_dialog import ContestantDialog
from desktop.ui.workers import TaskControl, run_task


class ContestantList(QObject):
    """The setup's entries and lists (see the module docstring); ``busy()`` says whether a
    comparison is being prepared or runs."""

    changed = Signal()
    problem = Signal(object)

    def __init__(
        self, state: AppState, setup: CompareSetup, busy: Callable[[], bool], parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.setup = setup
        self.entries: list[ContestantEntry] = []
        self.models: list[tuple[str, str]] = []  # (label, spec) of the models on this machine
        self._busy = busy
        self._window = parent
        self._closed = False
        setup.model_chosen.connect(self._on_setup_model_chosen)
        setup.open_file_requested.connect(self._on_setup_open_file_requested)
        setup.server_requested.connect(self.add_server_dialog)
        setup.import_requested.connect(self._on_setup_import_requested)

    # -- the lists ------------------------------------------------------------------------------

    def reload_models(self) -> None:
        """List the demo models and the library's files for the Add menu (off the GUI thread)."""
        if self._closed:
            return
        demos = [(d.name, str(d.path)) for d in self.state.workspace.demos]
        db, catalog = self.state.library_db, self.state.workspace.catalog

        def work(control: TaskControl) -> list[tuple[str, str]]:
            return local_models(demos, db, catalog)

        def done(models: list[tuple[str, str]]) -> None:
            if self._closed or not isValid(self):
                return
            self.models = models
            self.setup.set_models(models)

        run_task(work, on_done=done)

    def read_suites(self) -> None:
        def done(suites: list[PromptSuite]) -> None:
            if not self._closed and isValid(self):
                self.setup.set_suites(suites)

        run_task(lambda control: list_suites(), on_done=done, on_failed=self.problem.emit)

    def import_suite(self, path: Path) -> None:
        """A JSONL or CSV suite file (read off the GUI thread); bad rows are listed with their
        line numbers, a file without a usable prompt is one sentence."""

        def done(suite: PromptSuite) -> None:
            if not self._closed and isValid(self):
                self.setup.add_suite_file(suite)

        run_task(lambda control: load_suite_file(path), on_done=done, on_failed=self.problem.emit)

    def _on_setup_import_requested(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self._window,
            self.tr("Import a prompt suite"),
            str(Path.home()),
            self.tr("Prompt suites (*.jsonl *.csv)"),
        )
        if path:
            self.import_suite(Path(path))

    # -- the entries ----------------------------------------------------------------------------

    def set(self, entries: list[ContestantEntry]) -> None:
        """The entries of a comparison run again or opened (no ``changed``)."""
        self.entries = entries

    def add(self, entry: ContestantEntry) -> bool:
        """Add a contestant (from the Add menu, a file, or the Playground); at most six."""
        if self._busy() or len(self.entries) >= MAX_CONTESTANTS:
            return False
        self.entries.append(entry)
        self.changed.emit()
        return True

    def add_model(self, spec: str, label: str | None = None) -> bool:
        return self.add(ContestantEntry(spec, label or Path(spec).name))

    def _on_setup_model_chosen(self, label: str, spec: str) -> None:
        self.add_model(spec, label)

    def _on_setup_open_file_requested(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self._window,
            self.tr("Add a model"),
            str(Path.home()),
            self.tr("GGUF models (*.gguf)"),
        )
        if path:
            self.add_model(path, Path(path).name)

    def add_server(self, url: str, model: str, key_env: str = "") -> bool:
        """Add a contestant on an OpenAI-compatible server (UsageError for an unusable URL or
        an empty model name)."""
        return self.add(remote_entry(url, model, key_env))

    def add_server_dialog(self) -> ContestantDialog | None:
        """The contestant dialog for a new model on a server; added on OK."""
        if self._busy() or len(self.entries) >= MAX_CONTESTANTS:
            return None
        url, model = "", ""
        last = next((e for e in reversed(self.entries) if e.remote), None)
        if last is not None:  # the server added last is the likeliest one again
            url, model = last.spec, last.served_model
        blank = ContestantEntry(url or "http://", "", served_model=model)
        dialog = ContestantDialog(blank, self.models, self._window)
        dialog.source_combo.setCurrentIndex(dialog.source_combo.findData("server"))
        if not url:
            dialog.url_edit.clear()

        def accepted() -> None:
            if not self._busy():
                self.add(dialog.entry())

        dialog.accepted.connect(accepted)
        dialog.open()
        return dialog

    def edit(self, position: int) -> ContestantDialog | None:
        """Open the settings of contestant ``position`` (non-modal to the app; applied on OK)."""
        if not 0 <= position < len(self.entries) or self._busy():
            return None
        dialog = ContestantDialog(self.entries[position], self.models, self._window)

        def accepted() -> None:
            if position < len(self.entries) and not self._busy():
                self.entries[position] = dialog.entry()
                self.changed.emit()

        dialog.accepted.connect(accepted)
        dialog.open()
        return dialog

    def remove(self, position: int) -> None:
        if 0 <= position < len(self.entries) and not self._busy():
            del self.entries[position]
            self.changed.emit()

    def close(self) -> None:
        self._closed = True
