"""The history database on real SQLite files: schema and migrations, single answers, model
files and their hashes, comparisons, votes, search, filters and deletion."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import pytest

from desktop.core import paths
from desktop.core.engine import GenerationMetrics, LoadSettings, RunReport
from desktop.core.engine import protocol as p
from desktop.core.hardware import load_profile
from desktop.core.history import (
    MIGRATIONS,
    ContestantRecord,
    History,
    HistoryError,
    HistoryNotFound,
    PromptRecord,
    fingerprint,
    report_from_dict,
    settings_dict,
)
from desktop.core.history.records import report_to_dict
from desktop.core.library import Library
from tests.fixtures.library_files import write_tiny


def make_report(text: str = "Canberra.", rate: float = 101.5, peak: int = 200 << 20) -> RunReport:
    metrics = GenerationMetrics(
        ttft_ms=120.0,
        prompt_tokens=40,
        prompt_tokens_per_s=300.0,
        generated_tokens=5,
        tokens_per_s=rate,
        per_second=(100.0, 103.0),
        t_first=None,
        t_last=None,
    )
    return RunReport(
        text=text,
        metrics=metrics,
        load_ms=210.0,
        rss_after_load_bytes=190 << 20,
        rss_after_first_token_bytes=195 << 20,
        rss_peak_bytes=peak,
        private_peak_bytes=60 << 20,
        file_peak_bytes=140 << 20,
        predicted_ram_bytes=205 << 20,
        predicted_vram_bytes=0,
        predicted_tokens_per_s=105.0,
        finish_reason="stop",
        n_ctx=512,
        n_threads=2,
    )


def model_file(tmp_path: Path, name: str = "tiny.gguf", size: int = 4096) -> Path:
    path = tmp_path / name
    path.write_bytes(os.urandom(size))
    return path


@pytest.fixture
def history(tmp_path: Path) -> History:
    return History(tmp_path / "history.db")


# -- the file ----------------------------------------------------------------------------------


def test_a_new_database_uses_wal_and_the_latest_schema(tmp_path: Path) -> None:
    with History(tmp_path / "h.db"):
        pass
    conn = sqlite3.connect(tmp_path / "h.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    conn.close()


def test_the_app_history_lives_in_the_data_folder(scout_home: Path) -> None:
    with History.open() as history:
        assert history.path == paths.history_db_path() == scout_home / "data" / "history.db"
        assert history.library_db == paths.library_db_path()


def test_an_older_database_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    with History(path) as old:
        run_id = old.record_run(make_report(), model=model_file(tmp_path), prompt="Hi").id
    later = (*MIGRATIONS, "ALTER TABLE runs ADD COLUMN rating INTEGER;")
    with History(path, migrations=later) as new:
        assert new.run(run_id).output == "Canberra."
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) + 1
    assert "rating" in {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    conn.close()


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    History(path, migrations=(*MIGRATIONS, "CREATE TABLE later (x);")).close()
    before = path.read_bytes()
    with pytest.raises(HistoryError) as info:
        History(path)
    assert info.value.kind == "history.newer"
    assert "newer" in info.value.message
    assert path.read_bytes() == before


def test_a_damaged_file_is_moved_aside_and_a_new_history_started(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    path.write_bytes(b"this is not an SQLite database, not even close" * 100)
    with History(path) as history:
        assert history.comparisons() == []
    aside = list(tmp_path.glob("h.db.broken-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not")


# -- single answers ----------------------------------------------------------------------------


def test_a_playground_answer_is_stored_with_its_report_settings_and_machine(
    history: History, tmp_path: Path
) -> None:
    profile = load_profile("rtx-3060-12gb")
    report = make_report()
    stored = history.record_run(
        report,
        model=model_file(tmp_path),
        prompt="What is the capital of Australia?",
        system="Be brief.",
        label="Tiny Test Q4_K_M",
        load=LoadSettings(n_ctx=512, n_threads=2),
        params=p.SamplingParams(temperature=0.2, seed=7, stop=("\n",)),
        profile=profile,
        machine="rtx-3060-12gb",
    )
    again = history.run(stored.id)
    assert again == stored
    assert again.source == "playground"
    assert again.prompt == "What is the capital of Australia?"
    assert again.system == "Be brief."
    assert again.output == "Canberra."
    assert again.machine == "rtx-3060-12gb"
    assert again.model is not None
    assert again.model.label == "Tiny Test Q4_K_M"
    assert again.settings["load"]["n_ctx"] == 512
    assert again.settings["sampling"]["seed"] == 7
    assert again.settings["sampling"]["stop"] == ["\n"]
    assert again.report is not None
    assert again.report.to_dict() == report.to_dict()  # predicted vs measured, all of it


def test_an_answer_cut_by_a_failure_is_stored_marked_with_its_machine(
    history: History, tmp_path: Path
) -> None:
    profile = load_profile("rtx-3060-12gb")
    stored = history.record_run(
        make_report("Can"),
        model=model_file(tmp_path),
        prompt="Capital?",
        profile=profile,
        machine="rtx-3060-12gb",
        error="The engine stopped.",
        error_kind="engine.crashed",
    )
    assert not stored.ok
    assert (stored.output, stored.error, stored.error_kind) == (
        "Can",
        "The engine stopped.",
        "engine.crashed",
    )
    snapshot = history.run_profile(stored.id)
    assert snapshot["cpu"]["brand"] == profile.cpu.brand
    assert snapshot["memory"]["total_bytes"] == profile.memory.total_bytes
    unknown = history.record_run(make_report(), model=model_file(tmp_path, "b.gguf"), prompt="x")
    assert unknown.ok
    assert history.run_profile(unknown.id) == {}


def test_a_servers_answer_says_which_server_and_a_files_does_not(
    history: History, tmp_path: Path
) -> None:
    remote = {"endpoint": "http://10.0.0.5:8000/v1", "model": "qwen2.5-0.5b", "key_env": "K"}
    served = history.record_run(
        make_report(),
        model=None,
        prompt="Hi",
        settings=settings_dict(LoadSettings(), p.SamplingParams(), remote=remote),
    )
    local = history.record_run(make_report(), model=write_tiny(tmp_path / "a.gguf"), prompt="Hi")
    unknown = history.record_run(make_report(), model=None, prompt="Hi")
    assert history.run(served.id).remote == remote
    assert history.run(local.id).remote is None
    assert history.run(unknown.id).remote is None


def test_report_documents_round_trip() -> None:
    report = make_report("答案是：堪培拉。")
    back = report_from_dict(report.text, report_to_dict(report))
    assert back.to_dict() == report.to_dict()


def test_answers_are_found_by_words_and_filtered_by_model(history: History, tmp_path: Path) -> None:
    a = model_file(tmp_path, "alpha-Q4_K_M.gguf")
    b = model_file(tmp_path, "beta-Q8_0.gguf")
    history.record_run(
        make_report("Canberra."), model=a, prompt="Capital of Australia?", label="Alpha"
    )
    history.record_run(make_report("堪培拉"), model=b, prompt="澳大利亚的首都？", label="Beta")
    history.record_run(
        make_report("100% sure"), model=b, prompt="How sure?", label="Beta", source="run"
    )
    assert [r.output for r in history.runs(search="australia")] == ["Canberra."]
    assert [r.output for r in history.runs(search="首都")] == ["堪培拉"]
    assert [r.output for r in history.runs(search="100%")] == ["100% sure"]  # % is literal
    assert history.runs(search="_") == []
    assert {r.output for r in history.runs(model="beta")} == {"堪培拉", "100% sure"}
    assert [r.output for r in history.runs(model="Q4_K_M")] == ["Canberra."]  # by path
    assert [r.output for r in history.runs(source="run")] == ["100% sure"]
    newest = history.runs()[0]
    assert newest.output == "100% sure"
    assert history.delete_run(newest.id)
    assert not history.delete_run(newest.id)
    with pytest.raises(HistoryNotFound):
        history.run(newest.id)


# -- model files -------------------------------------------------------------------------------


def test_a_small_model_file_is_hashed_once(history: History, tmp_path: Path) -> None:
    path = model_file(tmp_path)
    ref = history.model_ref(path, label="Tiny")
    assert ref.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert ref.size_bytes == 4096
    assert history.model_ref(path).id == ref.id  # same size and mtime: the same record
    os.utime(path, ns=(1, 1))
    changed = history.model_ref(path)
    assert changed.id != ref.id  # a changed file is a new record
    assert len(history.models()) == 2


def test_a_large_file_is_hashed_later_and_only_while_unchanged(
    history: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fingerprint, "HASH_NOW_MAX_BYTES", 100)
    big, moved = model_file(tmp_path, "big.gguf"), model_file(tmp_path, "moved.gguf")
    assert history.model_ref(big).sha256 is None
    assert history.model_ref(moved).sha256 is None
    os.utime(moved, ns=(5, 5))  # changed since it ran: its old record is not hashed
    assert history.fill_hashes() == 1
    assert history.model_ref(big).sha256 == hashlib.sha256(big.read_bytes()).hexdigest()
    given = model_file(tmp_path, "given.gguf")
    assert history.model_ref(given, sha256="ab" * 32).sha256 == "ab" * 32


def test_the_library_hash_is_used_instead_of_hashing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_tiny(tmp_path / "models" / "tiny.gguf")
    library_db = tmp_path / "library.db"
    with Library(library_db, models_dir=tmp_path / "models") as library:
        entry = library.import_file(path)
    assert entry.sha256 is not None
    monkeypatch.setattr(fingerprint, "HASH_NOW_MAX_BYTES", 0)  # no hashing of its own
    with History(tmp_path / "h.db", library_db=library_db) as history:
        assert history.model_ref(path).sha256 == entry.sha256


# -- comparisons -------------------------------------------------------------------------------


def _comparison(history: History, tmp_path: Path) -> int:
    file = model_file(tmp_path)
    ref = history.model_ref(file, label="Tiny", quant="Q4_K_M")
    settings = settings_dict(LoadSettings(n_ctx=512), p.SamplingParams(seed=1))
    return history.create_comparison(
        title="Tiny vs itself",
        mode="fair",
        contestants=[
            ContestantRecord("Tiny (temp 0.8)", "tiny", settings, model=ref),
            ContestantRecord("Tiny (temp 0)", "tiny@temp=0", settings, model=ref),
        ],
        prompts=[
            PromptRecord(
                "Capital of Australia?", key="capital", checks=({"contains": "Canberra"},)
            ),
            PromptRecord("天空为什么是蓝色的？", key="sky"),
        ],
        suite="general-en",
        blind_order=(1, 0),
        options={"blind": True},
        profile=load_profile("laptop-16gb-cpu"),
        machine="laptop-16gb-cpu",
    )


def test_a_comparison_is_stored_answer_by_answer(history: History, tmp_path: Path) -> None:
    cid = _comparison(history, tmp_path)
    record = history.comparison(cid)
    assert record.summary.state == "running"
    assert record.missing() == [(0, 0), (0, 1), (1, 0), (1, 1)]
    history.set_contestant_status(cid, 0, "running")
    history.record_answer(
        cid,
        0,
        0,
        output="Canberra.",
        report=make_report(),
        checks_passed=1,
        checks_total=1,
        checks=[{"check": 'contains "Canberra"', "passed": True}],
    )
    history.record_answer(
        cid, 0, 1, output="", error="The prompt does not fit.", error_kind="engine.context_overflow"
    )
    history.set_contestant_status(cid, 0, "done")
    history.set_contestant_status(cid, 1, "failed", reason="killed", error_kind="engine.crashed")
    history.set_comparison_status(cid, "finished")
    record = history.comparison(cid)
    assert record.summary.n_answers == 2
    assert record.summary.state == "partial"  # finished, but answers are missing: resumable
    assert record.missing() == [(1, 0), (1, 1)]
    assert record.blind_order == (1, 0)
    assert record.options == {"blind": True}
    assert record.profile["name"]
    first = record.run_for(0, 0)
    assert first is not None
    assert first.prompt == "Capital of Australia?"
    assert first.checks_passed == 1
    assert first.report is not None
    assert first.report.metrics.tokens_per_s == 101.5
    failed = record.run_for(0, 1)
    assert failed is not None
    assert failed.error_kind == "engine.context_overflow"
    assert failed.report is None
    assert [c.status for c in record.contestants] == ["done", "failed"]
    assert record.contestants[1].reason == "killed"
    assert record.prompts[0].checks == ({"contains": "Canberra"},)
    # The same cell again replaces the answer.
    history.record_answer(cid, 0, 0, output="Sydney.", report=make_report("Sydney."))
    assert history.comparison(cid).run_for(0, 0).output == "Sydney."  # type: ignore[union-attr]
    assert history.comparison(cid).summary.n_answers == 2


def test_a_quality_check_without_result_keeps_its_sentence_in_old_files_too(
    tmp_path: Path,
) -> None:
    # A file written before contestants kept their quality check's failure (two migrations).
    path = tmp_path / "h.db"
    with History(path, migrations=MIGRATIONS[:2]) as old:
        cid = _comparison(old, tmp_path)
    with History(path) as history:  # migrated: the comparison reads as it did
        record = history.comparison(cid)
        assert [k.name for k in record.contestants] == ["Tiny (temp 0.8)", "Tiny (temp 0)"]
        assert [k.quality_status for k in record.contestants] == [None, None]
        history.set_contestant_quality(cid, 1, "failed", "The reference has another vocabulary.")
        history.set_contestant_quality(cid, 0, "skipped", "No logits.")
        history.set_contestant_quality(cid, 0, None, "ignored")  # a result now: forgotten
        with pytest.raises(ValueError, match="unknown quality status"):
            history.set_contestant_quality(cid, 0, "done", "a result is a measurement")
    with History(path) as history:
        first, second = history.comparison(cid).contestants
        assert (first.quality_status, first.quality_reason) == (None, None)
        assert (second.quality_status, second.quality_reason) == (
            "failed",
            "The reference has another vocabulary.",
        )
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    conn.close()


def test_comparisons_are_listed_searched_filtered_and_deleted(
    history: History, tmp_path: Path
) -> None:
    cid = _comparison(history, tmp_path)
    history.record_answer(cid, 1, 1, output="因为瑞利散射。", report=make_report())
    vote = history.record_vote(cid, 0, "win", winner=1, among=(0, 1))
    assert vote.winner == 1
    (summary,) = history.comparisons()
    assert summary.models == ("Tiny (temp 0.8)", "Tiny (temp 0)")
    assert summary.n_expected == 4
    assert summary.to_dict()["state"] == "running"
    assert history.comparisons(search="瑞利") == [summary]  # in an answer
    assert history.comparisons(search="australia") == [summary]  # in a prompt
    assert history.comparisons(search="temp 0") == [summary]  # a contestant's name
    assert history.comparisons(search="nothing like it") == []
    assert history.comparisons(model="tiny") == [summary]
    assert history.comparisons(model="qwen") == []
    assert history.runs(comparison_id=cid)[0].prompt == "天空为什么是蓝色的？"
    assert history.latest_comparison_id() == cid
    assert history.delete_comparison(cid)
    assert history.comparisons() == []
    assert history.runs() == []  # its answers went with it
    with pytest.raises(HistoryNotFound):
        history.comparison(cid)
    assert not history.delete_comparison(cid)
    with pytest.raises(HistoryNotFound):
        history.record_answer(cid, 0, 0, output="x")


def test_bad_statuses_and_outcomes_are_programming_errors(history: History, tmp_path: Path) -> None:
    cid = _comparison(history, tmp_path)
    with pytest.raises(ValueError, match="status"):
        history.set_contestant_status(cid, 0, "exploded")
    with pytest.raises(ValueError, match="status"):
        history.set_comparison_status(cid, "half")
    with pytest.raises(ValueError, match="outcome"):
        history.record_vote(cid, 0, "meh")


def test_one_history_is_shared_by_threads(history: History, tmp_path: Path) -> None:
    cid = _comparison(history, tmp_path)
    errors: list[BaseException] = []

    def write(contestant: int) -> None:
        try:
            for prompt in range(2):
                for _ in range(10):
                    history.record_answer(cid, contestant, prompt, output="x", report=make_report())
                    history.comparisons()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(c,)) for c in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert history.comparison(cid).summary.n_answers == 4


def test_two_connections_see_each_others_commits(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    with History(path) as writer, History(path) as reader:
        cid = _comparison(writer, tmp_path)
        writer.record_answer(cid, 0, 0, output="Canberra.", report=make_report())
        assert reader.comparison(cid).summary.n_answers == 1
