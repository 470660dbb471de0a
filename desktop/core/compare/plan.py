"""What a comparison runs: contestants, prompts, mode, blind or not; and plans from the history.

A :class:`ComparisonPlan` is checked when it is made (2 to 6 contestants, at least one prompt,
a known mode). :func:`resume_plan` rebuilds the plan of a stored comparison with its models
found again on this machine (a model that is gone makes its contestant ``unavailable``: it
fails with that reason, the others run), and :func:`rerun_plan` gives the same contestants and
prompts as a new comparison.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop.core.compare.contestants import Contestant, check_count, contestant_from_record
from desktop.core.compare.errors import CompareError
from desktop.core.compare.persist import prompt_from_record, quality_of, result_from_record
from desktop.core.compare.quality_check import QualityCheck
from desktop.core.compare.results import ComparisonResult
from desktop.core.compare.schedule import MODES, Mode
from desktop.core.compare.suites import Prompt, PromptSuite
from desktop.core.history import History
from desktop.core.library import ModelResolver


@dataclass(frozen=True)
class ComparisonPlan:
    """What to run: 2 to 6 contestants, one or more prompts, the mode, blind or not.

    ``blind_seed`` makes the blind order reproducible (None: random); ``quality``: a quality
    check every contestant runs after its answers (None: none). A prompt's own
    ``max_tokens`` and the contestant's apply together: the smaller wins."""

    contestants: tuple[Contestant, ...]
    prompts: tuple[Prompt, ...]
    mode: Mode = "fair"
    blind: bool = False
    title: str = ""
    suite: str | None = None
    blind_seed: int | None = None
    quality: QualityCheck | None = None

    def __post_init__(self) -> None:
        check_count(len(self.contestants))
        if not self.prompts:
            raise CompareError("A comparison needs at least one prompt.", kind="compare.suite")
        if self.mode not in MODES:
            raise CompareError(
                f"Unknown mode {self.mode!r}; use fair or parallel.", kind="compare.option"
            )

    @classmethod
    def for_suite(
        cls, contestants: Sequence[Contestant], suite: PromptSuite, **options: Any
    ) -> ComparisonPlan:
        """A plan over a suite; a suite that is no file (``single_prompt``) leaves no name."""
        named = suite.path is not None
        title = options.pop("title", "") or suite.title or (suite.name if named else "")
        return cls(
            tuple(contestants),
            suite.prompts,
            title=title,
            suite=suite.name if named else None,
            **options,
        )

    @property
    def display_title(self) -> str:
        return self.title or " vs ".join(c.display_name for c in self.contestants)


def resume_plan(
    history: History, comparison_id: int, resolver: ModelResolver
) -> tuple[ComparisonPlan, ComparisonResult]:
    """A stored comparison's plan, its models found again on this machine, and what it has."""
    record = history.comparison(comparison_id)
    existing = result_from_record(record)
    if existing.quality_check is not None:
        existing = dataclasses.replace(existing, quality=quality_of(history, record))
    plan = ComparisonPlan(
        tuple(contestant_from_record(resolver, c) for c in record.contestants),
        tuple(prompt_from_record(q) for q in record.prompts),
        mode="parallel" if record.summary.mode == "parallel" else "fair",
        blind=bool(record.blind_order),
        title=record.summary.title,
        suite=record.summary.suite,
        quality=existing.quality_check,
    )
    return plan, existing


def rerun_plan(history: History, comparison_id: int, resolver: ModelResolver) -> ComparisonPlan:
    """A stored comparison's contestants and prompts as a new plan, to run again here."""
    plan, _existing = resume_plan(history, comparison_id, resolver)
    return plan
