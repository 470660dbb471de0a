"""One scale per task: percentiles within each measure, one record per model chosen by rules
that never look at which score is higher."""

from __future__ import annotations

import pytest

from desktop.core.catalog import QualityRecord
from desktop.core.recommend import MIN_POOL, TASKS, Recommender, TaskScale, percentile
from tests.core.recommend.catalogs import fixture_catalog, record

FIVE = (
    "qwen2.5-0.5b-instruct",
    "qwen2.5-1.5b-instruct",
    "qwen2.5-3b-instruct",
    "qwen2.5-7b-instruct",
    "qwen2.5-14b-instruct",
)


def test_percentile_counts_the_others_below_and_ties_half() -> None:
    assert percentile(50.0, [10.0, 20.0, 60.0, 70.0]) == 50.0
    assert percentile(50.0, [50.0, 10.0]) == 75.0
    assert percentile(99.0, [1.0, 2.0]) == 100.0
    assert percentile(0.0, [1.0, 2.0]) == 0.0


def test_scores_become_percentiles_and_a_task_score_is_their_mean() -> None:
    ceval = [40.0, 50.0, 60.0, 70.0, 80.0]
    cmmlu = [45.0, 55.0, 65.0, 75.0, 85.0]
    catalog = fixture_catalog(
        {
            m: [record("c-eval", c), record("cmmlu", d)]
            for m, c, d in zip(FIVE, ceval, reversed(cmmlu), strict=True)
        }
    )
    scale = TaskScale(catalog.models, TASKS["zh"])
    first = scale.score(FIVE[0])
    assert first is not None
    by_measure = {e.measure.benchmark: e.percentile for e in first.evidence}
    assert by_measure == {"c-eval": 0.0, "cmmlu": 100.0}
    assert first.score == pytest.approx(50.0)
    assert all(e.others == 4 for e in first.evidence)
    # Raw scores are never compared across measures: the same raw score on different
    # benchmarks lands on different percentiles.
    assert {e.record.score for e in first.evidence} == {40.0, 85.0}


def test_a_measure_with_too_few_models_places_nobody() -> None:
    few = FIVE[: MIN_POOL - 1]
    catalog = fixture_catalog({m: [record("cmmlu", 50.0 + i)] for i, m in enumerate(few)})
    scale = TaskScale(catalog.models, TASKS["zh"])
    assert not scale.placeable(TASKS["zh"].measures[1])
    assert all(scale.score(m) is None for m in few)


def test_a_model_without_a_score_on_the_task_has_none() -> None:
    scores = {m: [record("c-eval", 50.0 + i)] for i, m in enumerate(FIVE[:-1])}
    scores[FIVE[-1]] = [record("humaneval", 80.0, metric="pass@1")]
    scale = TaskScale(fixture_catalog(scores).models, TASKS["zh"])
    assert scale.score(FIVE[-1]) is None
    assert scale.score(FIVE[0]) is None  # four models: below the pool a measure needs


def test_the_widest_shared_table_wins_over_a_higher_score_elsewhere() -> None:
    wide = "https://example.org/wide-table"
    narrow = "https://example.org/vendor-card"
    scores = {m: [record("c-eval", 50.0 + i, source=wide)] for i, m in enumerate(FIVE)}
    # The model's own card says 99; the shared table, which scored all five, says 50.
    scores[FIVE[0]].append(record("c-eval", 99.0, source=narrow, self_reported=True))
    scale = TaskScale(fixture_catalog(scores).models, TASKS["zh"])
    chosen = scale.chosen[TASKS["zh"].measures[0].key][FIVE[0]]
    assert (chosen.source, chosen.score) == (wide, 50.0)


def test_an_independent_source_wins_a_tie_of_width() -> None:
    vendor = "https://example.org/vendor"
    third = "https://example.org/third-party"
    scores = {m: [record("c-eval", 50.0 + i)] for i, m in enumerate(FIVE)}
    scores[FIVE[1]] = [
        record("c-eval", 70.0, source=vendor, self_reported=True),
        record("c-eval", 40.0, source=third, self_reported=False),
    ]
    scale = TaskScale(fixture_catalog(scores).models, TASKS["zh"])
    assert scale.chosen[TASKS["zh"].measures[0].key][FIVE[1]].source == third


def test_the_task_decides_thinking_on_or_off() -> None:
    scores = {}
    for i, m in enumerate(FIVE):
        scores[m] = [
            record("math-500", 40.0 + i, thinking=False),
            record("math-500", 80.0 + i, thinking=True),
            record("c-eval", 40.0 + i, thinking=False),
            record("c-eval", 80.0 + i, thinking=True),
        ]
    recommender = Recommender(fixture_catalog(scores).models)
    reasoning = recommender.scale("reasoning").score(FIVE[0])
    zh = recommender.scale("zh").score(FIVE[0])
    assert reasoning is not None
    assert zh is not None
    assert [e.record.thinking for e in reasoning.evidence] == [True]
    assert [e.record.thinking for e in zh.evidence] == [False]


def test_a_record_with_a_metric_the_measure_does_not_count_is_not_used() -> None:
    scores = {m: [record("aime-2024", 30.0 + i, metric="pass@1")] for i, m in enumerate(FIVE)}
    scores[FIVE[0]] = [record("aime-2024", 90.0, metric="cons@64")]
    scale = TaskScale(fixture_catalog(scores).models, TASKS["reasoning"])
    assert scale.score(FIVE[0]) is None
    assert FIVE[0] not in scale.pool(TASKS["reasoning"].measures[-1])


def test_a_score_measured_here_replaces_the_published_one_and_says_so() -> None:
    scores = {m: [record("c-eval", 50.0 + 10 * i)] for i, m in enumerate(FIVE)}
    scale = TaskScale(fixture_catalog(scores).models, TASKS["zh"])
    published = scale.score(FIVE[0])
    here = QualityRecord(FIVE[0], "c-eval", 95.0, "accuracy", "", "2026-12-02", "", False)
    measured = scale.score(FIVE[0], [here])
    assert published is not None
    assert measured is not None
    assert published.score == 0.0
    assert not published.evidence[0].measured_here
    assert measured.score == 100.0
    assert measured.evidence[0].measured_here
