"""What the calibration learned from, and taking it back: ``llm-scout calibration`` and the
Hardware page show the same :class:`CalibrationReview`.

Every stored run of this machine is listed, newest first, with whether it counts and, if not,
why (made while other programs used the CPU, too short, implausible, far from the other runs,
older than the newest runs that count). :func:`undo_last_run` takes back the newest run (a
run a person knows was disturbed); :func:`reset_calibration` forgets every run of the machine
after copying the file aside. Both leave other machines' runs alone.
"""

from __future__ import annotations

import math
import shutil
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.fit.calibration import (
    MAX_RATIO,
    MIN_GENERATED,
    RECENT,
    SPEED_DEVICES,
    CalibrationEntry,
    CalibrationStore,
    MachineCalibration,
    compute_calibration,
    kept_values,
    own_entries,
)

#: Why a run does not count, by kind (front ends translate the kind; ``left_out`` says it in
#: English with the numbers).
LEFT_OUT_KINDS = ("busy", "partial", "short", "no_speed", "implausible", "old", "outlier")


@dataclass(frozen=True)
class ReviewedRun:
    """One stored run: ``counted`` (any figure uses it) or left out: ``left_out_kind`` (one of
    :data:`LEFT_OUT_KINDS`) and ``left_out`` (why, one clause)."""

    entry: CalibrationEntry
    counted: bool
    left_out: str | None = None
    left_out_kind: str | None = None

    @property
    def memory_only(self) -> bool:
        """Counted for the RAM figure only: its speed was left out (``left_out`` says why)."""
        return self.counted and self.left_out_kind is not None

    def to_dict(self) -> dict[str, Any]:
        entry = self.entry
        ratio = None
        if entry.measured_tokens_per_s and entry.predicted_tokens_per_s:
            ratio = entry.measured_tokens_per_s / entry.predicted_tokens_per_s
        return {
            "time": entry.time,
            "source": entry.source,
            "model": entry.model,
            "device": entry.device,
            "generated_tokens": entry.generated_tokens,
            "measured_tokens_per_s": entry.measured_tokens_per_s,
            "predicted_tokens_per_s": entry.predicted_tokens_per_s,
            "speed_ratio": ratio,
            "others_cpus": entry.others_cpus,
            "counted": self.counted,
            "left_out": self.left_out,
            "left_out_kind": self.left_out_kind,
        }


@dataclass(frozen=True)
class CalibrationReview:
    """A machine's calibration and every run behind it (or not), newest first."""

    machine: str
    calibration: MachineCalibration
    runs: tuple[ReviewedRun, ...]

    @property
    def left_out(self) -> int:
        """Runs that count for no figure."""
        return sum(1 for r in self.runs if not r.counted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "calibration": self.calibration.to_dict(),
            "runs": [r.to_dict() for r in self.runs],
        }


def review_calibration(machine: str, store: CalibrationStore | None = None) -> CalibrationReview:
    """``machine``'s calibration and each of its stored runs with why it counts or not."""
    own = own_entries((store or CalibrationStore()).load(), machine)
    kept = kept_values(own)
    counted = {i for values in kept.values() for i, _ in values}
    runs = []
    for index, entry in enumerate(own):
        if index in counted and not entry.busy:
            runs.append(ReviewedRun(entry, True))
        else:  # a busy run may still count for the RAM: its speed is what was left out
            kind, clause = _why(own, index, kept)
            runs.append(ReviewedRun(entry, index in counted, left_out=clause, left_out_kind=kind))
    return CalibrationReview(machine, compute_calibration(own, machine), tuple(reversed(runs)))


def _why(own: Sequence[CalibrationEntry], index: int, kept: dict[str, Any]) -> tuple[str, str]:
    """(kind, clause) of why ``own[index]`` does not count."""
    entry = own[index]
    if entry.busy:
        return "busy", f"made while {entry.busy}"
    measured, predicted = entry.measured_tokens_per_s, entry.predicted_tokens_per_s
    if entry.device not in SPEED_DEVICES:
        return "partial", "part on the GPU, part on the CPU: neither device's speed alone"
    if entry.generated_tokens < MIN_GENERATED:
        return "short", (
            f"too short to say ({entry.generated_tokens} tokens; {MIN_GENERATED} needed)"
        )
    if not measured or not predicted or measured <= 0 or predicted <= 0:
        return "no_speed", "no speed measured or predicted"
    ratio = measured / predicted
    if not 1 / MAX_RATIO <= ratio <= MAX_RATIO:
        return "implausible", f"implausible: {ratio:.3g} times the predicted speed"
    same_device = [i for i, e in enumerate(own) if e.device == entry.device and e.speed_ratio]
    if index not in same_device[-RECENT:]:
        return "old", f"older than the newest {RECENT} runs that count"
    values = kept.get(entry.device, [])
    center = math.exp(statistics.median(v for _, v in values)) if values else None
    where = f" (x{ratio:.2f} where the others say x{center:.2f})" if center else ""
    return "outlier", f"far from the other runs{where}"


def undo_last_run(machine: str, store: CalibrationStore | None = None) -> CalibrationEntry | None:
    """Forget ``machine``'s newest run; returns it (None: there was none)."""
    store = store or CalibrationStore()
    entries = store.load()
    mine = [i for i, e in enumerate(entries) if e.machine == machine]
    if not mine:
        return None
    newest = max(mine, key=lambda i: entries[i].time)
    removed = entries.pop(newest)
    store.replace(entries)
    return removed


def reset_calibration(
    machine: str, store: CalibrationStore | None = None
) -> tuple[int, Path | None]:
    """Forget every run of ``machine``: (how many, where the file was copied first; None when
    there was nothing to forget)."""
    store = store or CalibrationStore()
    entries = store.load()
    keep = [e for e in entries if e.machine != machine]
    forgotten = len(entries) - len(keep)
    if not forgotten:
        return 0, None
    copy = store.path.with_name(f"{store.path.name}.before-reset-{int(time.time())}")
    shutil.copy2(store.path, copy)
    store.replace(keep)
    return forgotten, copy
