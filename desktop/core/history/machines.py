"""The machines answers were stored from, and measurements beside the answers.

A stored answer or comparison points at a snapshot of the hardware profile it ran on (a
``machines`` row: the probe of that moment, with its free memory). Snapshots of one machine are
grouped into a :class:`MachineRecord` by their display name and the hardware's fingerprint
(:func:`desktop.core.fit.machine_fingerprint`: CPU, cores, RAM, GPUs): ``this machine`` is the
computer the history lives on (its answers stored before a profile was known count too); any
other name is a machine whose results were imported (``llm-scout history import``), named as it
was exported. :meth:`MachineQueries.machine_profile` is such a machine's newest profile carrying
the calibration its own runs give (the entries that came with its results), so "what would fit
on my Jetson" is estimated from the Jetson's measured speeds.

Measurements (:class:`MeasurementRecord`) are results other than answers that belong to a
model on a machine: quality figures (``kind`` ``quality.*``) with one headline ``metric`` and
``value`` and the whole result document in ``data``. They travel in bundles and show in the
cross-machine view.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from desktop.core.errors import ScoutError
from desktop.core.fit import (
    CalibrationEntry,
    CalibrationStore,
    MachineCalibration,
    compute_calibration,
    machine_fingerprint,
)
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history.database import Database
from desktop.core.history.records import HistoryNotFound, ModelRef
from desktop.core.history.rows import model_ref
from desktop.core.storage import guarded

#: The profile ``source`` of a machine whose results were imported.
IMPORTED = "imported"


@dataclass(frozen=True)
class MachineRecord:
    """One machine of the history: its name, hardware fingerprint, newest profile and what is
    stored from it. ``calibration``: what its runs say about the estimates (None: nothing yet;
    this machine's comes from its own calibration store)."""

    name: str
    fingerprint: str
    profile: HardwareProfile | None = field(default=None, repr=False)
    runs: int = 0
    comparisons: int = 0
    measurements: int = 0
    first_at: float | None = None
    last_at: float | None = None
    calibration: MachineCalibration | None = None

    @property
    def key(self) -> str:
        """What names this machine in filters: ``this machine``, else ``NAME@FINGERPRINT``."""
        return THIS_MACHINE if self.local else f"{self.name}@{self.fingerprint}"

    @property
    def local(self) -> bool:
        return self.name == THIS_MACHINE

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.name,
            "key": self.key,
            "fingerprint": self.fingerprint,
            "local": self.local,
            "runs": self.runs,
            "comparisons": self.comparisons,
            "measurements": self.measurements,
            "first_at": self.first_at,
            "last_at": self.last_at,
            "calibration": None if self.calibration is None else self.calibration.to_dict(),
            "profile": None if self.profile is None else self.profile.to_dict(),
        }


@dataclass(frozen=True)
class MeasurementRecord:
    """A result that is not an answer: a quality figure of a model on a machine.

    ``kind``: what was measured (``quality.kld``, ``quality.choice``, ...); ``metric`` and
    ``value``: its headline figure (``kld`` 0.012, ``accuracy`` 0.62); ``data``: the whole result
    document as its producer wrote it; ``settings``: what it ran with (the runs' layout)."""

    id: int
    created_at: float
    kind: str
    metric: str
    value: float | None
    model: ModelRef | None
    machine: str
    settings: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "kind": self.kind,
            "metric": self.metric,
            "value": self.value,
            "model": None if self.model is None else self.model.label,
            "machine": self.machine,
            "settings": self.settings,
        }


def fingerprint_of(profile_text: str | None) -> str:
    """The hardware fingerprint of a stored profile snapshot ("" when it cannot be read)."""
    if not profile_text:
        return ""
    try:
        return machine_fingerprint(HardwareProfile.from_dict(json.loads(profile_text)))
    except (ScoutError, ValueError, TypeError, AttributeError):
        return ""


def profile_of(profile_text: str | None) -> HardwareProfile | None:
    if not profile_text:
        return None
    try:
        return HardwareProfile.from_dict(json.loads(profile_text))
    except (ScoutError, ValueError, TypeError, AttributeError):
        return None


@dataclass(frozen=True)
class _Snapshot:
    id: int
    name: str
    fingerprint: str
    profile: str

    @property
    def group(self) -> tuple[str, str]:
        return (THIS_MACHINE, "") if self.name == THIS_MACHINE else (self.name, self.fingerprint)


class MachineQueries(Database):
    """The machines of the history and the measurements (see the module docstring)."""

    def _snapshots(self) -> list[_Snapshot]:
        return [
            _Snapshot(int(r["id"]), r["name"], fingerprint_of(r["profile"]), r["profile"])
            for r in self._read("SELECT id, name, profile FROM machines ORDER BY id")
        ]

    @guarded
    def machines(self) -> list[MachineRecord]:
        """Every machine something is stored from: this machine first, then by name."""
        snapshots = self._snapshots()
        groups: dict[tuple[str, str], list[_Snapshot]] = {}
        for snap in snapshots:
            groups.setdefault(snap.group, []).append(snap)
        counts = self._counts()
        found: list[MachineRecord] = []
        unknown = counts.get(None)
        if unknown is not None and (THIS_MACHINE, "") not in groups:
            groups[(THIS_MACHINE, "")] = []
        for (name, _), snaps in groups.items():
            ids: list[int | None] = [s.id for s in snaps]
            if name == THIS_MACHINE:
                ids.append(None)  # answers stored before the probe finished ran here too
            runs = comparisons = measurements = 0
            firsts: list[float] = []
            lasts: list[float] = []
            for machine_id in ids:
                c = counts.get(machine_id)
                if c is None:
                    continue
                runs += c[0]
                comparisons += c[1]
                measurements += c[2]
                if c[3] is not None:
                    firsts.append(c[3])
                if c[4] is not None:
                    lasts.append(c[4])
            newest = snaps[-1] if snaps else None
            profile = profile_of(newest.profile) if newest is not None else None
            fingerprint = newest.fingerprint if newest is not None else ""
            record = MachineRecord(
                name=name,
                fingerprint=fingerprint,
                profile=profile,
                runs=runs,
                comparisons=comparisons,
                measurements=measurements,
                first_at=min(firsts) if firsts else None,
                last_at=max(lasts) if lasts else None,
            )
            found.append(replace(record, calibration=self._calibration_of(record)))
        found.sort(key=lambda m: (not m.local, m.name.casefold(), m.fingerprint))
        return found

    def _counts(self) -> dict[int | None, tuple[int, int, int, float | None, float | None]]:
        """Per machines row: answers, comparisons, measurements, first and last time."""
        out: dict[int | None, list[Any]] = {}

        def add(rows: list[Any], slot: int) -> None:
            for row in rows:
                entry = out.setdefault(row["machine_id"], [0, 0, 0, None, None])
                entry[slot] += int(row["n"])
                for index, value, pick in ((3, row["first"], min), (4, row["last"], max)):
                    if value is not None:
                        entry[index] = value if entry[index] is None else pick(entry[index], value)

        add(
            self._read(
                "SELECT machine_id, COUNT(*) AS n, MIN(created_at) AS first, "
                "MAX(created_at) AS last FROM runs GROUP BY machine_id"
            ),
            0,
        )
        add(
            self._read(
                "SELECT machine_id, COUNT(*) AS n, MIN(created_at) AS first, "
                "MAX(updated_at) AS last FROM comparisons GROUP BY machine_id"
            ),
            1,
        )
        add(
            self._read(
                "SELECT machine_id, COUNT(*) AS n, MIN(created_at) AS first, "
                "MAX(created_at) AS last FROM measurements GROUP BY machine_id"
            ),
            2,
        )
        return {k: (v[0], v[1], v[2], v[3], v[4]) for k, v in out.items()}

    @guarded
    def machine(self, name: str) -> MachineRecord:
        """A machine by its key (``this machine``, ``NAME@FINGERPRINT``) or its name (any
        case); HistoryNotFound when none or several match (the sentence names them)."""
        machines = self.machines()
        wanted = name.strip()
        exact = [m for m in machines if m.key == wanted]
        if exact:
            return exact[0]
        named = [m for m in machines if m.name.casefold() == wanted.casefold()]
        if len(named) == 1:
            return named[0]
        if named:
            keys = ", ".join(m.key for m in named)
            raise HistoryNotFound(f"Several machines are named {wanted!r}; name one of {keys}.")
        known = ", ".join(m.name for m in machines) or "none yet"
        raise HistoryNotFound(f"No machine {wanted!r} in the history (machines: {known}).")

    @guarded
    def machine_condition(self, column: str, machine: str) -> tuple[str, list[Any]]:
        """An SQL condition on ``column`` (a ``machine_id``) for one machine (see
        :meth:`machine`), with its arguments."""
        record = self.machine(machine)
        ids = [s.id for s in self._snapshots() if s.group == _group_of(record)]
        marks = ", ".join("?" for _ in ids)
        parts = [f"{column} IN ({marks})"] if ids else []
        if record.local:
            parts.append(f"{column} IS NULL")
        return "(" + (" OR ".join(parts) or "0") + ")", list(ids)

    @guarded
    def machine_profile(self, machine: str) -> HardwareProfile:
        """The newest profile of a machine (see :meth:`machine`), named as the history names it
        and carrying its calibration: an imported machine's from the runs that came with its
        results (else the calibration its saved profile carried); this machine's is left to
        its own calibration store. HistoryNotFound when it has no profile."""
        record = self.machine(machine)
        if record.profile is None:
            raise HistoryNotFound(f"The history holds no hardware profile of {record.name}.")
        if record.local:
            return record.profile
        calibration = record.calibration
        return replace(
            record.profile,
            name=record.name,
            source=IMPORTED,
            calibration=calibration.to_dict() if calibration is not None else None,
        )

    def _calibration_of(self, record: MachineRecord) -> MachineCalibration | None:
        if record.local:
            if record.profile is None:
                return None
            try:
                cal = CalibrationStore().calibration(record.fingerprint)
            except Exception:  # a calibration problem must never stop a listing
                return None
            return cal if cal.runs else None
        entries = self.calibration_entries(record.fingerprint)
        if entries:
            computed = compute_calibration(entries, record.fingerprint)
            if computed.runs:
                return computed
        carried = record.profile.calibration if record.profile is not None else None
        return MachineCalibration.from_dict(carried) if carried is not None else None

    @guarded
    def calibration_entries(self, fingerprint: str) -> list[CalibrationEntry]:
        """The calibration entries another machine's results brought (oldest first)."""
        rows = self._read(
            "SELECT entry FROM machine_calibration WHERE fingerprint = ? ORDER BY time, id",
            (fingerprint,),
        )
        entries = [CalibrationEntry.from_dict(json.loads(r["entry"])) for r in rows]
        return [e for e in entries if e is not None]

    # -- measurements ------------------------------------------------------------------------

    @guarded
    def record_measurement(
        self,
        kind: str,
        *,
        metric: str,
        value: float | None,
        data: Mapping[str, Any] | None = None,
        model: Path | ModelRef | None = None,
        label: str = "",
        settings: Mapping[str, Any] | None = None,
        profile: HardwareProfile | None = None,
        machine: str = "",
    ) -> MeasurementRecord:
        """Store one measurement (a quality result: ``kind`` ``quality.*``) of ``model`` on the
        machine ``profile`` describes; committed on return."""
        if model is None or isinstance(model, ModelRef):
            ref = model
        else:
            ref = self.model_ref(model, label=label)
        machine_id = self.machine_id(profile, machine)
        with self.store.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO measurements (created_at, kind, model_id, machine_id, settings, "
                "metric, value, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    time.time(),
                    kind,
                    ref.id if ref is not None else None,
                    machine_id,
                    json.dumps(dict(settings or {}), ensure_ascii=False, default=str),
                    metric,
                    value,
                    json.dumps(dict(data or {}), ensure_ascii=False, default=str),
                ),
            )
            new_id = int(cursor.lastrowid or 0)
        return self.measurements(ids=(new_id,))[0]

    @guarded
    def measurements(
        self,
        *,
        kind: str | None = None,
        machine: str | None = None,
        ids: Sequence[int] = (),
        comparison: int | None = None,
        limit: int = 1000,
    ) -> list[MeasurementRecord]:
        """Stored measurements, newest first; ``kind``: its start (``quality``);
        ``comparison``: those a comparison's quality check made (tagged in their settings)."""
        where: list[str] = []
        args: list[Any] = []
        if comparison is not None:
            where.append("json_extract(x.settings, '$.comparison') = ?")
            args.append(comparison)
        if kind:
            where.append("(x.kind = ? OR x.kind LIKE ?)")
            args += [kind, f"{kind}.%"]
        if machine:
            condition, more = self.machine_condition("x.machine_id", machine)
            where.append(condition)
            args += more
        if ids:
            where.append(f"x.id IN ({', '.join('?' for _ in ids)})")
            args += list(ids)
        sql = (
            "SELECT x.*, machines.name AS machine_name, m.path AS m_path, "
            "m.size_bytes AS m_size, m.mtime_ns AS m_mtime, m.sha256 AS m_sha256, "
            "m.label AS m_label, m.variant_id AS m_variant, m.quant AS m_quant "
            "FROM measurements x LEFT JOIN machines ON machines.id = x.machine_id "
            "LEFT JOIN models m ON m.id = x.model_id"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY x.created_at DESC, x.id DESC LIMIT ?"
        return [_measurement(r) for r in self._read(sql, [*args, limit])]


def _group_of(record: MachineRecord) -> tuple[str, str]:
    return (THIS_MACHINE, "") if record.local else (record.name, record.fingerprint)


def _measurement(row: Any) -> MeasurementRecord:
    model = model_ref(row, "m_") if row["model_id"] is not None and row["m_path"] else None
    return MeasurementRecord(
        id=int(row["id"]),
        created_at=float(row["created_at"]),
        kind=row["kind"],
        metric=row["metric"],
        value=row["value"],
        model=model,
        machine=row["machine_name"] or THIS_MACHINE,
        settings=json.loads(row["settings"] or "{}"),
        data=json.loads(row["data"] or "{}"),
    )
