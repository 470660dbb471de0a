"""A quality check in a comparison, as values: what to measure and what each contestant got.

:class:`QualityCheck` says what every contestant is measured on, the same for all: ``items``
(multiple choice on a built-in set, ``gaokao``, or a folder or file in the C-Eval, CMMLU or MMLU
layout, at most ``limit`` questions) or ``text`` (the loss against ``reference``, a GGUF model
or a reference pack, on a shipped text or a file), with a time budget per contestant.
:class:`QualityOutcome` is one contestant's: the core's result (a
:class:`~desktop.core.quality.ChoiceResult` or :class:`~desktop.core.quality.LossResult`) or the
sentence that says why there is none. :func:`quality_markdown` and :func:`quality_dict` are the
report's section; the figures are written as ``history list`` writes them (KLD with five
decimals, accuracy in percent with one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from desktop.core.compare.errors import CompareError
from desktop.core.quality import (
    ACCURACY_DECIMALS,
    KLD_DECIMALS,
    ChoiceResult,
    LossResult,
)

QualityKind = Literal["items", "text"]
QUALITY_KINDS: tuple[QualityKind, ...] = ("items", "text")
DEFAULT_ITEMS = "gaokao"  # the shipped set (Apache-2.0)
DEFAULT_LIMIT = 20  # questions per contestant: a first look, not a benchmark
DEFAULT_MAX_SECONDS = 120.0  # per contestant
DEFAULT_TEXT = "en"
TEXT_CTX = 256  # chunk length of a text check: short chunks, a quick first figure


@dataclass(frozen=True)
class QualityCheck:
    """Every contestant on the same questions (``items``) or text (``text``).

    ``source``: for ``items`` the set (``gaokao``) or a folder or file; for ``text`` the
    reference, a GGUF file or a reference pack. ``text``: the shipped text (``en``, ``zh``) or
    a file (a reference pack brings its own). ``limit``: most questions; ``max_seconds``: the
    time budget of each contestant (what is done by then counts)."""

    kind: QualityKind
    source: str
    text: str = DEFAULT_TEXT
    limit: int = DEFAULT_LIMIT
    max_seconds: float | None = DEFAULT_MAX_SECONDS
    ctx: int = TEXT_CTX

    def __post_init__(self) -> None:
        if self.kind not in QUALITY_KINDS:
            raise CompareError(
                f"Unknown quality check {self.kind!r}; use items or text.", kind="compare.option"
            )
        if not self.source:
            raise CompareError(
                "A text check needs a reference (a GGUF model or a reference pack).",
                kind="compare.option",
            )
        if self.limit < 1:
            raise CompareError(
                f"The quality check needs at least 1 question, not {self.limit}.",
                kind="compare.option",
            )
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise CompareError(
                "The quality check's time budget must be positive.", kind="compare.option"
            )

    @property
    def metric(self) -> str:
        return "accuracy" if self.kind == "items" else "kld"

    @property
    def pack(self) -> bool:
        """A loss against a reference pack: the pack brings its own text (anything but a GGUF
        file is read as a pack)."""
        return self.kind == "text" and Path(self.source).suffix.lower() != ".gguf"

    def describe(self) -> str:
        """``multiple choice on gaokao, at most 20 questions`` / ``loss against ref.gguf on
        en``."""
        if self.kind == "items":
            return f"multiple choice on {_name(self.source)}, at most {self.limit} questions"
        text = "" if self.pack else f" on {_name(self.text)}"
        return f"loss against {_name(self.source)}{text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "text": self.text,
            "limit": self.limit,
            "max_seconds": self.max_seconds,
            "ctx": self.ctx,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> QualityCheck | None:
        """A check as stored with a comparison (None: none, or not readable)."""
        if not isinstance(data, Mapping):
            return None
        try:
            budget = data.get("max_seconds")
            return cls(
                kind=data["kind"],
                source=str(data["source"]),
                text=str(data.get("text") or DEFAULT_TEXT),
                limit=int(data.get("limit") or DEFAULT_LIMIT),
                max_seconds=float(budget) if budget is not None else None,
                ctx=int(data.get("ctx") or TEXT_CTX),
            )
        except (KeyError, TypeError, ValueError, CompareError):
            return None


def _name(source: str) -> str:
    """A built-in name as it is, a path by its last part."""
    return Path(source).name or source


QualityStatus = Literal["done", "failed", "cancelled", "skipped"]


@dataclass(frozen=True)
class QualityOutcome:
    """One contestant's quality check: ``done`` with its ``result``, or ``failed``,
    ``cancelled`` or ``skipped`` (a server contestant: no logits here) with the ``reason``.
    ``measurement_id``: the history's record of the result."""

    contestant: int
    status: QualityStatus
    result: LossResult | ChoiceResult | None = None
    reason: str | None = None
    measurement_id: int | None = None

    @property
    def metric(self) -> str | None:
        if isinstance(self.result, ChoiceResult):
            return "accuracy"
        return "kld" if isinstance(self.result, LossResult) else None

    @property
    def value(self) -> float | None:
        """The headline figure: accuracy (a fraction) or KLD."""
        if isinstance(self.result, ChoiceResult):
            return self.result.accuracy
        return self.result.kld if isinstance(self.result, LossResult) else None

    @property
    def interval(self) -> tuple[float, float] | None:
        if isinstance(self.result, ChoiceResult):
            return self.result.accuracy_ci
        return self.result.kld_ci if isinstance(self.result, LossResult) else None

    @property
    def quality(self) -> float | None:
        """The figure the chart puts against speed, higher better: accuracy, or the
        same-top-token rate of a loss (both fractions)."""
        if isinstance(self.result, ChoiceResult):
            return self.result.accuracy
        return self.result.same_top_token if isinstance(self.result, LossResult) else None

    @property
    def quality_metric(self) -> str | None:
        """What :attr:`quality` is: ``accuracy`` or ``same_top_token``."""
        if isinstance(self.result, ChoiceResult):
            return "accuracy"
        return "same_top_token" if isinstance(self.result, LossResult) else None

    @property
    def count(self) -> int | None:
        """Questions answered, or tokens scored."""
        if isinstance(self.result, ChoiceResult):
            return self.result.n
        return self.result.tokens if isinstance(self.result, LossResult) else None

    @property
    def against(self) -> str | None:
        if isinstance(self.result, ChoiceResult):
            return self.result.items
        return self.result.reference if isinstance(self.result, LossResult) else None

    def figure(self) -> str:
        """``accuracy 62.0% (51.0% – 72.3%)`` or ``KLD 0.01234 (0.01100 – 0.01400)``; the
        reason when there is no result."""
        value, interval = self.value, self.interval
        if value is None:
            return {"cancelled": "stopped", "skipped": "not measured"}.get(
                self.status, "failed"
            ) + (f": {self.reason}" if self.reason else "")
        choice = self.metric == "accuracy"

        def number(x: float) -> str:
            return f"{x * 100:.{ACCURACY_DECIMALS}f}%" if choice else f"{x:.{KLD_DECIMALS}f}"

        text = f"{'accuracy' if choice else 'KLD'} {number(value)}"
        if interval is not None:
            text += f" ({number(interval[0])} – {number(interval[1])})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "contestant": self.contestant,
            "status": self.status,
            "reason": self.reason,
            "metric": self.metric,
            "value": self.value,
            "interval": list(self.interval) if self.interval is not None else None,
            "against": self.against,
            "count": self.count,
            "same_top_token": self.result.same_top_token
            if isinstance(self.result, LossResult)
            else None,
            "measurement_id": self.measurement_id,
            "result": self.result.to_dict() if self.result is not None else None,
        }


@dataclass(frozen=True)
class QualityPoint:
    """One marker of the quality chart: measured generation tokens/s (x) against measured
    quality (y, a fraction: ``accuracy``, or ``same_top_token``, the rate at which the model's
    top token is the reference's); ``pareto``: no other contestant is both at least as good and
    at least as fast while better in one."""

    contestant: int
    name: str
    tokens_per_s: float
    quality: float
    metric: str
    pareto: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "contestant": self.contestant,
            "model": self.name,
            "generation_tokens_per_s": self.tokens_per_s,
            "quality": self.quality,
            "metric": self.metric,
            "pareto": self.pareto,
        }


def quality_dict(
    check: QualityCheck | None, outcomes: Sequence[QualityOutcome], names: Sequence[str]
) -> dict[str, Any] | None:
    """The report's ``quality`` object (None: the comparison had no quality check)."""
    if check is None:
        return None
    return {
        "check": check.to_dict(),
        "describe": check.describe(),
        "results": [
            {"model": names[o.contestant], **o.to_dict()}
            for o in sorted(outcomes, key=lambda o: o.contestant)
        ],
    }


def quality_markdown(
    check: QualityCheck | None, outcomes: Sequence[QualityOutcome], names: Sequence[str]
) -> list[str]:
    """The report's Quality section: one row per contestant (none without a check)."""
    if check is None:
        return []
    by_contestant = {o.contestant: o for o in outcomes}
    lines = [
        "## Quality",
        "",
        f"Every model on the same {'questions' if check.kind == 'items' else 'text'}: "
        f"{check.describe()}.",
        "",
        "| Model | Result (95% interval) | Measured on |",
        "| --- | --- | --- |",
    ]
    for i, name in enumerate(names):
        o = by_contestant.get(i)
        if o is None:
            figure, size = "not measured", "-"
        else:
            figure = o.figure()
            unit = "questions" if o.metric == "accuracy" else "tokens"
            size = f"{o.count} {unit}" if o.count is not None else "-"
            if o.result is not None and not o.result.complete:
                size += " (stopped early)"
        cells = [name, figure, size]
        lines.append(
            "| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in cells) + " |"
        )
    lines.append("")
    return lines
