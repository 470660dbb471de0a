"""Blind votes as Bradley-Terry ratings: the pairs a vote makes, who is ahead, whether the
votes can tell two models apart, "about N more votes", and the reports that carry them."""

from __future__ import annotations

import json

import pytest

from desktop.core.compare import (
    BlindLabels,
    ComparisonResult,
    ContestantInfo,
    ContestantOutcome,
    Prompt,
    Vote,
    pairwise_outcomes,
    to_dict,
    to_markdown,
    vote_ratings,
)


def ab_votes(a_wins: int, b_wins: int, ties: int = 0) -> list[Vote]:
    """Pairwise votes between contestants 0 and 1, one per prompt."""
    outcomes = [Vote(i, "win", winner=0) for i in range(a_wins)]
    outcomes += [Vote(a_wins + i, "win", winner=1) for i in range(b_wins)]
    outcomes += [Vote(a_wins + b_wins + i, "tie") for i in range(ties)]
    return outcomes


def test_a_vote_among_three_is_two_pairs_and_a_replaced_vote_counts_once() -> None:
    votes = [
        Vote(0, "win", winner=1, at=1.0),
        Vote(0, "win", winner=2, at=2.0),  # the same prompt voted again: replaces the first
        Vote(1, "tie", at=3.0),
        Vote(2, "win", winner=0, among=(0, 1), at=4.0),
    ]
    pairs = pairwise_outcomes(votes, 3)
    assert sorted(pairs) == sorted(
        [(2, 0, 1.0), (2, 1, 1.0), (0, 1, 0.5), (0, 2, 0.5), (1, 2, 0.5), (0, 1, 1.0)]
    )
    ratings = vote_ratings(votes, 3)
    assert ratings is not None
    assert (ratings.votes, ratings.pairs) == (3, 6)


def test_no_vote_no_ratings() -> None:
    assert vote_ratings([], 2) is None


def test_a_clear_winner_is_ahead_with_intervals_around_its_rating() -> None:
    ratings = vote_ratings(ab_votes(27, 3), 2)
    assert ratings is not None
    best, worst = ratings.ratings
    assert (best.contestant, worst.contestant) == (0, 1)
    assert best.low < best.rating < best.high
    assert best.rating > 1000 > worst.rating
    assert best.pairs == worst.pairs == 30
    (gap,) = ratings.gaps
    assert gap.separated
    assert gap.more_votes is None


def test_about_n_more_votes_at_the_same_rate_tell_them_apart() -> None:
    ratings = vote_ratings(ab_votes(12, 8), 2)
    assert ratings is not None
    (gap,) = ratings.gaps
    assert not gap.separated
    assert gap.more_votes is not None
    assert gap.more_votes > 10
    total = 20 + gap.more_votes
    # The same 60:40 rate over that many votes (a tenth more, for the prior) separates them...
    grown = round(total * 1.1)
    later = vote_ratings(ab_votes(round(grown * 0.6), grown - round(grown * 0.6)), 2)
    assert later is not None
    assert later.gaps[0].separated
    # ... and far fewer do not.
    fewer = vote_ratings(ab_votes(round(total * 0.3), round(total * 0.2)), 2)
    assert fewer is not None
    assert not fewer.gaps[0].separated


def test_dead_level_votes_never_separate() -> None:
    ratings = vote_ratings(ab_votes(5, 5, ties=2), 2)
    assert ratings is not None
    (gap,) = ratings.gaps
    assert not gap.separated
    assert gap.more_votes is None
    assert ratings.ratings[0].rating == pytest.approx(1000.0, abs=1e-6)


def _result(votes: list[Vote], blind: BlindLabels | None) -> ComparisonResult:
    infos = (
        ContestantInfo(0, "SmolLM2", "smollm2", "SmolLM2", "/m/s.gguf", "Q4_1"),
        ContestantInfo(1, "Gemma", "gemma3", "Gemma", "/m/g.gguf", "Q4_K_M"),
    )
    return ComparisonResult(
        id=7,
        title="votes",
        mode="fair",
        contestants=infos,
        outcomes=(ContestantOutcome("done"), ContestantOutcome("done")),
        prompts=tuple(Prompt(f"prompt {i}") for i in range(len(votes))),
        answers=(),
        votes=tuple(votes),
        blind=blind,
    )


def test_the_reports_carry_the_ratings() -> None:
    result = _result(ab_votes(12, 8), BlindLabels((1, 0)))
    ratings = result.vote_ratings()
    assert ratings is not None
    more = ratings.gaps[0].more_votes
    text = to_markdown(result)
    assert "## Votes: Bradley-Terry ratings" in text
    assert f"about {more} more votes to tell B · SmolLM2 and A · Gemma apart" in text
    best = ratings.ratings[0]
    assert f"| B · SmolLM2 | {best.rating:.0f} | {best.low:.0f} – {best.high:.0f} | 20 |" in text
    document = json.loads(json.dumps(to_dict(result)))
    assert document["vote_ratings"]["gaps"][0]["more_votes"] == more
    assert document["vote_ratings"]["ratings"][0]["contestant"] == 0
    # Without votes, no section and no ratings.
    silent = _result([], None)
    assert "Bradley-Terry" not in to_markdown(silent)
    assert to_dict(silent)["vote_ratings"] is None
