"""The history: every answer, comparison and vote, stored as it happens.

:class:`History` stores single answers (:meth:`History.record_run`, what the Playground and
``run`` call with a :class:`RunReport`) and comparisons: created before their first answer, each
answer recorded as it finishes, contestants' statuses, votes; then lists, search, filters by
model, and deletion. Every write is its own short transaction, committed before the call
returns: a process killed mid-comparison loses no finished answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from desktop.core import paths
from desktop.core.engine import LoadSettings, RunReport
from desktop.core.engine import protocol as p
from desktop.core.hardware import HardwareProfile
from desktop.core.history.machines import MachineQueries
from desktop.core.history.records import (
    COMPARISON_STATUSES,
    CONTESTANT_STATUSES,
    QUALITY_FAILURES,
    VOTE_OUTCOMES,
    ComparisonRecord,
    ComparisonSummary,
    ContestantRecord,
    HistoryNotFound,
    ModelRef,
    PromptRecord,
    RunRecord,
    VoteRecord,
    settings_dict,
)
from desktop.core.history.rows import (
    CONTESTANT_SELECT,
    RUN_SELECT,
    SUMMARY_SELECT,
    comparison_summary,
    contestant_record,
    insert_run,
    like,
    loads,
    model_filter,
    prompt_record,
    run_record,
    vote_record,
)
from desktop.core.storage import guarded


class History(MachineQueries):
    """The history database. Use as a context manager, or call :meth:`close`.

    ``library_db``: where stored hashes of model files are looked up (the library's database;
    None: never). Safe to share between threads: every method takes the connection's lock.
    """

    @classmethod
    def open(cls) -> History:
        """The app's history (``paths.history_db_path``), hashes looked up in its library."""
        return cls(paths.history_db_path(ensure=True), library_db=paths.library_db_path())

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- single answers -----------------------------------------------------------------------

    @guarded
    def record_run(
        self,
        report: RunReport,
        *,
        model: Path | ModelRef | None,
        prompt: str,
        system: str | None = None,
        label: str = "",
        load: LoadSettings | None = None,
        params: p.SamplingParams | None = None,
        settings: Mapping[str, Any] | None = None,
        profile: HardwareProfile | None = None,
        machine: str = "",
        source: str = "playground",
        error: str | None = None,
        error_kind: str | None = None,
    ) -> RunRecord:
        """Store one finished answer (a Playground turn, a ``run``) with its measurements.

        ``model``: the file that ran (or its :meth:`model_ref`; None: a model on a server, whose
        endpoint and name the ``settings`` carry under ``remote``); ``load``/``params``: the
        settings it ran with (or ``settings``, any JSON object); ``profile``/``machine``: the
        hardware snapshot and its display name; ``error``/``error_kind``: an answer cut off by
        a failure (what came is ``report.text``). Returns the stored record."""
        if model is None or isinstance(model, ModelRef):
            ref = model
        else:
            ref = self.model_ref(model, label=label)
        stored = dict(settings or {}) or settings_dict(load, params)
        machine_id = self.machine_id(profile, machine)
        with self.store.transaction() as conn:
            cursor = conn.execute(
                *insert_run(
                    source=source,
                    model_id=ref.id if ref is not None else None,
                    machine_id=machine_id,
                    settings=stored,
                    system=system,
                    prompt=prompt,
                    output=report.text,
                    report=report,
                    error=error,
                    error_kind=error_kind,
                )
            )
            run_id = int(cursor.lastrowid or 0)
        return self.run(run_id)

    @guarded
    def run_profile(self, run_id: int) -> dict[str, Any]:
        """The hardware profile snapshot (``HardwareProfile.to_dict``) an answer ran on; empty
        when none was stored."""
        rows = self._read(
            "SELECT machines.profile FROM runs JOIN machines ON machines.id = runs.machine_id "
            "WHERE runs.id = ?",
            (run_id,),
        )
        return loads(rows[0]["profile"], {}) if rows else {}

    @guarded
    def run(self, run_id: int) -> RunRecord:
        rows = self._read(f"{RUN_SELECT} WHERE runs.id = ?", (run_id,))
        if not rows:
            raise HistoryNotFound(f"There is no answer {run_id} in the history.")
        return run_record(rows[0])

    @guarded
    def runs(
        self,
        *,
        search: str | None = None,
        model: str | None = None,
        source: str | None = None,
        comparison_id: int | None = None,
        limit: int = 200,
        machine: str | None = None,
    ) -> list[RunRecord]:
        """Answers, newest first. ``search``: words in the prompt, the answer or the model;
        ``model``: part of a model's label, variant id or path; ``source``: ``playground``,
        ``run`` or ``comparison``; ``machine``: one machine (:meth:`machine`)."""
        where: list[str] = []
        args: list[Any] = []
        if search:
            where.append(
                "(runs.prompt LIKE ? ESCAPE '\\' OR runs.output LIKE ? ESCAPE '\\' "
                "OR models.label LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM prompts q "
                "WHERE q.comparison_id = runs.comparison_id AND q.idx = runs.prompt_idx "
                "AND q.text LIKE ? ESCAPE '\\'))"
            )
            args += [like(search)] * 4
        if model:
            where.append(model_filter("models"))
            args += [like(model)] * 3
        if source:
            where.append("runs.source = ?")
            args.append(source)
        if comparison_id is not None:
            where.append("runs.comparison_id = ?")
            args.append(comparison_id)
        if machine:
            condition, more = self.machine_condition("runs.machine_id", machine)
            where.append(condition)
            args += more
        sql = RUN_SELECT + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY runs.created_at DESC, runs.id DESC LIMIT ?"
        return [run_record(r) for r in self._read(sql, [*args, limit])]

    @guarded
    def delete_run(self, run_id: int) -> bool:
        with self.store.transaction() as conn:
            return conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount > 0

    # -- comparisons --------------------------------------------------------------------------

    @guarded
    def create_comparison(
        self,
        *,
        title: str,
        mode: str,
        contestants: Sequence[ContestantRecord],
        prompts: Sequence[PromptRecord],
        suite: str | None = None,
        blind_order: Sequence[int] = (),
        options: Mapping[str, Any] | None = None,
        profile: HardwareProfile | None = None,
        machine: str = "",
        created_at: float | None = None,
    ) -> int:
        """Store a new comparison (status ``running``) before its first answer; contestants
        and prompts are numbered in the order given. ``created_at``: when it started (the
        runner's clock, which its reports say), else now. Returns its id."""
        machine_id = self.machine_id(profile, machine)
        now = time.time() if created_at is None else created_at
        with self.store.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO comparisons (title, created_at, updated_at, mode, suite, status, "
                "machine_id, blind_order, options) VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)",
                (
                    title,
                    now,
                    now,
                    mode,
                    suite,
                    machine_id,
                    json.dumps(list(blind_order)),
                    json.dumps(dict(options or {}), ensure_ascii=False),
                ),
            )
            comparison_id = int(cursor.lastrowid or 0)
            for index, c in enumerate(contestants):
                conn.execute(
                    "INSERT INTO contestants (comparison_id, idx, name, spec, model_id, settings, "
                    "status, reason, error_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        comparison_id,
                        index,
                        c.name,
                        c.spec,
                        c.model.id if c.model is not None else None,
                        json.dumps(c.settings, ensure_ascii=False),
                        c.status,
                        c.reason,
                        c.error_kind,
                    ),
                )
            for index, q in enumerate(prompts):
                conn.execute(
                    "INSERT INTO prompts (comparison_id, idx, prompt_key, text, system, checks, "
                    "category, max_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        comparison_id,
                        index,
                        q.key or str(index + 1),
                        q.text,
                        q.system,
                        json.dumps(list(q.checks), ensure_ascii=False),
                        q.category,
                        q.max_tokens,
                    ),
                )
        return comparison_id

    @guarded
    def record_answer(
        self,
        comparison_id: int,
        contestant: int,
        prompt: int,
        *,
        output: str,
        report: RunReport | None = None,
        error: str | None = None,
        error_kind: str | None = None,
        finish_reason: str | None = None,
        checks_passed: int | None = None,
        checks_total: int | None = None,
        checks: Sequence[Mapping[str, Any]] = (),
    ) -> int:
        """Store one cell of a comparison as soon as it is finished (committed on return);
        a second answer for the same cell replaces the first. Returns the run id."""
        with self.store.transaction() as conn:
            row = conn.execute(
                "SELECT model_id, settings, (SELECT machine_id FROM comparisons WHERE id = ?) "
                "AS machine_id FROM contestants WHERE comparison_id = ? AND idx = ?",
                (comparison_id, comparison_id, contestant),
            ).fetchone()
            if row is None:
                raise HistoryNotFound(
                    f"Comparison {comparison_id} has no contestant {contestant} in the history."
                )
            conn.execute(
                "DELETE FROM runs WHERE comparison_id = ? AND contestant_idx = ? "
                "AND prompt_idx = ?",
                (comparison_id, contestant, prompt),
            )
            cursor = conn.execute(
                *insert_run(
                    source="comparison",
                    model_id=row["model_id"],
                    machine_id=row["machine_id"],
                    settings=loads(row["settings"], {}),
                    system=None,
                    prompt=None,
                    output=output,
                    report=report,
                    error=error,
                    error_kind=error_kind,
                    finish_reason=finish_reason,
                    checks_passed=checks_passed,
                    checks_total=checks_total,
                    checks=checks,
                    cell=(comparison_id, contestant, prompt),
                )
            )
            conn.execute(
                "UPDATE comparisons SET updated_at = ? WHERE id = ?", (time.time(), comparison_id)
            )
            return int(cursor.lastrowid or 0)

    @guarded
    def set_contestant_status(
        self,
        comparison_id: int,
        contestant: int,
        status: str,
        *,
        reason: str | None = None,
        error_kind: str | None = None,
        model: ModelRef | None = None,
    ) -> None:
        """``pending``, ``running``, ``done``, ``failed`` (with its reason) or ``cancelled``;
        ``model`` replaces the file on record (a re-run found it elsewhere)."""
        if status not in CONTESTANT_STATUSES:
            raise ValueError(f"unknown contestant status {status!r}")
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE contestants SET status = ?, reason = ?, error_kind = ?, "
                "model_id = COALESCE(?, model_id) WHERE comparison_id = ? AND idx = ?",
                (
                    status,
                    reason,
                    error_kind,
                    model.id if model is not None else None,
                    comparison_id,
                    contestant,
                ),
            )

    @guarded
    def set_contestant_quality(
        self, comparison_id: int, contestant: int, status: str | None, reason: str | None = None
    ) -> None:
        """Keep why a contestant's quality check gave no result (``failed``, ``cancelled`` or
        ``skipped``, with its sentence); None forgets it (the check has a result now)."""
        if status is not None and status not in QUALITY_FAILURES:
            raise ValueError(f"unknown quality status {status!r}")
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE contestants SET quality_status = ?, quality_reason = ? "
                "WHERE comparison_id = ? AND idx = ?",
                (status, reason if status is not None else None, comparison_id, contestant),
            )
            conn.execute(
                "UPDATE comparisons SET updated_at = ? WHERE id = ?", (time.time(), comparison_id)
            )

    @guarded
    def set_comparison_status(self, comparison_id: int, status: str) -> None:
        if status not in COMPARISON_STATUSES:
            raise ValueError(f"unknown comparison status {status!r}")
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE comparisons SET status = ?, updated_at = ? WHERE id = ?",
                (status, time.time(), comparison_id),
            )

    @guarded
    def record_vote(
        self,
        comparison_id: int,
        prompt: int,
        outcome: str,
        *,
        winner: int | None = None,
        among: Sequence[int] = (),
    ) -> VoteRecord:
        """Store a blind vote (committed on return)."""
        if outcome not in VOTE_OUTCOMES:
            raise ValueError(f"unknown vote outcome {outcome!r}")
        now = time.time()
        with self.store.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO votes (comparison_id, prompt_idx, outcome, winner_idx, among, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (comparison_id, prompt, outcome, winner, json.dumps(list(among)), now),
            )
            vote_id = int(cursor.lastrowid or 0)
        return VoteRecord(vote_id, prompt, outcome, winner, tuple(among), now)

    @guarded
    def delete_vote(self, vote_id: int) -> bool:
        with self.store.transaction() as conn:
            return conn.execute("DELETE FROM votes WHERE id = ?", (vote_id,)).rowcount > 0

    @guarded
    def comparisons(
        self,
        *,
        search: str | None = None,
        model: str | None = None,
        limit: int = 200,
        machine: str | None = None,
    ) -> list[ComparisonSummary]:
        """Stored comparisons, newest first. ``search``: words in the title, a prompt, an
        answer or a contestant's name; ``model``: part of a model's label, variant or path;
        ``machine``: one machine (:meth:`machine`)."""
        where: list[str] = []
        args: list[Any] = []
        if search:
            where.append(
                "(c.title LIKE ? ESCAPE '\\' OR c.suite LIKE ? ESCAPE '\\' "
                "OR EXISTS (SELECT 1 FROM prompts q WHERE q.comparison_id = c.id "
                "AND q.text LIKE ? ESCAPE '\\') "
                "OR EXISTS (SELECT 1 FROM contestants k WHERE k.comparison_id = c.id "
                "AND k.name LIKE ? ESCAPE '\\') "
                "OR EXISTS (SELECT 1 FROM runs r WHERE r.comparison_id = c.id "
                "AND r.output LIKE ? ESCAPE '\\'))"
            )
            args += [like(search)] * 5
        if model:
            where.append(
                "EXISTS (SELECT 1 FROM contestants k JOIN models m ON m.id = k.model_id "
                f"WHERE k.comparison_id = c.id AND {model_filter('m')})"
            )
            args += [like(model)] * 3
        if machine:
            condition, more = self.machine_condition("c.machine_id", machine)
            where.append(condition)
            args += more
        sql = SUMMARY_SELECT
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY c.created_at DESC, c.id DESC LIMIT ?"
        return [comparison_summary(r) for r in self._read(sql, [*args, limit])]

    @guarded
    def comparison(self, comparison_id: int) -> ComparisonRecord:
        """One comparison with its contestants, prompts, answers and votes."""
        found = self._summaries_by_id(comparison_id)
        if not found:
            raise HistoryNotFound(f"There is no comparison {comparison_id} in the history.")
        head = self._read(
            "SELECT c.blind_order, c.options, machines.profile FROM comparisons c "
            "LEFT JOIN machines ON machines.id = c.machine_id WHERE c.id = ?",
            (comparison_id,),
        )[0]
        contestants = self._read(
            f"{CONTESTANT_SELECT} WHERE k.comparison_id = ? ORDER BY k.idx", (comparison_id,)
        )
        prompts = self._read(
            "SELECT * FROM prompts WHERE comparison_id = ? ORDER BY idx", (comparison_id,)
        )
        runs = self._read(
            f"{RUN_SELECT} WHERE runs.comparison_id = ? ORDER BY runs.contestant_idx, "
            "runs.prompt_idx",
            (comparison_id,),
        )
        votes = self._read(
            "SELECT * FROM votes WHERE comparison_id = ? ORDER BY created_at, id",
            (comparison_id,),
        )
        return ComparisonRecord(
            summary=found[0],
            contestants=tuple(contestant_record(r) for r in contestants),
            prompts=tuple(prompt_record(r) for r in prompts),
            runs=tuple(run_record(r) for r in runs),
            votes=tuple(vote_record(r) for r in votes),
            blind_order=tuple(loads(head["blind_order"], [])),
            options=loads(head["options"], {}),
            profile=loads(head["profile"], {}),
        )

    def _summaries_by_id(self, comparison_id: int) -> list[ComparisonSummary]:
        rows = self._read(f"{SUMMARY_SELECT} WHERE c.id = ?", (comparison_id,))
        return [comparison_summary(r) for r in rows]

    @guarded
    def delete_comparison(self, comparison_id: int) -> bool:
        """Remove a comparison with its answers and votes; False when there was none."""
        with self.store.transaction() as conn:
            return (
                conn.execute("DELETE FROM comparisons WHERE id = ?", (comparison_id,)).rowcount > 0
            )

    @guarded
    def latest_comparison_id(self) -> int | None:
        rows = self._read("SELECT MAX(id) AS id FROM comparisons")
        return int(rows[0]["id"]) if rows and rows[0]["id"] is not None else None
