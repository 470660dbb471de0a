"""Which model is best for a task here: published quality x quant cost x fit.

The catalog's published scores (:class:`~desktop.core.catalog.QualityRecord`, each with its
source) feed five tasks (:data:`TASKS`: chat, code, zh, reasoning, long), each judged by a list
of benchmark measures; within a measure scores become percentiles among the catalog's models and
a task score is their mean (:class:`TaskScale`). A variant's ranking score is its model's task
score times the share its quantization keeps by llama.cpp's (or the AWQ paper's) published
perplexity ratio (:func:`quant_cost`). :class:`Recommender` ranks the variants of a whole-catalog
fit estimate that run here, best first, and marks the quality/speed Pareto front. Scores
measured on this machine (issue 25) can replace published ones (:class:`MeasuredQuality`),
labelled. Depends on catalog and fit only.
"""

from desktop.core.recommend.quant_cost import PUBLISHED, QuantCost, quant_cost
from desktop.core.recommend.rank import (
    CANNOT_RUN,
    DEFAULT_MIN_SPEED,
    NO_ESTIMATE,
    NOT_FITTING,
    PAST_CONTEXT,
    TOO_SLOW,
    Recommender,
    dominated_by,
    pareto_front,
    pareto_keys,
)
from desktop.core.recommend.scale import (
    MIN_POOL,
    Evidence,
    TaskScale,
    TaskScore,
    coverage,
    percentile,
)
from desktop.core.recommend.tasks import TASK_IDS, TASKS, Measure, TaskId, TaskSpec, task_spec
from desktop.core.recommend.types import MeasuredQuality, Pick, Recommendation

__all__ = [
    "CANNOT_RUN",
    "DEFAULT_MIN_SPEED",
    "MIN_POOL",
    "NOT_FITTING",
    "NO_ESTIMATE",
    "PAST_CONTEXT",
    "PUBLISHED",
    "TASKS",
    "TASK_IDS",
    "TOO_SLOW",
    "Evidence",
    "Measure",
    "MeasuredQuality",
    "Pick",
    "QuantCost",
    "Recommendation",
    "Recommender",
    "TaskId",
    "TaskScale",
    "TaskScore",
    "TaskSpec",
    "coverage",
    "dominated_by",
    "pareto_front",
    "pareto_keys",
    "percentile",
    "quant_cost",
    "task_spec",
]
