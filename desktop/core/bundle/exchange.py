"""Export a history's results to a file, import a file into a history.

:func:`export_results` writes the results of one history (all, or of some kinds, since a date)
with this machine's profile as ``hw --save`` writes it (calibration included) and the llama.cpp
build; :func:`import_bundle` reads one, checks it whole, and merges it in one transaction
(importing it twice adds nothing twice).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop import __version__
from desktop.core.bundle.format import (
    BundleDamaged,
    BundleHeader,
    read_bundle,
    write_bundle,
)
from desktop.core.errors import UsageError
from desktop.core.fit import CalibrationStore, machine_fingerprint, with_calibration
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history import (
    RESULT_KINDS,
    History,
    MergeCounts,
    RecordError,
    collect_results,
    merge_results,
)

MAX_NAME = 80


@dataclass(frozen=True)
class ExportSummary:
    """A results file just written: where, how big, and what it holds."""

    path: Path
    size_bytes: int
    header: BundleHeader

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "size_bytes": self.size_bytes,
            "machine": self.header.machine_name,
            "since": self.header.since,
            "kinds": list(self.header.kinds),
            "counts": self.header.counts,
            "llama_cpp": self.header.llama_cpp,
        }


@dataclass(frozen=True)
class ImportSummary:
    """A results file just imported: where it came from and what was added."""

    path: Path
    header: BundleHeader
    counts: MergeCounts

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "machine": self.header.machine_name,
            "exported_at": self.header.created_at,
            "app": self.header.app,
            "llama_cpp": self.header.llama_cpp,
            **self.counts.to_dict(),
        }

    def text(self) -> str:
        """One English line for the command line."""
        c = self.counts
        parts = [_n(c.runs_added, "answer"), _n(c.comparisons_added, "comparison")]
        if c.comparisons_updated:
            parts.append(
                f"{_n(c.answers_added, 'answer')} and {_n(c.votes_added, 'vote')} into "
                f"{_n(c.comparisons_updated, 'comparison')} already here"
            )
        if c.measurements_added:
            parts.append(_n(c.measurements_added, "measurement"))
        if c.calibration_added:
            parts.append(_n(c.calibration_added, "calibration run"))
        present = c.runs_present + c.comparisons_present + c.measurements_present
        where = self.header.machine_name or "another machine"
        line = f"Imported from {where}: " + ", ".join(parts)
        if present:
            line += f" ({present} already here)"
        return line + "."


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def check_machine_name(name: str) -> str:
    """The name results are exported under: not empty, not "this machine", one line."""
    text = " ".join(name.split())
    if not text:
        raise UsageError("Give the machine a name to export its results under.")
    if text.casefold() == THIS_MACHINE:
        raise UsageError(
            f"{THIS_MACHINE!r} names the computer that reads the results; export under a name "
            "of this machine's own (its host name, say)."
        )
    if len(text) > MAX_NAME:
        raise UsageError(f"A machine name has at most {MAX_NAME} characters.")
    return text


def check_kinds(kinds: Iterable[str]) -> tuple[str, ...]:
    wanted = tuple(dict.fromkeys(kinds)) or ("all",)
    unknown = [k for k in wanted if k not in RESULT_KINDS]
    if unknown:
        raise UsageError(f"Unknown kind {unknown[0]!r}: choose from {', '.join(RESULT_KINDS)}.")
    return wanted


def export_results(
    history: History,
    path: Path,
    *,
    name: str,
    profile: HardwareProfile,
    llama_cpp: Mapping[str, Any] | None = None,
    since: float | None = None,
    kinds: Iterable[str] = ("all",),
    calibration: CalibrationStore | None = None,
) -> ExportSummary:
    """Write the results of ``history`` to ``path`` (see :mod:`desktop.core.bundle.format`).

    ``name``: what this machine is called in the file (its answers are "this machine" here
    only); ``profile``: this machine's probe (it travels with its calibration, as ``hw
    --save`` writes it); ``llama_cpp``: the engine's build (``EngineInfo.to_dict``), None when
    unknown; ``since``: seconds since the epoch; ``kinds``: of ``RESULT_KINDS``."""
    machine_name = check_machine_name(name)
    wanted = check_kinds(kinds)
    store = calibration or CalibrationStore()
    saved = with_calibration(profile, store)
    results = collect_results(
        history,
        local_name=machine_name,
        local_profile=saved,
        since=since,
        kinds=wanted,
        local_calibration=store.load(),
    )
    header = BundleHeader(
        created_at=time.time(),
        app=f"llm-scout {__version__}",
        machine={"ref": "local", "name": machine_name, "fingerprint": machine_fingerprint(saved)},
        llama_cpp=dict(llama_cpp) if llama_cpp is not None else None,
        since=since,
        kinds=wanted,
        counts=results.counts(),
    )
    size = write_bundle(path, header, results)
    return ExportSummary(path, size, header)


def import_bundle(history: History, path: Path) -> ImportSummary:
    """Read, check and merge a results file into ``history``: everything or nothing, and what
    is already here is not added again. BundleError (one sentence) when it cannot be used."""
    header, results = read_bundle(path)
    try:
        counts = merge_results(history, results)
    except RecordError as exc:
        raise BundleDamaged(f"{path.name} is damaged: {exc}; nothing was imported.") from exc
    except sqlite3.IntegrityError as exc:  # rolled back: the records contradict each other
        raise BundleDamaged(
            f"{path.name} is damaged: its records contradict each other ({exc}); nothing was "
            "imported."
        ) from exc
    return ImportSummary(path, header, counts)
