"""Progress of a running comparison, as typed events.

The runner calls its ``on_event`` callback with one of these, always on the runner's own thread
(in parallel mode the contestants' threads hand their events to it), in this order per
contestant: :class:`ContestantStarted`, then :class:`ContestantLoaded` or
:class:`ContestantFailed`, then per prompt :class:`AnswerStarted`, :class:`AnswerText` as tokens
stream, :class:`AnswerFinished` (the answer is already stored), and at last
:class:`ContestantFinished`. A plan with a quality check then measures each contestant in turn:
:class:`QualityStarted`, :class:`QualityProgress` after each question or chunk,
:class:`QualityFinished` (the result already stored). The whole run starts with
:class:`ComparisonStarted` and ends with :class:`ComparisonFinished`. A window forwards them
through one signal; keep the callback short.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from desktop.core.compare.quality_check import QualityOutcome
from desktop.core.compare.results import AnswerResult, ComparisonResult, ContestantOutcome


@dataclass(frozen=True)
class ComparisonStarted:
    """``total``: the answers this run will produce (fewer than all cells on a resume)."""

    comparison_id: int | None
    mode: str
    n_contestants: int
    n_prompts: int
    total: int


@dataclass(frozen=True)
class ContestantStarted:
    """The contestant's worker is starting and its model loading."""

    contestant: int
    name: str


@dataclass(frozen=True)
class ContestantLoaded:
    contestant: int
    load_ms: float
    n_ctx: int
    n_threads: int
    n_gpu_layers: int


@dataclass(frozen=True)
class ContestantFailed:
    """The model did not load or its worker stopped; the other contestants go on."""

    contestant: int
    reason: str
    kind: str


@dataclass(frozen=True)
class ContestantFinished:
    contestant: int
    outcome: ContestantOutcome


@dataclass(frozen=True)
class AnswerStarted:
    contestant: int
    prompt: int


@dataclass(frozen=True)
class AnswerText:
    """New text of the answer being generated; ``tokens`` counts the tokens so far."""

    contestant: int
    prompt: int
    text: str
    tokens: int


@dataclass(frozen=True)
class AnswerFinished:
    """An answer finished and was stored; ``done`` of ``total`` answers of this run."""

    answer: AnswerResult
    done: int
    total: int


@dataclass(frozen=True)
class QualityStarted:
    """The contestant's quality check starts (its model loading); ``planned``: questions, or
    None for a text (chunks are known once it is read)."""

    contestant: int
    name: str
    planned: int | None


@dataclass(frozen=True)
class QualityProgress:
    """``done`` of ``total`` questions or chunks; ``value`` and ``interval``: the running
    accuracy or KLD (None while the reference is evaluated)."""

    contestant: int
    done: int
    total: int
    value: float | None
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class QualityFinished:
    outcome: QualityOutcome


@dataclass(frozen=True)
class ComparisonFinished:
    result: ComparisonResult


CompareEvent: TypeAlias = (
    ComparisonStarted
    | ContestantStarted
    | ContestantLoaded
    | ContestantFailed
    | ContestantFinished
    | AnswerStarted
    | AnswerText
    | AnswerFinished
    | QualityStarted
    | QualityProgress
    | QualityFinished
    | ComparisonFinished
)

# What the runner and the contestants' turns tell their caller with.
EventCallback: TypeAlias = Callable[[CompareEvent], None]
