"""The detail of a stored answer or comparison: prompt, output, predicted vs measured, settings,
the quality measured for its model(s) and the machine it ran on.

A read-only :class:`QTextBrowser` filled with HTML built here; everything that came from a
person or a model (prompts, answers, names, paths) is escaped, so a model cannot inject markup.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop.core.engine import RunReport
from desktop.core.history import ComparisonRecord, MeasurementRecord, RunRecord
from desktop.core.quality import MeasurementFigures, figures_of
from desktop.ui import format as fmt
from desktop.ui.models.history_model import (
    ERROR_COLOR,
    machine_text,
    run_model_label,
    state_text,
    when_text,
)
from desktop.ui.suite_texts import suite_title
from desktop.ui.widgets.metrics_panel import (
    answer_summary,
    busy_run_text,
    error_text,
    speed_error_text,
)

PROMPTS_SHOWN = 30  # a long suite lists its first prompts only
PROMPT_CHARS = 240
ANSWER_CHARS = 400  # a comparison's answers in full are in the Compare page (Open)


def esc(text: object) -> str:
    return html.escape(str(text))


def heading(text: str) -> str:
    return f"<h4>{esc(text)}</h4>"


def para(text: str) -> str:
    return f"<p>{esc(text)}</p>"


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def block(text: str) -> str:
    """Text as written, line breaks and spaces kept, escaped."""
    return f'<p style="white-space: pre-wrap;">{esc(text)}</p>'


def table(rows: Iterable[Iterable[str]], header: Iterable[str] = ()) -> str:
    """A plain table of already escaped cells."""
    head = "".join(f'<th align="left">{h}</th>' for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        '<table cellspacing="0" cellpadding="3">'
        + (f"<tr>{head}</tr>" if head else "")
        + body
        + "</table>"
    )


class HistoryDetail(QTextBrowser):
    """Shows one answer (:meth:`show_run`) or one comparison (:meth:`show_comparison`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyDetail")
        self.setAccessibleName(self.tr("Details"))
        self.setOpenLinks(False)
        self.setReadOnly(True)
        self.clear_detail()

    def clear_detail(self, text: str | None = None) -> None:
        self.setHtml(para(text or self.tr("Select an answer or a comparison.")))

    # -- an answer --------------------------------------------------------------------------------

    def show_run(
        self,
        run: RunRecord,
        profile: Mapping[str, Any],
        measurements: Sequence[MeasurementRecord] = (),
    ) -> None:
        """An answer; ``measurements``: the quality stored for its model file (any machine)."""
        source = {"playground": self.tr("Playground"), "run": self.tr("llm-scout run")}.get(
            run.source, run.source
        )
        label = run_model_label(run)
        if label == "-":
            label = self.tr("an unknown model")
        parts = [
            f"<h3>{esc(label)}</h3>",
            "<p>"
            + esc(
                " · ".join(
                    x for x in (when_text(run.created_at), source, machine_text(run.machine)) if x
                )
            )
            + "</p>",
        ]
        if run.error:
            parts.append(
                f'<p style="color: {ERROR_COLOR};">'
                + esc(self.tr("Cut off: %1").replace("%1", run.error))
                + "</p>"
            )
        if run.system:
            parts += [heading(self.tr("System prompt")), block(run.system)]
        parts += [heading(self.tr("Prompt")), block(run.prompt)]
        parts += [
            heading(self.tr("Answer")),
            block(run.output or self.tr("(nothing came)")),
        ]
        if run.report is not None:
            parts += [
                heading(self.tr("Predicted vs measured")),
                self._report_html(run.report),
            ]
        parts += [heading(self.tr("Settings")), self._settings_html(run.settings)]
        parts += [heading(self.tr("Model file")), self._model_html(run)]
        if measurements:
            parts += [
                heading(self.tr("Quality measured")),
                self.measurements_html(measurements, with_model=False),
            ]
        parts += [heading(self.tr("Hardware")), self._hardware_html(profile, run.machine)]
        self.setHtml("".join(parts))

    def _report_html(self, report: RunReport) -> str:
        rows = [
            (
                esc(self.tr("RAM (peak RSS)")),
                esc(fmt.size(report.predicted_ram_bytes)),
                esc(fmt.size(report.rss_peak_bytes)),
                esc(error_text(report.ram_error_pct)),
            ),
            (
                esc(self.tr("VRAM (peak)")),
                esc(fmt.size(report.predicted_vram_bytes)),
                esc(fmt.size(report.vram_peak_bytes)),
                esc(error_text(report.vram_error_pct)),
            ),
            (
                esc(self.tr("generation")),
                esc(fmt.rate(report.predicted_tokens_per_s, predicted=True)),
                esc(fmt.rate(report.metrics.tokens_per_s)),
                esc(speed_error_text(report)),
            ),
        ]
        header = ("", esc(self.tr("predicted")), esc(self.tr("measured")), esc(self.tr("error")))
        load = (
            self.tr("load %1").replace("%1", fmt.seconds(report.load_ms / 1000))
            if report.load_ms is not None
            else ""
        )
        summary = " · ".join(x for x in (answer_summary(report), load) if x)
        html_text = table(rows, header) + f"<p>{esc(summary)}</p>"
        if not report.speed_compared:
            html_text += f"<p>{esc(busy_run_text(report))}</p>"
        return html_text

    def _settings_html(self, settings: Mapping[str, Any]) -> str:
        load = settings.get("load") or {}
        sampling = settings.get("sampling") or {}
        words = {
            "n_ctx": self.tr("context"),
            "n_gpu_layers": self.tr("GPU layers"),
            "n_threads": self.tr("threads"),
            "cache_type": self.tr("KV cache"),
            "flash_attn": self.tr("flash attention"),
            "template": self.tr("chat template"),
            "rpc_servers": self.tr("RPC servers"),
            "temperature": self.tr("temperature"),
            "top_p": self.tr("top-p"),
            "top_k": self.tr("top-k"),
            "min_p": self.tr("min-p"),
            "repeat_penalty": self.tr("repeat penalty"),
            "seed": self.tr("seed"),
            "max_tokens": self.tr("max tokens"),
            "stop": self.tr("stop strings"),
            "ignore_eos": self.tr("past the end of text"),
            "predicted_for": self.tr("predicted for"),
            "n_gpu_layers_loaded": self.tr("GPU layers loaded"),
        }

        def value(key: str, v: Any) -> str:
            if key == "n_gpu_layers" and v == -1:
                return self.tr("all")
            if isinstance(v, bool):
                return self.tr("on") if v else self.tr("off")
            if v is None:
                return self.tr("auto") if key in ("n_threads", "template") else "-"
            if isinstance(v, list | tuple):
                return ", ".join(repr(x) for x in v) or "-"
            return str(v)

        rows = []
        for group in (
            load,
            sampling,
            {k: v for k, v in settings.items() if k not in ("load", "sampling")},
        ):
            if not isinstance(group, Mapping):
                continue
            for key, v in group.items():
                if isinstance(v, Mapping):
                    continue
                rows.append((esc(words.get(key, key)), esc(value(key, v))))
        return table(rows) if rows else para(self.tr("No settings stored."))

    def _model_html(self, run: RunRecord) -> str:
        model = run.model
        remote = run.remote
        if remote is not None:
            return table(
                [
                    (esc(self.tr("server")), esc(remote.get("endpoint", "-"))),
                    (esc(self.tr("model")), esc(remote.get("model", "-"))),
                ]
            )
        if model is None:
            return para(self.tr("Not stored."))
        rows = [
            (esc(self.tr("file")), esc(model.path)),
            (esc(self.tr("size")), esc(fmt.size(model.size_bytes))),
            (esc(self.tr("sha256")), esc(model.sha256 or self.tr("not computed yet"))),
        ]
        return table(rows)

    def _hardware_html(self, profile: Mapping[str, Any], machine: str) -> str:
        if not profile:
            return para(machine_text(machine) if machine else self.tr("Not stored."))
        rows: list[tuple[str, str]] = []
        cpu = profile.get("cpu") or {}
        if cpu:
            cores = (
                self.tr("%1 cores, %2 threads")
                .replace("%1", str(cpu.get("physical_cores") or "?"))
                .replace("%2", str(cpu.get("logical_cores") or "?"))
            )
            rows.append((esc(self.tr("CPU")), esc(f"{cpu.get('brand') or '-'} · {cores}")))
        memory = profile.get("memory") or {}
        if memory:
            rows.append((esc(self.tr("RAM")), esc(fmt.size(memory.get("total_bytes")))))
        for gpu in profile.get("gpus") or []:
            rows.append(
                (
                    esc(self.tr("GPU")),
                    esc(f"{gpu.get('name') or '-'} · {fmt.size(gpu.get('memory_total_bytes'))}"),
                )
            )
        if profile.get("os"):
            rows.append((esc(self.tr("system")), esc(profile["os"])))
        return table(rows)

    # -- quality measurements ----------------------------------------------------------------

    def measurements_html(
        self, measurements: Sequence[MeasurementRecord], *, with_model: bool
    ) -> str:
        """One row per stored measurement, newest first: what it is, its figure and 95%
        interval, what it was measured against, on how many tokens or questions, where and
        when (the figures :func:`~desktop.core.quality.figures_of` gives ``history list``)."""
        rows = []
        for m in measurements:
            f = figures_of(m)
            row = [esc(m.model.label if m.model is not None else "-")] if with_model else []
            # Two lines a cell: the detail pane is narrow.
            row += [
                esc(
                    self.tr("multiple choice") if f.choice else self.tr("loss against a reference")
                ),
                esc(self.figure_text(f)) + "<br>" + esc(self.interval_text(f)),
                esc(f.against) + "<br>" + esc(self.count_text(f)),
                esc(machine_text(m.machine)) + "<br>" + esc(when_text(m.created_at)),
            ]
            rows.append(row)
        header = [esc(self.tr("model"))] if with_model else []
        header += [
            esc(self.tr("measure")),
            esc(self.tr("figure")) + "<br>" + esc(self.tr("95% interval")),
            esc(self.tr("reference or questions")) + "<br>" + esc(self.tr("tokens or questions")),
            esc(self.tr("machine")) + "<br>" + esc(self.tr("date")),
        ]
        return table(rows, header)

    def _number(self, f: MeasurementFigures, x: float) -> str:
        if f.percent:
            return fmt.number(x * 100, f.decimals) + " %"
        return fmt.number(x, f.decimals)

    def figure_text(self, f: MeasurementFigures) -> str:
        """``accuracy 62.0 %`` or ``KLD 0.01234`` (the CLI's figure, in the UI's locale)."""
        if f.value is None:
            return "-"
        name = self.tr("accuracy") if f.choice else self.tr("KLD")
        return f"{name} {self._number(f, f.value)}"

    def interval_text(self, f: MeasurementFigures) -> str:
        if f.interval is None:
            return "-"
        return f"{self._number(f, f.interval[0])} – {self._number(f, f.interval[1])}"

    def count_text(self, f: MeasurementFigures) -> str:
        if f.count is None:
            return "-"
        text = (self.tr("%1 questions") if f.choice else self.tr("%1 tokens")).replace(
            "%1", fmt.integer(f.count)
        )
        return text if f.complete else text + " " + self.tr("(stopped early)")

    # -- a comparison -----------------------------------------------------------------------------

    def show_comparison(
        self, record: ComparisonRecord, measurements: Sequence[MeasurementRecord] = ()
    ) -> None:
        """A comparison; ``measurements``: the quality stored for its contestants' files."""
        summary = record.summary
        mode = {"fair": self.tr("fair"), "parallel": self.tr("parallel")}.get(
            summary.mode, summary.mode
        )
        facts = [
            when_text(summary.created_at),
            self.tr("mode: %1").replace("%1", mode),
            state_text(summary),
            self.tr("%1/%2 answers")
            .replace("%1", str(summary.n_answers))
            .replace("%2", str(summary.n_expected)),
        ]
        if summary.suite:
            suite = suite_title(summary.suite)
            facts.insert(2, self.tr("suite: %1").replace("%1", suite))
        if record.blind_order:
            facts.append(self.tr("blind"))
        if summary.machine:
            facts.append(machine_text(summary.machine))
        parts = [f"<h3>{esc(summary.title)}</h3>", f"<p>{esc(' · '.join(facts))}</p>"]
        if not summary.complete:
            parts.append(
                "<p>"
                + esc(self.tr("Some answers are missing: Open shows it and can resume it."))
                + "</p>"
            )
        parts += [heading(self.tr("Contestants")), self._contestants_html(record)]
        if record.votes:
            parts.append(
                "<p>"
                + esc(self.tr("%1 blind votes").replace("%1", str(len(record.votes))))
                + "</p>"
            )
        if measurements:
            parts += [
                heading(self.tr("Quality measured")),
                self.measurements_html(measurements, with_model=True),
            ]
        parts += [heading(self.tr("Prompts")), self._prompts_html(record)]
        parts += [
            heading(self.tr("Hardware")),
            self._hardware_html(record.profile, summary.machine),
        ]
        self.setHtml("".join(parts))

    def _contestants_html(self, record: ComparisonRecord) -> str:
        # A comparison still stored as running is one whose process ended mid-run (the list
        # says "interrupted"): its running column was interrupted, a waiting one never ran.
        interrupted = record.summary.state == "running"
        statuses = {
            "pending": self.tr("not run") if interrupted else self.tr("waiting"),
            "running": self.tr("interrupted") if interrupted else self.tr("running"),
            "done": self.tr("done"),
            "failed": self.tr("failed"),
            "cancelled": self.tr("cancelled"),
        }
        rows = []
        for c in record.contestants:
            runs = [r for r in record.runs if r.contestant_index == c.index]
            reports = [r.report for r in runs if r.report is not None]
            rates = [r.metrics.tokens_per_s for r in reports if r.metrics.tokens_per_s]
            ttfts = [r.metrics.ttft_ms for r in reports if r.metrics.ttft_ms is not None]
            peaks = [r.rss_peak_bytes for r in reports if r.rss_peak_bytes]
            checks = [r for r in runs if r.checks_total]
            status = statuses.get(c.status, c.status)
            if c.reason:
                status += ": " + c.reason
            rows.append(
                (
                    esc(c.name),
                    f'<span style="color: {ERROR_COLOR};">{esc(status)}</span>'
                    if c.status == "failed"
                    else esc(status),
                    esc(str(len(runs))),
                    esc(fmt.rate(fmean(rates)) if rates else "-"),
                    esc(fmt.seconds(fmean(ttfts) / 1000) if ttfts else "-"),
                    esc(fmt.size(max(peaks)) if peaks else "-"),
                    esc(
                        f"{sum(r.checks_passed or 0 for r in checks)}/"
                        f"{sum(r.checks_total or 0 for r in checks)}"
                        if checks
                        else "-"
                    ),
                )
            )
        header = (
            esc(self.tr("contestant")),
            esc(self.tr("status")),
            esc(self.tr("answers")),
            esc(self.tr("generation")),
            esc(self.tr("TTFT")),
            esc(self.tr("peak RAM")),
            esc(self.tr("checks")),
        )
        return table(rows, header)

    def _prompts_html(self, record: ComparisonRecord) -> str:
        items = []
        for q in record.prompts[:PROMPTS_SHOWN]:
            rows = []
            for c in record.contestants:
                run = record.run_for(c.index, q.index)
                if run is None:
                    answer = esc(self.tr("(no answer yet)"))
                elif not run.ok:
                    answer = f'<span style="color: {ERROR_COLOR};">{esc(run.error)}</span>'
                else:
                    answer = esc(shorten(run.output, ANSWER_CHARS))
                rows.append((esc(c.name), answer))
            items.append(f"<li>{esc(shorten(q.text, PROMPT_CHARS))}{table(rows)}</li>")
        more = len(record.prompts) - PROMPTS_SHOWN
        tail = (
            "<p>" + esc(self.tr("and %1 more").replace("%1", str(more))) + "</p>"
            if more > 0
            else ""
        )
        return "<ol>" + "".join(items) + "</ol>" + tail
