"""The Models page's Recommended view: the best picks for a task on the chosen profile and
context, each saying why and linking its sources, and the quality/speed Pareto chart.

A view over :class:`desktop.core.recommend.Recommender`: the page hands it each whole-catalog
estimate (:meth:`RecommendView.set_estimate`, the same rows as the table) and the view ranks
them for the task chosen in "Best for" (a few milliseconds, on the GUI thread). What-if profiles
work the same way: the page's estimate follows the toolbar's profile. Every number comes from
the core's pick: its published scores (with their sources), its quant's cost (cited), the
predicted speed and memory of the fit, or what was measured on this machine (the quality
measurements of the history, labelled "measured here").
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QMouseEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.core.catalog import Catalog
from desktop.core.fit import FitRow
from desktop.core.recommend import (
    DEFAULT_MIN_SPEED,
    TASK_IDS,
    Measure,
    MeasuredQuality,
    Pick,
    QuantCost,
    Recommendation,
    Recommender,
)
from desktop.ui import format as fmt
from desktop.ui.workers import TaskControl, TaskHandle, run_task

if TYPE_CHECKING:  # the chart (and pyqtgraph) is imported when first shown
    from desktop.ui.widgets.pareto_chart import ParetoChart

TOP = 8  # picks shown: the best variant of each of the best models


def short_source(title: str, url: str) -> str:
    """A source's name for a link: its title up to the first comma or bracket."""
    name = title.split(" (", maxsplit=1)[0].split(",", maxsplit=1)[0].strip()
    return name or url


class PickCard(QFrame):
    """One pick: its place among the best models, model and quant, quality, speed, memory,
    verdict; why, with links to its sources (the variant's rank among all variants is in its
    tooltip and in ``recommend --json``).

    Signals:
        clicked(str): the card (not one of its links) was clicked; the variant id.
    """

    clicked = Signal(str)

    def __init__(self, pick: Pick, position: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pick = pick
        self.position = position  # 1 for the best model, 2 for the next ...
        self.setObjectName("pickCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        self.title = QLabel(self._title_html())
        self.title.setObjectName("pickTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.facts = QLabel(self._facts_text())
        self.facts.setObjectName("pickFacts")
        self.facts.setWordWrap(True)
        layout.addWidget(self.facts)
        self.why = QLabel(self._why_html())
        self.why.setObjectName("pickWhy")
        self.why.setTextFormat(Qt.TextFormat.RichText)
        self.why.setWordWrap(True)
        self.why.setOpenExternalLinks(True)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        layout.addWidget(self.why)
        self.setToolTip(
            self.tr("%1: rank %2 of all the variants that fit")
            .replace("%1", pick.variant_id)
            .replace("%2", fmt.integer(pick.rank))
        )

    def _title_html(self) -> str:
        pick = self.pick
        text = self.tr("%1. %2 · %3").replace("%1", fmt.integer(self.position))
        text = text.replace("%2", pick.model.name).replace("%3", pick.variant.quant)
        front = ""
        if pick.pareto:
            front = (
                ' <span style="color:#2f6fd0">◆ ' + html.escape(self.tr("on the front")) + "</span>"
            )
        return f"<b>{html.escape(text)}</b>{front}"

    def _facts_text(self) -> str:
        pick = self.pick
        quality = (
            self.tr("no published score")
            if pick.quality is None
            else self.tr("quality %1").replace("%1", fmt.number(pick.quality, 1))
        )
        parts = [
            quality,
            fmt.rate(pick.tokens_per_s, predicted=True),
            fmt.size(pick.memory_bytes),
            fmt.verdict_word(pick.fit),
        ]
        if pick.measured_label:
            parts.append(self.tr("measured here"))
        return " · ".join(parts)

    def _why_html(self) -> str:
        pick = self.pick
        lines = []
        links: dict[str, str] = {}
        score = pick.task_score
        if score is None:
            lines.append(html.escape(self.tr("No published score for this task.")))
        else:
            for e in score.evidence:
                text = self.tr("%1 %2: beats %3% of %4 other models").replace("%1", e.measure.label)
                text = text.replace("%2", fmt.number(e.record.score, 1))
                text = text.replace("%3", fmt.number(e.percentile, 0))
                text = text.replace("%4", fmt.integer(e.others))
                notes = []
                if e.record.thinking:
                    notes.append(self.tr("thinking on"))
                if e.measured_here:
                    notes.append(self.tr("measured here"))
                if not e.record.self_reported and not e.measured_here:
                    notes.append(self.tr("independent"))
                if notes:
                    text += " (" + ", ".join(notes) + ")"
                lines.append(html.escape(text))
                if e.record.source:
                    links.setdefault(
                        e.record.source, short_source(e.record.source_title, e.record.source)
                    )
        if pick.cost is not None:
            lines.append(html.escape(self.cost_text(pick.cost)))
            if pick.cost.source:
                links.setdefault(
                    pick.cost.source, short_source(pick.cost.source_title, pick.cost.source)
                )
        if links:
            anchors = " · ".join(
                f'<a href="{html.escape(url, quote=True)}">{html.escape(name)}</a>'
                for url, name in links.items()
            )
            lines.append(html.escape(self.tr("Sources:")) + " " + anchors)
        return "<br>".join(lines)

    def measure_label(self, measure: Measure) -> str:
        """The measure's name: benchmark names stay as they are, what is said about them is
        translated."""
        said = {
            "ifeval/prompt-strict": self.tr("IFEval (strict prompt)"),
            "ifeval/avg-4": self.tr("IFEval (Meta's average)"),
            "ifeval/unstated": self.tr("IFEval (metric not stated)"),
            "livecodebench/pass@1": self.tr("LiveCodeBench (version not stated)"),
            "ruler/average": self.tr("RULER (4K-128K average)"),
            "ruler-128k/accuracy": self.tr("RULER at 128K"),
            "nih-multi-needle/recall": self.tr("multi-needle recall"),
        }
        return said.get(measure.key, measure.label)

    def cost_text(self, cost: QuantCost) -> str:
        """What the quant costs, with the model it was measured on (the source is linked)."""
        ratio = fmt.number(cost.ppl_ratio, 3)
        if cost.measured_here:
            text = self.tr("%1: perplexity ×%2, measured here")
        elif cost.same_top_pct is not None:
            text = self.tr("%1 keeps the same top token %2% of the time (KLD %3, %4)")
            text = text.replace("%2", fmt.number(cost.same_top_pct, 1))
        elif cost.kld is not None:
            text = self.tr("%1: perplexity ×%2 (KLD %3, %4)")
        else:
            text = self.tr("%1: perplexity ×%2 (%4)")
        text = text.replace("%2", ratio).replace("%3", fmt.number(cost.kld, 3))
        return text.replace("%1", cost.quant).replace("%4", cost.model)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.pick.variant_id)
        super().mousePressEvent(event)


class RecommendView(QWidget):
    """ "Best for" (the task), a minimum speed, the top picks and the Pareto chart.

    Signals:
        variant_selected(str): a pick or a point was clicked (its variant id).
        task_changed(str): the task chosen in "Best for" (its id).
    """

    variant_selected = Signal(str)
    task_changed = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recommendView")
        self.recommender = Recommender(catalog.models)
        self.rows: list[FitRow] = []
        self.n_ctx = 0
        self.profile_name = ""
        self.recommendation: Recommendation | None = None
        # Quality measured on this machine (the Library's Quality window, `llm-scout quality`),
        # by variant: it replaces the published quant cost, labelled "measured here".
        self.measured: dict[str, MeasuredQuality] = {}
        self._reading: TaskHandle | None = None
        self._read_again = False
        self.cards: list[PickCard] = []
        self._build()
        self.best_for.currentIndexChanged.connect(self._on_best_for_current_index_changed)
        self.min_speed.valueChanged.connect(self._on_min_speed_value_changed)
        self._rank()

    def task_titles(self) -> dict[str, str]:
        return {
            "chat": self.tr("Chat and instructions"),
            "code": self.tr("Code"),
            "zh": self.tr("Chinese (中文)"),
            "reasoning": self.tr("Reasoning and maths"),
            "long": self.tr("Long context"),
        }

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 6, 0, 0)
        outer.setSpacing(6)
        head = QHBoxLayout()
        head.setSpacing(6)
        label = QLabel(self.tr("Best for:"))
        self.best_for = QComboBox()
        self.best_for.setObjectName("bestForCombo")
        self.best_for.setAccessibleName(self.tr("Best for"))
        titles = self.task_titles()
        for task in TASK_IDS:
            self.best_for.addItem(titles[task], task)
        label.setBuddy(self.best_for)
        head.addWidget(label)
        head.addWidget(self.best_for)
        head.addSpacing(12)
        speed_label = QLabel(self.tr("at least"))
        self.min_speed = QDoubleSpinBox()
        self.min_speed.setObjectName("minSpeedSpin")
        self.min_speed.setAccessibleName(self.tr("Minimum predicted speed"))
        self.min_speed.setRange(0.0, 10000.0)
        self.min_speed.setDecimals(0)
        self.min_speed.setSuffix(" " + self.tr("tokens/s"))
        self.min_speed.setValue(DEFAULT_MIN_SPEED)
        self.min_speed.setToolTip(
            self.tr("Leave out variants predicted slower than this (0: keep all).")
        )
        speed_label.setBuddy(self.min_speed)
        head.addWidget(speed_label)
        head.addWidget(self.min_speed)
        head.addStretch(1)
        outer.addLayout(head)
        self.summary = QLabel()
        self.summary.setObjectName("recommendSummary")
        self.summary.setWordWrap(True)
        outer.addWidget(self.summary)

        self.list_widget = QWidget()
        self.list_layout = QVBoxLayout(self.list_widget)
        self.list_layout.setContentsMargins(0, 0, 4, 0)
        self.list_layout.setSpacing(6)
        self.list_layout.addStretch(1)
        self.picks_area = QScrollArea()
        self.picks_area.setObjectName("recommendPicks")
        self.picks_area.setWidgetResizable(True)
        self.picks_area.setFrameShape(QFrame.Shape.NoFrame)
        self.picks_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.picks_area.setWidget(self.list_widget)
        # The chart is made when the view is first shown: pyqtgraph costs more to import than
        # the Models page itself, and the page starts on its table.
        self._chart: ParetoChart | None = None
        self.chart_holder = QWidget()
        self.chart_holder.setObjectName("paretoHolder")
        holder = QVBoxLayout(self.chart_holder)
        holder.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("recommendSplitter")
        self.splitter.addWidget(self.picks_area)
        self.splitter.addWidget(self.chart_holder)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([450, 360])
        outer.addWidget(self.splitter, 1)
        self.note = QLabel(
            self.tr(
                "Quality = task score × the share the quantization keeps (FP16 / quantized "
                "perplexity). The task score puts each published score on one scale: its "
                "percentile among the catalog's models with a score on that benchmark, averaged "
                "over the task's benchmarks."
            )
        )
        self.note.setObjectName("recommendNote")
        self.note.setWordWrap(True)
        outer.addWidget(self.note)

    # -- state --------------------------------------------------------------------------------

    @property
    def task(self) -> str:
        return str(self.best_for.currentData())

    def set_task(self, task: str) -> None:
        index = self.best_for.findData(task)
        if index >= 0:
            self.best_for.setCurrentIndex(index)

    def restore(self, settings: QSettings) -> None:
        """The task and minimum speed of the last session (inside the page's group)."""
        self.set_task(str(settings.value("best_for", "chat")))
        try:
            self.min_speed.setValue(float(str(settings.value("min_speed", DEFAULT_MIN_SPEED))))
        except ValueError:
            self.min_speed.setValue(DEFAULT_MIN_SPEED)

    def save(self, settings: QSettings) -> None:
        settings.setValue("best_for", self.task)
        settings.setValue("min_speed", self.min_speed.value())

    @property
    def chart(self) -> ParetoChart:
        """The Pareto chart, made (and pyqtgraph imported) on first use."""
        if self._chart is None:
            from desktop.ui.widgets.pareto_chart import ParetoChart

            self._chart = ParetoChart()
            self._chart.variant_clicked.connect(self.variant_selected)
            layout = self.chart_holder.layout()
            if layout is not None:
                layout.addWidget(self._chart)
            rec = self.recommendation
            self._chart.set_picks(rec.picks if rec is not None else [])
        return self._chart

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.chart  # noqa: B018  # made when first shown

    def set_estimate(self, rows: Sequence[FitRow], n_ctx: int, profile_name: str) -> None:
        """A new whole-catalog estimate (context, profile or library changed): rank it again."""
        self.rows = list(rows)
        self.n_ctx = n_ctx
        self.profile_name = profile_name
        self._rank()
        self.read_measured()

    def read_measured(self) -> None:
        """Read what was measured here from the history (off the GUI thread); rank again when
        it changed. Done with every new estimate, so a measurement made since shows."""
        if self._reading is not None and not self._reading.done:
            self._read_again = True  # what it reads may be older than what is asked for
            return
        self._read_again = False

        def work(control: TaskControl) -> dict[str, MeasuredQuality]:
            from desktop.core.quality import measured_here  # numpy's statistics: not at start

            return measured_here()

        self._reading = run_task(work, on_done=self._measured_read, on_failed=self._measured_failed)

    def _measured_read(self, measured: dict[str, MeasuredQuality]) -> None:
        if not isValid(self):
            return
        if measured != self.measured:
            self.measured = measured
            self._rank()
        if self._read_again:
            self.read_measured()

    def _measured_failed(self, error: Exception) -> None:
        """A history that cannot be read ranks with the published figures (logged)."""
        if isValid(self) and self._read_again:
            self.read_measured()

    def _on_best_for_current_index_changed(self, index: int) -> None:
        self._rank()
        self.task_changed.emit(self.task)

    def _on_min_speed_value_changed(self, value: float) -> None:
        self._rank()

    # -- ranking ------------------------------------------------------------------------------

    def _rank(self) -> None:
        if not self.rows:
            self.recommendation = None
            self.summary.setText(self.tr("Waiting for the estimate…"))
            self._show_cards([])
            if self._chart is not None:
                self._chart.set_picks([])
            return
        speed = self.min_speed.value()
        rec = self.recommender.recommend(
            self.rows,
            self.task,
            self.n_ctx,
            min_speed=speed if speed > 0 else None,
            measured=self.measured,
        )
        self.recommendation = rec
        picks = rec.best_per_model()[:TOP]
        self._show_cards(picks)
        if self._chart is not None:
            self._chart.set_picks(rec.picks)
        self.summary.setText(self._summary_text(rec))

    def _summary_text(self, rec: Recommendation) -> str:
        title = self.task_titles().get(rec.task.id, rec.task.title)
        if not rec.picks:
            return (
                self.tr("Nothing fits %1 at %2 tokens of context.")
                .replace("%1", self.profile_name)
                .replace("%2", fmt.integer(rec.n_ctx))
            )
        text = (
            self.tr(
                "Best for %1 on %2 at %3 tokens: %4 variants fit; the best of each model first."
            )
            .replace("%1", title)
            .replace("%2", self.profile_name)
            .replace("%3", fmt.integer(rec.n_ctx))
            .replace("%4", fmt.integer(len(rec.picks)))
        )
        mix = rec.mixing()
        if mix["records"]:
            text += " " + (
                self.tr(
                    "Ranked from %1 published scores in %2 sources (%3 reported by the model's "
                    "own vendor): vendors' numbers are only compared within one benchmark."
                )
                .replace("%1", fmt.integer(mix["records"]))
                .replace("%2", fmt.integer(mix["sources"]))
                .replace("%3", fmt.integer(mix["self_reported"]))
            )
        return text

    def _show_cards(self, picks: Sequence[Pick]) -> None:
        for card in self.cards:
            self.list_layout.removeWidget(card)
            card.hide()  # gone at once, even before the event loop deletes it
            card.deleteLater()
        self.cards = []
        for index, pick in enumerate(picks):
            card = PickCard(pick, index + 1)
            card.clicked.connect(self.variant_selected)
            self.list_layout.insertWidget(index, card)
            self.cards.append(card)
