"""Checks on an answer, and the score they give.

A prompt may carry checks; each passes or fails on the answer's text and the score is the
number passed out of the number run. Four kinds:

- ``contains``: one of the strings appears (case-insensitive unless ``case_sensitive``);
- ``regex``: the pattern is found (Python syntax, ``re.search``; case-insensitive likewise);
- ``exact``: the whole answer is one of the strings, ignoring surrounding space, a final full
  stop and case;
- ``numeric``: some number in the answer is within ``tolerance`` of ``value`` (thousands
  separators and full-width digits understood).

In a suite file a check is one JSON object: ``{"contains": "Paris"}``,
``{"contains": ["巴黎", "Paris"]}``, ``{"regex": "\\\\bdef \\\\w+\\\\("}``, ``{"exact": "yes"}``,
``{"numeric": 42, "tolerance": 0.5}``, each optionally with ``"case_sensitive": true``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

CheckKind = Literal["contains", "regex", "exact", "numeric"]
CHECK_KINDS: tuple[str, ...] = ("contains", "regex", "exact", "numeric")

_NUMBER = re.compile(r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_TRAILING = " \t\r\n.。!！"


class CheckError(ValueError):
    """A check that cannot be built (a suite row reports it with its line)."""


@dataclass(frozen=True)
class Check:
    kind: CheckKind
    values: tuple[str, ...] = ()
    number: float | None = None
    tolerance: float = 0.0
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        if self.kind not in CHECK_KINDS:
            raise CheckError(f"unknown check {self.kind!r} (use {', '.join(CHECK_KINDS)})")
        if self.kind == "numeric":
            if self.number is None or not math.isfinite(self.number):
                raise CheckError("a numeric check needs a number")
            if self.tolerance < 0 or not math.isfinite(self.tolerance):
                raise CheckError("a tolerance cannot be negative")
        elif not self.values or any(not v for v in self.values):
            raise CheckError(f"a {self.kind} check needs a non-empty text")
        if self.kind == "regex":
            for pattern in self.values:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise CheckError(f"the pattern {pattern!r} is not valid: {exc}") from None

    @classmethod
    def from_dict(cls, data: Any) -> Check:
        """A check from its JSON object (see the module docstring); CheckError when unusable."""
        if not isinstance(data, Mapping):
            raise CheckError('a check must be an object such as {"contains": "text"}')
        kinds = [k for k in CHECK_KINDS if k in data]
        extra = set(data) - set(CHECK_KINDS) - {"tolerance", "case_sensitive"}
        if len(kinds) != 1 or extra:
            raise CheckError(
                f"a check names exactly one of {', '.join(CHECK_KINDS)}"
                + (f" (unknown: {', '.join(sorted(extra))})" if extra else "")
            )
        kind = kinds[0]
        value = data[kind]
        case = data.get("case_sensitive", False)
        if not isinstance(case, bool):
            raise CheckError("case_sensitive must be true or false")
        if kind == "numeric":
            number = _as_number(value, "numeric")
            tolerance = _as_number(data.get("tolerance", 0), "tolerance")
            return cls("numeric", number=number, tolerance=tolerance)
        if "tolerance" in data:
            raise CheckError("only a numeric check takes a tolerance")
        values = (value,) if isinstance(value, str) else value
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
            raise CheckError(f"a {kind} check takes a text or a list of texts")
        return cls(kind, tuple(values), case_sensitive=case)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "numeric":
            out: dict[str, Any] = {"numeric": self.number}
            if self.tolerance:
                out["tolerance"] = self.tolerance
            return out
        out = {self.kind: self.values[0] if len(self.values) == 1 else list(self.values)}
        if self.case_sensitive:
            out["case_sensitive"] = True
        return out

    def describe(self) -> str:
        """The check in a few words: ``contains "Paris"``, ``number 42 ± 0.5``."""
        if self.kind == "numeric":
            tolerance = f" ± {self.tolerance:g}" if self.tolerance else ""
            return f"number {self.number:g}{tolerance}"
        shown = " or ".join(f'"{v}"' for v in self.values)
        word = {"contains": "contains", "regex": "matches", "exact": "is"}[self.kind]
        return f"{word} {shown}"

    def passes(self, text: str) -> bool:
        answer = unicodedata.normalize("NFKC", text)
        if self.kind == "numeric":
            assert self.number is not None
            return any(abs(n - self.number) <= self.tolerance + 1e-9 for n in numbers_in(answer))
        fold = (lambda s: s) if self.case_sensitive else str.casefold
        values = [unicodedata.normalize("NFKC", v) for v in self.values]
        if self.kind == "contains":
            return any(fold(v) in fold(answer) for v in values)
        if self.kind == "exact":
            whole = fold(answer.strip(_TRAILING))
            return any(fold(v.strip(_TRAILING)) == whole for v in values)
        flags = 0 if self.case_sensitive else re.IGNORECASE
        return any(re.search(v, answer, flags) is not None for v in values)


def _as_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise CheckError(f"{what} must be a number")
    try:
        number = float(value)
    except ValueError:
        raise CheckError(f"{what} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise CheckError(f"{what} must be a finite number")
    return number


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` (``1,234.5`` is one number, ``−3`` is negative)."""
    out = []
    for match in _NUMBER.finditer(unicodedata.normalize("NFKC", text)):
        token = match.group().replace(",", "").replace("−", "-")
        try:
            out.append(float(token))
        except ValueError:
            continue
    return out


@dataclass(frozen=True)
class CheckResult:
    check: Check
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check.describe(), "passed": self.passed}


@dataclass(frozen=True)
class Score:
    """Checks passed out of checks run on one answer."""

    results: tuple[CheckResult, ...]

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.passed)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def ratio(self) -> float | None:
        return self.passed / self.total if self.total else None


def score(checks: Sequence[Check], text: str) -> Score | None:
    """The score of ``text`` against ``checks``; None when there are no checks."""
    if not checks:
        return None
    return Score(tuple(CheckResult(c, c.passes(text)) for c in checks))
