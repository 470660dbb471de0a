"""Results out of a history, as plain JSON records another history can merge (see ``merge``).

:func:`collect_results` reads what a results bundle carries (``desktop.core.bundle`` writes the
file): the stand-alone answers (Playground, ``run``), the comparisons with their prompts,
answers and votes, the measurements (quality), the machines they ran on (each a profile
snapshot; this machine's renamed to the name it is exported under) and the model files (path,
size, mtime, sha256 and label: the file itself never travels), and the calibration entries of
those machines. Records refer to machines and models by a reference local to the bundle
(``m3``, ``f7``), never by a database id.

The record layout is part of the bundle format (version 1): :data:`RUN_FIELDS` and friends list
every field with the JSON types it may have; :func:`check_record` checks one record against
them, so a damaged or foreign file is refused before anything is written. Fields added later
are optional (:data:`CONTESTANT_EXTRA`, :data:`COMPARISON_EXTRA`): a comparison carries the
quality results its check made (``quality``, measurement records) and each contestant why its
check gave none; files written before them still import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop.core.fit import CalibrationEntry, machine_fingerprint
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history.machines import MachineQueries, fingerprint_of

#: What ``--kind`` may ask for.
KINDS: tuple[str, ...] = ("runs", "comparisons", "quality", "all")

NUM = (int, float)
INT = (int,)
STR = (str,)
OBJ = (dict,)
LIST = (list,)
NONE = (type(None),)

#: The columns of an answer, as a run record carries them (JSON columns as JSON values).
ANSWER_FIELDS: Mapping[str, tuple[type, ...]] = {
    "created_at": NUM,
    "settings": OBJ,
    "output": STR,
    "finish_reason": STR + NONE,
    "error": STR + NONE,
    "error_kind": STR + NONE,
    "ttft_ms": NUM + NONE,
    "prompt_tokens_per_s": NUM + NONE,
    "generation_tokens_per_s": NUM + NONE,
    "generated_tokens": INT + NONE,
    "private_peak_bytes": INT + NONE,
    "rss_peak_bytes": INT + NONE,
    "vram_peak_bytes": INT + NONE,
    "predicted_ram_bytes": INT + NONE,
    "predicted_vram_bytes": INT + NONE,
    "checks_passed": INT + NONE,
    "checks_total": INT + NONE,
    "checks": LIST,
    "metrics": OBJ + NONE,
}
#: A stand-alone answer: the answer's columns plus where it came from and what was asked.
RUN_FIELDS: Mapping[str, tuple[type, ...]] = {
    **ANSWER_FIELDS,
    "machine": STR,
    "model": STR + NONE,
    "source": STR,
    "system": STR + NONE,
    "prompt": STR + NONE,
}
#: One cell of a comparison.
CELL_FIELDS: Mapping[str, tuple[type, ...]] = {
    **ANSWER_FIELDS,
    "contestant_idx": INT,
    "prompt_idx": INT,
}
COMPARISON_FIELDS: Mapping[str, tuple[type, ...]] = {
    "machine": STR,
    "created_at": NUM,
    "updated_at": NUM,
    "title": STR,
    "mode": STR,
    "suite": STR + NONE,
    "status": STR,
    "blind_order": LIST,
    "options": OBJ,
    "contestants": LIST,
    "prompts": LIST,
    "answers": LIST,
    "votes": LIST,
}
CONTESTANT_FIELDS: Mapping[str, tuple[type, ...]] = {
    "idx": INT,
    "name": STR,
    "spec": STR,
    "model": STR + NONE,
    "settings": OBJ,
    "status": STR,
    "reason": STR + NONE,
    "error_kind": STR + NONE,
}
#: Optional fields of a contestant: its quality check when it gave no result, and why.
CONTESTANT_EXTRA: Mapping[str, tuple[type, ...]] = {
    "quality_status": STR + NONE,
    "quality_reason": STR + NONE,
}
PROMPT_FIELDS: Mapping[str, tuple[type, ...]] = {
    "idx": INT,
    "prompt_key": STR,
    "text": STR,
    "system": STR + NONE,
    "checks": LIST,
    "category": STR,
    "max_tokens": INT + NONE,
}
VOTE_FIELDS: Mapping[str, tuple[type, ...]] = {
    "prompt_idx": INT,
    "outcome": STR,
    "winner_idx": INT + NONE,
    "among": LIST,
    "created_at": NUM,
}
MEASUREMENT_FIELDS: Mapping[str, tuple[type, ...]] = {
    "machine": STR,
    "model": STR + NONE,
    "created_at": NUM,
    "kind": STR,
    "metric": STR,
    "value": NUM + NONE,
    "settings": OBJ,
    "data": OBJ,
}
#: Optional fields of a comparison: its quality check's results (measurement records).
COMPARISON_EXTRA: Mapping[str, tuple[type, ...]] = {"quality": LIST}
MACHINE_FIELDS: Mapping[str, tuple[type, ...]] = {"ref": STR, "name": STR, "profile": OBJ}
MODEL_FIELDS: Mapping[str, tuple[type, ...]] = {
    "ref": STR,
    "path": STR,
    "size_bytes": INT,
    "mtime_ns": INT,
    "sha256": STR + NONE,
    "label": STR,
    "variant_id": STR + NONE,
    "quant": STR + NONE,
}
_JSON_COLUMNS = ("settings", "checks", "metrics", "blind_order", "options", "among", "data")


class RecordError(ValueError):
    """A record does not have the layout of the format (the message says which field)."""


def check_record(
    record: Any,
    fields: Mapping[str, tuple[type, ...]],
    what: str,
    optional: Mapping[str, tuple[type, ...]] | None = None,
) -> None:
    """RecordError unless ``record`` is an object with every field of ``fields`` of an allowed
    type (``True``/``False`` are not numbers here), and those of ``optional`` it has too; other
    fields are ignored."""
    if not isinstance(record, dict):
        raise RecordError(f"{what} is not an object")
    for name in fields:
        if name not in record:
            raise RecordError(f"{what} has no {name!r}")
    for name, types in {**fields, **(optional or {})}.items():
        if name not in record:
            continue
        value = record[name]
        if isinstance(value, bool) or not isinstance(value, types):
            raise RecordError(f"{what} has a {name!r} of the wrong type")


@dataclass(frozen=True)
class Results:
    """What a bundle carries besides its header, as JSON records (see the module docstring)."""

    machines: tuple[dict[str, Any], ...] = ()
    models: tuple[dict[str, Any], ...] = ()
    runs: tuple[dict[str, Any], ...] = ()
    comparisons: tuple[dict[str, Any], ...] = ()
    measurements: tuple[dict[str, Any], ...] = ()
    calibration: tuple[dict[str, Any], ...] = field(default=())

    def counts(self) -> dict[str, int]:
        return {
            "machines": len(self.machines),
            "models": len(self.models),
            "runs": len(self.runs),
            "comparisons": len(self.comparisons),
            "answers": sum(len(c["answers"]) for c in self.comparisons),
            "measurements": len(self.measurements),
            "calibration": len(self.calibration),
        }


LOCAL_REF = "local"


def collect_results(
    history: MachineQueries,
    *,
    local_name: str,
    local_profile: HardwareProfile,
    since: float | None = None,
    kinds: Iterable[str] = ("all",),
    local_calibration: Sequence[CalibrationEntry] = (),
) -> Results:
    """The results of ``history`` for a bundle: those of ``kinds`` (:data:`KINDS`) stored or
    updated at or after ``since`` (seconds since the epoch; None: all). This machine's rows are
    named ``local_name``; answers stored without a profile count as ``local_profile``'s, which
    is also the machine record ``local``. ``local_calibration``: this machine's calibration
    store (its entries for this machine's snapshots go along with the answers)."""
    return history.store.guard(
        lambda: _collect(
            history,
            local_name=local_name,
            local_profile=local_profile,
            since=since,
            wanted=set(kinds),
            local_calibration=local_calibration,
        )
    )


def _collect(
    history: MachineQueries,
    *,
    local_name: str,
    local_profile: HardwareProfile,
    since: float | None,
    wanted: set[str],
    local_calibration: Sequence[CalibrationEntry],
) -> Results:
    every = "all" in wanted
    floor = since if since is not None else float("-inf")
    refs = _Refs(history, local_name)
    runs: list[dict[str, Any]] = []
    comparisons: list[dict[str, Any]] = []
    measurements: list[dict[str, Any]] = []
    if every or "runs" in wanted:
        for row in history._read(
            "SELECT * FROM runs WHERE comparison_id IS NULL AND created_at >= ? "
            "ORDER BY created_at, id",
            (floor,),
        ):
            record = _answer(row)
            record.update(
                machine=refs.machine(row["machine_id"]),
                model=refs.model(row["model_id"]),
                source=row["source"],
                system=row["system"],
                prompt=row["prompt"],
            )
            runs.append(record)
    if every or "comparisons" in wanted:
        for row in history._read(
            "SELECT * FROM comparisons WHERE updated_at >= ? ORDER BY created_at, id", (floor,)
        ):
            comparisons.append(_comparison(history, row, refs))
    if every or "quality" in wanted:
        sql = "SELECT * FROM measurements WHERE created_at >= ?"
        args: list[Any] = [floor]
        if not every:
            sql += " AND (kind = 'quality' OR kind LIKE 'quality.%')"
        for row in history._read(sql + " ORDER BY created_at, id", args):
            measurements.append(_measurement(row, refs))
    machines = refs.machine_records(local_profile)
    calibration: list[dict[str, Any]] = []
    if every or "runs" in wanted:
        local = {machine_fingerprint(local_profile)} | refs.local_fingerprints
        calibration += [
            e.to_dict() for e in local_calibration if e.machine in local and e.time >= floor
        ]
        for fingerprint in sorted(refs.foreign_fingerprints - local):
            calibration += [
                e.to_dict() for e in history.calibration_entries(fingerprint) if e.time >= floor
            ]
    return Results(
        machines=tuple(machines),
        models=tuple(refs.model_records()),
        runs=tuple(runs),
        comparisons=tuple(comparisons),
        measurements=tuple(measurements),
        calibration=tuple(calibration),
    )


def _measurement(row: Any, refs: _Refs) -> dict[str, Any]:
    return {
        "machine": refs.machine(row["machine_id"]),
        "model": refs.model(row["model_id"]),
        "created_at": row["created_at"],
        "kind": row["kind"],
        "metric": row["metric"],
        "value": row["value"],
        "settings": json.loads(row["settings"] or "{}"),
        "data": json.loads(row["data"] or "{}"),
    }


def _quality(history: MachineQueries, row: Any, contestants: int) -> list[Any]:
    """The measurements comparison ``row``'s quality check made: tagged with it and one of its
    contestants, on its machine (one imported by an older version may carry another history's
    comparison number, and that history's machine)."""
    found = []
    for m in history._read(
        "SELECT * FROM measurements WHERE json_extract(settings, '$.comparison') = ? "
        "ORDER BY created_at, id",
        (row["id"],),
    ):
        contestant = json.loads(m["settings"] or "{}").get("contestant")
        if (
            m["machine_id"] == row["machine_id"]
            and isinstance(contestant, int)
            and 0 <= contestant < contestants
        ):
            found.append(m)
    return found


def _decoded(row: Any, name: str) -> Any:
    text = row[name]
    return json.loads(text) if text is not None else None


def _answer(row: Any) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for name in ANSWER_FIELDS:
        record[name] = _decoded(row, name) if name in _JSON_COLUMNS else row[name]
    if record["settings"] is None:
        record["settings"] = {}
    if record["checks"] is None:
        record["checks"] = []
    return record


def _comparison(history: MachineQueries, row: Any, refs: _Refs) -> dict[str, Any]:
    cid = row["id"]
    rows = history._read("SELECT * FROM contestants WHERE comparison_id = ? ORDER BY idx", (cid,))
    contestants = [
        {
            "idx": k["idx"],
            "name": k["name"],
            "spec": k["spec"],
            "model": refs.model(k["model_id"]),
            "settings": json.loads(k["settings"] or "{}"),
            "status": k["status"],
            "reason": k["reason"],
            "error_kind": k["error_kind"],
            "quality_status": k["quality_status"],
            "quality_reason": k["quality_reason"],
        }
        for k in rows
    ]
    quality = [_measurement(m, refs) for m in _quality(history, row, len(rows))]
    prompts = [
        {
            "idx": q["idx"],
            "prompt_key": q["prompt_key"],
            "text": q["text"],
            "system": q["system"],
            "checks": json.loads(q["checks"] or "[]"),
            "category": q["category"] or "",
            "max_tokens": q["max_tokens"],
        }
        for q in history._read("SELECT * FROM prompts WHERE comparison_id = ? ORDER BY idx", (cid,))
    ]
    answers = []
    for r in history._read(
        "SELECT * FROM runs WHERE comparison_id = ? ORDER BY contestant_idx, prompt_idx", (cid,)
    ):
        cell = _answer(r)
        cell.update(contestant_idx=r["contestant_idx"], prompt_idx=r["prompt_idx"])
        answers.append(cell)
    votes = [
        {
            "prompt_idx": v["prompt_idx"],
            "outcome": v["outcome"],
            "winner_idx": v["winner_idx"],
            "among": json.loads(v["among"] or "[]"),
            "created_at": v["created_at"],
        }
        for v in history._read(
            "SELECT * FROM votes WHERE comparison_id = ? ORDER BY created_at, id", (cid,)
        )
    ]
    return {
        "machine": refs.machine(row["machine_id"]),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "title": row["title"],
        "mode": row["mode"],
        "suite": row["suite"],
        "status": row["status"],
        "blind_order": json.loads(row["blind_order"] or "[]"),
        "options": json.loads(row["options"] or "{}"),
        "contestants": contestants,
        "prompts": prompts,
        "answers": answers,
        "votes": votes,
        "quality": quality,
    }


class _Refs:
    """Bundle references of the machines and model files the exported rows use."""

    def __init__(self, history: MachineQueries, local_name: str) -> None:
        self.history = history
        self.local_name = local_name
        self._machines: dict[int, str] = {}
        self._models: dict[int, str] = {}
        self.local_fingerprints: set[str] = set()
        self.foreign_fingerprints: set[str] = set()

    def machine(self, machine_id: int | None) -> str:
        if machine_id is None:
            return LOCAL_REF
        return self._machines.setdefault(machine_id, f"m{machine_id}")

    def model(self, model_id: int | None) -> str | None:
        if model_id is None:
            return None
        return self._models.setdefault(model_id, f"f{model_id}")

    def machine_records(self, local_profile: HardwareProfile) -> list[dict[str, Any]]:
        out = [{"ref": LOCAL_REF, "name": self.local_name, "profile": local_profile.to_dict()}]
        for machine_id, ref in sorted(self._machines.items()):
            rows = self.history._read(
                "SELECT name, profile FROM machines WHERE id = ?", (machine_id,)
            )
            if not rows:
                continue
            name = rows[0]["name"]
            local = name == THIS_MACHINE
            fingerprint = fingerprint_of(rows[0]["profile"])
            (self.local_fingerprints if local else self.foreign_fingerprints).add(fingerprint)
            out.append(
                {
                    "ref": ref,
                    "name": self.local_name if local else name,
                    "profile": json.loads(rows[0]["profile"]),
                }
            )
        return out

    def model_records(self) -> list[dict[str, Any]]:
        out = []
        for model_id, ref in sorted(self._models.items()):
            rows = self.history._read("SELECT * FROM models WHERE id = ?", (model_id,))
            if not rows:
                continue
            m = rows[0]
            out.append(
                {
                    "ref": ref,
                    "path": m["path"],
                    "size_bytes": m["size_bytes"],
                    "mtime_ns": m["mtime_ns"],
                    "sha256": m["sha256"],
                    "label": m["label"],
                    "variant_id": m["variant_id"],
                    "quant": m["quant"],
                }
            )
        return out
