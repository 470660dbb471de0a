"""Comparisons in the history: from compare's values to history records and back.

The history stores plain records (JSON settings, check objects, run reports); this module is
the one place that knows how a :class:`ComparisonResult` maps onto them, so a comparison opened
from the history is the same value the runner returned.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from desktop.core.compare.checks import Check, CheckError
from desktop.core.compare.contestants import Contestant
from desktop.core.compare.quality_check import QualityCheck, QualityOutcome
from desktop.core.compare.results import (
    AnswerResult,
    ComparisonResult,
    ContestantInfo,
    ContestantOutcome,
)
from desktop.core.compare.suites import Prompt
from desktop.core.compare.votes import BlindLabels, Vote
from desktop.core.history import (
    QUALITY_FAILURES,
    ComparisonRecord,
    ContestantRecord,
    History,
    ModelRef,
    PromptRecord,
    RunRecord,
    VoteRecord,
)
from desktop.core.quality import result_of

log = logging.getLogger(__name__)


def info_of(contestant: Contestant, index: int, model: ModelRef | None = None) -> ContestantInfo:
    path = contestant.model.path
    return ContestantInfo(
        index=index,
        name=contestant.display_name,
        spec=contestant.spec,
        label=contestant.model.label,
        path=str(path) if path is not None else None,
        quant=contestant.quant,
        settings=contestant.settings_dict(),
        sha256=model.sha256 if model is not None else None,
    )


def info_from_record(record: ContestantRecord) -> ContestantInfo:
    model = record.model
    return ContestantInfo(
        index=record.index,
        name=record.name,
        spec=record.spec,
        label=model.label if model is not None else record.name,
        path=str(model.path) if model is not None else None,
        quant=model.quant if model is not None else None,
        settings=record.settings,
        sha256=model.sha256 if model is not None else None,
    )


def model_ref_of(history: History, contestant: Contestant) -> ModelRef | None:
    """The history's record of the contestant's file (its hash found or taken when cheap)."""
    path = contestant.model.path
    if path is None:
        return None
    return history.model_ref(
        Path(path),
        label=contestant.model.label,
        variant_id=contestant.model.variant_id,
        quant=contestant.quant,
        sha256=contestant.known_sha256(),
    )


def prompt_record(prompt: Prompt) -> PromptRecord:
    return PromptRecord(
        text=prompt.text,
        key=prompt.id,
        system=prompt.system,
        checks=tuple(c.to_dict() for c in prompt.checks),
        category=prompt.category,
        max_tokens=prompt.max_tokens,
    )


def prompt_from_record(record: PromptRecord) -> Prompt:
    checks = []
    for data in record.checks:
        try:
            checks.append(Check.from_dict(data))
        except CheckError as exc:  # written by a later version, say: the prompt still runs
            log.warning("a stored check is skipped: %s", exc)
    return Prompt(
        text=record.text,
        id=record.key,
        system=record.system,
        checks=tuple(checks),
        category=record.category,
        max_tokens=record.max_tokens,
    )


def answer_from_run(run: RunRecord) -> AnswerResult:
    assert run.contestant_index is not None
    assert run.prompt_index is not None
    return AnswerResult(
        contestant=run.contestant_index,
        prompt=run.prompt_index,
        text=run.output,
        report=run.report,
        finish_reason=run.finish_reason,
        error=run.error,
        error_kind=run.error_kind,
        checks_passed=run.checks_passed,
        checks_total=run.checks_total,
        check_results=run.checks,
        run_id=run.id,
    )


def record_answer(history: History, comparison_id: int, answer: AnswerResult) -> AnswerResult:
    """Store one finished answer (committed on return); the answer with its run id."""
    run_id = history.record_answer(
        comparison_id,
        answer.contestant,
        answer.prompt,
        output=answer.text,
        report=answer.report,
        error=answer.error,
        error_kind=answer.error_kind,
        finish_reason=answer.finish_reason,
        checks_passed=answer.checks_passed,
        checks_total=answer.checks_total,
        checks=answer.check_results,
    )
    return AnswerResult(**{**answer.__dict__, "run_id": run_id})


def vote_from_record(record: VoteRecord) -> Vote:
    outcome = record.outcome if record.outcome in ("win", "tie", "all_bad") else "tie"
    return Vote(
        prompt=record.prompt_index,
        outcome=outcome,  # type: ignore[arg-type]
        winner=record.winner if outcome == "win" else None,
        among=record.among,
        at=record.created_at,
        id=record.id,
    )


def record_vote(history: History, comparison_id: int, vote: Vote) -> Vote:
    """Store a blind vote; the vote with its id."""
    stored = history.record_vote(
        comparison_id, vote.prompt, vote.outcome, winner=vote.winner, among=vote.among
    )
    return vote_from_record(stored)


def result_from_record(record: ComparisonRecord) -> ComparisonResult:
    summary = record.summary
    n = len(record.contestants)
    blind = (
        BlindLabels(record.blind_order)
        if record.blind_order and len(record.blind_order) == n
        else None
    )
    return ComparisonResult(
        id=record.id,
        title=summary.title,
        mode=summary.mode,
        contestants=tuple(info_from_record(c) for c in record.contestants),
        outcomes=tuple(
            ContestantOutcome(c.status, c.reason, c.error_kind) for c in record.contestants
        ),
        prompts=tuple(prompt_from_record(q) for q in record.prompts),
        answers=tuple(
            answer_from_run(r)
            for r in record.runs
            if r.contestant_index is not None and r.prompt_index is not None
        ),
        votes=tuple(vote_from_record(v) for v in record.votes),
        blind=blind,
        suite=summary.suite,
        machine=summary.machine,
        created_at=summary.created_at,
        quality_check=QualityCheck.from_dict(record.options.get("quality")),
    )


def quality_of(history: History, record: ComparisonRecord) -> tuple[QualityOutcome, ...]:
    """The quality results a comparison's check stored, one per contestant (the newest), and
    for a contestant without one the sentence its check failed with (or why it was stopped or
    skipped). Only results of its machine and of each contestant's file count: a measurement
    imported by an older version carries another history's comparison number."""
    found: dict[int, QualityOutcome] = {}
    models = [c.model for c in record.contestants]
    for m in history.measurements(kind="quality", comparison=record.id):
        c = m.settings.get("contestant")
        if not isinstance(c, int) or not 0 <= c < len(models) or c in found:
            continue
        model = models[c]
        same_file = (
            model is not None
            and m.model is not None
            and (m.model.id == model.id or (model.sha256 and m.model.sha256 == model.sha256))
        )
        result = result_of(m.kind, m.data)
        if same_file and m.machine == record.summary.machine and result is not None:
            found[c] = QualityOutcome(c, "done", result, measurement_id=m.id)
    for k in record.contestants:
        status = k.quality_status
        if k.index not in found and status in QUALITY_FAILURES:
            found[k.index] = QualityOutcome(
                k.index,
                status,  # type: ignore[arg-type]  # one of QualityStatus, checked above
                reason=k.quality_reason,
            )
    return tuple(found[c] for c in sorted(found))


def record_quality(history: History, comparison_id: int, outcome: QualityOutcome) -> None:
    """Keep a contestant's quality outcome with the comparison: a result is its measurement
    (stored by the check), so only why there is none is written here (and forgotten once
    there is one)."""
    if outcome.status == "done":
        if outcome.measurement_id is not None:
            history.set_contestant_quality(comparison_id, outcome.contestant, None)
        return
    history.set_contestant_quality(
        comparison_id, outcome.contestant, outcome.status, outcome.reason
    )


def open_comparison(history: History, comparison_id: int) -> ComparisonResult:
    """A stored comparison as a result, its quality results with it (HistoryNotFound when
    there is none)."""
    record = history.comparison(comparison_id)
    result = result_from_record(record)
    if result.quality_check is None:
        return result
    return replace(result, quality=quality_of(history, record))
