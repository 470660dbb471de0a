"""Between database rows and history records: the SQL the store shares, and the converters."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.core.engine import RunReport
from desktop.core.hardware import THIS_MACHINE
from desktop.core.history.records import (
    ComparisonSummary,
    ContestantRecord,
    ModelRef,
    PromptRecord,
    RunRecord,
    VoteRecord,
    report_from_dict,
    report_to_dict,
)

log = logging.getLogger(__name__)

RUN_SELECT = (
    "SELECT runs.*, machines.name AS machine_name, "
    "models.path AS m_path, models.size_bytes AS m_size, models.mtime_ns AS m_mtime, "
    "models.sha256 AS m_sha256, models.label AS m_label, models.variant_id AS m_variant, "
    "models.quant AS m_quant, (SELECT q.text FROM prompts q WHERE q.comparison_id = "
    "runs.comparison_id AND q.idx = runs.prompt_idx) AS q_text FROM runs "
    "LEFT JOIN machines ON machines.id = runs.machine_id "
    "LEFT JOIN models ON models.id = runs.model_id"
)

CONTESTANT_SELECT = (
    "SELECT k.*, m.path AS m_path, m.size_bytes AS m_size, m.mtime_ns AS m_mtime, "
    "m.sha256 AS m_sha256, m.label AS m_label, m.variant_id AS m_variant, "
    "m.quant AS m_quant FROM contestants k LEFT JOIN models m ON m.id = k.model_id"
)

SUMMARY_SELECT = (
    "SELECT c.*, machines.name AS machine_name, "
    "(SELECT COUNT(*) FROM prompts q WHERE q.comparison_id = c.id) AS n_prompts, "
    "(SELECT COUNT(*) FROM runs r WHERE r.comparison_id = c.id) AS n_answers, "
    "(SELECT json_group_array(name) FROM (SELECT name FROM contestants k "
    "WHERE k.comparison_id = c.id ORDER BY k.idx)) AS names "
    "FROM comparisons c LEFT JOIN machines ON machines.id = c.machine_id"
)


def loads(text: str | None, default: Any) -> Any:
    """A JSON column's value; ``default`` when it is empty, or unreadable (recovered from a
    damaged file, or changed by hand), or not of the default's type."""
    if not text:
        return default
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        log.warning("an unreadable JSON value in the history was ignored: %.80r", text)
        return default
    if default is not None and not isinstance(value, type(default)):
        return default
    return value


def like(text: str) -> str:
    """A LIKE pattern (``ESCAPE '\\'``) matching ``text`` anywhere, its wildcards literal."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def model_filter(table: str) -> str:
    """A condition on a models row: label, variant id or path (three ``like`` arguments)."""
    return (
        f"({table}.label LIKE ? ESCAPE '\\' OR {table}.variant_id LIKE ? ESCAPE '\\' "
        f"OR {table}.path LIKE ? ESCAPE '\\')"
    )


def insert_run(
    *,
    source: str,
    model_id: int | None,
    machine_id: int | None,
    settings: Mapping[str, Any],
    system: str | None,
    prompt: str | None,
    output: str,
    report: RunReport | None,
    error: str | None = None,
    error_kind: str | None = None,
    finish_reason: str | None = None,
    checks_passed: int | None = None,
    checks_total: int | None = None,
    checks: Sequence[Mapping[str, Any]] = (),
    cell: tuple[int | None, int | None, int | None] = (None, None, None),
) -> tuple[str, tuple[Any, ...]]:
    """The INSERT of one answer: the report as a document plus the numbers searched and sorted
    on as columns."""
    m = report.metrics if report is not None else None
    values: dict[str, Any] = {
        "created_at": time.time(),
        "source": source,
        "comparison_id": cell[0],
        "contestant_idx": cell[1],
        "prompt_idx": cell[2],
        "model_id": model_id,
        "machine_id": machine_id,
        "settings": json.dumps(dict(settings), ensure_ascii=False, default=str),
        "system": system,
        "prompt": prompt,
        "output": output,
        "finish_reason": finish_reason or (report.finish_reason if report is not None else None),
        "error": error,
        "error_kind": error_kind,
        "ttft_ms": m.ttft_ms if m is not None else None,
        "prompt_tokens_per_s": m.prompt_tokens_per_s if m is not None else None,
        "generation_tokens_per_s": m.tokens_per_s if m is not None else None,
        "generated_tokens": m.generated_tokens if m is not None else None,
        "private_peak_bytes": report.private_peak_bytes if report is not None else None,
        "rss_peak_bytes": report.rss_peak_bytes if report is not None else None,
        "vram_peak_bytes": report.vram_peak_bytes if report is not None else None,
        "predicted_ram_bytes": report.predicted_ram_bytes if report is not None else None,
        "predicted_vram_bytes": report.predicted_vram_bytes if report is not None else None,
        "checks_passed": checks_passed,
        "checks_total": checks_total,
        "checks": json.dumps([dict(c) for c in checks], ensure_ascii=False),
        "metrics": json.dumps(report_to_dict(report)) if report is not None else None,
    }
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    return f"INSERT INTO runs ({columns}) VALUES ({marks})", tuple(values.values())


def model_ref(row: Any, prefix: str = "") -> ModelRef:
    """A models row (``prefix=""``) or the ``m_*`` columns of a join."""
    if prefix:
        return ModelRef(
            id=int(row["model_id"]),
            path=Path(row[f"{prefix}path"]),
            size_bytes=int(row[f"{prefix}size"]),
            mtime_ns=int(row[f"{prefix}mtime"]),
            sha256=row[f"{prefix}sha256"],
            label=row[f"{prefix}label"],
            variant_id=row[f"{prefix}variant"],
            quant=row[f"{prefix}quant"],
        )
    return ModelRef(
        id=int(row["id"]),
        path=Path(row["path"]),
        size_bytes=int(row["size_bytes"]),
        mtime_ns=int(row["mtime_ns"]),
        sha256=row["sha256"],
        label=row["label"],
        variant_id=row["variant_id"],
        quant=row["quant"],
    )


def _joined_model(row: Any) -> ModelRef | None:
    return model_ref(row, "m_") if row["model_id"] is not None and row["m_path"] else None


def run_record(row: Any) -> RunRecord:
    """A run row of :data:`RUN_SELECT` (a comparison's answer takes its prompt's text)."""
    output = row["output"] or ""
    metrics = loads(row["metrics"], {}) or None
    prompt = row["prompt"] if row["prompt"] is not None else row["q_text"]
    return RunRecord(
        id=int(row["id"]),
        created_at=float(row["created_at"]),
        source=row["source"],
        model=_joined_model(row),
        machine=row["machine_name"] or THIS_MACHINE,
        settings=loads(row["settings"], {}),
        system=row["system"],
        prompt=prompt or "",
        output=output,
        finish_reason=row["finish_reason"],
        error=row["error"],
        error_kind=row["error_kind"],
        report=report_from_dict(output, metrics) if metrics is not None else None,
        checks_passed=row["checks_passed"],
        checks_total=row["checks_total"],
        checks=tuple(loads(row["checks"], [])),
        comparison_id=row["comparison_id"],
        contestant_index=row["contestant_idx"],
        prompt_index=row["prompt_idx"],
    )


def contestant_record(row: Any) -> ContestantRecord:
    return ContestantRecord(
        name=row["name"],
        spec=row["spec"],
        settings=loads(row["settings"], {}),
        model=_joined_model(row),
        index=int(row["idx"]),
        status=row["status"],
        reason=row["reason"],
        error_kind=row["error_kind"],
        quality_status=row["quality_status"],
        quality_reason=row["quality_reason"],
    )


def prompt_record(row: Any) -> PromptRecord:
    return PromptRecord(
        text=row["text"],
        key=row["prompt_key"],
        system=row["system"],
        checks=tuple(loads(row["checks"], [])),
        category=row["category"] or "",
        max_tokens=row["max_tokens"],
        index=int(row["idx"]),
    )


def vote_record(row: Any) -> VoteRecord:
    return VoteRecord(
        id=int(row["id"]),
        prompt_index=int(row["prompt_idx"]),
        outcome=row["outcome"],
        winner=row["winner_idx"],
        among=tuple(loads(row["among"], [])),
        created_at=float(row["created_at"]),
    )


def comparison_summary(row: Any) -> ComparisonSummary:
    return ComparisonSummary(
        id=int(row["id"]),
        title=row["title"],
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        mode=row["mode"],
        suite=row["suite"],
        status=row["status"],
        machine=row["machine_name"] or THIS_MACHINE,
        models=tuple(loads(row["names"], [])),
        n_prompts=int(row["n_prompts"]),
        n_answers=int(row["n_answers"]),
    )
