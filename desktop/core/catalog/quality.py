"""Published quality scores of the catalog's models: the record type and the bundled file.

A :class:`QualityRecord` is one score as published (a percentage), for a model (not a variant:
scores are measured on the unquantized weights), with its setting (metric, shots, thinking on or
off) and where it was read: the exact address, the date, the data's licence and whether the
model's own vendor reported it. Nothing is estimated or adjusted here; putting scores of
different benchmarks on one scale is :mod:`desktop.core.recommend`'s job.

The bundled scores sit in ``resources/quality/published.json``, grouped by the source they were
read from (readable, and one place per source to check). :func:`merge_quality_file` checks that
file (:data:`~desktop.core.catalog.schema.QUALITY_FILE_SCHEMA`) and adds its scores, in the
inline form every catalog model may carry under ``"quality"``
(:data:`~desktop.core.catalog.schema.QUALITY_RECORD`), to the catalog document before it is
built; a catalog or user overlay can add records of its own the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.catalog.schema import invalid, quality_file_problem

QUALITY_FILE = Path("quality") / "published.json"


def bundled_quality_path() -> Path:
    """``resources/quality/published.json`` (beside the package, or in the bundle)."""
    return paths.resources_dir() / QUALITY_FILE


@dataclass(frozen=True)
class QualityRecord:
    """One published score of one model. ``score`` is a percentage (0-100) as published."""

    model_id: str
    benchmark: str  # "c-eval", "humaneval", "livecodebench-v5", ...
    score: float
    metric: str  # "accuracy", "pass@1", "cons@64", "prompt-strict", "win-rate", ...
    source: str  # the exact address it was read from
    read: str  # the date it was read, YYYY-MM-DD
    licence: str  # the licence of the data where it was read
    self_reported: bool  # reported by the model's own vendor
    source_title: str = ""
    shots: int | None = None
    thinking: bool = False  # a reasoning model's thinking mode was on
    note: str = ""  # anything else about the setting

    def setting_text(self) -> str:
        """ "pass@1, 0-shot, thinking on" — the parts that are known."""
        parts = [self.metric]
        if self.shots is not None:
            parts.append(f"{self.shots}-shot")
        if self.thinking:
            parts.append("thinking on")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "benchmark": self.benchmark,
            "score": self.score,
            "metric": self.metric,
            "shots": self.shots,
            "thinking": self.thinking,
            "note": self.note or None,
            "source": self.source,
            "source_title": self.source_title or None,
            "read": self.read,
            "licence": self.licence,
            "self_reported": self.self_reported,
        }


def build_quality(model_id: str, data: Mapping[str, Any]) -> QualityRecord:
    """A checked inline record (``QUALITY_RECORD``) as the dataclass."""
    shots = data.get("shots")
    return QualityRecord(
        model_id=model_id,
        benchmark=str(data["benchmark"]),
        score=float(data["score"]),
        metric=str(data["metric"]),
        source=str(data["source"]),
        read=str(data["read"]),
        licence=str(data["licence"]),
        self_reported=bool(data["self_reported"]),
        source_title=str(data.get("source_title", "")),
        shots=None if shots is None else int(shots),
        thinking=bool(data.get("thinking", False)),
        note=str(data.get("note", "")),
    )


def quality_from_file(
    document: Any,
    path: Path | str,
    family_of: Callable[[str], str | None],
    *,
    checked: bool = False,
) -> dict[str, list[dict[str, Any]]]:
    """The records of a quality file in the inline form, by model id.

    ``family_of`` gives a model id's family (None: not in the catalog; its scores are left out,
    so a test catalog can load the bundled file). A broken file raises CatalogError naming the
    file and the JSON pointer; ``checked``: this very file passed the schema before (skip it)."""
    problem = None if checked else quality_file_problem(document)
    if problem is not None:
        raise invalid(path, *problem)
    out: dict[str, list[dict[str, Any]]] = {}
    for source in document["sources"]:
        vendor = source["vendor_family"]
        for model_id, scores in source["records"].items():
            family = family_of(model_id)
            if family is None:
                continue
            for score in scores:
                out.setdefault(model_id, []).append(
                    {
                        **score,
                        "source": source["url"],
                        "source_title": source["title"],
                        "read": source["read"],
                        "licence": source["licence"],
                        "self_reported": vendor in ("*", family),
                    }
                )
    return out


def merge_quality(document: dict[str, Any], records: Mapping[str, list[dict[str, Any]]]) -> None:
    """Add ``records`` (inline form, by model id) to the models of a catalog document, after any
    the catalog itself carries."""
    for model in document["models"]:
        extra = records.get(model["id"])
        if extra:
            model["quality"] = [*model.get("quality", []), *extra]


def catalog_families(document: Mapping[str, Any]) -> Callable[[str], str | None]:
    """A look-up of model id -> family over a catalog document."""
    families = {m["id"]: m["family"] for m in document["models"]}
    return families.get
