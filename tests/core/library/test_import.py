"""`import`: a GGUF file referenced in place or copied (atomically) into the models folder."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop.core.errors import GGUFError, LibraryError
from desktop.core.gguf import read_gguf
from desktop.core.library import Library, ScanRoot
from tests.fixtures.library_files import link, write_tiny


def open_library(tmp_path: Path) -> Library:
    return Library(tmp_path / "library.db", models_dir=tmp_path / "models")


def test_import_in_place_reads_hashes_and_remembers(tmp_path: Path, smollm2_path: Path) -> None:
    path = link(smollm2_path, tmp_path / "downloads" / "smol.gguf")
    with open_library(tmp_path) as library:
        entry = library.import_file(path)
    with open_library(tmp_path) as library:
        remembered = library.entries()

    assert entry.path == path
    assert entry.source == "imported"
    assert entry.sha256 == hashlib.sha256(smollm2_path.read_bytes()).hexdigest()
    assert entry.size_bytes == smollm2_path.stat().st_size
    assert (entry.architecture, entry.quant) == ("llama", "Q4_1")
    assert entry.n_params == read_gguf(smollm2_path).arch.n_params
    assert remembered == [entry]
    assert not (tmp_path / "models").exists()  # nothing copied


def test_import_copy_puts_the_file_in_the_imported_folder(
    tmp_path: Path, smollm2_path: Path
) -> None:
    src = link(smollm2_path, tmp_path / "downloads" / "smol.gguf")
    with open_library(tmp_path) as library:
        entry = library.import_file(src, copy=True)
        again = library.import_file(src, copy=True)  # same file again: nothing new
        entries = library.entries()
        # A scan of the models folder finds the copy as the same, unchanged entry.
        report = library.scan([ScanRoot("downloaded", tmp_path / "models")])

    dest = tmp_path / "models" / "imported" / "smol.gguf"
    assert entry.path == dest
    assert not dest.samefile(src)  # a real copy, not a link
    assert dest.read_bytes() == smollm2_path.read_bytes()
    assert entry.sha256 == hashlib.sha256(dest.read_bytes()).hexdigest()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["smol.gguf"]  # no temp left
    assert again.path == dest
    assert again.first_seen == entry.first_seen
    assert [e.path for e in entries] == [dest]
    assert (report.unchanged, report.added, report.headers_read) == (1, (), 0)


def test_import_copy_refuses_to_overwrite_a_different_file(
    tmp_path: Path, smollm2_path: Path
) -> None:
    other = write_tiny(tmp_path / "elsewhere" / "smol.gguf")
    src = link(smollm2_path, tmp_path / "downloads" / "smol.gguf")
    with open_library(tmp_path) as library:
        library.import_file(other, copy=True)
        with pytest.raises(LibraryError, match=r"A different file named smol\.gguf") as caught:
            library.import_file(src, copy=True)
    assert caught.value.kind == "library.exists"
    kept = tmp_path / "models" / "imported" / "smol.gguf"
    assert kept.read_bytes() == other.read_bytes()


def test_import_of_a_split_model_takes_all_parts(tmp_path: Path) -> None:
    write_tiny(tmp_path / "src" / "big.gguf", split_max_tensors=1)
    first = tmp_path / "src" / "big-00001-of-00003.gguf"
    whole = read_gguf(write_tiny(tmp_path / "whole" / "big.gguf"))
    with open_library(tmp_path) as library:
        entry = library.import_file(first, copy=True)
        with pytest.raises(LibraryError, match="part 2 of a split model"):
            library.import_file(tmp_path / "src" / "big-00002-of-00003.gguf")
    assert [p.name for p in entry.parts] == [f"big-{i:05d}-of-00003.gguf" for i in (1, 2, 3)]
    assert all(p.parent == tmp_path / "models" / "imported" for p in entry.parts)
    assert all(p.is_file() for p in entry.parts)
    assert entry.n_params == whole.arch.n_params
    assert entry.sha256 == hashlib.sha256(first.read_bytes()).hexdigest()


def test_import_of_an_incomplete_split_model_names_the_missing_part(tmp_path: Path) -> None:
    write_tiny(tmp_path / "big.gguf", split_max_tensors=1)
    (tmp_path / "big-00003-of-00003.gguf").unlink()
    with open_library(tmp_path) as library, pytest.raises(LibraryError) as caught:
        library.import_file(tmp_path / "big-00001-of-00003.gguf")
    assert "big-00003-of-00003.gguf is missing" in str(caught.value)


def test_import_of_broken_or_absent_files_gives_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "text.gguf").write_text("hello, I am not a model")
    write_tiny(tmp_path / "ok.gguf")
    (tmp_path / "cut.gguf").write_bytes((tmp_path / "ok.gguf").read_bytes()[:200])
    with open_library(tmp_path) as library:
        with pytest.raises(GGUFError, match="not a GGUF file"):
            library.import_file(tmp_path / "text.gguf", copy=True)
        with pytest.raises(GGUFError, match="cut short"):
            library.import_file(tmp_path / "cut.gguf")
        with pytest.raises(LibraryError, match="There is no file at") as absent:
            library.import_file(tmp_path / "nope.gguf")
        with pytest.raises(LibraryError, match="is a folder") as folder:
            library.import_file(tmp_path)
        assert library.entries() == []
    assert absent.value.kind == "library.not_found"
    assert folder.value.kind == "library.is_dir"
    assert not (tmp_path / "models").exists()  # a broken file is never copied


_FAILING_COPY = textwrap.dedent(
    """
    import json, resource, signal, sys
    from pathlib import Path
    from desktop.core.errors import ScoutError
    from desktop.core.library.manager import Library

    src, db, models = (Path(a) for a in sys.argv[1:4])
    with Library(db, models_dir=models) as library:
        (models / "imported").mkdir(parents=True)
        # Writes past 1 MiB fail with EFBIG (a real failing write, as a full disk would).
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
        try:
            library.import_file(src, copy=True)
        except ScoutError as exc:
            print(json.dumps({"kind": exc.kind, "message": str(exc)}))
        else:
            print(json.dumps({"kind": None}))
    """
)


def test_a_failed_copy_leaves_neither_a_partial_nor_a_final_file(
    tmp_path: Path, smollm2_path: Path
) -> None:
    src = link(smollm2_path, tmp_path / "smol.gguf")
    models = tmp_path / "models"
    out = subprocess.run(
        [sys.executable, "-c", _FAILING_COPY, str(src), str(tmp_path / "lib.db"), str(models)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["kind"] == "library.copy_failed"
    assert result["message"].startswith("Copying smol.gguf to ")
    assert "File too large" in result["message"]
    assert list((models / "imported").iterdir()) == []
    with Library(tmp_path / "lib.db") as library:
        assert library.entries() == []
