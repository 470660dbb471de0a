"""Errors as a person sees them: a translated title for the kind and the core's one sentence.

Expected failures (a bad profile file, an unreadable GGUF, a failed download) arrive as
:class:`~desktop.core.errors.ScoutError` and are shown with :func:`show_error` or in place (a
row's state, a page's banner). Anything unexpected goes to the log file; :func:`install_excepthook`
then shows one dialog that offers to open the log, and the app keeps running.
"""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from desktop.core import paths
from desktop.core.errors import ScoutError
from desktop.core.logs import LOG_FILE
from desktop.ui.error_sentences import sentence_text
from desktop.ui.error_texts import kind_titles

log = logging.getLogger(__name__)


_titles_cache: tuple[str, dict[str, str]] | None = None


def _titles() -> dict[str, str]:
    """:func:`kind_titles`, built once per language (a hundred translations: a table of
    problem rows asked for them once per cell)."""
    global _titles_cache  # noqa: PLW0603  # one cache per process and language
    language = QCoreApplication.translate("ErrorKinds", "Something went wrong")
    if _titles_cache is None or _titles_cache[0] != language:
        _titles_cache = (language, kind_titles())
    return _titles_cache[1]


def title_for(kind: str) -> str:
    """The translated title of an error kind (its family's, else a generic one)."""
    titles = _titles()
    while kind:
        if kind in titles:
            return titles[kind]
        kind = kind.rpartition(".")[0]
    return titles["error"]


def describe(error: BaseException) -> tuple[str, str]:
    """(title, sentence) for any error: a ScoutError's own (its sentence translated where the
    core gave it as a :class:`~desktop.core.errors.Sentence`), else a generic pair."""
    if isinstance(error, ScoutError):
        return title_for(error.kind), sentence_text(error)
    return title_for("error"), QCoreApplication.translate(
        "Errors", "An unexpected error happened; the log file has the details."
    )


def show_error(parent: QWidget | None, error: BaseException) -> None:
    """One sentence in a message box (never a traceback)."""
    title, message = describe(error)
    box = QMessageBox(
        QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent
    )
    box.setObjectName("errorBox")
    box.open()


def log_path() -> str:
    return str(paths.log_dir() / LOG_FILE)


class _Guard:
    showing = False  # one dialog at a time, however many errors follow


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    app = QApplication.instance()
    if issubclass(kind, KeyboardInterrupt):
        # Ctrl+C that reached Python code inside a slot: quit as the close button does.
        log.info("Quitting on Ctrl+C")
        if app is not None:
            app.quit()
        return
    log.error("Unexpected error:\n%s", "".join(traceback.format_exception(kind, error, tb)))
    if app is None or _Guard.showing or not isinstance(app, QApplication):
        return
    _Guard.showing = True
    try:
        box = QMessageBox(app.activeWindow())
        box.setObjectName("unexpectedErrorBox")
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle(QCoreApplication.translate("Errors", "Something went wrong"))
        box.setText(
            QCoreApplication.translate(
                "Errors",
                "LLM Scout hit an unexpected error and wrote the details to its log file. "
                "The app keeps running.",
            )
        )
        open_log = box.addButton(
            QCoreApplication.translate("Errors", "Open log file"), QMessageBox.ButtonRole.ActionRole
        )
        box.addButton(QMessageBox.StandardButton.Close)
        box.exec()
        if box.clickedButton() is open_log:
            QDesktopServices.openUrl(QUrl.fromLocalFile(log_path()))
    finally:
        _Guard.showing = False


def install_excepthook() -> None:
    """Unexpected exceptions in slots go to the log with a dialog, not to a dead window."""
    sys.excepthook = _excepthook
