"""Blind votes as Bradley-Terry ratings: who is ahead, how sure, and how many more votes would
tell two neighbours apart.

The fit and its intervals are the statistics module's (:func:`desktop.core.quality.bradley_terry`,
the one the design asks Compare's votes and the quality measurements to share); this module
turns a comparison's votes into its pairwise outcomes (:func:`~desktop.core.compare.votes.
pairwise_outcomes`) and the ratings back into contestants. Ratings are on the Elo scale (1000 is
the average here; 400 points = 10:1 odds). "About N more votes" is how many more votes at the
current rate and difference would make the 95% interval of the gap exclude zero; a multi-way
vote gives several pairwise outcomes, so N is scaled from pairs to votes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop.core.compare.votes import Vote, latest_votes, pairwise_outcomes
from desktop.core.quality import bradley_terry


@dataclass(frozen=True)
class VoteRating:
    """One contestant's rating with its 95% interval, and the pairwise outcomes it took part
    in (a vote among k answers makes k - 1 for the winner)."""

    contestant: int
    rating: float
    low: float
    high: float
    pairs: int


@dataclass(frozen=True)
class VoteGap:
    """Two neighbours of the ranking: ``better`` ahead of ``worse`` by ``difference`` points;
    ``separated`` when the 95% interval of the gap excludes zero, else ``more_votes`` is about how
    many more votes would separate them (None: dead level, no number of votes would)."""

    better: int
    worse: int
    difference: float
    separated: bool
    more_votes: int | None


@dataclass(frozen=True)
class VoteRatings:
    ratings: tuple[VoteRating, ...]  # best first
    gaps: tuple[VoteGap, ...]  # ratings[i] against ratings[i + 1]
    votes: int  # votes that count (the latest per prompt and set of answers shown)
    pairs: int  # the pairwise outcomes they make

    def to_dict(self) -> dict[str, Any]:
        return {
            "votes": self.votes,
            "pairs": self.pairs,
            "ratings": [
                {
                    "contestant": r.contestant,
                    "rating": r.rating,
                    "ci": [r.low, r.high],
                    "pairs": r.pairs,
                }
                for r in self.ratings
            ],
            "gaps": [
                {
                    "better": g.better,
                    "worse": g.worse,
                    "difference": g.difference,
                    "separated": g.separated,
                    "more_votes": g.more_votes,
                }
                for g in self.gaps
            ],
        }


def vote_ratings(votes: Sequence[Vote], n_contestants: int) -> VoteRatings | None:
    """Bradley-Terry ratings of the contestants from their votes; None before any vote that
    compares two answers."""
    counted = latest_votes(votes, n_contestants)
    pairs = pairwise_outcomes(votes, n_contestants)
    if not pairs:
        return None
    fit = bradley_terry([(str(a), str(b), score) for a, b, score in pairs])
    per_pair = len(counted) / len(pairs)  # votes per pairwise outcome
    ratings = tuple(VoteRating(int(r.name), r.rating, r.low, r.high, r.votes) for r in fit.ratings)
    # A contestant nobody voted on is not rated (it shows without a rating).
    gaps = tuple(
        VoteGap(
            int(g.better),
            int(g.worse),
            g.difference,
            g.separated,
            None if g.more_votes is None else max(1, math.ceil(g.more_votes * per_pair)),
        )
        for g in fit.gaps
    )
    return VoteRatings(ratings, gaps, len(counted), len(pairs))


def describe_gap(gap: VoteGap, better: str, worse: str) -> str:
    """One English sentence about two neighbours (the window says it in its own words)."""
    if gap.separated:
        return f"{better} is ahead of {worse} (95% interval of the gap above zero)."
    if gap.more_votes is None:
        return f"{better} and {worse} are level: the votes cannot tell them apart."
    return f"about {gap.more_votes} more votes to tell {better} and {worse} apart"
