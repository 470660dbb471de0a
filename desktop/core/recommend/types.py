"""Value types of the recommendation: a pick, the whole ranking, and measured evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop.core.catalog import CatalogModel, QualityRecord, Variant
from desktop.core.fit import FitResult
from desktop.core.recommend.quant_cost import QuantCost
from desktop.core.recommend.scale import TaskScore
from desktop.core.recommend.tasks import TaskSpec


@dataclass(frozen=True)
class MeasuredQuality:
    """What was measured on this machine for one variant (issue 25's quality checks), in the
    place of the published figures and labelled ``label`` wherever it shows.

    ``ppl_ratio``/``kld``/``same_top_pct``: the variant's loss against its reference, which
    replaces the quant type's published cost; ``records``: benchmark scores measured on this
    variant, which replace the model's published scores of the same measures.
    """

    ppl_ratio: float | None = None
    kld: float | None = None
    same_top_pct: float | None = None
    records: tuple[QualityRecord, ...] = ()
    label: str = "measured here"


@dataclass(frozen=True)
class Pick:
    """One variant that fits, with what ranks it.

    ``quality``: the ranking score, the task score times the quant's kept share (FP16 / quantized
    perplexity), None without a published score; ``pareto``: no other pick is both at least as
    good and at least as fast (and better in one).
    """

    rank: int
    model: CatalogModel
    variant: Variant
    fit: FitResult
    task_score: TaskScore | None
    cost: QuantCost | None
    quality: float | None
    pareto: bool = False
    measured_label: str = ""  # "measured here" when something measured on this machine is used

    @property
    def variant_id(self) -> str:
        return self.variant.id

    @property
    def tokens_per_s(self) -> float | None:
        return self.fit.tokens_per_s

    @property
    def memory_bytes(self) -> int:
        """What the run needs with the whole context in use: the verdict's figure, as the
        Models page's Memory column and ``fit`` say it."""
        return self.fit.must_fit_bytes

    @property
    def sources(self) -> tuple[str, ...]:
        """Every address behind the pick's figures: its scores', then its quant cost's."""
        found = list(self.task_score.sources) if self.task_score is not None else []
        if self.cost is not None and self.cost.source:
            found.append(self.cost.source)
        return tuple(dict.fromkeys(found))

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``recommend --json``'s ``picks``."""
        score = self.task_score
        return {
            "rank": self.rank,
            "variant": self.variant.id,
            "model_id": self.model.id,
            "name": self.model.name,
            "quant": self.variant.quant,
            "format": self.variant.format,
            "fits": True,
            "verdict": self.fit.verdict,
            "n_gpu_layers": self.fit.n_gpu_layers,
            "n_layers": self.fit.n_layers,
            "quality": None if self.quality is None else round(self.quality, 2),
            "task_score": None if score is None else round(score.score, 2),
            "no_published_score": score is None,
            "tokens_per_s": self.tokens_per_s,
            "ram_bytes": self.fit.ram_bytes,
            "vram_bytes": self.fit.vram_bytes,
            "must_fit_bytes": self.fit.must_fit_bytes,
            "pareto": self.pareto,
            "quant_cost": None if self.cost is None else self.cost.to_dict(),
            "evidence": [] if score is None else [e.to_dict() for e in score.evidence],
            "measured": self.measured_label or None,
            "sources": list(self.sources),
        }


@dataclass(frozen=True)
class Recommendation:
    """The variants that fit, ranked for a task, and what the ranking stands on.

    ``left_out``: how many variants were not ranked, by reason ("does not fit", "below the
    minimum speed", "past the trained context", "cannot run here", "no estimate").
    """

    task: TaskSpec
    n_ctx: int
    picks: tuple[Pick, ...]
    left_out: dict[str, int] = field(default_factory=dict)
    min_speed: float | None = None

    @property
    def scored(self) -> tuple[Pick, ...]:
        return tuple(p for p in self.picks if p.quality is not None)

    @property
    def front(self) -> tuple[Pick, ...]:
        return tuple(p for p in self.picks if p.pareto)

    def pick(self, variant_id: str) -> Pick | None:
        return next((p for p in self.picks if p.variant.id == variant_id), None)

    def best_per_model(self) -> tuple[Pick, ...]:
        """The best-ranked variant of each model, in ranking order."""
        seen: set[str] = set()
        out = []
        for pick in self.picks:
            if pick.model.id not in seen:
                seen.add(pick.model.id)
                out.append(pick)
        return tuple(out)

    @property
    def sources(self) -> tuple[str, ...]:
        """Every address behind the ranked scores and quant costs."""
        return tuple(dict.fromkeys(s for p in self.picks for s in p.sources))

    @property
    def score_sources(self) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys(
                s for p in self.picks if p.task_score is not None for s in p.task_score.sources
            )
        )

    def mixing(self) -> dict[str, Any]:
        """What the ranking mixes, to say it: measures used, sources, vendor-reported share."""
        records = {
            (r.model_id, r.source, r.benchmark, r.metric): r
            for p in self.scored
            if p.task_score is not None
            for r in (e.record for e in p.task_score.evidence)
        }
        measures = [
            e.measure.label for p in self.scored if p.task_score for e in p.task_score.evidence
        ]
        return {
            "measures": list(dict.fromkeys(measures)),
            "sources": len(self.score_sources),
            "records": len(records),
            "self_reported": sum(r.self_reported for r in records.values()),
            "mixes_sources": len(self.score_sources) > 1,
        }
