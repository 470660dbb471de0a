"""The SQLite opener on real files: migrations by user_version, damage at opening and at any
query (moved aside, kept byte for byte, rows recovered, told once, logged), other processes
holding the file or its lock, and what each SQLite error means.

The schema here is a small one of the tests' own; tests/core/storage/test_stores.py runs the
same situations through the history and the library."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.errors import ScoutError
from desktop.core.storage import Schema, Store, StoreNotice, add_notice_listener, keep_every_row
from desktop.core.storage.schema import migrate
from desktop.core.storage.store import classify
from tests.fixtures.damage import (
    checkpoint,
    flip_page,
    root_page,
    sqlite_sees_damage,
    write_text_bytes,
)


class ThingError(ScoutError):
    kind = "things"


V1 = """
CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE child (
    id INTEGER PRIMARY KEY,
    parent_id INTEGER NOT NULL REFERENCES parent(id) ON DELETE CASCADE,
    other_id INTEGER REFERENCES parent(id),
    note TEXT
);
"""
V2 = "ALTER TABLE parent ADD COLUMN size INTEGER NOT NULL DEFAULT 0;"
SCHEMA = Schema("things", (V1, V2), ThingError, salvage=keep_every_row, foreign_keys=True)
EMPTY_AFTER_DAMAGE = Schema("things", (V1, V2), ThingError, foreign_keys=True)


@pytest.fixture
def notices() -> Iterator[list[StoreNotice]]:
    heard: list[StoreNotice] = []
    stop = add_notice_listener(heard.append)
    yield heard
    stop()


def fill(store: Store, parents: int, children_per_parent: int = 0) -> None:
    def work(conn: sqlite3.Connection) -> None:
        for i in range(1, parents + 1):
            conn.execute("INSERT INTO parent (id, name) VALUES (?, ?)", (i, f"parent {i} " * 20))
            for j in range(children_per_parent):
                conn.execute(
                    "INSERT INTO child (parent_id, other_id, note) VALUES (?, ?, ?)",
                    (i, i, f"child {j} of {i}"),
                )

    store.write(work)


def count(store: Store, table: str) -> int:
    return int(store.read(f"SELECT COUNT(*) FROM {table}")[0][0])


# -- opening and migrations ---------------------------------------------------------------------


def test_a_new_file_is_wal_and_has_every_script(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db", SCHEMA) as store:
        assert store.read("PRAGMA journal_mode")[0][0] == "wal"
        assert store.read("PRAGMA user_version")[0][0] == 2
        assert store.read("PRAGMA foreign_keys")[0][0] == 1
        fill(store, 1)
        assert store.read("SELECT size FROM parent")[0][0] == 0


def test_an_older_file_gets_the_missing_scripts_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Store(path, Schema("things", (V1,), ThingError)) as old:
        old.execute("INSERT INTO parent (id, name) VALUES (1, 'kept')")
    with Store(path, SCHEMA) as store:
        assert [tuple(r) for r in store.read("SELECT name, size FROM parent")] == [("kept", 0)]
        assert store.read("PRAGMA user_version")[0][0] == 2


def test_a_file_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    Store(path, Schema("things", (V1, V2, "CREATE TABLE later (x);"), ThingError)).close()
    checkpoint(path)
    before = path.read_bytes()
    with pytest.raises(ThingError, match="newer LLM Scout") as caught:
        Store(path, SCHEMA)
    assert caught.value.kind == "things.newer"
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("t.db.broken-*"))


def test_a_script_that_fails_leaves_the_file_at_its_last_version(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    Store(path, Schema("things", (V1,), ThingError)).close()
    broken = Schema("things", (V1, "ALTER TABLE nowhere ADD COLUMN x;"), ThingError)
    with pytest.raises(ThingError, match="cannot be opened: no such table"):
        Store(path, broken)  # a bug in a script is not damage: nothing is moved
    with Store(path, Schema("things", (V1,), ThingError)) as store:
        assert store.read("PRAGMA user_version")[0][0] == 1
    assert not list(tmp_path.glob("t.db.broken-*"))


def test_a_second_migrator_waiting_for_the_lock_finds_the_work_done(tmp_path: Path) -> None:
    """Two processes creating one new file: the second read user_version before the first
    committed. It must read it again once it holds the lock ("table already exists")."""
    path = tmp_path / "t.db"
    first = sqlite3.connect(path, isolation_level=None, timeout=60)
    first.execute("PRAGMA journal_mode=WAL")
    first.execute("BEGIN IMMEDIATE")
    for statement in (V1.split(";", maxsplit=1)[0], V1.split(";")[1]):
        first.execute(statement)
    first.execute("PRAGMA user_version = 1")
    second = sqlite3.connect(path, isolation_level=None, timeout=60, check_same_thread=False)
    result: list[object] = []

    def migrate_second() -> None:
        try:
            result.append(migrate(second, SCHEMA))
        except Exception as exc:
            result.append(exc)

    thread = threading.Thread(target=migrate_second)
    thread.start()
    time.sleep(0.5)  # let it read version 0 and wait for the lock (it must pass either way)
    first.execute("COMMIT")
    thread.join()
    first.close()
    second.close()
    assert result == [2]


# -- damage -------------------------------------------------------------------------------------


def test_damage_found_at_opening_sets_the_file_aside_kept_and_recovers_the_rest(
    tmp_path: Path, notices: list[StoreNotice], caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "t.db"
    with Store(path, SCHEMA) as store:
        fill(store, 300, 2)
    flip_page(path, root_page(path, "child"))  # the children's table: nothing of it readable
    damaged = path.read_bytes()
    with caplog.at_level(logging.WARNING), Store(path, SCHEMA) as store:
        assert count(store, "parent") == 300
        assert count(store, "child") == 0
        fill_more = store.write(lambda c: c.execute("INSERT INTO parent (name) VALUES ('new')"))
        assert fill_more.lastrowid == 301
    kept = list(tmp_path.glob("t.db.broken-*"))
    assert [k.name for k in kept] == [notices[0].kept.name]
    assert kept[0].read_bytes() == damaged  # kept exactly as it was found
    assert len(notices) == 1
    notice = notices[0]
    assert (notice.store, notice.path, notice.recovered) == ("things", path, 300)
    assert str(notice.kept) in notice.sentence()
    assert "300 row(s)" in notice.sentence()
    logged = [r for r in caplog.records if r.levelno == logging.WARNING and r.exc_info]
    assert len(logged) == 1
    assert str(kept[0]) in logged[0].getMessage()
    assert not sqlite_sees_damage(path)


def test_a_file_that_is_not_a_database_is_set_aside_and_a_new_one_started(
    tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = tmp_path / "t.db"
    path.write_bytes(b"not an SQLite database, only bytes " * 200)
    with Store(path, SCHEMA) as store:
        assert count(store, "parent") == 0
    kept = notices[0].kept
    assert kept.read_bytes() == b"not an SQLite database, only bytes " * 200
    assert notices[0].recovered == 0


def test_damage_found_by_a_later_query_sets_it_aside_there_and_runs_the_query_again(
    tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = tmp_path / "t.db"
    store = Store(path, SCHEMA)
    fill(store, 3)
    write_text_bytes(path, "UPDATE parent SET name = ? WHERE id = 2", b"caf\xe9 \xff")
    rows = store.read("SELECT id, name FROM parent ORDER BY id")  # no error reaches the caller
    assert [r["id"] for r in rows] == [1, 2, 3]
    assert rows[1]["name"] == "caf\ufffd \ufffd"  # recovered, mended
    assert len(notices) == 1
    assert "Could not decode" in notices[0].reason
    store.read("SELECT * FROM parent")
    store.close()
    assert len(notices) == 1  # told once


def test_a_damaged_page_loses_its_rows_only_and_orphans_are_resolved(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Store(path, SCHEMA) as store:
        fill(store, 400, 1)
    conn = sqlite3.connect(path)
    pages = [p for (p,) in conn.execute("SELECT DISTINCT pageno FROM dbstat WHERE name='parent'")]
    leaves = [
        p
        for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'parent' AND pagetype = 'leaf'"
        )
    ]
    on_page = conn.execute(
        "SELECT COUNT(*) FROM dbstat WHERE name = 'parent' AND pageno = ?", (leaves[1],)
    ).fetchone()
    conn.close()
    assert len(pages) > 3
    assert on_page is not None
    flip_page(path, leaves[1])
    with Store(path, SCHEMA) as store:
        parents = count(store, "parent")
        assert 0 < parents < 400
        lost = {r[0] for r in store.read("SELECT id FROM parent")} ^ set(range(1, 401))
        children = store.read("SELECT parent_id, other_id FROM child")
        assert {r["parent_id"] for r in children}.isdisjoint(lost)  # cascading: dropped
        assert len(children) == parents
        assert store.read("PRAGMA foreign_key_check") == []


def test_a_store_that_starts_empty_after_damage_recovers_nothing(
    tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = tmp_path / "t.db"
    with Store(path, EMPTY_AFTER_DAMAGE) as store:
        fill(store, 50)
    flip_page(path, root_page(path, "child"))
    with Store(path, EMPTY_AFTER_DAMAGE) as store:
        assert count(store, "parent") == 0
    assert notices[0].recovered == 0


def test_a_damaged_file_another_process_has_open_is_left_alone_with_a_sentence(
    tmp_path: Path, notices: list[StoreNotice]
) -> None:
    from tests.fixtures.store_procs import start, wait_for

    path = tmp_path / "t.db"
    with Store(path, SCHEMA) as store:
        fill(store, 300, 2)
    sync = tmp_path / "sync"
    sync.mkdir()
    checkpoint(path)
    holder = start("hold", "raw", path, sync)
    try:
        wait_for(sync / "ready-0")
        flip_page(path, root_page(path, "child"))
        damaged = path.read_bytes()
        with pytest.raises(ThingError, match="another LLM Scout process still has it open"):
            Store(path, SCHEMA)
        assert path.read_bytes() == damaged
        assert notices == []
    finally:
        (sync / "release").touch()
        holder.communicate(timeout=60)
    with Store(path, SCHEMA) as store:  # once it is closed there, it is set aside
        assert count(store, "parent") == 300
    assert len(notices) == 1


def test_a_file_replaced_meanwhile_by_another_process_is_not_moved_again(
    tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = tmp_path / "t.db"
    store = Store(path, SCHEMA)
    fill(store, 2)
    # Another process sets the file aside and starts a new one while this one has it open.
    old = tmp_path / "elsewhere.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{path}{suffix}").exists():
            Path(f"{path}{suffix}").rename(Path(f"{old}{suffix}"))
    with Store(tmp_path / "other.db", SCHEMA) as fresh:
        fresh.execute("INSERT INTO parent (id, name) VALUES (7, 'in the new file')")
    (tmp_path / "other.db").rename(path)
    write_text_bytes(old, "UPDATE parent SET name = ? WHERE id = 1", b"\xff")
    rows = store.read("SELECT id, name FROM parent")
    store.close()
    assert [tuple(r) for r in rows] == [(7, "in the new file")]
    assert notices == []  # nothing was set aside here
    assert not list(tmp_path.glob("t.db.broken-*"))


# -- locks --------------------------------------------------------------------------------------


def test_a_write_waits_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    from tests.fixtures.store_procs import start, wait_for

    path = tmp_path / "t.db"
    Store(path, SCHEMA).close()
    sync = tmp_path / "sync"
    sync.mkdir()
    holder = start("lock", "raw", path, sync)
    try:
        wait_for(sync / "ready-0")
        threading.Timer(0.5, (sync / "release").touch).start()
        with Store(path, SCHEMA) as store:
            fill(store, 1)
            assert count(store, "parent") == 1
    finally:
        (sync / "release").touch()
        holder.communicate(timeout=60)


def test_a_lock_held_past_the_wait_is_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.core.storage import store as store_module
    from tests.fixtures.store_procs import start, wait_for

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(store_module, "BUSY_WAIT_S", 0.2)
    path = tmp_path / "t.db"
    Store(path, SCHEMA).close()
    sync = tmp_path / "sync"
    sync.mkdir()
    holder = start("lock", "raw", path, sync)
    try:
        wait_for(sync / "ready-0")
        with Store(path, SCHEMA) as store, pytest.raises(ThingError, match="busy") as caught:
            fill(store, 1)
        assert caught.value.kind == "things.busy"
    finally:
        (sync / "release").touch()
        holder.communicate(timeout=60)
    assert not list(tmp_path.glob("t.db.broken-*"))


def test_handles_of_one_file_share_one_connection_and_a_write_is_all_or_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    first, second = Store(path, SCHEMA), Store(path, SCHEMA)

    def half(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO parent (id, name) VALUES (1, 'a')")
        second.execute("INSERT INTO parent (id, name) VALUES (2, 'b')")  # joins the transaction
        raise ValueError("stop")

    with pytest.raises(ValueError, match="stop"):
        first.write(half)
    assert count(second, "parent") == 0
    fill(first, 2)
    assert count(second, "parent") == 2
    first.close()
    assert count(second, "parent") == 2
    second.close()


# -- what an error means ------------------------------------------------------------------------


def test_real_sqlite_errors_are_told_apart(tmp_path: Path) -> None:
    def error_of(action: object) -> BaseException:
        try:
            action()  # type: ignore[operator]
        except (sqlite3.Error, OSError) as exc:
            return exc
        raise AssertionError("no error")

    path = tmp_path / "t.db"
    with Store(path, SCHEMA) as store:
        fill(store, 300)
    readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert classify(error_of(lambda: readonly.execute("DELETE FROM parent"))) == "machine"
    readonly.close()
    folder = tmp_path / "a folder"
    folder.mkdir()
    assert classify(error_of(lambda: sqlite3.connect(folder).execute("SELECT 1"))) == "machine"
    assert classify(error_of(lambda: sqlite3.connect(path).execute("SELEC 1"))) == "other"
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    assert classify(error_of(lambda: other.execute("BEGIN IMMEDIATE"))) == "busy"
    locker.execute("ROLLBACK")
    locker.close()
    other.close()
    flip_page(path, root_page(path, "parent"))
    broken = sqlite3.connect(path)
    assert classify(error_of(lambda: broken.execute("SELECT * FROM parent").fetchall())) == "damage"
    broken.close()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"x" * 4096)
    notadb = sqlite3.connect(garbage)
    assert classify(error_of(lambda: notadb.execute("PRAGMA journal_mode=WAL"))) == "damage"
    notadb.close()


def test_a_folder_where_the_file_should_be_is_a_sentence_and_nothing_moves(
    tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = tmp_path / "t.db"
    path.mkdir()
    with pytest.raises(ThingError, match="cannot be used") as caught:
        Store(path, SCHEMA)
    assert caught.value.kind == "things"
    assert path.is_dir()
    assert notices == []
