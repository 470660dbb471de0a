"""The statistics module: known values, the intervals' coverage, and the verdicts' wording
inputs (McNemar, Bradley-Terry)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pytest

from desktop.core.quality import (
    bootstrap_sums,
    bradley_terry,
    mcnemar,
    mcnemar_items_needed,
    wilson,
)
from desktop.core.quality.stats import binomial_two_sided


def test_wilson_matches_published_values() -> None:
    # Newcombe (1998), Table I: 81/263 -> 0.2553-0.3662; 0/10 -> 0-0.2775.
    low, high = wilson(81, 263)
    assert low == pytest.approx(0.2553, abs=5e-4)
    assert high == pytest.approx(0.3662, abs=5e-4)
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=5e-4)
    assert wilson(10, 10)[1] == 1.0
    with pytest.raises(ValueError, match="11 successes out of 10"):
        wilson(11, 10)


def test_wilson_covers_the_truth_about_95_percent_of_the_time() -> None:
    """Exact coverage (summed over the binomial distribution) averaged over accuracies from
    5% to 95% is close to 95%, and never far below it: the reason to use Wilson's interval."""
    coverages = []
    for n in (20, 60, 150):
        for p in np.linspace(0.05, 0.95, 19):
            coverage = 0.0
            for k in range(n + 1):
                low, high = wilson(k, n)
                if low <= p <= high:
                    coverage += math.comb(n, k) * p**k * (1 - p) ** (n - k)
            coverages.append(coverage)
    assert 0.94 <= float(np.mean(coverages)) <= 0.96
    assert min(coverages) >= 0.88


def test_exact_binomial_p_values() -> None:
    assert binomial_two_sided(0, 10) == pytest.approx(2 / 1024)
    assert binomial_two_sided(5, 10) == 1.0
    # 2 of 12: P(X <= 2) = (1 + 12 + 66) / 4096, doubled.
    assert binomial_two_sided(2, 12) == pytest.approx(2 * 79 / 4096)
    assert binomial_two_sided(0, 0) == 1.0


def test_mcnemar_names_the_better_model_when_the_disagreements_are_one_sided() -> None:
    a = [True] * 12 + [False] * 2 + [True] * 50
    b = [False] * 12 + [True] * 2 + [True] * 50
    test = mcnemar(a, b)
    assert (test.only_a, test.only_b, test.n) == (12, 2, 64)
    assert test.p_value == pytest.approx(binomial_two_sided(2, 14))
    assert test.p_value < 0.05
    assert test.verdict == "a"
    assert test.more_items is None
    assert mcnemar(b, a).verdict == "b"


def test_mcnemar_says_how_many_more_items_when_it_cannot_tell() -> None:
    a = [True] * 4 + [False] * 2 + [True] * 14
    b = [False] * 4 + [True] * 2 + [True] * 14
    test = mcnemar(a, b)
    assert test.verdict == "undecided"
    assert test.more_items is not None
    expected = mcnemar_items_needed(6 / 20, 2 / 20) - 20
    assert test.more_items == math.ceil(expected)
    same = mcnemar([True, False, True], [True, False, True])
    assert same.verdict == "undecided"
    assert same.more_items is None


def test_items_needed_matches_the_rule_of_thumb() -> None:
    # 10% of answers differ, 5 points apart: about 300 paired items (Connor 1987).
    assert 290 <= mcnemar_items_needed(0.10, 0.05) <= 330
    assert mcnemar_items_needed(0.10, 0.0) == math.inf


def test_bootstrap_interval_holds_the_estimate_and_narrows_with_more_chunks() -> None:
    rng = np.random.default_rng(1)
    few = rng.normal(0.05, 0.01, 8)
    many = rng.normal(0.05, 0.01, 128)

    def mean(totals: Mapping[str, npt.NDArray[np.float64]]) -> npt.NDArray[np.float64]:
        return np.asarray(totals["x"] / totals["n"], dtype=np.float64)

    ci_few = bootstrap_sums({"x": list(few), "n": [1.0] * len(few)}, mean)
    ci_many = bootstrap_sums({"x": list(many), "n": [1.0] * len(many)}, mean)
    assert ci_few is not None
    assert ci_many is not None
    assert ci_few[0] <= few.mean() <= ci_few[1]
    assert ci_many[0] <= many.mean() <= ci_many[1]
    assert ci_many[1] - ci_many[0] < (ci_few[1] - ci_few[0]) / 2
    # Deterministic: the same chunks give the same interval.
    assert ci_few == bootstrap_sums({"x": list(few), "n": [1.0] * len(few)}, mean)
    assert bootstrap_sums({"x": [1.0], "n": [1.0]}, mean) is None


def test_bradley_terry_orders_by_strength_and_separates_a_clear_winner() -> None:
    rng = random.Random(3)
    votes = []
    for _ in range(300):
        votes.append(("strong", "weak", 1.0 if rng.random() < 0.85 else 0.0))
        votes.append(("strong", "middle", 1.0 if rng.random() < 0.6 else 0.0))
        votes.append(("middle", "weak", 1.0 if rng.random() < 0.75 else 0.0))
    table = bradley_terry(votes)
    assert [r.name for r in table.ratings] == ["strong", "middle", "weak"]
    assert table.votes == 900
    for rating in table.ratings:
        assert rating.low < rating.rating < rating.high
        assert rating.votes == 600
    assert all(gap.separated for gap in table.gaps)
    assert sum(r.rating for r in table.ratings) / 3 == pytest.approx(1000.0, abs=1e-6)
    # P(strong beats weak) = 0.85 is 400 * log10(0.85 / 0.15) = 301 Elo points.
    gap = table.ratings[0].rating - table.ratings[2].rating
    assert 230 < gap < 380


def test_bradley_terry_says_more_votes_are_needed_for_close_contestants() -> None:
    votes = [("a", "b", 1.0)] * 6 + [("a", "b", 0.0)] * 4 + [("a", "b", 0.5)] * 2
    table = bradley_terry(votes)
    (gap,) = table.gaps
    assert gap.better == "a"
    assert not gap.separated
    assert gap.more_votes is not None
    assert gap.more_votes > 20
    level = bradley_terry([("a", "b", 0.5)] * 10)
    assert level.gaps[0].more_votes is None
    assert not level.gaps[0].separated


def test_bradley_terry_keeps_an_unbeaten_contestant_finite() -> None:
    table = bradley_terry([("a", "b", 1.0)] * 5)
    assert all(math.isfinite(r.rating) and math.isfinite(r.high) for r in table.ratings)
    with pytest.raises(ValueError, match="not a pairwise vote"):
        bradley_terry([("a", "a", 1.0)])
