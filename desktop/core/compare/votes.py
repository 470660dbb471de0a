"""Blind comparisons: anonymous labels in a shuffled order, votes, and win rates.

In blind mode the answers are shown under letters (A, B, C, ...) in an order shuffled once per
comparison (:class:`BlindLabels`, stored with it), so neither the names nor the column order
give a model away. Per prompt the person votes: one answer wins (``win``, against the others
shown: ``among``, all by default, so a pairwise A/B vote among six works too), ``tie``, or
``all_bad`` ("both bad"). :func:`win_rates` turns votes into each contestant's record, and the
names are revealed with it; :func:`pairwise_outcomes` turns them into the pairs Bradley-Terry
ratings are fitted on (``ratings``).

Win rate: (wins + ties / 2) / votes the contestant took part in; an ``all_bad`` vote counts as
a vote without a win (and is counted apart as ``bad``).
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

VoteOutcome = Literal["win", "tie", "all_bad"]


@dataclass(frozen=True)
class BlindLabels:
    """The shuffled column order of a blind comparison: ``order[k]`` is the contestant shown
    in column ``k`` under the letter ``string.ascii_uppercase[k]``."""

    order: tuple[int, ...]

    def __post_init__(self) -> None:
        if sorted(self.order) != list(range(len(self.order))):
            raise ValueError(f"not an order of contestants: {self.order}")

    @classmethod
    def shuffled(cls, n: int, seed: int | None = None) -> BlindLabels:
        """A random order of ``n`` contestants (``seed``: reproducible)."""
        order = list(range(n))
        random.Random(seed).shuffle(order)
        return cls(tuple(order))

    def label(self, contestant: int) -> str:
        """The letter contestant ``contestant`` is shown under."""
        return string.ascii_uppercase[self.order.index(contestant)]

    def contestant(self, label: str) -> int:
        """The contestant behind a letter; ValueError for a letter not in use."""
        column = string.ascii_uppercase.find(label.strip().upper())
        if column < 0 or column >= len(self.order) or len(label.strip()) != 1:
            raise ValueError(f"no answer is labelled {label!r}")
        return self.order[column]

    @property
    def labels(self) -> tuple[str, ...]:
        """Letters in column order."""
        return tuple(string.ascii_uppercase[: len(self.order)])


@dataclass(frozen=True)
class Vote:
    """A vote on prompt ``prompt``: ``winner`` (a contestant index) for ``win``; ``among``
    the contestants that were shown (empty: all)."""

    prompt: int
    outcome: VoteOutcome
    winner: int | None = None
    among: tuple[int, ...] = ()
    at: float = field(default_factory=time.time)
    id: int | None = None

    def __post_init__(self) -> None:
        if self.outcome not in ("win", "tie", "all_bad"):
            raise ValueError(f"unknown vote outcome {self.outcome!r}")
        if (self.outcome == "win") != (self.winner is not None):
            raise ValueError("a win names its winner, and only a win does")
        if self.winner is not None and self.among and self.winner not in self.among:
            raise ValueError("the winner must be among the answers shown")

    def participants(self, n_contestants: int) -> tuple[int, ...]:
        return self.among or tuple(range(n_contestants))


@dataclass(frozen=True)
class WinRate:
    contestant: int
    wins: int = 0
    ties: int = 0
    losses: int = 0
    bad: int = 0

    @property
    def votes(self) -> int:
        return self.wins + self.ties + self.losses + self.bad

    @property
    def rate(self) -> float | None:
        """(wins + ties / 2) / votes; None before any vote."""
        return (self.wins + self.ties / 2) / self.votes if self.votes else None

    def describe(self) -> str:
        """``2 W / 1 T / 0 L (83%)``, or ``-`` without votes."""
        if not self.votes:
            return "-"
        rate = self.rate or 0.0
        bad = f" / {self.bad} bad" if self.bad else ""
        return f"{self.wins} W / {self.ties} T / {self.losses} L{bad} ({rate:.0%})"


def win_rates(votes: Sequence[Vote], n_contestants: int) -> list[WinRate]:
    """Each contestant's record over ``votes`` (the latest vote per prompt and set of shown
    answers counts: voting again replaces a vote)."""
    tally = {i: [0, 0, 0, 0] for i in range(n_contestants)}  # wins, ties, losses, bad
    for vote in latest_votes(votes, n_contestants):
        for i in vote.participants(n_contestants):
            if i not in tally:
                continue
            if vote.outcome == "tie":
                tally[i][1] += 1
            elif vote.outcome == "all_bad":
                tally[i][3] += 1
            elif vote.winner == i:
                tally[i][0] += 1
            else:
                tally[i][2] += 1
    return [WinRate(i, *counts) for i, counts in tally.items()]


def latest_votes(votes: Sequence[Vote], n_contestants: int) -> list[Vote]:
    """The votes that count: the latest per prompt and set of shown answers."""
    latest: dict[tuple[int, tuple[int, ...]], Vote] = {}
    for vote in sorted(votes, key=lambda v: v.at):
        latest[(vote.prompt, tuple(sorted(vote.participants(n_contestants))))] = vote
    return list(latest.values())


def pairwise_outcomes(votes: Sequence[Vote], n_contestants: int) -> list[tuple[int, int, float]]:
    """The votes that count as pairwise outcomes ``(a, b, score)`` for Bradley-Terry: a win
    among k answers beats each of the k - 1 others (score 1); a tie, and "all bad", count as a
    tie between every two answers shown (0.5: neither was preferred)."""
    pairs: list[tuple[int, int, float]] = []
    for vote in latest_votes(votes, n_contestants):
        shown = [i for i in vote.participants(n_contestants) if 0 <= i < n_contestants]
        winner = vote.winner
        if winner is not None:
            pairs += [(winner, i, 1.0) for i in shown if i != winner]
        else:
            pairs += [(a, b, 0.5) for k, a in enumerate(shown) for b in shown[k + 1 :]]
    return pairs
