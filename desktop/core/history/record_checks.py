"""Checking another history's results (a bundle's records) before anything is merged.

:func:`check_results` refuses, in one phrase naming the record, a record without the layout of
the format (:mod:`desktop.core.history.transfer`'s field lists), one that refers to a machine or
model file the bundle does not describe, or one with an unknown status; it returns the
machines' profiles by reference.
"""

from __future__ import annotations

from typing import Any

from desktop.core.errors import ScoutError
from desktop.core.fit import CalibrationEntry
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history.records import (
    COMPARISON_STATUSES,
    CONTESTANT_STATUSES,
    QUALITY_FAILURES,
    VOTE_OUTCOMES,
)
from desktop.core.history.transfer import (
    CELL_FIELDS,
    COMPARISON_EXTRA,
    COMPARISON_FIELDS,
    CONTESTANT_EXTRA,
    CONTESTANT_FIELDS,
    MACHINE_FIELDS,
    MEASUREMENT_FIELDS,
    MODEL_FIELDS,
    PROMPT_FIELDS,
    RUN_FIELDS,
    VOTE_FIELDS,
    RecordError,
    Results,
    check_record,
)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def check_results(results: Results) -> dict[str, HardwareProfile]:
    """RecordError (one phrase naming the record) unless every record is well formed and
    refers to records that are there; returns the machines' profiles by reference."""
    profiles: dict[str, HardwareProfile] = {}
    for i, machine in enumerate(results.machines, 1):
        check_record(machine, MACHINE_FIELDS, f"the {_ordinal(i)} machine record")
        if machine["name"].strip().casefold() in ("", THIS_MACHINE):
            raise RecordError(f"the {_ordinal(i)} machine record has no name of its own")
        try:
            profiles[machine["ref"]] = HardwareProfile.from_dict(machine["profile"])
        except ScoutError as exc:
            raise RecordError(f"the {_ordinal(i)} machine record: {exc.message}") from exc
    models = set()
    for i, model in enumerate(results.models, 1):
        check_record(model, MODEL_FIELDS, f"the {_ordinal(i)} model record")
        models.add(model["ref"])

    def refs(record: dict[str, Any], what: str) -> None:
        if record["machine"] not in profiles:
            raise RecordError(f"{what} names a machine the file does not describe")
        if record.get("model") is not None and record["model"] not in models:
            raise RecordError(f"{what} names a model file the file does not describe")

    for i, run in enumerate(results.runs, 1):
        what = f"the {_ordinal(i)} answer record"
        check_record(run, RUN_FIELDS, what)
        refs(run, what)
    for i, comparison in enumerate(results.comparisons, 1):
        what = f"the {_ordinal(i)} comparison record"
        _check_comparison(comparison, what, models)
        refs(comparison, what)
        for measurement in comparison.get("quality", ()):
            check_record(measurement, MEASUREMENT_FIELDS, f"a quality result of {what}")
            refs(measurement, f"a quality result of {what}")
    for i, measurement in enumerate(results.measurements, 1):
        what = f"the {_ordinal(i)} measurement record"
        check_record(measurement, MEASUREMENT_FIELDS, what)
        refs(measurement, what)
    for i, entry in enumerate(results.calibration, 1):
        if CalibrationEntry.from_dict(entry) is None:
            raise RecordError(f"the {_ordinal(i)} calibration record is not a calibration entry")
    return profiles


def _check_comparison(comparison: Any, what: str, models: set[str]) -> None:
    check_record(comparison, COMPARISON_FIELDS, what, COMPARISON_EXTRA)
    if comparison["status"] not in COMPARISON_STATUSES:
        raise RecordError(f"{what} has an unknown status")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in comparison["blind_order"]):
        raise RecordError(f"{what} has a blind order that is not a list of numbers")
    contestants = set()
    for k in comparison["contestants"]:
        check_record(k, CONTESTANT_FIELDS, f"a contestant of {what}", CONTESTANT_EXTRA)
        if k["status"] not in CONTESTANT_STATUSES:
            raise RecordError(f"a contestant of {what} has an unknown status")
        if k.get("quality_status") not in (None, *QUALITY_FAILURES):
            raise RecordError(f"a contestant of {what} has an unknown quality status")
        if k["model"] is not None and k["model"] not in models:
            raise RecordError(f"a contestant of {what} names a model file the file lacks")
        contestants.add(k["idx"])
    prompts = set()
    for q in comparison["prompts"]:
        check_record(q, PROMPT_FIELDS, f"a prompt of {what}")
        prompts.add(q["idx"])
    for cell in comparison["answers"]:
        check_record(cell, CELL_FIELDS, f"an answer of {what}")
        if cell["contestant_idx"] not in contestants or cell["prompt_idx"] not in prompts:
            raise RecordError(f"an answer of {what} belongs to no contestant and prompt of it")
    for vote in comparison["votes"]:
        check_record(vote, VOTE_FIELDS, f"a vote of {what}")
        if vote["outcome"] not in VOTE_OUTCOMES:
            raise RecordError(f"a vote of {what} has an unknown outcome")
