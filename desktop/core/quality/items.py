"""Multiple-choice items: read from the public layouts of C-Eval, CMMLU and MMLU, or a JSONL set.

A person points at a folder (or one file) of their own copy; these sets are not shipped (C-Eval
and CMMLU are non-commercial). The layouts, per subject file:

- C-Eval: a header ``id,question,A,B,C,D,answer[,explanation]``; splits ``dev``, ``val`` (with
  answers) and ``test`` (without: skipped).
- CMMLU: a header ``,Question,A,B,C,D,Answer``; splits ``dev`` and ``test``.
- MMLU: no header; ``question,A,B,C,D,answer`` rows; files ``<subject>_{dev,val,test}.csv``.
- JSONL (the set shipped with the app, ``resources/quality/items/``): one object per line with
  ``subject``, ``question`` and ``answer`` (a letter), and ``options`` when they are not part of
  the question's text.

In a folder with several splits the test split is used when it has answers, else val, else dev
(a split is the folder a file is in, or its ``_test``/``_val``/``_dev`` suffix). Items are
interleaved across subjects, so a run cut short by its time budget still covers every subject.
A file that does not fit its layout is refused with one sentence naming the file and what lacks.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from desktop.core.errors import QualityError
from desktop.core.paths import resources_dir

LABELS = ("A", "B", "C", "D")
BUILTIN_SETS = {"gaokao": ("quality", "items", "gaokao")}
SPLITS = ("test", "val", "dev")
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class ChoiceItem:
    """One question. ``options`` are the answer texts (empty strings when the question's text
    already lists them); ``answer`` indexes ``labels``. ``key`` identifies the item across runs
    (file and row), so two models' answers can be paired."""

    key: str
    subject: str
    question: str
    options: tuple[str, ...]
    labels: tuple[str, ...]
    answer: int
    language: str  # "zh" or "en"

    @property
    def chance(self) -> float:
        return 1.0 / len(self.labels)


@dataclass(frozen=True)
class ItemSet:
    name: str
    items: tuple[ChoiceItem, ...]
    skipped_files: tuple[str, ...] = ()

    @property
    def subjects(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(item.subject for item in self.items))


def load_items(source: str | Path, *, limit: int | None = None) -> ItemSet:
    """Items from a built-in set name (``gaokao``), a folder or one file."""
    if isinstance(source, str) and source in BUILTIN_SETS:
        folder = resources_dir().joinpath(*BUILTIN_SETS[source])
        return _limit(_read_folder(folder, source), limit)
    path = Path(source).expanduser()
    if path.is_dir():
        return _limit(_read_folder(path, str(path)), limit)
    if path.is_file():
        items = _read_file(path, path.parent)
        if not items:
            raise _bad(f"{path} holds no questions.")
        return _limit(ItemSet(str(path), _interleave(items)), limit)
    raise _bad(f"There is no question file or folder {path}.")


def shuffled_answers(items: ItemSet, seed: int) -> ItemSet:
    """The same questions with answer keys drawn at random (a test of the scoring: accuracy
    must fall to chance)."""
    rng = random.Random(seed)
    return replace(
        items,
        items=tuple(replace(i, answer=rng.randrange(len(i.labels))) for i in items.items),
    )


def _limit(items: ItemSet, limit: int | None) -> ItemSet:
    if limit is None:
        return items
    if limit < 1:
        raise _bad("The number of questions must be at least 1.")
    return replace(items, items=items.items[:limit])


def _read_folder(folder: Path, name: str) -> ItemSet:
    files = sorted(
        f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in (".csv", ".jsonl")
    )
    if not files:
        raise _bad(f"{folder} holds no .csv or .jsonl question files.")
    by_split: dict[str, list[Path]] = defaultdict(list)
    for f in files:
        by_split[_split_of(f, folder)].append(f)
    order = [s for s in SPLITS if s in by_split] + [s for s in by_split if s not in SPLITS]
    problem: QualityError | None = None
    for split in order:
        try:
            items = [item for f in by_split[split] for item in _read_file(f, folder)]
        except QualityError as exc:
            if _unanswered(exc) and len(order) > 1:
                problem = problem or exc
                continue  # C-Eval's test split has no answers: use val
            raise
        if items:
            skipped = tuple(
                str(f.relative_to(folder)) for s in order if s != split for f in by_split[s]
            )
            return ItemSet(name, _interleave(items), skipped)
    raise problem or _bad(f"{folder} holds no questions.")


def _split_of(path: Path, root: Path) -> str:
    for part in path.relative_to(root).parts[:-1]:
        if part.lower() in SPLITS:
            return part.lower()
    stem = path.stem.lower()
    for split in SPLITS:
        if stem.endswith("_" + split):
            return split
    return ""


def _subject_of(path: Path) -> str:
    stem = path.stem
    for split in SPLITS:
        if stem.lower().endswith("_" + split):
            stem = stem[: -len(split) - 1]
    return stem.replace("_", " ")


def _interleave(items: Sequence[ChoiceItem]) -> tuple[ChoiceItem, ...]:
    """Round-robin over subjects, each in its own order."""
    groups: dict[str, list[ChoiceItem]] = defaultdict(list)
    for item in items:
        groups[item.subject].append(item)
    out: list[ChoiceItem] = []
    queues = list(groups.values())
    for i in range(max(len(q) for q in queues)):
        out.extend(q[i] for q in queues if i < len(q))
    return tuple(out)


def _read_file(path: Path, root: Path) -> list[ChoiceItem]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _bad(f"{path} is not UTF-8 text.") from None
    except OSError as exc:
        raise _bad(f"{path} cannot be read: {exc.strerror}.") from exc
    where = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
    if path.suffix.lower() == ".jsonl":
        return _read_jsonl(text, path, where)
    return _read_csv(text, path, where)


def _read_csv(text: str, path: Path, where: str) -> list[ChoiceItem]:
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise _bad(f"{path} is not a readable CSV file ({exc}).") from exc
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        return []
    header = [cell.strip().lower() for cell in rows[0]]
    subject = _subject_of(path)
    items: list[ChoiceItem] = []
    if "question" in header:
        need = ("question", "a", "b", "c", "d", "answer")
        missing = [name for name in need if name not in header]
        if missing:
            names = ", ".join(n if len(n) > 1 else n.upper() for n in missing)
            raise _bad(
                f"{path} lacks the column {names} (C-Eval and CMMLU files have question, A, B, "
                "C, D and answer).",
                unanswered=missing == ["answer"],
            )
        col = {name: header.index(name) for name in need}
        body = rows[1:]
    else:
        if len(rows[0]) != 6:
            raise _bad(
                f"{path} has no header and {len(rows[0])} columns; MMLU files have 6 "
                "(question, A, B, C, D, answer)."
            )
        col = {name: i for i, name in enumerate(("question", "a", "b", "c", "d", "answer"))}
        body = rows
    for number, row in enumerate(body, start=2 if body is not rows else 1):
        if len(row) <= max(col.values()):
            raise _bad(f"{path}, row {number}, has {len(row)} columns, too few.")
        answer = row[col["answer"]].strip().upper()
        if answer not in LABELS:
            raise _bad(f"{path}, row {number}: the answer {answer!r} is not A, B, C or D.")
        question = row[col["question"]].strip()
        options = tuple(row[col[label.lower()]].strip() for label in LABELS)
        items.append(
            ChoiceItem(
                key=f"{where}#{number}",
                subject=subject,
                question=question,
                options=options,
                labels=LABELS,
                answer=LABELS.index(answer),
                language=_language(question, options),
            )
        )
    return items


def _read_jsonl(text: str, path: Path, where: str) -> list[ChoiceItem]:
    items: list[ChoiceItem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            raise _bad(f"{path}, line {number}, is not JSON.") from None
        if not isinstance(data, dict):
            raise _bad(f"{path}, line {number}, is not a JSON object.")
        missing = [k for k in ("subject", "question", "answer") if not isinstance(data.get(k), str)]
        if missing:
            raise _bad(f"{path}, line {number}, lacks {', '.join(missing)}.")
        options = tuple(str(o) for o in data.get("options") or ())
        labels = LABELS if not options else tuple("ABCDEFGH"[: len(options)])
        answer = data["answer"].strip().upper()
        if answer not in labels or not 2 <= len(labels) <= 8:
            raise _bad(
                f"{path}, line {number}: the answer {answer!r} is not one of {', '.join(labels)}."
            )
        question = data["question"].strip()
        items.append(
            ChoiceItem(
                key=f"{where}#{data.get('id', number)}",
                subject=data["subject"].strip(),
                question=question,
                options=options or ("",) * len(labels),
                labels=labels,
                answer=labels.index(answer),
                language=str(data.get("language") or _language(question, options)),
            )
        )
    return items


def _language(question: str, options: Iterable[str]) -> str:
    text = question + "".join(options)
    return "zh" if len(_CJK.findall(text)) * 4 >= max(1, len(text.strip())) else "en"


def _unanswered(exc: QualityError) -> bool:
    return getattr(exc, "unanswered", False)


def _bad(message: str, *, unanswered: bool = False) -> QualityError:
    error = QualityError(message, kind="quality.items")
    error.unanswered = unanswered  # type: ignore[attr-defined]
    return error
