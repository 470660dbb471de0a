"""Prompt suites: the built-in ones, and suites imported from JSONL or CSV files.

A suite is a named list of :class:`Prompt` values, each with optional checks
(:mod:`desktop.core.compare.checks`). The built-in suites live in ``resources/prompt_suites/``
as JSONL; :func:`find_suite` takes a built-in name or a file path.

JSONL: one JSON object a line. An optional first line ``{"suite": {"name": ..., "title": ...,
"language": ..., "description": ...}}`` describes the suite; every other line is a prompt:
``{"id": "capital", "prompt": "...", "system": "...", "category": "knowledge",
"max_tokens": 64, "checks": [{"contains": "Paris"}]}``. A long-context prompt adds
``"document": {"tokens": 4000, "seed": 1, "insert": [{"at": 0.4, "text": "..."}]}``: the
document is generated (:mod:`desktop.core.compare.longdoc`) and put before the prompt.

CSV: a header row with ``prompt`` (or ``text``) and optionally ``id``, ``system``,
``category``, ``max_tokens``, ``contains``, ``regex``, ``exact``, ``numeric``, ``tolerance``;
``contains`` and ``exact`` take alternatives separated by `` | ``.

Bad rows are reported with their line numbers (:attr:`PromptSuite.problems`) and the good rows
load; a file with no good row raises :class:`CompareError`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.compare.checks import Check, CheckError
from desktop.core.compare.errors import CompareError
from desktop.core.compare.longdoc import Insert, build_document, estimate_tokens

SUITES_FOLDER = "prompt_suites"
SUITE_SUFFIXES = (".jsonl", ".csv")
#: Tokens a chat template adds around a prompt, at most, in the built-in templates.
TEMPLATE_TOKENS = 64
MAX_DOCUMENT_TOKENS = 262_144

_PROMPT_KEYS = {"id", "prompt", "text", "system", "category", "max_tokens", "checks", "document"}
_CSV_CHECKS = ("contains", "regex", "exact", "numeric")


@dataclass(frozen=True)
class Prompt:
    """One prompt of a suite: ``text`` is what is sent (a long-context prompt's document
    included); ``max_tokens`` overrides the comparison's for this prompt."""

    text: str
    id: str = ""
    system: str | None = None
    checks: tuple[Check, ...] = ()
    category: str = ""
    max_tokens: int | None = None

    @property
    def estimated_tokens(self) -> int:
        return estimate_tokens(self.text) + estimate_tokens(self.system or "")

    def preview(self, width: int = 60) -> str:
        """The prompt's question on one line, shortened (a long document's last line: the
        question, not the document)."""
        lines = [line.strip() for line in self.text.strip().splitlines() if line.strip()]
        text = lines[-1] if len(lines) > 1 and len(self.text) > 2000 else " ".join(lines)
        return text if len(text) <= width else text[: width - 1].rstrip() + "…"


@dataclass(frozen=True)
class SuiteProblem:
    """A row that could not be used: its line in the file and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class PromptSuite:
    name: str
    prompts: tuple[Prompt, ...]
    title: str = ""
    language: str = ""
    description: str = ""
    path: Path | None = None
    problems: tuple[SuiteProblem, ...] = field(default=())

    def context_needed(self, max_tokens: int) -> int:
        """The context the longest prompt needs with ``max_tokens`` of answer (estimated)."""
        longest = max((q.estimated_tokens for q in self.prompts), default=0)
        answer = max([max_tokens, *(q.max_tokens or 0 for q in self.prompts)])
        return longest + answer + TEMPLATE_TOKENS

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "language": self.language,
            "description": self.description,
            "prompts": len(self.prompts),
            "path": str(self.path) if self.path is not None else None,
            "problems": [str(p) for p in self.problems],
        }


def suites_dir() -> Path:
    return paths.resources_dir() / SUITES_FOLDER


def builtin_names() -> list[str]:
    folder = suites_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.jsonl") if p.is_file())


def list_suites() -> list[PromptSuite]:
    """The built-in suites, loaded (long documents are generated: a few milliseconds)."""
    return [load_suite_file(suites_dir() / f"{name}.jsonl") for name in builtin_names()]


def find_suite(name_or_path: str) -> PromptSuite:
    """A built-in suite by name (``general-en``, ``chinese``, ...) or a JSONL/CSV file."""
    text = name_or_path.strip()
    if text in builtin_names() and "/" not in text and "\\" not in text:
        return load_suite_file(suites_dir() / f"{text}.jsonl")
    path = Path(text).expanduser()
    if path.is_file():
        return load_suite_file(path)
    known = ", ".join(builtin_names()) or "none installed"
    raise CompareError(
        f"No prompt suite named {text!r} and no such file (built-in suites: {known}).",
        kind="compare.suite_not_found",
    )


def load_suite_file(path: Path) -> PromptSuite:
    """A suite from a ``.csv`` file, or JSONL for any other name."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CompareError(
            f"The prompt suite {path} cannot be read: {exc.strerror or exc}.",
            kind="compare.suite",
        ) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CompareError(
            f"The prompt suite {path} is not UTF-8 text (byte {exc.start}).", kind="compare.suite"
        ) from None
    if path.suffix.lower() == ".csv":
        suite = parse_csv(text, name=path.stem)
    else:
        suite = parse_jsonl(text, name=path.stem)
    suite = replace(suite, path=path)
    if not suite.prompts:
        details = "; ".join(str(p) for p in suite.problems[:5]) or "the file is empty"
        raise CompareError(
            f"The prompt suite {path} has no usable prompt ({details}).", kind="compare.suite"
        )
    return suite


def single_prompt(text: str, system: str | None = None) -> PromptSuite:
    """A suite of one prompt (``compare --prompt TEXT``)."""
    if not text.strip():
        raise CompareError("The prompt is empty.", kind="compare.suite")
    return PromptSuite("prompt", (Prompt(text, id="1", system=system or None),))


def parse_jsonl(text: str, name: str) -> PromptSuite:
    meta: dict[str, Any] = {}
    prompts: list[Prompt] = []
    problems: list[SuiteProblem] = []
    ids: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(SuiteProblem(number, f"not valid JSON ({exc.msg})"))
            continue
        if isinstance(data, dict) and set(data) == {"suite"} and isinstance(data["suite"], dict):
            if prompts or meta:
                problems.append(SuiteProblem(number, "the suite line must come first"))
            else:
                meta = data["suite"]
            continue
        try:
            prompt = _prompt_from_json(data, len(prompts) + 1)
        except (CheckError, ValueError) as exc:
            problems.append(SuiteProblem(number, str(exc)))
            continue
        if prompt.id in ids:
            problems.append(SuiteProblem(number, f"the id {prompt.id!r} is used twice"))
            continue
        ids.add(prompt.id)
        prompts.append(prompt)
    return PromptSuite(
        name=str(meta.get("name") or name),
        prompts=tuple(prompts),
        title=str(meta.get("title") or ""),
        language=str(meta.get("language") or ""),
        description=str(meta.get("description") or ""),
        problems=tuple(problems),
    )


def _prompt_from_json(data: Any, position: int) -> Prompt:
    if not isinstance(data, dict):
        raise ValueError("a prompt line must be a JSON object")
    unknown = set(data) - _PROMPT_KEYS
    if unknown:
        raise ValueError(f"unknown keys {', '.join(sorted(unknown))}")
    body = data.get("prompt", data.get("text"))
    if not isinstance(body, str) or not body.strip():
        raise ValueError('a prompt needs a non-empty "prompt" text')
    checks_data = data.get("checks", [])
    if not isinstance(checks_data, list):
        raise ValueError('"checks" must be a list')
    checks = tuple(Check.from_dict(c) for c in checks_data)
    document = data.get("document")
    if document is not None:
        body = _with_document(document, body)
    return Prompt(
        text=body,
        id=_text(data.get("id"), "id") or str(position),
        system=_text(data.get("system"), "system") or None,
        checks=checks,
        category=_text(data.get("category"), "category"),
        max_tokens=_max_tokens(data.get("max_tokens")),
    )


def _with_document(spec: Any, question: str) -> str:
    if not isinstance(spec, dict):
        raise ValueError('"document" must be an object with "tokens"')
    tokens = spec.get("tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens <= 0:
        raise ValueError('"document.tokens" must be a positive whole number')
    if tokens > MAX_DOCUMENT_TOKENS:
        raise ValueError(f'"document.tokens" may be at most {MAX_DOCUMENT_TOKENS}')
    seed = spec.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError('"document.seed" must be a whole number')
    inserts = []
    for item in spec.get("insert", []):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise ValueError('each "document.insert" needs a "text" and an "at" fraction')
        at = item.get("at", 0.5)
        if not isinstance(at, (int, float)) or isinstance(at, bool) or not 0 <= at <= 1:
            raise ValueError('"document.insert.at" must be a fraction from 0 to 1')
        inserts.append(Insert(float(at), item["text"]))
    document = build_document(tokens, seed=seed, inserts=inserts)
    return (
        "Read the following records carefully. A question about them follows at the end.\n\n"
        f"{document}\n\nQuestion: {question}"
    )


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and what == "id":
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f'"{what}" must be a text')
    return value.strip()


def _max_tokens(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"max_tokens must be a whole number, not {value!r}") from None
    if number < 1 or isinstance(value, bool) or (isinstance(value, float) and value != number):
        raise ValueError(f"max_tokens must be a whole number of at least 1, not {value!r}")
    return number


def parse_csv(text: str, name: str) -> PromptSuite:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return PromptSuite(name, (), problems=(SuiteProblem(1, "the file is empty"),))
    except csv.Error as exc:
        return PromptSuite(name, (), problems=(SuiteProblem(1, f"not valid CSV ({exc})"),))
    columns = [h.strip().lower() for h in header]
    body_column = "prompt" if "prompt" in columns else "text" if "text" in columns else None
    if body_column is None:
        problem = SuiteProblem(1, 'the header names no "prompt" column')
        return PromptSuite(name, (), problems=(problem,))
    prompts: list[Prompt] = []
    problems: list[SuiteProblem] = []
    ids: set[str] = set()
    line = reader.line_num
    while True:
        start = line + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(SuiteProblem(start, f"not valid CSV ({exc})"))
            break
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(columns):
            problems.append(
                SuiteProblem(start, f"{len(row)} cells for {len(columns)} columns in the header")
            )
            continue
        cells = dict(zip(columns, row, strict=False))
        try:
            prompt = _prompt_from_cells(cells, body_column, len(prompts) + 1)
        except (CheckError, ValueError) as exc:
            problems.append(SuiteProblem(start, str(exc)))
            continue
        if prompt.id in ids:
            problems.append(SuiteProblem(start, f"the id {prompt.id!r} is used twice"))
            continue
        ids.add(prompt.id)
        prompts.append(prompt)
    return PromptSuite(name, tuple(prompts), problems=tuple(problems))


def _prompt_from_cells(cells: Mapping[str, str], body_column: str, position: int) -> Prompt:
    body = cells.get(body_column, "")
    if not body.strip():
        raise ValueError(f'the "{body_column}" cell is empty')
    checks: list[Check] = []
    for kind in _CSV_CHECKS:
        value = (cells.get(kind) or "").strip()
        if not value:
            continue
        if kind == "numeric":
            data: dict[str, Any] = {"numeric": value}
            tolerance = (cells.get("tolerance") or "").strip()
            if tolerance:
                data["tolerance"] = tolerance
            checks.append(Check.from_dict(data))
        elif kind == "regex":
            checks.append(Check.from_dict({kind: value}))
        else:
            checks.append(Check.from_dict({kind: _alternatives(value)}))
    return Prompt(
        text=body,
        id=(cells.get("id") or "").strip() or str(position),
        system=(cells.get("system") or "").strip() or None,
        checks=tuple(checks),
        category=(cells.get("category") or "").strip(),
        max_tokens=_max_tokens((cells.get("max_tokens") or "").strip()),
    )


def _alternatives(value: str) -> list[str]:
    return [v.strip() for v in value.split(" | ") if v.strip()]
