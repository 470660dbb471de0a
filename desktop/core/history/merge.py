"""Merging another history's results (a bundle's records) into this one: all or nothing, and
each result at most once.

:func:`merge_results` first checks every record (:func:`check_results`: layout, references,
statuses, profiles), then writes in one transaction: a failure anywhere leaves the history as
it was. A result already here is recognised by what it is, not by an id (ids differ between
databases): an answer by its time, source, prompt and text on the same hardware; a comparison
by its time, title and mode (a newer copy adds the answers and votes this one lacks and its
status); a vote by its prompt, outcome and time; a measurement by its time, kind and metric
(one a comparison's quality check made comes with the comparison and is tagged with its id
here, so the imported comparison finds its results); a calibration entry by its machine, time,
source and model (this machine's own entries stay in its calibration store and are not added
here). "The same hardware" compares the hardware fingerprints of the profiles (an answer
stored without a profile matches any), so a bundle made here and imported back adds nothing,
and importing a bundle twice adds nothing the second time.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Any

from desktop.core.fit import CalibrationEntry, machine_fingerprint
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history.machines import MachineQueries, fingerprint_of
from desktop.core.history.record_checks import check_results
from desktop.core.history.transfer import (
    ANSWER_FIELDS,
    LOCAL_REF,
    Results,
)


@dataclass(frozen=True)
class MergeCounts:
    """What a merge added and what was already there. ``machines``: the machines the added
    results ran on."""

    runs_added: int = 0
    runs_present: int = 0
    comparisons_added: int = 0
    comparisons_updated: int = 0
    comparisons_present: int = 0
    answers_added: int = 0
    votes_added: int = 0
    measurements_added: int = 0
    measurements_present: int = 0
    calibration_added: int = 0
    machines: tuple[str, ...] = field(default=())

    @property
    def added(self) -> int:
        return (
            self.runs_added
            + self.comparisons_added
            + self.comparisons_updated
            + self.measurements_added
            + self.calibration_added
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["machines"] = list(self.machines)
        return data


def merge_results(history: MachineQueries, results: Results) -> MergeCounts:
    """Add ``results`` to ``history`` in one transaction (see the module docstring); raises
    RecordError, before writing anything, when a record is not well formed."""
    profiles = check_results(results)

    def merge() -> MergeCounts:
        with history.store.transaction() as conn:
            return _Merge(conn, results, profiles).run()

    return history.store.guard(merge)  # on a file found damaged: again, whole, on the new one


class _Merge:
    def __init__(
        self, conn: sqlite3.Connection, results: Results, profiles: dict[str, HardwareProfile]
    ) -> None:
        self.conn = conn
        self.results = results
        self.profiles = profiles
        self.names = {m["ref"]: m["name"] for m in results.machines}
        self.fingerprints = {ref: machine_fingerprint(p) for ref, p in profiles.items()}
        self.models = {m["ref"]: m for m in results.models}
        self._machine_ids: dict[str, int] = {}
        self._model_ids: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        # Measurements that came with their comparison: not counted again as stand-alone ones.
        self._with_comparison: set[tuple[Any, ...]] = set()
        self.used: list[str] = []
        self._known: dict[str, str] = {}  # profile snapshot -> fingerprint
        # This machine's own calibration lives in its calibration store, not here.
        self.local_fingerprints = {
            fingerprint_of(r["profile"])
            for r in conn.execute("SELECT profile FROM machines WHERE name = ?", (THIS_MACHINE,))
        }

    def add(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def run(self) -> MergeCounts:
        for run in self.results.runs:
            self._run(run)
        for comparison in self.results.comparisons:
            self._comparison(comparison)
        for measurement in self.results.measurements:
            self._measurement(measurement)
        for entry in self.results.calibration:
            self._calibration(entry)
        added = sum(v for k, v in self.counts.items() if k.endswith(("added", "updated")))
        sender = self.fingerprints.get(LOCAL_REF)
        if sender is not None and (added or sender not in self.local_fingerprints):
            # The machine that sent the file is known by its profile (and its calibration),
            # even when none of its results are new; this machine's own file adds nothing.
            self.machine_id(LOCAL_REF, used=False)
        return MergeCounts(**self.counts, machines=tuple(dict.fromkeys(self.used)))

    # -- machines and model files ---------------------------------------------------------------

    def machine_id(self, ref: str, *, used: bool = True) -> int:
        if used:
            self.used.append(self.names[ref])
        found = self._machine_ids.get(ref)
        if found is not None:
            return found
        name = self.names[ref]
        text = json.dumps(self.profiles[ref].to_dict(), sort_keys=True, default=str)
        digest = hashlib.sha256(f"{name}\n{text}".encode()).hexdigest()
        self.conn.execute(
            "INSERT OR IGNORE INTO machines (digest, name, profile) VALUES (?, ?, ?)",
            (digest, name, text),
        )
        row = self.conn.execute("SELECT id FROM machines WHERE digest = ?", (digest,)).fetchone()
        self._machine_ids[ref] = int(row["id"])
        return self._machine_ids[ref]

    def model_id(self, ref: str | None) -> int | None:
        if ref is None:
            return None
        found = self._model_ids.get(ref)
        if found is not None:
            return found
        m = self.models[ref]
        key = (m["path"], m["size_bytes"], m["mtime_ns"])
        self.conn.execute(
            "INSERT OR IGNORE INTO models (path, size_bytes, mtime_ns, sha256, label, "
            "variant_id, quant) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*key, m["sha256"], m["label"], m["variant_id"], m["quant"]),
        )
        row = self.conn.execute(
            "SELECT id, sha256 FROM models WHERE path = ? AND size_bytes = ? AND mtime_ns = ?", key
        ).fetchone()
        if row["sha256"] is None and m["sha256"] is not None:
            self.conn.execute("UPDATE models SET sha256 = ? WHERE id = ?", (m["sha256"], row["id"]))
        self._model_ids[ref] = int(row["id"])
        return self._model_ids[ref]

    def same_machine(self, profile_text: str | None, ref: str) -> bool:
        """A stored row's machine is the record's (a row with no profile ran here: any)."""
        if profile_text is None:
            return True
        found = self._known.get(profile_text)
        if found is None:
            found = self._known[profile_text] = fingerprint_of(profile_text)
        return found == self.fingerprints[ref]

    # -- answers --------------------------------------------------------------------------------

    def _run(self, run: dict[str, Any]) -> None:
        candidates = self.conn.execute(
            "SELECT machines.profile FROM runs LEFT JOIN machines ON machines.id = "
            "runs.machine_id WHERE runs.comparison_id IS NULL AND runs.created_at = ? AND "
            "runs.source = ? AND runs.output = ? AND runs.prompt IS ?",
            (run["created_at"], run["source"], run["output"], run["prompt"]),
        ).fetchall()
        if any(self.same_machine(c["profile"], run["machine"]) for c in candidates):
            self.add("runs_present")
            return
        self._insert_answer(
            run,
            source=run["source"],
            machine_id=self.machine_id(run["machine"]),
            model_id=self.model_id(run["model"]),
            system=run["system"],
            prompt=run["prompt"],
        )
        self.add("runs_added")

    def _insert_answer(
        self,
        record: dict[str, Any],
        *,
        source: str,
        machine_id: int | None,
        model_id: int | None,
        system: str | None = None,
        prompt: str | None = None,
        cell: tuple[int | None, int | None, int | None] = (None, None, None),
    ) -> None:
        values: dict[str, Any] = {}
        for name in ANSWER_FIELDS:
            value = record[name]
            if name in ("settings", "checks", "metrics"):
                value = None if value is None else json.dumps(value, ensure_ascii=False)
            values[name] = value
        values.update(
            source=source,
            machine_id=machine_id,
            model_id=model_id,
            system=system,
            prompt=prompt,
            comparison_id=cell[0],
            contestant_idx=cell[1],
            prompt_idx=cell[2],
        )
        columns = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        self.conn.execute(f"INSERT INTO runs ({columns}) VALUES ({marks})", tuple(values.values()))

    # -- comparisons ----------------------------------------------------------------------------

    def _comparison(self, record: dict[str, Any]) -> None:
        ref = record["machine"]
        candidates = self.conn.execute(
            "SELECT c.id, c.updated_at, machines.profile FROM comparisons c LEFT JOIN machines "
            "ON machines.id = c.machine_id WHERE c.created_at = ? AND c.title = ? AND c.mode = ?",
            (record["created_at"], record["title"], record["mode"]),
        ).fetchall()
        existing = next((c for c in candidates if self.same_machine(c["profile"], ref)), None)
        if existing is None:
            self._new_comparison(record)
            self.add("comparisons_added")
            return
        cid = int(existing["id"])
        changed = self._answers_and_votes(record, cid)
        if record["updated_at"] > existing["updated_at"]:
            self.conn.execute(
                "UPDATE comparisons SET status = ?, updated_at = ? WHERE id = ?",
                (record["status"], record["updated_at"], cid),
            )
            for k in record["contestants"]:
                self.conn.execute(
                    "UPDATE contestants SET status = ?, reason = ?, error_kind = ?, "
                    "quality_status = ?, quality_reason = ? WHERE comparison_id = ? AND idx = ?",
                    (
                        k["status"],
                        k["reason"],
                        k["error_kind"],
                        k.get("quality_status"),
                        k.get("quality_reason"),
                        cid,
                        k["idx"],
                    ),
                )
            changed = True
        changed = self._quality(record, cid) or changed
        self.add("comparisons_updated" if changed else "comparisons_present")

    def _new_comparison(self, record: dict[str, Any]) -> None:
        cursor = self.conn.execute(
            "INSERT INTO comparisons (title, created_at, updated_at, mode, suite, status, "
            "machine_id, blind_order, options) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record["title"],
                record["created_at"],
                record["updated_at"],
                record["mode"],
                record["suite"],
                record["status"],
                self.machine_id(record["machine"]),
                json.dumps(record["blind_order"]),
                json.dumps(record["options"], ensure_ascii=False),
            ),
        )
        cid = int(cursor.lastrowid or 0)
        for k in record["contestants"]:
            self.conn.execute(
                "INSERT INTO contestants (comparison_id, idx, name, spec, model_id, settings, "
                "status, reason, error_kind, quality_status, quality_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    cid,
                    k["idx"],
                    k["name"],
                    k["spec"],
                    self.model_id(k["model"]),
                    json.dumps(k["settings"], ensure_ascii=False),
                    k["status"],
                    k["reason"],
                    k["error_kind"],
                    k.get("quality_status"),
                    k.get("quality_reason"),
                ),
            )
        for q in record["prompts"]:
            self.conn.execute(
                "INSERT INTO prompts (comparison_id, idx, prompt_key, text, system, checks, "
                "category, max_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    cid,
                    q["idx"],
                    q["prompt_key"],
                    q["text"],
                    q["system"],
                    json.dumps(q["checks"], ensure_ascii=False),
                    q["category"],
                    q["max_tokens"],
                ),
            )
        self._answers_and_votes(record, cid)
        self._quality(record, cid)

    def _quality(self, record: dict[str, Any], cid: int) -> bool:
        """The quality results that came with comparison ``record``, tagged with ``cid`` (one
        already here, imported without its comparison, is tagged too); True if any changed."""
        changed = False
        for measurement in record.get("quality", ()):
            settings = {**measurement["settings"], "comparison": cid}
            tagged = {**measurement, "settings": settings}
            self._with_comparison.add(self._key(measurement))
            found = self._present(measurement)
            if found is None:
                self._insert_measurement(tagged)
                self.add("measurements_added")
                changed = True
            elif json.loads(found["settings"] or "{}").get("comparison") != cid:
                stored = {**json.loads(found["settings"] or "{}"), "comparison": cid}
                self.conn.execute(
                    "UPDATE measurements SET settings = ? WHERE id = ?",
                    (json.dumps(stored, ensure_ascii=False), found["id"]),
                )
                changed = True
        return changed

    def _answers_and_votes(self, record: dict[str, Any], cid: int) -> bool:
        """The answers and votes of ``record`` that comparison ``cid`` lacks; True if any."""
        head = self.conn.execute("SELECT machine_id FROM comparisons WHERE id = ?", (cid,))
        machine_id = head.fetchone()["machine_id"]
        contestants = {
            int(r["idx"]): r["model_id"]
            for r in self.conn.execute(
                "SELECT idx, model_id FROM contestants WHERE comparison_id = ?", (cid,)
            )
        }
        prompts = {
            int(r["idx"])
            for r in self.conn.execute("SELECT idx FROM prompts WHERE comparison_id = ?", (cid,))
        }
        cells = {
            (int(r["contestant_idx"]), int(r["prompt_idx"]))
            for r in self.conn.execute(
                "SELECT contestant_idx, prompt_idx FROM runs WHERE comparison_id = ?", (cid,)
            )
        }
        added = 0
        for cell in record["answers"]:
            key = (cell["contestant_idx"], cell["prompt_idx"])
            if key in cells or key[0] not in contestants or key[1] not in prompts:
                continue
            self._insert_answer(
                cell,
                source="comparison",
                machine_id=machine_id,
                model_id=contestants[key[0]],
                cell=(cid, key[0], key[1]),
            )
            cells.add(key)
            added += 1
        votes = 0
        for vote in record["votes"]:
            found = self.conn.execute(
                "SELECT 1 FROM votes WHERE comparison_id = ? AND prompt_idx = ? AND outcome = ? "
                "AND winner_idx IS ? AND created_at = ?",
                (cid, vote["prompt_idx"], vote["outcome"], vote["winner_idx"], vote["created_at"]),
            ).fetchone()
            if found is not None:
                continue
            self.conn.execute(
                "INSERT INTO votes (comparison_id, prompt_idx, outcome, winner_idx, among, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    cid,
                    vote["prompt_idx"],
                    vote["outcome"],
                    vote["winner_idx"],
                    json.dumps(vote["among"]),
                    vote["created_at"],
                ),
            )
            votes += 1
        if added or votes:
            self.used.append(self.names[record["machine"]])
        self.add("answers_added", added)
        self.add("votes_added", votes)
        return bool(added or votes)

    # -- measurements and calibration ----------------------------------------------------------

    def _key(self, record: dict[str, Any]) -> tuple[Any, ...]:
        return (record["created_at"], record["kind"], record["metric"], record["machine"])

    def _present(self, record: dict[str, Any]) -> Any:
        """The stored row of this measurement (same time, kind and metric on the same
        machine), or None."""
        candidates = self.conn.execute(
            "SELECT x.id, x.settings, machines.profile FROM measurements x LEFT JOIN machines "
            "ON machines.id = x.machine_id WHERE x.created_at = ? AND x.kind = ? AND x.metric = ?",
            (record["created_at"], record["kind"], record["metric"]),
        ).fetchall()
        return next(
            (c for c in candidates if self.same_machine(c["profile"], record["machine"])), None
        )

    def _measurement(self, record: dict[str, Any]) -> None:
        if self._key(record) in self._with_comparison:
            return  # came with its comparison (and was counted there)
        if self._present(record) is not None:
            self.add("measurements_present")
            return
        self._insert_measurement(record)
        self.add("measurements_added")

    def _insert_measurement(self, record: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO measurements (created_at, kind, model_id, machine_id, settings, metric, "
            "value, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record["created_at"],
                record["kind"],
                self.model_id(record["model"]),
                self.machine_id(record["machine"]),
                json.dumps(record["settings"], ensure_ascii=False),
                record["metric"],
                record["value"],
                json.dumps(record["data"], ensure_ascii=False),
            ),
        )

    def _calibration(self, data: dict[str, Any]) -> None:
        entry = CalibrationEntry.from_dict(data)
        assert entry is not None  # checked before
        if entry.machine in self.local_fingerprints:
            return
        cursor = self.conn.execute(
            "INSERT OR IGNORE INTO machine_calibration (fingerprint, time, source, model, entry) "
            "VALUES (?, ?, ?, ?, ?)",
            (entry.machine, entry.time, entry.source, entry.model, json.dumps(entry.to_dict())),
        )
        if cursor.rowcount:
            self.add("calibration_added")
