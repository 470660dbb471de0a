"""Compare's banner: one sentence about what cannot be done, with the numbers where they help.

A comparison that cannot start says why at the top of the page (a setting, a model not found, a
suite without prompts) and stays set up; parallel mode refused by the fit says how much memory
the models need together against what the active profile has (:meth:`CompareBanner.
refusal_text`). The banner can be dismissed; the next problem shows it again.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from desktop.core.compare import ParallelCheck
from desktop.core.errors import ScoutError
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.theme import icon

log = logging.getLogger(__name__)

BANNER_STYLE = (
    "QFrame#compareBanner { background: rgba(192, 57, 43, 0.10); "
    "border: 1px solid rgba(192, 57, 43, 0.55); border-radius: 4px; }"
)


class CompareBanner(QFrame):
    """The page's problem banner (see the module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareBanner")
        self.setStyleSheet(BANNER_STYLE)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel()
        self.label.setObjectName("compareBannerText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setIcon(icon("remove"))
        close.setAutoRaise(True)
        close.setAccessibleName(self.tr("Dismiss"))
        close.clicked.connect(self.hide)
        row.addWidget(self.label, 1)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.setVisible(False)

    def show_text(self, text: str) -> None:
        self.label.setText(text)
        self.setVisible(True)

    def show_problem(self, error: Exception) -> None:
        """A problem in one sentence: the error's title and the core's sentence."""
        if not isinstance(error, ScoutError):
            log.error("Compare page: unexpected error", exc_info=error)
        title, sentence = describe(error)
        self.show_text(f"{title}: {sentence}")

    def refusal_text(self, check: ParallelCheck, where: str) -> str:
        """Why parallel mode is refused on ``where`` (a profile's name), with the numbers."""
        if check.problems:
            reasons = " ".join(check.problems)
        else:
            pool = self.tr("memory") if check.unified else self.tr("RAM")
            reasons = (
                self.tr(
                    "together the models need %1 of %2; %3 is available, %4 after the safety margin"
                )
                .replace("%1", fmt.size(check.ram_needed))
                .replace("%2", pool)
                .replace("%3", fmt.size(check.ram_available))
                .replace("%4", fmt.size(check.ram_usable))
            )
            for g, (need, free) in enumerate(zip(check.vram_needed, check.vram_free, strict=False)):
                if need:
                    reasons += "; " + (
                        self.tr("GPU %1 needs %2 of VRAM, %3 is free")
                        .replace("%1", str(g))
                        .replace("%2", fmt.size(need))
                        .replace("%3", fmt.size(free))
                    )
            each = ", ".join(f"{n.name} {fmt.size(n.ram_bytes)}" for n in check.needs)
            reasons += f" ({each})."
        return (
            self.tr(
                "Parallel mode refused on %1: %2 Use fair mode, which runs one model at a time."
            )
            .replace("%1", where)
            .replace("%2", reasons[:1].upper() + reasons[1:])
        )
