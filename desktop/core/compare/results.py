"""What a comparison produced, as typed values: answers, contestants' outcomes, the summary.

A :class:`ComparisonResult` is the same whether it was just run or opened from the history:
contestants as :class:`ContestantInfo` (no live model needed, so an old comparison opens after
its files are gone), one :class:`AnswerResult` per (contestant, prompt) that finished, votes,
the blind order, and the quality check's outcomes. :meth:`ComparisonResult.summary` gives the
table (one :class:`SummaryRow` per contestant) and :meth:`ComparisonResult.chart` the points of the
"generation tokens/s against peak memory, marker size = score" chart the window draws.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop.core.compare.checks import CheckResult, Score
from desktop.core.compare.quality_check import QualityCheck, QualityOutcome, QualityPoint
from desktop.core.compare.ratings import VoteRatings, vote_ratings
from desktop.core.compare.suites import Prompt
from desktop.core.compare.votes import BlindLabels, Vote, WinRate, win_rates
from desktop.core.engine import RunReport, error_pct
from desktop.core.recommend import pareto_keys


@dataclass(frozen=True)
class ContestantInfo:
    """A contestant as shown and stored: name, what was asked for, the file, the settings."""

    index: int
    name: str
    spec: str
    label: str
    path: str | None
    quant: str | None
    settings: dict[str, Any] = field(default_factory=dict)
    sha256: str | None = None

    @property
    def n_ctx(self) -> int | None:
        value = (self.settings.get("load") or {}).get("n_ctx")
        return int(value) if value is not None else None

    def setting(self, group: str, key: str) -> Any:
        return (self.settings.get(group) or {}).get(key)

    @property
    def remote(self) -> bool:
        """Whether the contestant ran on a server (the history stores its endpoint)."""
        return bool(self.settings.get("remote"))


@dataclass(frozen=True)
class ContestantOutcome:
    """How a contestant's run went: ``pending``, ``running``, ``done``, ``failed`` (with the
    reason and error kind) or ``cancelled``."""

    status: str = "pending"
    reason: str | None = None
    error_kind: str | None = None

    @property
    def failed(self) -> bool:
        return self.status == "failed"


@dataclass(frozen=True)
class AnswerResult:
    """One cell: contestant ``contestant`` on prompt ``prompt``. ``report`` is None when the
    answer failed (``error``: why; a prompt longer than the context, say). ``checks_total`` is
    None when the prompt has no checks; ``check_results`` says which passed
    (``{"check": "contains \"Paris\"", "passed": true}``)."""

    contestant: int
    prompt: int
    text: str
    report: RunReport | None = None
    finish_reason: str | None = None
    error: str | None = None
    error_kind: str | None = None
    checks_passed: int | None = None
    checks_total: int | None = None
    check_results: tuple[dict[str, Any], ...] = ()
    run_id: int | None = None

    @classmethod
    def scored(
        cls, contestant: int, prompt: int, text: str, score: Score | None, **fields: Any
    ) -> AnswerResult:
        """An answer with the score of its checks (None: the prompt has none)."""
        if score is None:
            return cls(contestant, prompt, text, **fields)
        return cls(
            contestant,
            prompt,
            text,
            checks_passed=score.passed,
            checks_total=score.total,
            check_results=check_dicts(score.results),
            **fields,
        )

    @property
    def ok(self) -> bool:
        return self.error is None


def check_dicts(results: Sequence[CheckResult]) -> tuple[dict[str, Any], ...]:
    return tuple(r.to_dict() for r in results)


@dataclass(frozen=True)
class SummaryRow:
    """One line of the summary table. Speeds and TTFT are medians over the contestant's
    answers; memory is the peak over them; ``ram_error_pct`` is predicted vs measured peak
    RSS (positive: the estimate was high)."""

    contestant: int
    name: str
    quant: str | None
    n_ctx: int | None
    status: str
    reason: str | None
    answers: int
    ttft_ms: float | None
    prompt_tokens_per_s: float | None
    generation_tokens_per_s: float | None
    private_peak_bytes: int | None
    rss_peak_bytes: int | None
    vram_peak_bytes: int | None
    predicted_ram_bytes: int | None
    predicted_vram_bytes: int | None
    ram_error_pct: float | None
    checks_passed: int
    checks_total: int
    votes: WinRate
    blind_label: str | None = None
    # A model behind a server: no prediction, memory only what the server exposes (None:
    # unknown); speeds measured on the client unless the server's timings were used.
    remote: bool = False
    timing_source: str = "client"
    memory_source: str = "process"
    kv_cache_usage_pct: float | None = None

    @property
    def score(self) -> float | None:
        """Share of checks passed; None when no answer had checks."""
        return self.checks_passed / self.checks_total if self.checks_total else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "contestant": self.contestant,
            "model": self.name,
            "blind_label": self.blind_label,
            "quant": self.quant,
            "n_ctx": self.n_ctx,
            "status": self.status,
            "reason": self.reason,
            "answers": self.answers,
            "ttft_ms": self.ttft_ms,
            "prompt_tokens_per_s": self.prompt_tokens_per_s,
            "generation_tokens_per_s": self.generation_tokens_per_s,
            "private_peak_bytes": self.private_peak_bytes,
            "rss_peak_bytes": self.rss_peak_bytes,
            "vram_peak_bytes": self.vram_peak_bytes,
            "predicted_ram_bytes": self.predicted_ram_bytes,
            "predicted_vram_bytes": self.predicted_vram_bytes,
            "ram_error_pct": self.ram_error_pct,
            "checks_passed": self.checks_passed,
            "checks_total": self.checks_total,
            "score": self.score,
            "votes": {
                "wins": self.votes.wins,
                "ties": self.votes.ties,
                "losses": self.votes.losses,
                "bad": self.votes.bad,
                "win_rate": self.votes.rate,
            },
            "remote": self.remote,
            "timing_source": self.timing_source,
            "memory_source": self.memory_source,
            "kv_cache_usage_pct": self.kv_cache_usage_pct,
        }


@dataclass(frozen=True)
class ChartPoint:
    """One marker: generation tokens/s (y) against peak memory (x: RSS plus VRAM), sized by
    ``score`` (checks passed, else the win rate; None: neither is known)."""

    contestant: int
    name: str
    tokens_per_s: float
    memory_bytes: int
    score: float | None


@dataclass(frozen=True)
class ComparisonResult:
    id: int | None
    title: str
    mode: str
    contestants: tuple[ContestantInfo, ...]
    outcomes: tuple[ContestantOutcome, ...]
    prompts: tuple[Prompt, ...]
    answers: tuple[AnswerResult, ...]
    votes: tuple[Vote, ...] = ()
    blind: BlindLabels | None = None
    suite: str | None = None
    machine: str = ""
    created_at: float | None = None
    # The quality check every contestant ran (None: none) and each one's outcome.
    quality_check: QualityCheck | None = None
    quality: tuple[QualityOutcome, ...] = ()

    def quality_of(self, contestant: int) -> QualityOutcome | None:
        return next((o for o in self.quality if o.contestant == contestant), None)

    def answer(self, contestant: int, prompt: int) -> AnswerResult | None:
        return next(
            (a for a in self.answers if (a.contestant, a.prompt) == (contestant, prompt)), None
        )

    def answers_of(self, contestant: int) -> list[AnswerResult]:
        return [a for a in self.answers if a.contestant == contestant]

    def missing(self) -> list[tuple[int, int]]:
        """(contestant, prompt) pairs without an answer: what a resume would run."""
        done = {(a.contestant, a.prompt) for a in self.answers}
        return [
            (c, q)
            for c in range(len(self.contestants))
            for q in range(len(self.prompts))
            if (c, q) not in done
        ]

    @property
    def complete(self) -> bool:
        return not self.missing()

    @property
    def max_tokens(self) -> int | None:
        """The most tokens per answer the comparison ran with: the value the contestants
        share, a contestant's own ``@max_tokens=`` aside (the most common one when every
        contestant set its own); None when the history does not say."""
        shared: list[int] = []
        own: list[int] = []
        for info in self.contestants:
            value = info.setting("sampling", "max_tokens")
            if isinstance(value, int) and not isinstance(value, bool):
                (own if "max_tokens=" in info.spec else shared).append(value)
        values = shared or own
        return max(set(values), key=values.count) if values else None

    def win_rates(self) -> list[WinRate]:
        return win_rates(self.votes, len(self.contestants))

    def vote_ratings(self) -> VoteRatings | None:
        """Bradley-Terry ratings from the votes, with intervals (None before any vote)."""
        return vote_ratings(self.votes, len(self.contestants))

    def summary(self) -> list[SummaryRow]:
        rates = self.win_rates()
        return [
            _summary_row(info, self.outcomes[i], self.answers_of(i), rates[i], self.blind)
            for i, info in enumerate(self.contestants)
        ]

    def quality_chart(self) -> list[QualityPoint]:
        """Measured quality against measured generation tokens/s, one point per contestant
        with both, the Pareto front marked (the recommendation's rule: ``pareto_keys``)."""
        speeds = {row.contestant: row.generation_tokens_per_s for row in self.summary()}
        placed = [(o.contestant, o.quality, speeds.get(o.contestant)) for o in self.quality]
        front = pareto_keys(placed)
        metrics = {o.contestant: o.quality_metric or "" for o in self.quality}
        return [
            QualityPoint(c, self.contestants[c].name, s, q, metrics[c], c in front)
            for c, q, s in placed
            if q is not None and s is not None
        ]

    def chart(self) -> list[ChartPoint]:
        points = []
        for row in self.summary():
            if row.generation_tokens_per_s is None or row.rss_peak_bytes is None:
                continue
            memory = row.rss_peak_bytes + (row.vram_peak_bytes or 0)
            score = row.score if row.score is not None else row.votes.rate
            points.append(
                ChartPoint(row.contestant, row.name, row.generation_tokens_per_s, memory, score)
            )
        return points


def _median(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(statistics.median(known)) if known else None


def _peak(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def _summary_row(
    info: ContestantInfo,
    outcome: ContestantOutcome,
    answers: Sequence[AnswerResult],
    votes: WinRate,
    blind: BlindLabels | None,
) -> SummaryRow:
    reports = [a.report for a in answers if a.report is not None]
    rss_peaks = [r.rss_peak_bytes for r in reports]
    peak_rss = _peak(rss_peaks)
    # Predicted vs measured over the same answer: the one with the highest measured peak.
    predicted: int | None = None
    predicted_vram: int | None = None
    if reports:
        top = max(reports, key=lambda r: r.rss_peak_bytes or 0)
        predicted, predicted_vram = top.predicted_ram_bytes, top.predicted_vram_bytes
    n_ctx = next((r.n_ctx for r in reports if r.n_ctx), None) or info.n_ctx
    remote = info.remote
    timing = "server" if any(r.timing_source == "server" for r in reports) else "client"
    memory = "process"
    if remote:
        memory = "server" if any(r.memory_source == "server" for r in reports) else "unknown"
    return SummaryRow(
        contestant=info.index,
        name=info.name,
        quant=info.quant,
        n_ctx=n_ctx,
        status=outcome.status,
        reason=outcome.reason,
        answers=len(answers),
        ttft_ms=_median([r.metrics.ttft_ms for r in reports]),
        prompt_tokens_per_s=_median([r.metrics.prompt_tokens_per_s for r in reports]),
        generation_tokens_per_s=_median([r.metrics.tokens_per_s for r in reports]),
        private_peak_bytes=_peak([r.private_peak_bytes for r in reports]),
        rss_peak_bytes=peak_rss,
        vram_peak_bytes=_peak([r.vram_peak_bytes or r.server_vram_bytes for r in reports]),
        predicted_ram_bytes=predicted,
        predicted_vram_bytes=predicted_vram,
        ram_error_pct=error_pct(predicted, peak_rss),
        checks_passed=sum(a.checks_passed or 0 for a in answers),
        checks_total=sum(a.checks_total or 0 for a in answers),
        votes=votes,
        blind_label=blind.label(info.index) if blind is not None else None,
        remote=remote,
        timing_source=timing,
        memory_source=memory,
        kv_cache_usage_pct=_max([r.kv_cache_usage_pct for r in reports]),
    )


def _max(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None
