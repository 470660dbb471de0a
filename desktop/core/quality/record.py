"""A quality result as the history stores it: one measurement per model.

The history (issue 26) keeps measurements beside the answers: a ``kind`` (``quality.kld`` for a
loss against a reference, ``quality.choice`` for multiple choice), one headline ``metric`` and
``value`` (``kld``; ``accuracy``), what it ran with (``settings``) and the whole result
document (``data``: the result's ``to_dict()``, so :func:`result_of` gives the result back).
:func:`measurement_of` makes those fields and :func:`store_result` writes them to the app's
history with the model and this machine's profile (the CLI and the window both call it). Kept
here, not in the history, so the history need not know quality's types.

:func:`measured_here` reads stored loss measurements back for the recommendation (``recommend``
and the Models page's Recommended view): a variant's perplexity ratio, KLD and same-top-token
rate against a full-precision reference (F32/F16/BF16 by its name), measured on this machine,
take the place of its quant type's published cost, labelled "measured here". Multiple-choice
accuracies are stored but not used by the ranking (its scores are named benchmarks).

:func:`figures_of` says what a stored measurement shows (its figure, 95% interval, what it was
measured against and on how many tokens or questions) for ``history list`` and the History
page's detail alike; :func:`of_models` picks some models' measurements out of the history's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history import History, MeasurementRecord, ModelRef
from desktop.core.quality.choice import ChoiceResult
from desktop.core.quality.loss import LossResult
from desktop.core.recommend import MeasuredQuality

LOSS_KIND = "quality.kld"
CHOICE_KIND = "quality.choice"
# The reference a loss measured against counts as full precision (for the recommendation) when
# its file's name says one of these types.
FULL_PRECISION = ("F32", "F16", "BF16")
# How a figure is shown, everywhere: a KLD with five decimals, an accuracy in percent with one.
KLD_DECIMALS = 5
ACCURACY_DECIMALS = 1


@dataclass(frozen=True)
class Measurement:
    """The fields of one history measurement (``History.record_measurement``'s arguments)."""

    kind: str
    metric: str
    value: float
    interval: tuple[float, float] | None
    settings: dict[str, Any]
    data: dict[str, Any]


def measurement_of(result: LossResult | ChoiceResult) -> Measurement:
    """The history's fields for ``result`` (its figure, interval, reference or items, settings)."""
    data = result.to_dict()
    if isinstance(result, LossResult):
        settings: dict[str, Any] = {
            "reference": result.reference,
            "reference_kind": result.reference_kind,
            "text": result.text,
            "ctx": result.ctx,
            "top_k": result.top_k,
            "tokens": result.tokens,
            "complete": result.complete,
        }
        return Measurement(LOSS_KIND, "kld", result.kld, result.kld_ci, settings, data)
    settings = {
        "items": result.items,
        "method": result.method,
        "n": result.n,
        "complete": result.complete,
    }
    return Measurement(CHOICE_KIND, "accuracy", result.accuracy, result.accuracy_ci, settings, data)


def store_result(
    result: LossResult | ChoiceResult,
    *,
    model: Path,
    label: str = "",
    variant_id: str | None = None,
    profile: HardwareProfile | None = None,
) -> MeasurementRecord:
    """Write ``result`` to the app's history as one measurement of ``model`` on this machine
    (blocking; HistoryError, a ScoutError, when the history cannot be written)."""
    m = measurement_of(result)
    with History.open() as history:
        return history.record_measurement(
            m.kind,
            metric=m.metric,
            value=m.value,
            data=m.data,
            model=history.model_ref(model, label=label, variant_id=variant_id),
            settings=m.settings,
            profile=profile,
            machine=THIS_MACHINE,
        )


@dataclass(frozen=True)
class MeasurementFigures:
    """What one stored measurement shows: ``metric`` (``kld`` or ``accuracy``, a fraction) with
    its ``value`` and 95% ``interval``, ``against`` (the reference's name, or the set of
    questions), ``count`` (tokens scored, or questions answered) and whether it ran to the end.
    ``decimals`` and ``percent``: how the figure is written (the CLI's and the window's)."""

    kind: str
    metric: str
    value: float | None
    interval: tuple[float, float] | None
    against: str
    count: int | None
    complete: bool

    @property
    def choice(self) -> bool:
        return self.metric == "accuracy"

    @property
    def percent(self) -> bool:
        return self.choice

    @property
    def decimals(self) -> int:
        return ACCURACY_DECIMALS if self.choice else KLD_DECIMALS


def figures_of(m: MeasurementRecord) -> MeasurementFigures:
    """The figures of a stored quality measurement (missing parts: None, or ``?``)."""
    choice = m.metric == "accuracy"
    raw = m.data.get("accuracy_ci" if choice else "kld_ci")
    interval: tuple[float, float] | None = None
    if isinstance(raw, list | tuple) and len(raw) == 2:
        try:
            interval = (float(raw[0]), float(raw[1]))
        except (TypeError, ValueError):
            interval = None
    count = m.settings.get("n" if choice else "tokens")
    against = m.settings.get("items" if choice else "reference")
    return MeasurementFigures(
        kind=m.kind,
        metric=m.metric,
        value=m.value,
        interval=interval,
        against=str(against) if against else "?",
        count=int(count) if isinstance(count, int | float) else None,
        complete=bool(m.settings.get("complete", True)),
    )


def of_models(
    records: Iterable[MeasurementRecord], models: Iterable[ModelRef]
) -> list[MeasurementRecord]:
    """The measurements of any of ``models``' files (the same history row, or the same
    sha256), newest first, each once."""
    ids = set()
    hashes = set()
    for model in models:
        ids.add(model.id)
        if model.sha256:
            hashes.add(model.sha256)
    found = {
        r.id: r
        for r in records
        if r.model is not None and (r.model.id in ids or r.model.sha256 in hashes)
    }
    return sorted(found.values(), key=lambda r: (r.created_at, r.id), reverse=True)


def result_of(kind: str, data: Mapping[str, Any]) -> LossResult | ChoiceResult | None:
    """The result a stored measurement carries (None: not one of quality's, or unreadable)."""
    try:
        if kind == LOSS_KIND:
            return LossResult.from_dict(data)
        if kind == CHOICE_KIND:
            return ChoiceResult.from_dict(data)
    except (ValueError, KeyError, TypeError):
        return None
    return None


@dataclass(frozen=True)
class MeasuredLoss:
    """A loss measured here against a full-precision reference, for one model file."""

    ppl_ratio: float
    kld: float
    same_top_pct: float
    reference: str


def full_precision(reference: str) -> bool:
    """Whether a reference's name says it is F32/F16/BF16 (``model-F16.gguf``, a pack of it)."""
    upper = reference.upper().replace("-", ".").replace("_", ".")
    parts = set(upper.replace(" ", ".").split("."))
    return any(t in parts for t in FULL_PRECISION)


def measured_quality(
    measurements: Iterable[tuple[str, Mapping[str, Any]]],
) -> MeasuredLoss | None:
    """The newest loss against a full-precision reference among ``(kind, data)`` pairs (newest
    first, as the history lists them); None when there is none."""
    for kind, data in measurements:
        result = result_of(kind, data)
        if not isinstance(result, LossResult) or not result.reference_ppl:
            continue
        if not full_precision(result.reference) and not full_precision(result.reference_path):
            continue
        return MeasuredLoss(
            ppl_ratio=result.ppl / result.reference_ppl,
            kld=result.kld,
            same_top_pct=result.same_top_token * 100.0,
            reference=result.reference,
        )
    return None


def measured_by_variant(records: Iterable[Any]) -> dict[str, MeasuredQuality]:
    """Catalog variant id -> what was measured here for it, for the recommendation, from the
    history's measurement records (newest first: ``kind``, ``data`` and ``model.variant_id``).
    Only losses against a full-precision reference count (the recommendation's quant cost is
    against FP16)."""
    by_variant: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for record in records:
        variant = getattr(record.model, "variant_id", None) if record.model is not None else None
        if variant:
            by_variant.setdefault(variant, []).append((record.kind, record.data))
    found: dict[str, MeasuredQuality] = {}
    for variant, pairs in by_variant.items():
        loss = measured_quality(pairs)
        if loss is not None:
            found[variant] = MeasuredQuality(
                ppl_ratio=loss.ppl_ratio, kld=loss.kld, same_top_pct=loss.same_top_pct
            )
    return found


def measured_here() -> dict[str, MeasuredQuality]:
    """What the recommendation takes from the app's history: the losses measured on this
    machine (not imported ones), by catalog variant; {} without a history. Blocking (SQLite)."""
    if not paths.history_db_path().is_file():
        return {}  # nothing stored yet: no database made just to look
    with History.open() as history:
        records = history.measurements(kind=LOSS_KIND)
    return measured_by_variant(r for r in records if r.machine == THIS_MACHINE)
