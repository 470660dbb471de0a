"""What the window must tell the person once: a damaged database set aside, a settings file that
could not be used. The core reports these as values (:class:`~desktop.core.storage.StoreNotice`,
:class:`~desktop.core.settings.SettingsProblem`); this words them in the UI language and shows
them in one notice box, a sentence each, never the same one twice while the box is up.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QWidget
from shiboken6 import isValid

from desktop.core.settings import SettingsProblem
from desktop.core.storage import StoreNotice


def store_notice_text(notice: StoreNotice) -> str:
    """One sentence: which database, why, where the damaged file is kept, what happens now."""
    if notice.store == "history":
        if notice.recovered:
            text = QCoreApplication.translate(
                "Notices",
                "The history database was damaged (%1). It was moved to %2, and a new history "
                "was started with the %3 rows that could still be read.",
            )
        else:
            text = QCoreApplication.translate(
                "Notices",
                "The history database was damaged (%1). It was moved to %2, and a new, empty "
                "history was started.",
            )
    elif notice.store == "library":
        text = QCoreApplication.translate(
            "Notices",
            "The library database was damaged (%1). It was moved to %2, and the library is "
            "being rebuilt by a scan of your folders.",
        )
    else:
        text = QCoreApplication.translate(
            "Notices", "A database was damaged (%1). It was moved to %2, and a new one was started."
        )
    return (
        text.replace("%1", notice.reason)
        .replace("%2", str(notice.kept))
        .replace("%3", str(notice.recovered))
    )


def settings_problem_text(problem: SettingsProblem) -> str:
    if problem.kind == "invalid":
        text = QCoreApplication.translate(
            "Notices",
            "The setting %1 in %2 has a value that cannot be used (%3); its default is used.",
        )
        return (
            text.replace("%1", problem.key)
            .replace("%2", str(problem.path))
            .replace("%3", problem.detail)
        )
    if problem.kind == "newer":
        return QCoreApplication.translate(
            "Notices",
            "The settings file %1 was written by a newer version of LLM Scout: the settings this "
            "version knows are used, and the file is copied aside before it is first changed.",
        ).replace("%1", str(problem.path))
    if problem.kept is not None:
        text = QCoreApplication.translate(
            "Notices",
            "The settings file could not be read (%1). It was moved to %2, and the defaults are "
            "used.",
        )
        return text.replace("%1", problem.detail).replace("%2", str(problem.kept))
    text = QCoreApplication.translate(
        "Notices", "The settings file %1 could not be read (%2); the defaults are used."
    )
    return text.replace("%1", str(problem.path)).replace("%2", problem.detail)


class NoticeBox:
    """One non-modal box on ``parent``; sentences told while it is open are added to it."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent
        self._box: QMessageBox | None = None
        self._told: list[str] = []

    @property
    def box(self) -> QMessageBox | None:
        box = self._box
        return box if box is not None and isValid(box) and box.isVisible() else None

    def tell(self, text: str) -> None:
        box = self.box
        if box is None:
            self._told = []
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                QCoreApplication.translate("Notices", "LLM Scout"),
                "",
                QMessageBox.StandardButton.Ok,
                self._parent,
            )
            box.setObjectName("noticeBox")
            box.setTextFormat(Qt.TextFormat.PlainText)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self._box = box
            box.open()
        if text in self._told:
            return
        self._told.append(text)
        box.setText("\n\n".join(self._told))
