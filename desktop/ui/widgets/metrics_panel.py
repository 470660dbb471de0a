"""Predicted next to measured after an answer: memory and speed, with the error in percent.

The figures are a :class:`~desktop.core.engine.RunReport` — the same numbers as
``llm-scout run --json`` (:meth:`RunReport.to_dict`), defined once in the engine's metrics
module: RAM is the worker's peak RSS from the end of the load to the end of the answer (split
into private and file-backed pages), VRAM its own peak on NVIDIA, speed the generation tokens/s.
The error is ``(predicted - measured) / measured``: positive when the estimate was high.

An answer from a server (``memory_source`` other than ``process``) has no prediction, its memory
is "unknown" unless the server exposed it (never 0), and a line says where its speed came from:
measured on this client (network included) or the server's own timings.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from desktop.core.engine import RunReport
from desktop.ui import format as fmt


def finish_text(reason: str | None) -> str:
    """Why an answer stopped, in words."""
    texts = {
        "stop": QCoreApplication.translate("Metrics", "the model ended its answer"),
        "length": QCoreApplication.translate("Metrics", "max tokens reached"),
        "context": QCoreApplication.translate("Metrics", "the context is full"),
        "cancelled": QCoreApplication.translate("Metrics", "stopped"),
        "crashed": QCoreApplication.translate("Metrics", "the engine stopped"),
    }
    return texts.get(reason or "", reason or "-")


def error_text(percent: float | None) -> str:
    """``+1.7%`` / ``−3.0%``; ``-`` when either side is unknown."""
    if percent is None:
        return "-"
    sign = "+" if percent >= 0 else "−"
    return sign + fmt.number(abs(percent), 1) + "%"


def speed_error_text(report: RunReport) -> str:
    """The speed row's error cell: :func:`error_text`, or words when the run was made while the
    machine was busy (:attr:`RunReport.speed_compared`: the percent would measure the load)."""
    if not report.speed_compared:
        return QCoreApplication.translate("MetricsPanel", "machine busy: not compared")
    return error_text(report.speed_error_pct)


def busy_run_text(report: RunReport) -> str:
    """Why a run's speed is not compared with the prediction (a run made while the machine was
    busy, :attr:`RunReport.speed_compared` False), in the UI's language."""
    cpu = report.cpu
    kind = cpu.busy_kind(report.cpu_bound) if cpu is not None else None
    if kind == "others" and cpu is not None:
        return (
            QCoreApplication.translate(
                "MetricsPanel",
                "The machine was busy: other programs used %1 of the %2 CPUs during the "
                "answer, so its speed is not compared with the prediction and does not "
                "calibrate the estimates.",
            )
            .replace("%1", fmt.number(cpu.others_cpus, 1))
            .replace("%2", str(cpu.usable_cpus))
        )
    share = cpu.thread_share if cpu is not None else None
    return QCoreApplication.translate(
        "MetricsPanel",
        "The machine was busy: llama.cpp's threads got only %1 of the CPU time they could "
        "use, so its speed is not compared with the prediction and does not calibrate the "
        "estimates.",
    ).replace("%1", f"{fmt.number((share or 0.0) * 100)}%")


def slow_run_text(report: RunReport) -> str | None:
    """The core's slow-generation warning (:meth:`RunReport.slow_run`) in the UI's language."""
    slow = report.slow_run()
    if slow is None:
        return None
    share = (
        QCoreApplication.translate("MetricsPanel", "under 1%")
        if slow.share_text == "under 1%"
        else f"{fmt.number(slow.share * 100)}%"
    )
    cpu = slow.cpu
    if slow.busy == "others" and cpu is not None:
        return (
            QCoreApplication.translate(
                "MetricsPanel",
                "Generation ran at %1 of the predicted speed: other programs used %2 of the "
                "%3 CPUs during the answer, so this run does not calibrate the estimates.",
            )
            .replace("%1", share)
            .replace("%2", fmt.number(cpu.others_cpus, 1))
            .replace("%3", str(cpu.usable_cpus))
        )
    if slow.busy == "starved" and cpu is not None:
        return (
            QCoreApplication.translate(
                "MetricsPanel",
                "Generation ran at %1 of the predicted speed: llama.cpp's threads got only %2 "
                "of the CPU time they could use, so this run does not calibrate the estimates.",
            )
            .replace("%1", share)
            .replace("%2", f"{fmt.number((cpu.thread_share or 0.0) * 100)}%")
        )
    if slow.n_threads is None:
        return QCoreApplication.translate(
            "MetricsPanel",
            "Generation ran at %1 of the predicted speed: other programs may be using the CPU "
            "or GPU, the machine may be throttling (heat, power saving), or the run used fewer "
            "threads than the machine has cores.",
        ).replace("%1", share)
    return (
        QCoreApplication.translate(
            "MetricsPanel",
            "Generation ran at %1 of the predicted speed: other programs may be using the CPU "
            "or GPU, the machine may be throttling (heat, power saving), or the run used fewer "
            "threads than the machine has cores (%2 threads).",
        )
        .replace("%1", share)
        .replace("%2", str(slow.n_threads))
    )


def answer_summary(report: RunReport) -> str:
    """TTFT 142 ms · prompt 512 t @ 1,830 t/s · 256 t @ 58.2 t/s · stop: length."""
    m = report.metrics
    parts = [
        QCoreApplication.translate("Metrics", "TTFT %1").replace(
            "%1", fmt.seconds(None if m.ttft_ms is None else m.ttft_ms / 1000)
        ),
        QCoreApplication.translate("Metrics", "prompt %1 t @ %2")
        .replace("%1", fmt.integer(m.prompt_tokens))
        .replace("%2", fmt.rate(m.prompt_tokens_per_s)),
        QCoreApplication.translate("Metrics", "%1 t @ %2")
        .replace("%1", fmt.integer(m.generated_tokens))
        .replace("%2", fmt.rate(m.tokens_per_s)),
        QCoreApplication.translate("Metrics", "stop: %1").replace(
            "%1", finish_text(report.finish_reason)
        ),
    ]
    return " · ".join(parts)


class MetricsPanel(QFrame):
    """A small table: RAM, VRAM and speed, predicted / measured / error, and the answer's
    timings under it. ``report_dict`` is the last report as ``run --json`` prints it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("metricsPanel")
        self.setAccessibleName(self.tr("Predicted and measured"))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.report_dict: dict[str, Any] | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.setSpacing(4)
        title = QLabel(self.tr("Last answer: predicted vs measured"))
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        outer.addWidget(title)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(2)
        headers = ("", self.tr("predicted"), self.tr("measured"), self.tr("error"))
        for column, text in enumerate(headers):
            label = QLabel(text)
            label.setEnabled(False)
            if column:
                label.setAlignment(Qt.AlignmentFlag.AlignRight)
            grid.addWidget(label, 0, column)
        self.cells: dict[str, tuple[QLabel, QLabel, QLabel]] = {}
        rows = (
            ("ram", self.tr("RAM (peak RSS)")),
            ("private", self.tr("  private")),
            ("file", self.tr("  file-backed")),
            ("vram", self.tr("VRAM (peak)")),
            ("speed", self.tr("generation")),
        )
        for row, (key, text) in enumerate(rows, start=1):
            grid.addWidget(QLabel(text), row, 0)
            cells = []
            for column, part in enumerate(("Predicted", "Measured", "Error"), start=1):
                cell = QLabel("-")
                cell.setObjectName(f"{key}{part}")
                cell.setAlignment(Qt.AlignmentFlag.AlignRight)
                cell.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                grid.addWidget(cell, row, column)
                cells.append(cell)
            self.cells[key] = (cells[0], cells[1], cells[2])
        grid.setColumnStretch(0, 1)
        outer.addLayout(grid)
        self.summary = QLabel(self.tr("Ask something to measure an answer."))
        self.summary.setObjectName("answerSummary")
        self.summary.setWordWrap(True)
        outer.addWidget(self.summary)
        self.sources = QLabel()
        self.sources.setObjectName("measureSources")
        self.sources.setWordWrap(True)
        self.sources.setVisible(False)
        outer.addWidget(self.sources)
        self.warning = QLabel()
        self.warning.setObjectName("speedWarning")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #c0392b;")
        self.warning.setVisible(False)
        outer.addWidget(self.warning)
        self.calibration_label = QLabel(
            self.tr(
                "Each finished answer also calibrates the estimates for this machine (from the "
                "second one on; llm-scout fit --uncalibrated shows the raw model)."
            )
        )
        self.calibration_label.setObjectName("calibrationNote")
        self.calibration_label.setWordWrap(True)
        self.calibration_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        outer.addWidget(self.calibration_label)

    def _set(self, key: str, predicted: str, measured: str, error: str) -> None:
        for cell, text in zip(self.cells[key], (predicted, measured, error), strict=True):
            cell.setText(text)

    def show_report(self, report: RunReport) -> None:
        """Fill the table from one finished (or stopped) answer."""
        self.report_dict = report.to_dict()
        if report.memory_source != "process":
            self._show_remote(report)
            return
        self.sources.setVisible(False)
        self.calibration_label.setVisible(True)
        m = report.metrics
        self._set(
            "ram",
            fmt.size(report.predicted_ram_bytes),
            fmt.size(report.rss_peak_bytes),
            error_text(report.ram_error_pct),
        )
        self._set("private", "", fmt.size(report.private_peak_bytes), "")
        self._set("file", "", fmt.size(report.file_peak_bytes), "")
        self._set(
            "vram",
            fmt.size(report.predicted_vram_bytes),
            fmt.size(report.vram_peak_bytes) if report.vram_peak_bytes is not None else "-",
            error_text(report.vram_error_pct),
        )
        self._set(
            "speed",
            fmt.rate(report.predicted_tokens_per_s, predicted=True),
            fmt.rate(m.tokens_per_s),
            speed_error_text(report),
        )
        self.summary.setText(answer_summary(report))
        warning = slow_run_text(report)
        self.warning.setText(warning or "")
        self.warning.setVisible(bool(warning))

    def _show_remote(self, report: RunReport) -> None:
        """A server's answer: what it measured here, what the server said, and no prediction."""
        unknown = self.tr("unknown")
        vram = report.server_vram_bytes
        self._set("ram", "-", unknown, "-")
        self._set("private", "", "", "")
        self._set("file", "", "", "")
        self._set("vram", "-", fmt.size(vram) if vram is not None else unknown, "-")
        self._set("speed", "-", fmt.rate(report.metrics.tokens_per_s), "-")
        if report.timing_source == "server":
            timing = self.tr("speed: the server's own timings")
        else:
            timing = self.tr("speed measured on this client (network included)")
        if report.memory_source == "server":
            memory = self.tr("memory: as the server reports it")
            if report.kv_cache_usage_pct is not None:
                memory += " · " + self.tr("KV cache %1% used").replace(
                    "%1", fmt.number(report.kv_cache_usage_pct)
                )
        else:
            memory = self.tr("memory unknown: the server does not expose it")
        self.sources.setText(" · ".join((self.tr("no prediction: remote"), timing, memory)))
        self.sources.setVisible(True)
        self.summary.setText(answer_summary(report))
        self.warning.setVisible(False)
        self.calibration_label.setVisible(False)  # a server's speed says nothing about here

    def clear_report(self) -> None:
        self.report_dict = None
        for key in self.cells:
            self._set(key, "-", "-", "-")
        self.summary.setText(self.tr("Ask something to measure an answer."))
        self.warning.setVisible(False)
        self.sources.setVisible(False)
