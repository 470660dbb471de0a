"""What the window needs from the library: progress, cancel, and no thread waiting on another."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from desktop.core.errors import Cancelled
from desktop.core.gguf import GGUFInfo, read_gguf_split
from desktop.core.library import Library, ScanProgress, ScanRoot
from tests.fixtures.library_files import link, write_tiny


def tiny_folder(root: Path, count: int) -> list[Path]:
    return [write_tiny(root / f"m{i}.gguf", name=f"Tiny {i}") for i in range(count)]


def test_a_scan_reports_each_file_it_handles(tmp_path: Path) -> None:
    files = tiny_folder(tmp_path / "a", 3) + tiny_folder(tmp_path / "b", 2)
    seen: list[ScanProgress] = []
    with Library(tmp_path / "lib.db") as library:
        report = library.scan(
            [ScanRoot("folder", tmp_path / "a"), ScanRoot("folder", tmp_path / "b")],
            on_progress=seen.append,
        )
    assert report.complete
    assert len(seen) == len(files) == report.found
    assert [p.files_seen for p in seen] == [1, 2, 3, 4, 5]
    assert [p.root_index for p in seen] == [0, 0, 0, 1, 1]
    assert {p.roots_total for p in seen} == {2}
    assert seen[-1].headers_read == 5
    assert {p.current for p in seen} == set(files)


def test_a_stopped_scan_keeps_what_it_read_and_marks_nothing_missing(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    files = tiny_folder(folder, 4)
    db = tmp_path / "lib.db"
    with Library(db) as library:
        library.scan([ScanRoot("folder", folder)])
        files[3].unlink()  # gone: a complete scan would mark it missing
        write_tiny(folder / "new1.gguf", name="New 1")
        write_tiny(folder / "new2.gguf", name="New 2")
        handled: list[ScanProgress] = []
        report = library.scan(
            [ScanRoot("folder", folder)],
            on_progress=handled.append,
            should_stop=lambda: len(handled) >= 2,
        )
        assert not report.complete
        assert report.missing == ()
        assert not any(e.missing for e in library.entries())
        done = library.scan([ScanRoot("folder", folder)])
        assert done.complete
        assert [e.path for e in done.missing] == [files[3]]
        assert len([e for e in library.entries() if not e.missing]) == 5


def test_an_import_counts_bytes_and_a_cancelled_copy_leaves_nothing(
    tmp_path: Path, gemma3_path: Path
) -> None:
    src = link(gemma3_path, tmp_path / "in" / "gemma.gguf")
    size = src.stat().st_size
    models = tmp_path / "models"
    with Library(tmp_path / "lib.db", models_dir=models) as library:
        counted: list[int] = []
        with pytest.raises(Cancelled):
            library.import_file(
                src, copy=True, on_bytes=counted.append, should_stop=lambda: sum(counted) > 8 << 20
            )
        assert 8 << 20 < sum(counted) < size
        assert not any((models / "imported").iterdir())  # no half copy, no temporary file
        assert library.entries() == []
        counted.clear()
        entry = library.import_file(src, copy=True, on_bytes=counted.append)
    assert sum(counted) == size
    assert entry.path == models / "imported" / "gemma.gguf"
    assert entry.path.stat().st_size == size


def test_hashing_an_entry_counts_bytes_and_can_be_stopped(
    tmp_path: Path, gemma3_path: Path
) -> None:
    folder = tmp_path / "models"
    path = link(gemma3_path, folder / "gemma.gguf")
    with Library(tmp_path / "lib.db") as library:
        library.scan([ScanRoot("folder", folder)])
        with pytest.raises(Cancelled):
            library.ensure_sha256(path, should_stop=lambda: True)
        assert library.entry(path).sha256 is None  # type: ignore[union-attr]
        counted: list[int] = []
        entry = library.ensure_sha256(path, on_bytes=counted.append)
    assert sum(counted) == path.stat().st_size
    assert entry.sha256 is not None


def test_an_import_from_another_thread_does_not_wait_for_a_scan(tmp_path: Path) -> None:
    folder = tmp_path / "slow"
    tiny_folder(folder, 6)
    lone = write_tiny(tmp_path / "lone" / "lone.gguf", name="Lone")
    db = tmp_path / "lib.db"
    Library(db).close()
    started = threading.Event()

    def slow_reader(path: Path) -> GGUFInfo:
        started.set()
        time.sleep(0.25)  # a big header on a slow disk
        return read_gguf_split(path)

    def scan() -> None:
        with Library(db, reader=slow_reader) as library:
            library.scan([ScanRoot("folder", folder)])

    scanner = threading.Thread(target=scan)
    scanner.start()
    try:
        assert started.wait(5)
        time.sleep(0.3)  # the scan has written rows and is reading the next header
        began = time.monotonic()
        with Library(db) as library:
            entry = library.import_file(lone)
        waited = time.monotonic() - began
    finally:
        scanner.join()
    assert entry.display_name.startswith("Lone")
    assert waited < 1.0  # the whole scan takes 1.5 s: the import did not wait for it
    with Library(db) as library:
        assert len(library.entries()) == 7
