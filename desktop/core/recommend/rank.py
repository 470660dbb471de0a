"""Rank the variants that fit a machine for a task, and find the quality/speed Pareto front.

Input: the whole-catalog estimate (:class:`~desktop.core.fit.FitRow` per variant, from
:class:`~desktop.core.fit.CatalogEstimator`: the same verdicts, speeds and memory as ``fit``,
``catalog`` and the Models page). A variant is ranked when it fits (GPU, partial or CPU), can
run here, stays within the model's trained context and, with ``min_speed``, is predicted at
least that fast. Its ranking score (``quality``) is its model's task score
(:mod:`desktop.core.recommend.scale`) times the share its quant keeps (FP16 / quantized
perplexity, :mod:`desktop.core.recommend.quant_cost`). Variants without a published score come
after the scored ones ("no published score"), fastest first; nothing is estimated for them.

Measured evidence (issue 25) comes in as ``measured``: variant id -> :class:`MeasuredQuality`,
used in the place of the published cost and scores and labelled.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from desktop.core.catalog import CatalogModel
from desktop.core.fit import FitRow
from desktop.core.recommend.quant_cost import QuantCost, quant_cost
from desktop.core.recommend.scale import TaskScale
from desktop.core.recommend.tasks import TASKS, TaskId, TaskSpec, task_spec
from desktop.core.recommend.types import MeasuredQuality, Pick, Recommendation

K = TypeVar("K", bound=Hashable)

NOT_FITTING = "does not fit"
TOO_SLOW = "below the minimum speed"
PAST_CONTEXT = "past the trained context"
CANNOT_RUN = "cannot run here"
NO_ESTIMATE = "no estimate"
#: The default floor on the predicted speed: slower than reading pace, a chat is a wait.
DEFAULT_MIN_SPEED = 5.0


class Recommender:
    """Rankings over one catalog; the task scales are built once, on first use."""

    def __init__(self, models: Iterable[CatalogModel]) -> None:
        self.models = tuple(models)
        self._scales: dict[TaskId, TaskScale] = {}

    def scale(self, task: TaskId | TaskSpec) -> TaskScale:
        spec = task if isinstance(task, TaskSpec) else TASKS[task]
        found = self._scales.get(spec.id)
        if found is None:
            found = self._scales[spec.id] = TaskScale(self.models, spec)
        return found

    def scales(self) -> dict[TaskId, TaskScale]:
        return {task: self.scale(task) for task in TASKS}

    def recommend(
        self,
        rows: Sequence[FitRow],
        task: TaskId | str,
        n_ctx: int,
        *,
        min_speed: float | None = None,
        measured: Mapping[str, MeasuredQuality] | None = None,
    ) -> Recommendation:
        """The ranking of ``rows`` (an estimate at ``n_ctx``) for ``task``."""
        spec = task_spec(task)
        scale = self.scale(spec)
        measured = measured or {}
        left_out: dict[str, int] = {}
        scored: list[Pick] = []
        unscored: list[Pick] = []
        for row in rows:
            reason = _left_out(row, min_speed)
            if reason is not None:
                left_out[reason] = left_out.get(reason, 0) + 1
                continue
            assert row.result is not None
            evidence = measured.get(row.variant.id)
            score = scale.score(row.model.id, evidence.records if evidence else ())
            cost = _cost(row, evidence)
            quality = None
            if score is not None:
                quality = score.score * (cost.kept if cost is not None else 1.0)
            label = ""
            if evidence is not None and (
                (cost is not None and cost.measured_here)
                or (score is not None and any(e.measured_here for e in score.evidence))
            ):
                label = evidence.label
            pick = Pick(0, row.model, row.variant, row.result, score, cost, quality, False, label)
            (scored if quality is not None else unscored).append(pick)
        scored.sort(key=lambda p: (-(p.quality or 0.0), -(p.tokens_per_s or 0.0), p.variant.id))
        unscored.sort(key=lambda p: (-(p.tokens_per_s or 0.0), p.variant.id))
        front = pareto_front(scored)
        picks = tuple(
            Pick(
                rank,
                p.model,
                p.variant,
                p.fit,
                p.task_score,
                p.cost,
                p.quality,
                p.variant.id in front,
                p.measured_label,
            )
            for rank, p in enumerate([*scored, *unscored], start=1)
        )
        return Recommendation(spec, n_ctx, picks, left_out, min_speed)


def _left_out(row: FitRow, min_speed: float | None) -> str | None:
    fit = row.result
    if fit is None:
        return NO_ESTIMATE
    if fit.unsupported:
        return CANNOT_RUN
    if not row.fits:
        return NOT_FITTING
    if fit.past_trained_ctx:
        return PAST_CONTEXT
    if min_speed is not None and (fit.tokens_per_s or 0.0) < min_speed:
        return TOO_SLOW
    return None


def _cost(row: FitRow, evidence: MeasuredQuality | None) -> QuantCost | None:
    published = quant_cost(row.variant.quant, fmt=row.variant.format)
    if evidence is None or evidence.ppl_ratio is None:
        return published
    return QuantCost(
        quant=row.variant.quant,
        ppl_ratio=evidence.ppl_ratio,
        kld=evidence.kld,
        delta_ppl=None,
        same_top_pct=evidence.same_top_pct,
        model=row.variant.id,
        source="",
        source_title=evidence.label,
        measured_here=True,
    )


def pareto_front(picks: Sequence[Pick]) -> set[str]:
    """Variant ids of the picks no other pick beats on both quality and speed: none is at
    least as good and at least as fast while better in one. Picks without a quality or a speed
    are not placed."""
    return pareto_keys((p.variant.id, p.quality, p.tokens_per_s) for p in picks)


def pareto_keys(points: Iterable[tuple[K, float | None, float | None]]) -> set[K]:
    """The keys of the ``(key, quality, speed)`` points nothing beats on both (higher is better
    on both; a point without a quality or a speed is not placed). The recommendation's front
    and Compare's quality chart both use it."""
    placed = [(k, q, s) for k, q, s in points if q is not None and s is not None]
    # Fastest first; among equally fast ones the best first. A point is on the front when it is
    # better than every faster one (equal points are both on it).
    placed.sort(key=lambda p: (-p[2], -p[1]))
    front: set[K] = set()
    best = -math.inf
    best_speed = None
    for key, quality, speed in placed:
        if quality > best or (quality == best and speed == best_speed):
            front.add(key)
            best, best_speed = quality, speed
    return front


def dominated_by(pick: Pick, picks: Sequence[Pick]) -> Pick | None:
    """The best pick that is at least as good and as fast as ``pick`` and better in one (why
    ``pick`` is off the front), or None."""
    if pick.quality is None or pick.tokens_per_s is None:
        return None
    q, s = pick.quality, pick.tokens_per_s
    better = [
        p
        for p in picks
        if p is not pick
        and p.quality is not None
        and p.tokens_per_s is not None
        and p.quality >= q
        and p.tokens_per_s >= s
        and (p.quality > q or p.tokens_per_s > s)
    ]
    return max(better, key=lambda p: (p.quality or 0.0, p.tokens_per_s or 0.0), default=None)
