"""Removing models: forget a row (the file stays), delete only what the downloader installed,
and the demo models as a scan source of their own."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.errors import LibraryError
from desktop.core.library import (
    Library,
    ScanRoot,
    demo_roots,
    downloaded_files,
    scan_roots,
)
from tests.fixtures.library_files import link, write_tiny


def install(models: Path, repo: str, name: str, *, record: bool = True) -> Path:
    """A file as the downloader leaves it: ``<owner>/<repo>/<name>`` plus its record."""
    path = write_tiny(models.joinpath(*repo.split("/"), name))
    if record:
        stat = path.stat()
        rec = models / ".downloads" / repo / f"{name}.verified.json"
        rec.parent.mkdir(parents=True, exist_ok=True)
        rec.write_text(
            json.dumps({"sha256": "0" * 64, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns})
        )
    return path


def record_of(models: Path, path: Path) -> Path:
    return models / ".downloads" / f"{path.relative_to(models)}.verified.json"


@pytest.fixture
def models(tmp_path: Path) -> Path:
    return tmp_path / "models"


@pytest.fixture
def library(tmp_path: Path, models: Path) -> Iterator[Library]:
    with Library(tmp_path / "library.db", models_dir=models) as lib:
        yield lib


def test_forget_drops_the_row_and_leaves_the_file(library: Library, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    kept = write_tiny(folder / "kept.gguf")
    gone = write_tiny(folder / "forget-me.gguf")
    broken = folder / "broken.gguf"
    broken.write_bytes(b"not a model at all")
    library.scan([ScanRoot("folder", folder)])
    assert {e.path for e in library.entries()} == {kept, gone}
    assert [p.path for p in library.problems()] == [broken]

    assert library.forget(gone)
    assert library.forget(broken)  # a problem row can be forgotten too
    assert not library.forget(tmp_path / "never-seen.gguf")

    assert [e.path for e in library.entries()] == [kept]
    assert library.problems() == []
    assert gone.is_file()
    assert broken.is_file()
    # A folder that still holds the file finds it again on the next scan.
    library.scan([ScanRoot("folder", folder)])
    assert {e.path for e in library.entries()} == {kept, gone}


def test_delete_download_removes_files_records_and_empty_folders(
    library: Library, models: Path
) -> None:
    keep = install(models, "org/other-GGUF", "other.gguf")
    path = install(models, "org/tiny-GGUF", "tiny.Q4_K_M.gguf")
    library.scan([ScanRoot("downloaded", models)])
    assert {e.path for e in library.entries()} == {keep, path}
    assert [f for f, _ in downloaded_files(path, models)] == [path]

    deleted = library.delete_download(path)

    assert deleted == (path,)
    assert not path.exists()
    assert not record_of(models, path).exists()
    assert not (models / "org" / "tiny-GGUF").exists()  # the empty repo folder went too
    assert not (models / ".downloads" / "org" / "tiny-GGUF").exists()
    assert (models / ".downloads").is_dir()
    assert keep.is_file()
    assert record_of(models, keep).is_file()
    assert [e.path for e in library.entries()] == [keep]


def test_delete_download_takes_every_part_of_a_split_model(library: Library, models: Path) -> None:
    parts = [
        install(models, "org/big-GGUF", f"big-{i:05d}-of-00003.gguf", record=True)
        for i in (1, 2, 3)
    ]
    deleted = library.delete_download(parts[0], models)
    assert deleted == tuple(parts)
    assert not any(p.exists() for p in parts)
    assert not any(record_of(models, p).exists() for p in parts)


@pytest.mark.parametrize(
    "case",
    ["no record", "outside", "imported", "top level", "changed", "link", "part without record"],
)
def test_delete_download_refuses_what_the_app_did_not_download(
    library: Library, models: Path, tmp_path: Path, case: str
) -> None:
    if case == "no record":
        path = install(models, "org/hand-GGUF", "copied-by-hand.gguf", record=False)
    elif case == "outside":
        path = write_tiny(tmp_path / "elsewhere" / "org" / "repo" / "model.gguf")
    elif case == "imported":
        path = install(models, "imported/x", "model.gguf")  # even with a record beside it
    elif case == "top level":
        path = write_tiny(models / "loose.gguf")
    elif case == "changed":
        path = install(models, "org/tiny-GGUF", "tiny.gguf")
        with path.open("ab") as f:
            f.write(b"edited since the download")
    elif case == "link":
        target = write_tiny(tmp_path / "elsewhere" / "real.gguf")
        path = install(models, "org/link-GGUF", "link.gguf")
        path.unlink()
        os.symlink(target, path)
    else:
        first = install(models, "org/big-GGUF", "big-00001-of-00002.gguf")
        install(models, "org/big-GGUF", "big-00002-of-00002.gguf", record=False)
        path = first
    before = sorted(p for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink())

    with pytest.raises(LibraryError) as caught:
        library.delete_download(path, models)

    assert "was not downloaded by LLM Scout" in caught.value.message
    assert caught.value.message.endswith(".")
    after = sorted(p for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink())
    assert after == before  # nothing deleted


def test_demo_models_are_their_own_source(
    library: Library, tmp_path: Path, demo_paths: tuple[Path, Path]
) -> None:
    folder = tmp_path / "pkg"
    demo = link(demo_paths[0], folder / "demo.gguf")
    write_tiny(folder / "sub" / "not-a-demo.gguf")  # subfolders are not looked at
    roots = demo_roots([demo, folder / "demo.gguf", demo_paths[1]])
    assert roots == [ScanRoot("demo", folder), ScanRoot("demo", demo_paths[1].parent)]

    report = library.scan(roots)

    assert report.problems == ()
    entries = {e.path: e for e in library.entries()}
    assert set(entries) == {demo, demo_paths[1]}
    assert {e.source for e in entries.values()} == {"demo"}
    assert entries[demo].architecture == "llama"
    # A full scan next to it does not lose or re-source the demos.
    library.scan([*scan_roots(tmp_path / "models", known_apps=False), *roots])
    assert {e.source for e in library.entries()} == {"demo"}
