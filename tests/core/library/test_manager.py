"""The library with the real GGUF reader on real files: scan, re-scan, persistence, missing files.

Model files are hard links to the two demo models (never written to: tests that change a file
replace the link) and tiny GGUF files written with ``gguf.GGUFWriter``; broken files are a
non-GGUF file and a truncated GGUF.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core import paths
from desktop.core.errors import LibraryError, ScoutError
from desktop.core.gguf import GGUFInfo, read_gguf, read_gguf_split
from desktop.core.library import MIGRATIONS, Library, ScanRoot
from tests.fixtures.library_files import link, ollama_manifest, write_tiny
from tests.fixtures.tiny_models import write_broken_files


class CountingReader:
    """The real reader, counting which models it opened."""

    def __init__(self) -> None:
        self.paths: list[Path] = []

    def __call__(self, path: Path) -> GGUFInfo:
        self.paths.append(path)
        return read_gguf_split(path)


@pytest.fixture(scope="session")
def smollm2_sha(smollm2_path: Path) -> str:
    return hashlib.sha256(smollm2_path.read_bytes()).hexdigest()


def open_library(tmp_path: Path, reader: Callable[[Path], GGUFInfo] | None = None) -> Library:
    return Library(tmp_path / "library.db", reader=reader, models_dir=tmp_path / "models")


def test_scan_reads_every_source_and_lists_broken_files(
    tmp_path: Path, smollm2_path: Path, gemma3_path: Path, smollm2_sha: str
) -> None:
    models = tmp_path / "models"
    link(smollm2_path, models / "bartowski/SmolLM2-GGUF/smol.gguf")
    hf = tmp_path / "hf"
    snapshot = hf / "models--owner--SmolLM2-GGUF" / "snapshots" / ("a" * 40)
    link(smollm2_path, hf / "models--owner--SmolLM2-GGUF" / "blobs" / smollm2_sha)
    snapshot.mkdir(parents=True)
    (snapshot / "SmolLM2.Q4_1.gguf").symlink_to(f"../../blobs/{smollm2_sha}")
    ollama = tmp_path / "ollama"
    link(smollm2_path, ollama / "blobs" / f"sha256-{smollm2_sha}")
    ollama_manifest(ollama, "smollm2", "135m", smollm2_sha)
    lmstudio = tmp_path / "lmstudio"
    link(gemma3_path, lmstudio / "lmstudio-community/gemma-3-270m-GGUF/gemma-3-270m-Q4_K_M.gguf")
    gpt4all = tmp_path / "gpt4all"
    write_tiny(gpt4all / "qwen-tiny.gguf", arch="qwen2", name="Qwen Tiny", chat_template="{{x}}")
    folder = tmp_path / "mine"
    (folder / "notes.gguf").parent.mkdir(parents=True)
    (folder / "notes.gguf").write_text("not a model at all")
    tiny = write_tiny(tmp_path / "src" / "whole.gguf")
    (folder / "cut.gguf").write_bytes(tiny.read_bytes()[:300])
    write_tiny(folder / "split" / "tiny.gguf", split_max_tensors=2)
    roots = [
        ScanRoot("downloaded", models),
        ScanRoot("hf-cache", hf),
        ScanRoot("ollama", ollama),
        ScanRoot("lmstudio", lmstudio),
        ScanRoot("gpt4all", gpt4all),
        ScanRoot("folder", folder),
        ScanRoot("folder", tmp_path / "does-not-exist"),
    ]

    with open_library(tmp_path) as library:
        report = library.scan(roots)
        entries = {e.source: e for e in library.entries()}
        problems = {p.path.name: p for p in library.problems()}

    assert report.headers_read == 8
    assert len(report.added) == 6
    assert [r.exists for r in report.roots] == [True] * 6 + [False]
    assert sorted(entries) == ["downloaded", "folder", "gpt4all", "hf-cache", "lmstudio", "ollama"]
    smol = entries["downloaded"]
    assert smol.repo_id == "bartowski/SmolLM2-GGUF"
    assert (smol.architecture, smol.quant, smol.n_ctx_train) == ("llama", "Q4_1", 8192)
    assert smol.n_params == read_gguf(smollm2_path).arch.n_params
    assert smol.has_chat_template
    assert smol.sha256 is None  # a scan never hashes a file it can identify otherwise
    hf_entry = entries["hf-cache"]
    assert hf_entry.repo_id == "owner/SmolLM2-GGUF"
    assert hf_entry.sha256 == smollm2_sha  # the blob's name
    ollama_entry = entries["ollama"]
    assert ollama_entry.display_name == "smollm2:135m"
    assert ollama_entry.sha256 == smollm2_sha
    gemma = entries["lmstudio"]
    assert (gemma.architecture, gemma.family, gemma.quant) == ("gemma3", "gemma", "Q4_K_M")
    assert not gemma.has_chat_template
    qwen = entries["gpt4all"]
    assert (qwen.family, qwen.display_name, qwen.has_chat_template) == (
        "qwen",
        "Qwen Tiny Q4_K_M",
        True,
    )
    split = entries["folder"]
    assert [p.name for p in split.parts] == ["tiny-00001-of-00002.gguf", "tiny-00002-of-00002.gguf"]
    whole = read_gguf(tiny)
    assert split.n_params == whole.arch.n_params  # every part's tensors counted
    assert split.tensor_bytes == whole.tensor_bytes
    assert split.size_bytes == sum(p.stat().st_size for p in split.parts)
    assert sorted(problems) == ["cut.gguf", "notes.gguf"]
    assert "not a GGUF file" in problems["notes.gguf"].message
    assert problems["notes.gguf"].kind.startswith("gguf")
    assert "cut short" in problems["cut.gguf"].message
    assert {p.path.name for p in report.problems} == {"cut.gguf", "notes.gguf"}


def test_every_kind_of_broken_file_is_a_problem_never_a_crash(tmp_path: Path) -> None:
    broken = write_broken_files(tmp_path / "broken")
    write_tiny(tmp_path / "broken" / "fine.gguf")
    with open_library(tmp_path) as library:
        report = library.scan([ScanRoot("folder", tmp_path / "broken")])
        entries = library.entries()
        for path in broken.values():
            with pytest.raises(ScoutError):
                library.import_file(path)
    assert [e.path.name for e in entries] == ["fine.gguf"]
    assert sorted(p.path for p in report.problems) == sorted(broken.values())
    assert all(p.message and p.kind.startswith("gguf") for p in report.problems)


def test_split_model_whose_parts_do_not_fit_together_is_a_problem(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write_tiny(folder / "tiny.gguf", split_max_tensors=2)  # 2 parts
    write_tiny(tmp_path / "other" / "tiny.gguf", split_max_tensors=1)  # 3 parts
    part_2 = folder / "tiny-00002-of-00002.gguf"
    part_2.write_bytes((tmp_path / "other" / "tiny-00002-of-00003.gguf").read_bytes())
    reader = CountingReader()
    with open_library(tmp_path, reader) as library:
        report = library.scan([ScanRoot("folder", folder)])
        problems = library.problems()

    assert reader.paths == [folder / "tiny-00001-of-00002.gguf"]  # one read for the model
    assert report.headers_read == 1
    assert report.added == ()
    (problem,) = problems
    assert problem.path == folder / "tiny-00001-of-00002.gguf"
    assert problem.kind == "gguf.split"
    assert "tiny-00002-of-00002.gguf should be part 2 of 2" in problem.message
    assert "says part 2 of 3" in problem.message


def test_rescan_skips_unchanged_files_and_rereads_changed_ones(
    tmp_path: Path, smollm2_path: Path, gemma3_path: Path
) -> None:
    folder = tmp_path / "f"
    link(smollm2_path, folder / "a.gguf")
    link(gemma3_path, folder / "b.gguf")
    write_tiny(folder / "c.gguf")
    (folder / "broken.gguf").write_bytes(b"GGUF\x03\x00")
    reader = CountingReader()
    roots = [ScanRoot("folder", folder)]

    with open_library(tmp_path, reader) as library:
        first = library.scan(roots)
        assert len(reader.paths) == 4
        second = library.scan(roots)
        assert len(reader.paths) == 4  # nothing opened again
        assert (second.headers_read, second.unchanged, second.added) == (0, 4, ())
        assert len(second.problems) == 1  # the broken file is still reported

        os.unlink(folder / "b.gguf")  # replace a file by another one (new size and mtime)
        link(smollm2_path, folder / "b.gguf")
        third = library.scan(roots)
        entry_b = library.entry(folder / "b.gguf")

    assert first.headers_read == 4
    assert reader.paths[4:] == [folder / "b.gguf"]
    assert third.updated == (folder / "b.gguf",)
    assert third.unchanged == 3
    assert entry_b is not None
    assert entry_b.architecture == "llama"


def test_library_persists_across_restarts(tmp_path: Path, smollm2_path: Path) -> None:
    folder = tmp_path / "f"
    link(smollm2_path, folder / "a.gguf")
    (folder / "junk.gguf").write_bytes(b"junk")
    with open_library(tmp_path) as library:
        library.scan([ScanRoot("folder", folder)])
        before = library.entries()
        problems_before = library.problems()

    reader = CountingReader()
    with open_library(tmp_path, reader) as library:
        assert library.entries() == before
        assert library.problems() == problems_before
        report = library.scan([ScanRoot("folder", folder)])
        after = library.entries()

    assert len(before) == 1
    assert reader.paths == []  # the restarted library knew both files
    assert report.unchanged == 2
    assert after[0].first_seen == before[0].first_seen
    assert after[0].last_seen >= before[0].last_seen


def test_a_vanished_file_is_marked_missing_and_can_come_back(
    tmp_path: Path, smollm2_path: Path
) -> None:
    folder = tmp_path / "f"
    path = link(smollm2_path, folder / "a.gguf")
    link(smollm2_path, folder / "b.gguf")
    (folder / "junk.gguf").write_bytes(b"junk")
    roots = [ScanRoot("folder", folder)]
    with open_library(tmp_path) as library:
        library.scan(roots)
        path.unlink()
        (folder / "junk.gguf").unlink()

        gone = library.scan(roots)
        listed = {e.path.name: e.missing for e in library.entries()}
        present = [e.path.name for e in library.entries(include_missing=False)]
        problems_after = library.problems()
        again = library.scan(roots)  # still gone: still reported

        link(smollm2_path, path)
        back = library.scan(roots)
        final = library.entry(path)

    assert [e.path for e in gone.missing] == [path]
    assert gone.missing[0].missing
    assert listed == {"a.gguf": True, "b.gguf": False}  # kept, flagged, not deleted
    assert present == ["b.gguf"]
    assert problems_after == []  # a vanished broken file is simply dropped
    assert [e.path for e in again.missing] == [path]
    assert back.reappeared == (path,)
    assert back.missing == ()
    assert final is not None
    assert not final.missing


def test_a_scan_of_one_folder_keeps_entries_of_other_folders(
    tmp_path: Path, smollm2_path: Path
) -> None:
    link(smollm2_path, tmp_path / "one" / "a.gguf")
    link(smollm2_path, tmp_path / "two" / "b.gguf")
    with open_library(tmp_path) as library:
        library.scan([ScanRoot("folder", tmp_path / "one")])
        report = library.scan([ScanRoot("folder", tmp_path / "two")])
        names = sorted((e.path.name, e.missing) for e in library.entries())
    assert report.missing == ()
    assert names == [("a.gguf", False), ("b.gguf", False)]


def test_one_file_reached_through_two_folders_is_one_entry(
    tmp_path: Path, smollm2_path: Path
) -> None:
    models = tmp_path / "models"
    target = link(smollm2_path, models / "o" / "r" / "smol.gguf")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "alias.gguf").symlink_to(target)
    with open_library(tmp_path) as library:
        report = library.scan(
            [ScanRoot("downloaded", models), ScanRoot("folder", tmp_path / "mine")]
        )
        entries = library.entries()
    assert report.found == 1
    assert [(e.path, e.source) for e in entries] == [(target, "downloaded")]


def test_ensure_sha256_hashes_once_and_caches(tmp_path: Path, smollm2_path: Path) -> None:
    folder = tmp_path / "f"
    path = link(smollm2_path, folder / "a.gguf")
    with open_library(tmp_path) as library:
        library.scan([ScanRoot("folder", folder)])
        entry = library.ensure_sha256(path)
        reopened = Library(library.db_path).entry(path)
        with pytest.raises(LibraryError, match="not in the library"):
            library.ensure_sha256(tmp_path / "other.gguf")
    assert entry.sha256 == hashlib.sha256(smollm2_path.read_bytes()).hexdigest()
    assert reopened is not None
    assert reopened.sha256 == entry.sha256


def test_a_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "library.db"
    Library(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(LibraryError, match="newer LLM Scout"):
        Library(db)


def test_a_damaged_database_is_moved_aside_and_rebuilt(tmp_path: Path, smollm2_path: Path) -> None:
    db = tmp_path / "library.db"
    db.write_bytes(b"this is not an SQLite database, just bytes" * 100)
    link(smollm2_path, tmp_path / "f" / "a.gguf")
    with Library(db) as library:
        report = library.scan([ScanRoot("folder", tmp_path / "f")])
    assert len(report.added) == 1
    aside = [p.name for p in tmp_path.iterdir() if p.name.startswith("library.db.broken-")]
    assert len(aside) == 1
    mode = sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_default_database_lives_in_the_data_dir(scout_home: Path) -> None:
    with Library(paths.library_db_path(ensure=True)) as library:
        assert library.db_path == scout_home / "data" / "library.db"
        assert library.entries() == []
    assert (scout_home / "data" / "library.db").is_file()


def test_first_opens_of_a_new_database_at_once_all_work(tmp_path: Path) -> None:
    import threading

    errors: list[BaseException] = []
    for attempt in range(10):
        db = tmp_path / str(attempt) / "library.db"
        start = threading.Barrier(8)

        def open_it(db: Path = db, start: threading.Barrier = start) -> None:
            try:
                start.wait()
                with Library(db) as library:
                    library.entries()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []


# What the library's files looked like before user_version: a schema_version table.
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, real_path TEXT NOT NULL, parts TEXT NOT NULL, source TEXT NOT NULL,
    size_bytes INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, sha256 TEXT, repo_id TEXT,
    layout_name TEXT, display_name TEXT NOT NULL, general_name TEXT, architecture TEXT,
    family TEXT, n_params INTEGER, quant TEXT, file_type INTEGER, n_ctx_train INTEGER,
    has_chat_template INTEGER, tensor_bytes INTEGER, model_id TEXT, variant_id TEXT,
    match_method TEXT, problem TEXT, problem_kind TEXT, first_seen REAL NOT NULL,
    last_seen REAL NOT NULL, missing INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS files_real_path ON files(real_path);
"""


def write_old_library(db: Path, version: int, model: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(OLD_SCHEMA)
    conn.execute("INSERT INTO schema_version VALUES (?)", (version,))
    conn.execute(
        "INSERT INTO files (path, real_path, parts, source, size_bytes, mtime_ns, display_name, "
        "architecture, family, n_params, n_ctx_train, has_chat_template, tensor_bytes, "
        "first_seen, last_seen) VALUES (?, ?, ?, 'imported', ?, ?, 'Old Entry', 'llama', "
        "'smollm', 135000000, 8192, 1, 1000, 1.0, 2.0)",
        (str(model), str(model), f'["{model}"]', model.stat().st_size, model.stat().st_mtime_ns),
    )
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def test_a_library_from_before_user_version_is_adopted_with_its_rows(
    tmp_path: Path, smollm2_path: Path
) -> None:
    db = tmp_path / "library.db"
    write_old_library(db, 1, smollm2_path)
    with Library(db) as library:
        assert [(e.display_name, e.path) for e in library.entries()] == [
            ("Old Entry", smollm2_path)
        ]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert names == {"files"}
    assert not list(tmp_path.glob("library.db.broken-*"))


def test_a_library_from_a_newer_version_before_user_version_is_refused_untouched(
    tmp_path: Path, smollm2_path: Path
) -> None:
    db = tmp_path / "library.db"
    write_old_library(db, 2, smollm2_path)
    before = db.read_bytes()
    with pytest.raises(LibraryError, match="newer LLM Scout") as caught:
        Library(db)
    assert caught.value.kind == "library.newer"
    assert db.read_bytes() == before
