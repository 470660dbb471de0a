"""Every broken file the library meets carries its sentence as an id and values (for the
window to translate) beside the English one, also once stored in and read back from SQLite."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from desktop.core.errors import ScoutError, Sentence
from desktop.core.library import Library, ScanRoot
from tests.fixtures.library_files import write_tiny
from tests.fixtures.tiny_models import write_broken_files


def test_every_broken_file_has_its_sentence_stored_with_the_problem(tmp_path: Path) -> None:
    broken = write_broken_files(tmp_path / "broken")
    db = tmp_path / "library.db"
    with Library(db, models_dir=tmp_path / "models") as library:
        report = library.scan([ScanRoot("folder", tmp_path / "broken")])
        for path in broken.values():
            with pytest.raises(ScoutError) as caught:
                library.import_file(path)
            assert caught.value.sentence is not None, path.name
            assert caught.value.sentence.params.get("name") == path.name
    assert len(report.problems) == len(broken)
    scanned = {p.path: p.sentence for p in report.problems}
    assert all(sentence is not None for sentence in scanned.values())
    with Library(db, models_dir=tmp_path / "models") as library:  # read back from the file
        stored = {p.path: p.sentence for p in library.problems()}
        assert stored == scanned
        assert library.problems()[0].to_dict().keys() == {
            "path", "source", "message", "kind", "first_seen", "last_seen"
        }  # fmt: skip
    assert stored[broken["bad_magic"]] == Sentence(
        "gguf.bad_magic", {"name": "bad_magic.gguf", "found": "GUFF", "offset": 0}
    )
    assert stored[broken["version_99"]] == Sentence(
        "gguf.version", {"name": "version_99.gguf", "version": 99, "offset": 4}
    )
    assert stored[broken["not_a_model"]].id == "gguf.no_entry"  # type: ignore[union-attr]


def test_a_stored_sentence_this_version_cannot_read_falls_back_to_the_message(
    tmp_path: Path,
) -> None:
    write_broken_files(tmp_path / "broken")
    db = tmp_path / "library.db"
    with Library(db, models_dir=tmp_path / "models") as library:
        library.scan([ScanRoot("folder", tmp_path / "broken")])
    conn = sqlite3.connect(db)
    conn.execute("UPDATE files SET problem_sentence = 'not json' WHERE path LIKE '%empty%'")
    conn.execute(
        "UPDATE files SET problem_sentence = ? WHERE path LIKE '%bad_magic%'",
        (json.dumps({"id": "gguf.bad_magic", "params": {"name": ["a list"], "found": "x"}}),),
    )
    conn.commit()
    conn.close()
    with Library(db, models_dir=tmp_path / "models") as library:
        problems = {p.path.name: p for p in library.problems()}
    assert problems["empty.gguf"].sentence is None
    assert problems["empty.gguf"].message.startswith("empty.gguf is empty")
    assert problems["bad_magic.gguf"].sentence == Sentence("gguf.bad_magic", {"found": "x"})


def test_a_file_that_becomes_a_model_loses_its_problem_sentence(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    model = folder / "tiny.gguf"
    model.write_bytes(b"# LLM notes, not a model\n")
    db = tmp_path / "library.db"
    with Library(db, models_dir=tmp_path / "models") as library:
        library.scan([ScanRoot("folder", folder)])
        assert [p.sentence.id for p in library.problems() if p.sentence] == ["gguf.bad_magic"]
        write_tiny(model)
        library.scan([ScanRoot("folder", folder)])
        assert library.problems() == []
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT problem_sentence FROM files").fetchall() == [(None,)]
    conn.close()
