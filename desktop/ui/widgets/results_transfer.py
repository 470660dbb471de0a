"""Results files in and out of the window's history: the History page's status line for them.

:class:`ResultsTransfer` is the line under the History page that says how an import or an
export went; it asks for the file (:meth:`ask_import_path`, :meth:`ask_export_path`), runs
:func:`desktop.core.bundle.import_bundle` or :func:`~desktop.core.bundle.export_results` on
the thread pool, and says in one translated sentence what came in (or why nothing did). It
also makes a machine of the history the profile to estimate for (:meth:`use_machine`). The
page owns the buttons and the drop target.

Signals (of :class:`ResultsTransfer`):
    finished(str): an import or export ended; the sentence shown.
    imported(): something was merged into the history (read it again).
"""

from __future__ import annotations

import socket
from pathlib import Path

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtWidgets import QFileDialog, QLabel

from desktop.core.bundle import SUFFIX, ExportSummary, ImportSummary, export_results, import_bundle
from desktop.core.errors import ScoutError
from desktop.core.history import History
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.models.history_model import ERROR_COLOR
from desktop.ui.state import MACHINE_PREFIX, AppState
from desktop.ui.workers import TaskControl, run_task


def dropped_file(mime: QMimeData) -> Path | None:
    """The one local file being dragged (a results file to import), else None."""
    urls = mime.urls() if mime.hasUrls() else []
    if len(urls) != 1 or not urls[0].isLocalFile():
        return None
    path = Path(urls[0].toLocalFile())
    return path if path.is_file() else None


def default_machine_name() -> str:
    """This machine's name in an exported file: its host name."""
    return socket.gethostname().split(".")[0] or "machine"


class ResultsTransfer(QLabel):
    """Imports and exports results files, and says how it went (see the module docstring)."""

    finished = Signal(str)
    imported = Signal()

    def __init__(self, state: AppState) -> None:
        super().__init__()
        self.state = state
        self.setObjectName("historyTransfer")
        self.setWordWrap(True)
        self.setVisible(False)

    def show_text(self, text: str, *, error: bool = False) -> None:
        self.setText(text)
        self.setStyleSheet(f"color: {ERROR_COLOR};" if error else "")
        self.setVisible(True)

    # -- asking for a file ------------------------------------------------------------------------

    def ask_import_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(
            self.window(),
            self.tr("Import results from another machine"),
            str(Path.home()),
            self.tr("LLM Scout results (*.jsonl);;All files (*)"),
        )
        return Path(path) if path else None

    def ask_export_path(self) -> tuple[Path, str] | None:
        """The file to write and this machine's name in it (its host name)."""
        name = default_machine_name()
        suggested = Path.home() / f"llm-scout-results-{name}{SUFFIX}"
        path, _ = QFileDialog.getSaveFileName(
            self.window(),
            self.tr("Export this history's results"),
            str(suggested),
            self.tr("LLM Scout results (*.jsonl)"),
        )
        return (Path(path), name) if path else None

    # -- the work --------------------------------------------------------------------------------

    def import_file(self, path: Path) -> None:
        self.show_text(self.tr("Importing %1…").replace("%1", path.name))

        def work(control: TaskControl) -> ImportSummary:
            with History.open() as history:
                return import_bundle(history, path)

        run_task(work, on_done=self._on_imported, on_failed=self._on_failed)

    def _on_imported(self, summary: ImportSummary) -> None:
        c = summary.counts
        where = summary.header.machine_name or self.tr("another machine")
        if c.added == 0:
            text = self.tr("Nothing new in %1: everything in it is already here.").replace(
                "%1", summary.path.name
            )
        else:
            text = (
                self.tr(
                    "Imported from %1. Answers: %2; comparisons: %3 (their answers: %4); "
                    "measurements: %5; calibration runs: %6."
                )
                .replace("%1", where)
                .replace("%2", str(c.runs_added))
                .replace("%3", str(c.comparisons_added + c.comparisons_updated))
                .replace("%4", str(c.answers_added))
                .replace("%5", str(c.measurements_added))
                .replace("%6", str(c.calibration_added))
            )
        self.show_text(text)
        if c.added:
            self.imported.emit()
        self.finished.emit(text)

    def export_file(self, path: Path, *, name: str) -> None:
        """Write the history's results to ``path`` (this machine named ``name`` in it); this
        machine's probe and llama.cpp build go with them."""
        profile, engine = self.state.this_machine, self.state.engine
        if profile is None:
            self.show_text(self.tr("This machine is still being probed; try again in a moment."))
            return
        build = None if engine is None else {**engine.to_dict(), "summary": engine.summary()}
        self.show_text(self.tr("Exporting to %1…").replace("%1", path.name))

        def work(control: TaskControl) -> ExportSummary:
            with History.open() as history:
                return export_results(history, path, name=name, profile=profile, llama_cpp=build)

        run_task(work, on_done=self._on_exported, on_failed=self._on_failed)

    def _on_exported(self, summary: ExportSummary) -> None:
        counts = summary.header.counts
        text = (
            self.tr("Wrote %1 (%2) as %6. Answers: %3; comparisons: %4; measurements: %5.")
            .replace("%1", str(summary.path))
            .replace("%2", fmt.size(summary.size_bytes))
            .replace("%3", str(counts.get("runs", 0)))
            .replace("%4", str(counts.get("comparisons", 0)))
            .replace("%5", str(counts.get("measurements", 0)))
            .replace("%6", summary.header.machine_name)
        )
        self.show_text(text)
        self.finished.emit(text)

    def _on_failed(self, error: Exception) -> None:
        title, sentence = describe(error)
        text = f"{title}: {sentence}"
        self.show_text(text, error=True)
        self.finished.emit(text)

    def use_machine(self, key: str) -> None:
        """Make a machine of the history (its key) the profile every page estimates for."""
        try:
            self.state.select_profile(MACHINE_PREFIX + key)
        except ScoutError as exc:
            title, sentence = describe(exc)
            self.show_text(f"{title}: {sentence}", error=True)
            return
        self.show_text(
            self.tr(
                "Estimates now follow %1, calibrated by its own runs: see the Models page."
            ).replace("%1", self.state.profile_name)
        )
