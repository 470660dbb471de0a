"""The Hardware page's Calibration card: what this machine's estimates learned from its own runs
(the figures, the newest runs and why a run does not count), with Undo last run and Reset.

It shows a :class:`~desktop.core.fit.CalibrationReview`, the same one ``llm-scout calibration``
prints; taking runs back is the page's (it calls the core and tells the state).
"""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from desktop.core.fit import CalibrationReview, MachineCalibration, ReviewedRun
from desktop.ui import format as fmt
from desktop.ui.widgets.card import Card

SHOWN_RUNS = 5


class CalibrationCard(Card):
    """Signals:
    undo_requested(): Undo last run was clicked.
    reset_requested(): Reset… was clicked (the page asks to confirm).
    """

    undo_requested = Signal()
    reset_requested = Signal()

    def __init__(
        self, review: CalibrationReview | None, carried: MachineCalibration | None = None
    ) -> None:
        super().__init__(QCoreApplication.translate("CalibrationCard", "Calibration"))
        self.setObjectName("calibrationCard")
        self.runs_label: QLabel | None = None
        self.undo_button: QPushButton | None = None
        self.reset_button: QPushButton | None = None
        if review is None:
            self._carried(carried)
            return
        cal = review.calibration
        self._figures(cal)
        n = len(review.runs)
        counted = n - review.left_out
        self.runs_label = QLabel(
            self.tr("none yet: every answer and benchmark records one")
            if not n
            else self.tr("%1 stored: %2 count, %3 left out")
            .replace("%1", str(n))
            .replace("%2", str(counted))
            .replace("%3", str(review.left_out))
        )
        self.runs_label.setObjectName("calibrationRuns")
        self.add_row(
            self.tr("Runs"),
            self.runs_label,
            self.tr(
                "Runs made while other programs used the CPU never count: they say how busy "
                "the machine was, not how fast the model runs."
            ),
        )
        for run in review.runs[:SHOWN_RUNS]:
            line = QLabel(self.run_text(run))
            line.setObjectName("calibrationRun")
            line.setWordWrap(True)
            self.add_widget(line)
        buttons = QWidget()
        row = QHBoxLayout(buttons)
        row.setContentsMargins(0, 4, 0, 0)
        self.undo_button = QPushButton(self.tr("Undo last run"))
        self.undo_button.setObjectName("undoCalibrationButton")
        self.undo_button.setToolTip(
            self.tr("Forget the newest run (for example one made while the machine was busy).")
        )
        self.undo_button.setEnabled(bool(n))
        self.undo_button.clicked.connect(self.undo_requested)
        self.reset_button = QPushButton(self.tr("Reset…"))
        self.reset_button.setObjectName("resetCalibrationButton")
        self.reset_button.setToolTip(
            self.tr("Forget every run of this machine; the estimates go back to the raw model.")
        )
        self.reset_button.setEnabled(bool(n))
        self.reset_button.clicked.connect(self.reset_requested)
        row.addWidget(self.undo_button)
        row.addWidget(self.reset_button)
        row.addStretch(1)
        self.add_widget(buttons)

    def _figures(self, cal: MachineCalibration) -> None:
        self.add_row(
            self.tr("Speed on the CPU"),
            self.factor_text(cal.cpu_speed_factor, cal.cpu_speed_runs),
            self.tr("Measured generation speed against the model's estimate, on the CPU."),
        )
        if cal.gpu_speed_runs:
            self.add_row(
                self.tr("Speed on the GPU"),
                self.factor_text(cal.gpu_speed_factor, cal.gpu_speed_runs),
            )
        if cal.ram_offset_bytes is None:
            ram = self.tr("not yet (%1 of 2 runs)").replace("%1", str(cal.ram_runs))
        else:
            sign = "+" if cal.ram_offset_bytes >= 0 else "−"
            ram = (
                self.tr("%1 against the estimate, from %2 runs")
                .replace("%1", sign + fmt.size(abs(cal.ram_offset_bytes)))
                .replace("%2", str(cal.ram_runs))
            )
        self.add_row(self.tr("RAM"), ram)

    def _carried(self, carried: MachineCalibration | None) -> None:
        if carried is None or not carried.applies:
            self.add_row(self.tr("Runs"), self.tr("none: this profile carries no calibration"))
            return
        self._figures(carried)
        self.add_row(
            self.tr("Runs"),
            self.tr("%1 runs of that machine, carried in its profile").replace(
                "%1", str(carried.runs)
            ),
        )

    def factor_text(self, factor: float | None, runs: int) -> str:
        if factor is None:
            return self.tr("not yet (%1 of 2 runs)").replace("%1", str(runs))
        return (
            self.tr("×%1 the estimate, from %2 runs")
            .replace("%1", fmt.number(factor, 2))
            .replace("%2", str(runs))
        )

    def run_text(self, run: ReviewedRun) -> str:
        entry = run.entry
        when = dt.datetime.fromtimestamp(entry.time).strftime("%m-%d %H:%M")
        speed = (
            self.tr("%1 t/s").replace("%1", fmt.number(entry.measured_tokens_per_s, 1))
            if entry.measured_tokens_per_s
            else "-"
        )
        head = f"{when} · {entry.model} · {speed}"
        if run.memory_only:
            return head + " · " + self.tr("memory only") + " · " + self.left_out_text(run)
        if run.counted:
            return head + " · " + self.tr("counts")
        return head + " · " + self.left_out_text(run)

    def left_out_text(self, run: ReviewedRun) -> str:
        entry = run.entry
        kind = run.left_out_kind
        if kind == "busy":
            if entry.others_cpus is not None:
                return self.tr("speed left out: other programs used %1 CPUs meanwhile").replace(
                    "%1", fmt.number(entry.others_cpus, 1)
                )
            return self.tr("speed left out: the machine was busy")
        texts = {
            "partial": self.tr("left out: part on the GPU, part on the CPU"),
            "short": self.tr("left out: too short to say"),
            "no_speed": self.tr("left out: no speed measured"),
            "implausible": self.tr("left out: implausible speed"),
            "old": self.tr("left out: older than the newest runs"),
            "outlier": self.tr("left out: far from the other runs"),
        }
        return texts.get(kind or "", self.tr("left out"))
