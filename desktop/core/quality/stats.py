"""The statistics every quality figure is shown with: one module, used by the quality runs and by
Compare's blind votes alike.

- :func:`bootstrap_sums`: 95% percentile intervals of ratio-of-sums statistics (a mean KL
  divergence, a perplexity, a same-top-token rate) by resampling whole chunks of text, so tokens
  of one passage, which are not independent, move together.
- :func:`wilson`: the Wilson score interval of an accuracy (sound at 0% and 100% and for a
  handful of items, where the normal approximation is not).
- :func:`mcnemar`: two models on the same items: the exact McNemar test on the items where they
  disagree, and how many more items would likely settle it (Connor's sample size, 80% power).
- :func:`bradley_terry`: ratings from pairwise votes on the Elo scale with 95% intervals (from the
  observed information), and per neighbouring pair about how many more votes would tell the two
  apart.

Everything is deterministic: the bootstrap uses a fixed seed, so a figure shown twice is the
same figure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

LEVEL = 0.95
RESAMPLES = 2000
SEED = 20251201
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per unit of log-strength
ELO_BASE = 1000.0


def z_value(level: float = LEVEL) -> float:
    """The two-sided normal quantile for ``level`` (1.96 for 95%)."""
    return NormalDist().inv_cdf(0.5 + level / 2.0)


# --------------------------------------------------------------------------- bootstrap


def bootstrap_sums(
    sums: Mapping[str, Sequence[float]],
    statistic: Callable[[Mapping[str, npt.NDArray[np.float64]]], npt.NDArray[np.float64]],
    *,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = SEED,
) -> tuple[float, float] | None:
    """A percentile interval of ``statistic`` over chunks resampled with replacement.

    ``sums`` holds one value per chunk for each named quantity (a sum of KL divergences, a token
    count, ...); ``statistic`` gets, for each name, an array of shape ``(resamples,)`` with the
    totals of one resample each and returns the statistic per resample. None with fewer than two
    chunks (one chunk says nothing about how the figure varies)."""
    lengths = {len(v) for v in sums.values()}
    if len(lengths) != 1:
        raise ValueError("every quantity needs one value per chunk")
    n = lengths.pop()
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(resamples, n))
    # counts[r, i]: how often chunk i is in resample r; totals are counts @ values.
    counts = np.zeros((resamples, n), dtype=np.float64)
    np.add.at(counts, (np.repeat(np.arange(resamples), n), picks.ravel()), 1.0)
    totals = {name: counts @ np.asarray(values, dtype=np.float64) for name, values in sums.items()}
    values = np.asarray(statistic(totals), dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return float(low), float(high)


# --------------------------------------------------------------------------- proportions


def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (``(0, 1)`` for ``n == 0``)."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n}")
    z = z_value(level)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def binomial_two_sided(k: int, n: int) -> float:
    """The exact two-sided p-value of ``k`` successes in ``n`` fair coin tosses."""
    if n <= 0:
        return 1.0
    k = min(k, n - k)
    log_half = n * math.log(0.5)
    tail = sum(math.exp(_log_comb(n, i) + log_half) for i in range(k + 1))
    return min(1.0, 2.0 * tail)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


# --------------------------------------------------------------------------- McNemar

Verdict = Literal["a", "b", "undecided"]


@dataclass(frozen=True)
class McNemar:
    """Two models on the same ``n`` items. ``only_a``: items A got right and B wrong; ``only_b``
    the reverse. ``verdict`` is ``a`` or ``b`` when the better one is clear at the 5% level
    (``p_value`` below 0.05), else ``undecided``; then ``more_items`` is about how many more
    items, with the same rate of disagreement and the same difference, would make it clear
    (80% power), or None when the two have not differed at all yet."""

    n: int
    only_a: int
    only_b: int
    p_value: float
    verdict: Verdict
    more_items: int | None

    @property
    def difference(self) -> float:
        """Accuracy of A minus accuracy of B."""
        return (self.only_a - self.only_b) / self.n if self.n else 0.0


def mcnemar(
    a_correct: Sequence[bool], b_correct: Sequence[bool], *, alpha: float = 0.05
) -> McNemar:
    """The exact McNemar test of A against B on the same items (paired by position)."""
    if len(a_correct) != len(b_correct):
        raise ValueError("McNemar needs the same items for both models")
    n = len(a_correct)
    only_a = sum(1 for a, b in zip(a_correct, b_correct, strict=True) if a and not b)
    only_b = sum(1 for a, b in zip(a_correct, b_correct, strict=True) if b and not a)
    p_value = binomial_two_sided(only_a, only_a + only_b)
    verdict: Verdict = "undecided"
    if p_value < alpha and only_a != only_b:
        verdict = "a" if only_a > only_b else "b"
    more: int | None = None
    if verdict == "undecided" and only_a != only_b and n > 0:
        needed = mcnemar_items_needed((only_a + only_b) / n, (only_a - only_b) / n, alpha=alpha)
        more = max(1, math.ceil(needed - n))
    return McNemar(n, only_a, only_b, p_value, verdict, more)


def mcnemar_items_needed(
    discordant: float, difference: float, *, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Items for McNemar's test to find ``difference`` (accuracy of A minus B) when a share
    ``discordant`` of items is answered right by exactly one model (Connor 1987)."""
    delta = abs(difference)
    if delta <= 0.0:
        return math.inf
    discordant = max(discordant, delta)
    z_a = z_value(1.0 - alpha)
    z_b = NormalDist().inv_cdf(power)
    root = z_a * math.sqrt(discordant) + z_b * math.sqrt(max(discordant - delta * delta, 0.0))
    return root * root / (delta * delta)


# --------------------------------------------------------------------------- Bradley-Terry


@dataclass(frozen=True)
class Rating:
    """One contestant's Bradley-Terry strength on the Elo scale (1000 = the average here)."""

    name: str
    rating: float
    low: float
    high: float
    votes: int


@dataclass(frozen=True)
class PairGap:
    """Two neighbours in the ranking: ``separated`` when their 95% interval of the difference
    excludes zero, else ``more_votes`` is about how many more votes (at the current rate and
    difference) would separate them (None when they are dead level)."""

    better: str
    worse: str
    difference: float
    separated: bool
    more_votes: int | None


@dataclass(frozen=True)
class BradleyTerry:
    ratings: tuple[Rating, ...]  # best first
    gaps: tuple[PairGap, ...]  # ratings[i] against ratings[i + 1]
    votes: int


def bradley_terry(
    votes: Sequence[tuple[str, str, float]],
    *,
    prior: float = 0.5,
    level: float = LEVEL,
    iterations: int = 500,
) -> BradleyTerry:
    """Ratings from pairwise votes ``(a, b, score)``: score 1 when ``a`` won, 0 when ``b`` won,
    0.5 for a tie (a tie counts half a win each way).

    A weak prior (``prior`` virtual ties of every contestant with every other) keeps a
    contestant who won or lost everything at a finite rating. Strengths are fitted by Hunter's
    MM algorithm; intervals come from the inverse observed information with the mean strength
    fixed at zero."""
    for a, b, score in votes:
        if a == b or not 0.0 <= score <= 1.0:
            raise ValueError(f"not a pairwise vote: {a!r} against {b!r} scored {score}")
    names = sorted({a for a, _b, _s in votes} | {b for _a, b, _s in votes})
    if len(names) < 2:
        return BradleyTerry(tuple(Rating(n, ELO_BASE, ELO_BASE, ELO_BASE, 0) for n in names), (), 0)
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    wins = np.zeros((k, k))  # wins[i, j]: (half-)wins of i over j
    for a, b, score in votes:
        i, j = index[a], index[b]
        wins[i, j] += score
        wins[j, i] += 1.0 - score
    observed = wins.copy()
    wins += prior / 2.0 * (1.0 - np.eye(k))
    games = wins + wins.T
    strength = np.ones(k)
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = wins.sum(axis=1) / denominator
        updated /= math.exp(np.log(updated).mean())
        if np.max(np.abs(updated - strength)) < 1e-10:
            strength = updated
            break
        strength = updated
    theta = np.log(strength)
    covariance = _bt_covariance(theta, games)
    z = z_value(level)
    counts = (observed + observed.T).sum(axis=1)
    ratings = []
    for i, name in enumerate(names):
        se = math.sqrt(max(covariance[i, i], 0.0))
        centre = ELO_BASE + ELO_SCALE * theta[i]
        ratings.append(
            Rating(
                name,
                centre,
                centre - z * ELO_SCALE * se,
                centre + z * ELO_SCALE * se,
                round(counts[i]),
            )
        )
    order = sorted(range(k), key=lambda i: -theta[i])
    total = len(votes)
    gaps = []
    for upper, lower in itertools.pairwise(order):
        diff = theta[upper] - theta[lower]
        var = covariance[upper, upper] + covariance[lower, lower] - 2 * covariance[upper, lower]
        se = math.sqrt(max(var, 1e-300))
        separated = diff - z * se > 0
        more = None
        if not separated and diff > 1e-9 and total > 0:
            more = max(1, math.ceil(total * ((z * se / diff) ** 2 - 1.0)))
        gaps.append(PairGap(names[upper], names[lower], ELO_SCALE * diff, bool(separated), more))
    return BradleyTerry(tuple(ratings[i] for i in order), tuple(gaps), total)


def _bt_covariance(
    theta: npt.NDArray[np.float64], games: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Covariance of the log-strengths: the pseudo-inverse of the observed information (its
    null space, a shift of every strength, is removed by fixing the mean)."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
    weights = games * p * (1.0 - p)
    information = np.diag(weights.sum(axis=1)) - weights
    return np.asarray(np.linalg.pinv(information), dtype=np.float64)
