"""The same tests for both stores, through their own classes: the history and the library.

Each store's file is damaged for real (four bytes flipped in its middle after a checkpoint, as
issue 22 found; text that is not UTF-8, read by a later query), made by a newer version, and
created by many processes at once. The history comes back with what could be read; the library
comes back with its imported files and is rebuilt by the next scan."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import LibraryError, ScoutError
from desktop.core.history import MIGRATIONS, History, HistoryError
from desktop.core.library import MIGRATIONS as LIBRARY_MIGRATIONS
from desktop.core.library import Library, ScanRoot
from desktop.core.storage import StoreNotice, add_notice_listener
from tests.core.history.test_store import make_report
from tests.fixtures.damage import flip_middle, write_text_bytes
from tests.fixtures.library_files import write_tiny
from tests.fixtures.store_procs import start, wait_for


@dataclass(frozen=True)
class Kind:
    name: str
    error: type[ScoutError]
    open: Callable[[Path], Any]
    fill: Callable[[Any, Path], None]  # puts rows in a store opened on ``path``
    listed: Callable[[Any], int]  # what a person would see counted
    poison: str  # an UPDATE of one text value (its ``?``: the bytes)


def _fill_history(history: History, folder: Path) -> None:
    for i in range(60):
        model = folder / f"m{i % 3}.gguf"
        if not model.exists():
            model.write_bytes(os.urandom(2048))
        history.record_run(make_report(f"answer {i} " * 30), model=model, prompt=f"prompt {i}")


def _fill_library(library: Library, folder: Path) -> None:
    for i in range(25):
        write_tiny(folder / "scanned" / f"s{i}.gguf", name=f"Scanned {i}")
    library.scan([ScanRoot("folder", folder / "scanned")])
    for i in range(5):
        library.import_file(write_tiny(folder / "mine" / f"i{i}.gguf", name=f"Imported {i}"))


KINDS = {
    "history": Kind(
        "history",
        HistoryError,
        History,
        _fill_history,
        lambda h: len(h.runs(limit=1000)),
        "UPDATE runs SET output = ? WHERE id = 7",
    ),
    "library": Kind(
        "library",
        LibraryError,
        Library,
        _fill_library,
        lambda lib: len(lib.entries()),
        "UPDATE files SET display_name = ? WHERE path LIKE '%s3.gguf'",
    ),
}


@pytest.fixture(params=list(KINDS))
def kind(request: pytest.FixtureRequest) -> Kind:
    return KINDS[request.param]


@pytest.fixture
def notices() -> Iterator[list[StoreNotice]]:
    heard: list[StoreNotice] = []
    stop = add_notice_listener(heard.append)
    yield heard
    stop()


def made(kind: Kind, tmp_path: Path) -> Path:
    path = tmp_path / f"{kind.name}.db"
    store = kind.open(path)
    kind.fill(store, tmp_path)
    store.close()
    return path


def test_four_bytes_flipped_in_the_middle_set_the_file_aside_and_the_store_goes_on(
    kind: Kind, tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = made(kind, tmp_path)
    flip_middle(path)
    damaged = path.read_bytes()
    store = kind.open(path)
    try:
        before = kind.listed(store)
        kind.fill(store, tmp_path)  # it is usable: new rows go into the new file
        assert kind.listed(store) > before
    finally:
        store.close()
    assert len(notices) == 1
    notice = notices[0]
    assert (notice.store, notice.path) == (kind.name, path)
    assert notice.kept.read_bytes() == damaged
    assert notice.rebuilt is (kind.name == "library")
    reopened = kind.open(path)
    reopened.close()
    assert len(notices) == 1  # told once


def test_text_that_is_not_utf8_is_found_by_a_later_query(
    kind: Kind, tmp_path: Path, notices: list[StoreNotice]
) -> None:
    path = made(kind, tmp_path)
    store = kind.open(path)  # open (and checked) before the damage
    try:
        write_text_bytes(path, kind.poison, b"\xff\xfe broken")
        listed = kind.listed(store)
    finally:
        store.close()
    assert len(notices) == 1
    assert "Could not decode" in notices[0].reason
    if kind.name == "history":
        assert listed == 60  # every row was readable: all recovered (the bad text mended)
    else:
        assert listed == 5  # the imported files; a scan finds the others again


def test_what_comes_back_after_damage(kind: Kind, tmp_path: Path) -> None:
    path = made(kind, tmp_path)
    write_text_bytes(path, kind.poison, b"\xff")
    store = kind.open(path)
    try:
        if kind.name == "history":
            outputs = [r.output for r in store.runs(limit=1000)]
            assert len(outputs) == 60
            assert sum("\ufffd" in o for o in outputs) == 1
        else:
            imported = sorted(e.path.name for e in store.entries())
            assert imported == [f"i{i}.gguf" for i in range(5)]
            assert all(e.source == "imported" for e in store.entries())
            store.scan([ScanRoot("folder", tmp_path / "scanned")])  # the rescan rebuilds it
            assert kind.listed(store) == 30
    finally:
        store.close()


def test_a_file_from_a_newer_version_is_refused_untouched(kind: Kind, tmp_path: Path) -> None:
    path = made(kind, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 9")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(kind.error, match="newer LLM Scout") as caught:
        kind.open(path)
    assert caught.value.kind == f"{kind.name}.newer"
    assert path.read_bytes() == before


def test_many_processes_creating_a_new_file_at_once_all_succeed(kind: Kind, tmp_path: Path) -> None:
    """Issue 22: two processes creating a fresh history at once -> "table models already
    exists". Eight real processes, released together once each has imported the store."""
    outcomes: list[str] = []
    for attempt in range(1):
        sync = tmp_path / f"sync{attempt}"
        sync.mkdir()
        path = tmp_path / f"{attempt}" / f"{kind.name}.db"
        procs = [start("open", kind.name, path, sync, n) for n in range(8)]
        for n in range(8):
            wait_for(sync / f"ready-{n}")
        (sync / "go").touch()
        for proc in procs:
            out, err = proc.communicate(timeout=300)
            outcomes.append(out.strip() or err.strip()[-300:])
        conn = sqlite3.connect(path)
        migrations = len(MIGRATIONS if kind.name == "history" else LIBRARY_MIGRATIONS)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations
        conn.close()
    assert outcomes == ["ok"] * 8
    assert not list(tmp_path.glob("*/*.broken-*"))
