"""The Library page's sentences: its summary, the selected row's details, what an operation did.

Plain functions over the library's values, translated in the Library page's context (its
strings stay where the translators know them): the count of models above the table, the two
lines below it, and the message after a scan, an import or a removal (an import that refuses
many files says how many by reason, not each file's sentence).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from desktop.core.errors import ScoutError
from desktop.ui import format as fmt
from desktop.ui.errors import describe
from desktop.ui.models.library_model import LibraryModel, LibraryRow
from desktop.ui.models.library_work import Operation, Outcome

# An import that refuses more files than this says how many, by reason, not each file's sentence.
MAX_FAILURES_SPELLED_OUT = 3
MAX_REASONS_LISTED = 3


def count(n: int, one: str, many: str) -> str:
    """``one`` or ``many`` with ``%1`` replaced by ``n`` (English needs the two forms; the
    strings are written out so lupdate finds both)."""
    return (one if n == 1 else many).replace("%1", fmt.integer(n))


def summary(models: int, size_bytes: int, problems: int) -> str:
    """``3 models · 1.2 GiB · 1 file with a problem`` (the heading's line)."""
    parts = [
        count(
            models,
            QCoreApplication.translate("LibraryPage", "%1 model"),
            QCoreApplication.translate("LibraryPage", "%1 models"),
        ),
        fmt.size(size_bytes),
    ]
    if problems:
        parts.append(
            count(
                problems,
                QCoreApplication.translate("LibraryPage", "%1 file with a problem"),
                QCoreApplication.translate("LibraryPage", "%1 files with problems"),
            )
        )
    return " · ".join(parts)


def empty(busy: bool) -> str:
    """What the page says when it lists nothing (``busy``: a scan is still looking)."""
    if busy:
        return QCoreApplication.translate("LibraryPage", "Looking for models…")
    return QCoreApplication.translate(
        "LibraryPage",
        "No models yet. Download one from the Models page, import a .gguf file "
        "(or drop it here), or add a folder where you keep models.",
    )


def details(row: LibraryRow, model: LibraryModel) -> str:
    """The selected row below the table: its file whole, then its facts (or its problem)."""
    if row.problem is not None:
        return model.problem_text(row) + "\n" + str(row.path)
    entry = row.entry
    assert entry is not None
    first = str(entry.path)
    if len(entry.parts) > 1:
        first += " " + QCoreApplication.translate("LibraryPage", "(%1 parts)").replace(
            "%1", str(len(entry.parts))
        )
    facts = [
        entry.architecture,
        fmt.params(entry.n_params),
        entry.quant or "",
        fmt.size(entry.size_bytes),
        model.source_word(entry.source),
    ]
    if entry.variant_id:
        facts.append(
            QCoreApplication.translate("LibraryPage", "catalog: %1").replace("%1", entry.variant_id)
        )
    if entry.missing:
        facts.append(QCoreApplication.translate("LibraryPage", "missing since the last scan"))
    return first + "\n" + " · ".join(f for f in facts if f)


def error(exc: BaseException) -> str:
    """``Title: sentence`` for the message line."""
    title, sentence = describe(exc)
    return (
        QCoreApplication.translate("LibraryPage", "%1: %2")
        .replace("%1", title)
        .replace("%2", sentence)
    )


def outcome(op: Operation, result: Outcome) -> str:
    """What a scan, an import or a removal did, for the message line."""
    if result.error is not None:
        return error(result.error)
    report = result.report
    if op.kind == "scan" and report is not None:
        if result.cancelled:
            return count(
                report.found,
                QCoreApplication.translate("LibraryPage", "Scan stopped after %1 model file."),
                QCoreApplication.translate("LibraryPage", "Scan stopped after %1 model files."),
            )
        text = count(
            report.found,
            QCoreApplication.translate("LibraryPage", "Scan done: %1 model file found"),
            QCoreApplication.translate("LibraryPage", "Scan done: %1 model files found"),
        )
        if report.added:
            text += QCoreApplication.translate("LibraryPage", ", %1 new").replace(
                "%1", fmt.integer(len(report.added))
            )
        if report.problems:
            text += QCoreApplication.translate("LibraryPage", ", %1 with problems").replace(
                "%1", fmt.integer(len(report.problems))
            )
        return text + "."
    if op.kind == "import":
        parts = []
        if result.imported:
            parts.append(
                count(
                    len(result.imported),
                    QCoreApplication.translate("LibraryPage", "Imported %1 file."),
                    QCoreApplication.translate("LibraryPage", "Imported %1 files."),
                )
            )
        parts.extend(failed_imports(result.failed))
        if result.cancelled:
            parts.append(QCoreApplication.translate("LibraryPage", "Import stopped."))
        return " ".join(parts)
    if result.deleted:
        return count(
            len(result.deleted),
            QCoreApplication.translate("LibraryPage", "Deleted %1 file."),
            QCoreApplication.translate("LibraryPage", "Deleted %1 files."),
        )
    if result.forgotten:
        return forgotten()
    return ""


def forgotten() -> str:
    return QCoreApplication.translate("LibraryPage", "Forgotten; the file stays on disk.")


def failed_imports(failed: Sequence[tuple[Path, ScoutError]]) -> list[str]:
    """Each refused file's sentence when there are a few; past that, a count by reason (the
    files themselves are error rows of the table, each with its sentence when selected)."""
    if len(failed) <= MAX_FAILURES_SPELLED_OUT:
        return [
            QCoreApplication.translate("LibraryPage", "%1 was not imported: %2")
            .replace("%1", path.name)
            .replace("%2", describe(exc)[1])
            for path, exc in failed
        ]
    reasons = Counter(describe(exc)[0] for _path, exc in failed)
    listed = [
        QCoreApplication.translate("LibraryPage", "%1 × %2")
        .replace("%1", fmt.integer(n))
        .replace("%2", title)
        for title, n in reasons.most_common(MAX_REASONS_LISTED)
    ]
    rest = len(reasons) - len(listed)
    if rest > 0:
        listed.append(
            QCoreApplication.translate("LibraryPage", "%1 other reasons").replace(
                "%1", fmt.integer(rest)
            )
        )
    return [
        QCoreApplication.translate(
            "LibraryPage",
            "%1 files were not imported (%2); they are listed as errors in the table: "
            "select one to see why.",
        )
        .replace("%1", fmt.integer(len(failed)))
        .replace("%2", QCoreApplication.translate("LibraryPage", ", ").join(listed))
    ]
