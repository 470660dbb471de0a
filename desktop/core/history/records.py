"""The values the history hands out: models, runs, comparisons, contestants, prompts, votes.

Plain frozen dataclasses, built from database rows by the store. A run's measurements come back
as the engine's own :class:`RunReport` (stored as its ``to_dict`` document), so an answer read
from the history reads like one just measured. Settings and checks are JSON objects, kept as
dicts: the history stores what the caller describes and does not interpret it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop.core.engine import CpuUse, GenerationMetrics, LoadSettings, RunReport
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError

RunSource = Literal["playground", "run", "comparison"]
ContestantStatus = Literal["pending", "running", "done", "failed", "cancelled"]
ComparisonStatus = Literal["running", "finished", "cancelled"]
VoteOutcome = Literal["win", "tie", "all_bad"]

CONTESTANT_STATUSES: tuple[str, ...] = ("pending", "running", "done", "failed", "cancelled")
COMPARISON_STATUSES: tuple[str, ...] = ("running", "finished", "cancelled")
VOTE_OUTCOMES: tuple[str, ...] = ("win", "tie", "all_bad")
# A contestant's quality check that gave no result (kept with the contestant; a result is a
# measurement).
QUALITY_FAILURES: tuple[str, ...] = ("failed", "cancelled", "skipped")


class HistoryError(ScoutError):
    """The history database cannot be used, or holds no such entry."""

    kind = "history"


class HistoryNotFound(HistoryError):
    kind = "history.not_found"


def settings_dict(
    load: LoadSettings | None = None,
    params: p.SamplingParams | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The settings of a run as one JSON object: ``{"load": {...}, "sampling": {...}, ...}``.

    What the Playground, ``run`` and a comparison store, so the same keys mean the same thing
    in every row (``extra`` adds keys such as ``cache_type``)."""
    out: dict[str, Any] = {}
    if load is not None:
        out["load"] = dataclasses.asdict(load)
    if params is not None:
        sampling = dataclasses.asdict(params)
        sampling["stop"] = list(params.stop)
        out["sampling"] = sampling
    out.update(extra)
    return out


def report_to_dict(report: RunReport) -> dict[str, Any]:
    """A report as stored: its ``to_dict`` document without the text (a column of its own)."""
    data = report.to_dict()
    data.pop("text", None)
    return data


def report_from_dict(text: str, data: Mapping[str, Any]) -> RunReport:
    """The report a :func:`report_to_dict` document was made from (arrival times aside)."""

    def number(key: str) -> Any:
        return data.get(key)

    metrics = GenerationMetrics(
        ttft_ms=number("ttft_ms"),
        prompt_tokens=int(data.get("prompt_tokens") or 0),
        prompt_tokens_per_s=number("prompt_tokens_per_s"),
        generated_tokens=int(data.get("generated_tokens") or 0),
        tokens_per_s=number("generation_tokens_per_s"),
        per_second=tuple(float(v) for v in data.get("per_second_tokens_per_s") or ()),
        t_first=None,
        t_last=None,
    )
    cpu = CpuUse.from_dict(data["cpu"]) if isinstance(data.get("cpu"), Mapping) else None
    return RunReport(
        text=text,
        metrics=metrics,
        cpu=cpu[0] if cpu is not None else None,
        cpu_bound=cpu[1] if cpu is not None else True,
        load_ms=number("load_ms"),
        rss_after_load_bytes=number("rss_after_load_bytes"),
        rss_after_first_token_bytes=number("rss_after_first_token_bytes"),
        rss_peak_bytes=number("rss_peak_bytes"),
        vram_peak_bytes=number("vram_peak_bytes"),
        private_peak_bytes=number("private_peak_bytes"),
        file_peak_bytes=number("file_backed_peak_bytes"),
        predicted_ram_bytes=number("predicted_ram_bytes"),
        predicted_vram_bytes=number("predicted_vram_bytes"),
        predicted_tokens_per_s=number("predicted_tokens_per_s"),
        finish_reason=data.get("finish_reason"),
        n_ctx=number("n_ctx"),
        n_threads=number("n_threads"),
        timing_source=str(data.get("timing_source") or "client"),
        memory_source=str(data.get("memory_source") or "process"),
        server_vram_bytes=number("server_vram_bytes"),
        kv_cache_usage_pct=number("kv_cache_usage_pct"),
    )


@dataclass(frozen=True)
class ModelRef:
    """A model file as it was when it ran: path, size and mtime, and its sha256 when known.

    The hash is taken from the caller (a catalog or demo hash), the library, or computed once
    for a small file; a large file keeps ``sha256=None`` until :meth:`History.fill_hashes`."""

    id: int
    path: Path
    size_bytes: int
    mtime_ns: int
    sha256: str | None
    label: str
    variant_id: str | None = None
    quant: str | None = None


@dataclass(frozen=True)
class RunRecord:
    """One answer: a Playground or ``run`` answer, or one cell of a comparison.

    ``report`` is None for an answer that failed before it finished (``error`` says why);
    ``checks_total`` is None when the prompt had no checks."""

    id: int
    created_at: float
    source: str
    model: ModelRef | None
    machine: str
    settings: dict[str, Any]
    system: str | None
    prompt: str
    output: str
    finish_reason: str | None = None
    error: str | None = None
    error_kind: str | None = None
    report: RunReport | None = field(default=None, repr=False)
    checks_passed: int | None = None
    checks_total: int | None = None
    checks: tuple[dict[str, Any], ...] = ()
    comparison_id: int | None = None
    contestant_index: int | None = None
    prompt_index: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def remote(self) -> dict[str, Any] | None:
        """The server an answer ran on (``endpoint``, ``model``, maybe ``key_env``: never the
        key), None for a model file run here."""
        remote = self.settings.get("remote")
        if self.model is None and isinstance(remote, dict) and remote.get("endpoint"):
            return remote
        return None


@dataclass(frozen=True)
class ContestantRecord:
    """One column of a comparison: its display name, what was asked for (``spec``: a path, a
    demo key or a variant id, resolved again on re-runs), the model file and the settings.
    ``quality_status``/``quality_reason``: its quality check when that gave no result
    (``failed``, ``cancelled`` or ``skipped``, and why; None: none kept)."""

    name: str
    spec: str
    settings: dict[str, Any]
    model: ModelRef | None = None
    index: int = 0
    status: str = "pending"
    reason: str | None = None
    error_kind: str | None = None
    quality_status: str | None = None
    quality_reason: str | None = None


@dataclass(frozen=True)
class PromptRecord:
    """One row of a comparison: the prompt as it was sent, with its checks (JSON objects)."""

    text: str
    key: str = ""
    system: str | None = None
    checks: tuple[dict[str, Any], ...] = ()
    category: str = ""
    max_tokens: int | None = None
    index: int = 0


@dataclass(frozen=True)
class VoteRecord:
    """A blind vote on one prompt: ``win`` (for ``winner``), ``tie`` or ``all_bad``, among the
    contestants that were shown (``among``: all of them when empty)."""

    id: int
    prompt_index: int
    outcome: str
    winner: int | None
    among: tuple[int, ...]
    created_at: float


@dataclass(frozen=True)
class ComparisonSummary:
    """One line of the comparison list."""

    id: int
    title: str
    created_at: float
    updated_at: float
    mode: str
    suite: str | None
    status: str
    machine: str
    models: tuple[str, ...]
    n_prompts: int
    n_answers: int

    @property
    def n_expected(self) -> int:
        return len(self.models) * self.n_prompts

    @property
    def complete(self) -> bool:
        return self.n_answers >= self.n_expected

    @property
    def state(self) -> str:
        """``complete``, ``running`` (or interrupted: a killed run stays ``running``),
        ``cancelled`` or ``partial`` (some answers missing: resumable)."""
        if self.complete:
            return "complete"
        if self.status in ("running", "cancelled"):
            return self.status
        return "partial"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "mode": self.mode,
            "suite": self.suite,
            "status": self.status,
            "state": self.state,
            "machine": self.machine,
            "models": list(self.models),
            "n_prompts": self.n_prompts,
            "n_answers": self.n_answers,
            "n_expected": self.n_expected,
        }


@dataclass(frozen=True)
class ComparisonRecord:
    """A stored comparison with everything in it. ``blind_order`` is the shuffled column order
    of a blind comparison (contestant indexes, first column first), empty when not blind;
    ``profile`` the hardware profile snapshot (``HardwareProfile.to_dict``) it ran on."""

    summary: ComparisonSummary
    contestants: tuple[ContestantRecord, ...]
    prompts: tuple[PromptRecord, ...]
    runs: tuple[RunRecord, ...]
    votes: tuple[VoteRecord, ...]
    blind_order: tuple[int, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    profile: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> int:
        return self.summary.id

    def run_for(self, contestant: int, prompt: int) -> RunRecord | None:
        return next(
            (r for r in self.runs if (r.contestant_index, r.prompt_index) == (contestant, prompt)),
            None,
        )

    def missing(self) -> list[tuple[int, int]]:
        """(contestant, prompt) pairs with no stored answer: what a resume runs."""
        done = {(r.contestant_index, r.prompt_index) for r in self.runs}
        return [
            (c.index, q.index)
            for c in self.contestants
            for q in self.prompts
            if (c.index, q.index) not in done
        ]
