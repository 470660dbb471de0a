"""Published scores put on one scale per task: percentiles within each measure.

Benchmarks differ in difficulty (MMLU 80 is not MMLU-Pro 80) and vendors' settings differ, so
raw scores of different measures are never compared. Within one measure (a benchmark with the
metrics that count as the same, :class:`~desktop.core.recommend.tasks.Measure`) every catalog
model gets one score, and that score becomes a percentile: the share of the *other* catalog
models with a score on the measure that it beats (a tie counts half). A measure places nobody
until five catalog models have a score on it (among two others, a percentile says little: it
would put one table's best model above every model of another table). A model's task score is
the mean of its percentiles over the task's measures it has: 100 = above every other catalog
model on each of them.

Which record a model's score comes from, when several say something about the same measure:
the thinking mode the task asks for (:attr:`TaskSpec.thinking`) when both were published, then
the source that scored the most catalog models on that measure (the widest shared table: its
scores compare best with the others'), then a source independent of the model's vendor, then
the order of the data. Never the higher score.

The scale is built over the whole catalog, not over what fits a machine: a model's task score is
the same on every profile. Scores measured on this machine (issue 25) may replace a model's
published score for a variant; they are placed against the same pool and labelled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from desktop.core.catalog import CatalogModel, QualityRecord
from desktop.core.recommend.tasks import Measure, TaskId, TaskSpec

MIN_POOL = 5  # models with a score on a measure before it places anyone


@dataclass(frozen=True)
class Evidence:
    """One measure behind a task score: the record used and where it puts the model."""

    measure: Measure
    record: QualityRecord
    percentile: float  # 0-100 among the other models with a score on the measure
    others: int  # how many other catalog models it is placed among
    measured_here: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "measure": self.measure.label,
            "benchmark": self.record.benchmark,
            "score": self.record.score,
            "setting": self.record.setting_text(),
            "percentile": round(self.percentile, 1),
            "among": self.others,
            "measured_here": self.measured_here,
            "record": self.record.to_dict(),
        }


@dataclass(frozen=True)
class TaskScore:
    """A model's score on a task (0-100, the mean of its percentiles) and what it rests on."""

    task: TaskId
    score: float
    evidence: tuple[Evidence, ...]

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.record.source for e in self.evidence if e.record.source))

    @property
    def self_reported(self) -> bool:
        """Every record behind it was reported by the model's own vendor."""
        return all(e.record.self_reported for e in self.evidence)


class TaskScale:
    """The percentile scale of one task over ``models`` (see the module docstring)."""

    def __init__(self, models: Iterable[CatalogModel], task: TaskSpec) -> None:
        self.task = task
        models = tuple(models)
        # (source, measure key) -> how many models that source scored on the measure
        width: dict[tuple[str, str], int] = {}
        for measure in task.measures:
            for model in models:
                for source in {r.source for r in _matching(model.quality, measure)}:
                    key = (source, measure.key)
                    width[key] = width.get(key, 0) + 1
        self._width = width
        # measure key -> model id -> the record used
        self.chosen: dict[str, dict[str, QualityRecord]] = {}
        for measure in task.measures:
            picked: dict[str, QualityRecord] = {}
            for model in models:
                record = self._choose(_matching(model.quality, measure), measure)
                if record is not None:
                    picked[model.id] = record
            self.chosen[measure.key] = picked
        self._scores: dict[str, TaskScore | None] = {}  # published scores, by model id

    def _choose(self, records: Sequence[QualityRecord], measure: Measure) -> QualityRecord | None:
        if not records:
            return None
        wanted = self.task.thinking

        def rank(item: tuple[int, QualityRecord]) -> tuple[int, int, int, int]:
            order, r = item
            return (
                0 if r.thinking == wanted else 1,
                -self._width.get((r.source, measure.key), 0),
                1 if r.self_reported else 0,
                order,
            )

        return min(enumerate(records), key=rank)[1]

    def pool(self, measure: Measure) -> dict[str, float]:
        """Model id -> the score used, for every catalog model with one on ``measure``."""
        return {m: r.score for m, r in self.chosen[measure.key].items()}

    def placeable(self, measure: Measure) -> bool:
        return len(self.chosen[measure.key]) >= MIN_POOL

    def score(self, model_id: str, measured: Sequence[QualityRecord] = ()) -> TaskScore | None:
        """``model_id``'s task score, or None without a placeable score. ``measured``: scores
        measured here for one variant of it, which replace its published ones measure by
        measure."""
        if not measured and model_id in self._scores:
            return self._scores[model_id]
        found = self._score(model_id, measured)
        if not measured:
            self._scores[model_id] = found
        return found

    def _score(self, model_id: str, measured: Sequence[QualityRecord]) -> TaskScore | None:
        evidence: list[Evidence] = []
        for measure in self.task.measures:
            pool = self.chosen[measure.key]
            if len(pool) < MIN_POOL:
                continue
            own = next(iter(_matching(measured, measure)), None)
            record = own or pool.get(model_id)
            if record is None:
                continue
            others = [s.score for m, s in pool.items() if m != model_id]
            evidence.append(
                Evidence(
                    measure,
                    record,
                    percentile(record.score, others),
                    len(others),
                    measured_here=own is not None,
                )
            )
        if not evidence:
            return None
        mean = sum(e.percentile for e in evidence) / len(evidence)
        return TaskScore(self.task.id, mean, tuple(evidence))


def percentile(value: float, others: Sequence[float]) -> float:
    """The share (0-100) of ``others`` that ``value`` is above; a tie counts half."""
    if not others:
        return 50.0
    below = sum(1 for o in others if o < value)
    equal = sum(1 for o in others if o == value)
    return 100.0 * (below + 0.5 * equal) / len(others)


def _matching(records: Iterable[QualityRecord], measure: Measure) -> list[QualityRecord]:
    return [r for r in records if r.benchmark == measure.benchmark and r.metric in measure.metrics]


def coverage(
    models: Iterable[CatalogModel], scales: Mapping[TaskId, TaskScale]
) -> dict[str, dict[TaskId, TaskScore]]:
    """Model id -> the tasks it has a task score for (the README's coverage table)."""
    out: dict[str, dict[TaskId, TaskScore]] = {}
    for model in models:
        scores = {t: s for t, scale in scales.items() if (s := scale.score(model.id)) is not None}
        out[model.id] = scores
    return out
