"""Every command of issue 22 after real damage to its database: one line on stderr saying where
the damaged file was kept, no traceback, and the command does its work.

library.db: four bytes flipped in its middle after a checkpoint (``library``, ``library
--scan``, ``import``, ``fit``, ``run``: each as the first command after the damage).
history.db: a broken page of an index (every row can still be read, so what comes back is
known) and four bytes flipped in its middle (``compare --list/--show/--resume/--delete`` and a
new comparison)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop import cli
from desktop.core import demo, paths
from desktop.core.history import ContestantRecord, History, PromptRecord
from desktop.core.library import Library, ScanRoot
from desktop.core.settings import update_settings
from tests.core.history.test_store import make_report
from tests.fixtures.damage import flip_middle, flip_page, root_page
from tests.fixtures.library_files import write_tiny


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def told(err: str, store: str) -> list[str]:
    return [
        line
        for line in err.splitlines()
        if line.startswith(f"llm-scout: The {store} database was damaged")
    ]


# -- the library --------------------------------------------------------------------------------


@pytest.fixture
def damaged_library(tmp_path: Path) -> Path:
    """A library with 12 scanned models (in a folder the settings add) and 2 imported in
    place, damaged; returns the folder of the scanned ones."""
    folder = tmp_path / "models"
    for i in range(12):
        write_tiny(folder / f"m{i}.gguf", name=f"Scanned {i}")
    update_settings(extra_model_dirs=(str(folder),))
    db = paths.library_db_path(ensure=True)
    with Library(db) as library:
        library.scan([ScanRoot("folder", folder)])
        for i in range(2):
            library.import_file(write_tiny(tmp_path / "mine" / f"i{i}.gguf", name=f"Mine {i}"))
    flip_middle(db)
    return folder


def test_library_after_damage_lists_again_with_the_imported_files(
    capsys: pytest.CaptureFixture[str], damaged_library: Path, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "library", "--json")
    assert code == 0
    assert len(told(err, "library")) == 1
    kept = list(paths.data_dir().glob("library.db.broken-*"))
    assert len(kept) == 1
    assert str(kept[0]) in err
    names = {Path(e["path"]).name for e in json.loads(out)["entries"]}
    assert {"i0.gguf", "i1.gguf"} <= names  # imported files: no scan would find them again
    assert {f"m{i}.gguf" for i in range(12)} <= names  # started anew: every folder scanned
    code, out, err = run(capsys, "library", "--json")
    assert (code, told(err, "library")) == (0, [])  # told once


def test_library_scan_after_damage_rebuilds_it(
    capsys: pytest.CaptureFixture[str], damaged_library: Path
) -> None:
    code, out, err = run(capsys, "library", "--scan", "--json")
    assert code == 0
    assert len(told(err, "library")) == 1
    names = {Path(e["path"]).name for e in json.loads(out)["entries"]}
    assert {f"m{i}.gguf" for i in range(12)} | {"i0.gguf", "i1.gguf"} <= names


def test_import_after_damage(
    capsys: pytest.CaptureFixture[str], damaged_library: Path, tmp_path: Path
) -> None:
    new = write_tiny(tmp_path / "new" / "n.gguf", name="New One")
    code, out, err = run(capsys, "import", str(new), "--json")
    assert code == 0
    assert len(told(err, "library")) == 1
    assert json.loads(out)["entry"]["path"] == str(new)


def test_fit_after_damage(capsys: pytest.CaptureFixture[str], damaged_library: Path) -> None:
    code, out, err = run(capsys, "fit", "smollm2", "--json")
    assert code == 0
    assert len(told(err, "library")) == 1
    assert json.loads(out)["verdict"]


@pytest.mark.e2e
def test_run_after_damage(capsys: pytest.CaptureFixture[str], damaged_library: Path) -> None:
    argv = ["run", "smollm2", "--prompt", "Hi", "--max-tokens", "2", "--ctx", "256", "--json"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert len(told(err, "library")) == 1
    assert json.loads(out)["generated_tokens"] >= 1


# -- the history --------------------------------------------------------------------------------


def stored_comparisons() -> tuple[int, int]:
    """Two finished comparisons of the demo models (answers stored, nothing left to run)."""
    smollm2, gemma3 = demo.smollm2_path(), demo.gemma3_path(assemble=True)
    ids = []
    with History.open() as history:
        for title in ("Kept", "To delete"):
            refs = [history.model_ref(smollm2), history.model_ref(gemma3)]
            comparison = history.create_comparison(
                title=title,
                mode="fair",
                contestants=[
                    ContestantRecord("SmolLM2", "smollm2", {"load": {"n_ctx": 256}}, model=refs[0]),
                    ContestantRecord("Gemma", "gemma3", {"load": {"n_ctx": 256}}, model=refs[1]),
                ],
                prompts=[PromptRecord("Name a fruit.")],
            )
            for index, answer in enumerate(("Apple.", "Pear.")):
                history.record_answer(comparison, index, 0, output=answer, report=make_report())
                history.set_contestant_status(comparison, index, "done")
            history.set_comparison_status(comparison, "finished")
            ids.append(comparison)
        for i in range(30):
            history.record_run(make_report(f"answer {i} " * 40), model=smollm2, prompt=f"q{i}")
    return ids[0], ids[1]


def break_an_index(db: Path) -> None:
    flip_page(db, root_page(db, "runs_created"))


COMMANDS: dict[str, Callable[[int, int], list[str]]] = {
    "list": lambda kept, gone: ["compare", "--list", "--json"],
    "show": lambda kept, gone: ["compare", "--show", str(kept), "--json"],
    "resume": lambda kept, gone: ["compare", "--resume", str(kept), "--json"],
    "delete": lambda kept, gone: ["compare", "--delete", str(gone)],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_compare_after_a_broken_index_finds_everything_again(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    kept, gone = stored_comparisons()
    break_an_index(paths.history_db_path())
    code, out, err = run(capsys, *COMMANDS[command](kept, gone))
    assert code == 0, err
    notices = told(err, "history")
    assert len(notices) == 1
    assert "row(s) that could still be read were recovered" in notices[0]
    with History.open() as history:
        titles = [c.title for c in history.comparisons()]
        assert len(history.runs(source="playground", limit=100)) == 30
    assert titles == (["Kept"] if command == "delete" else ["To delete", "Kept"])
    if command == "show":
        rows = json.loads(out)["rows"]
        assert sorted(r["output"] for r in rows) == ["Apple.", "Pear."]
    code, out, err = run(capsys, "compare", "--list")
    assert told(err, "history") == []  # told once


@pytest.mark.parametrize("command", list(COMMANDS))
def test_compare_after_bytes_flipped_in_the_middle_never_fails_with_a_traceback(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    kept, gone = stored_comparisons()
    flip_middle(paths.history_db_path())
    code, _out, err = run(capsys, *COMMANDS[command](kept, gone))
    assert len(told(err, "history")) == 1
    if code != 0:  # what was on the damaged page is gone: said in one sentence
        assert code == 1
        assert err.splitlines()[-1] in (
            f"llm-scout: There is no comparison {kept} in the history.",
            f"llm-scout: There is no comparison {gone} in the history.",
        )


@pytest.mark.e2e
def test_a_new_comparison_after_damage(capsys: pytest.CaptureFixture[str]) -> None:
    stored_comparisons()
    flip_middle(paths.history_db_path())
    argv = ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi", "--max-tokens", "2"]
    code, out, err = run(capsys, *argv, "--ctx", "256", "--temp", "0", "--json")
    assert code == 0, err
    assert len(told(err, "history")) == 1
    assert [row["status"] for row in json.loads(out)["rows"]] == ["ok", "ok"]
    with History.open() as history:
        assert history.comparison(json.loads(out)["comparison"]["id"]).summary.n_answers == 2


# -- the settings file --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("deeply nested", b"[" * 100_000 + b"]" * 100_000),  # RecursionError, before
        ("a 5,000-digit integer", b'{"default_ctx": ' + b"1" * 5000 + b"}"),  # ValueError
        ("invalid JSON", b'{"theme": "dark"'),
    ],
)
def test_a_settings_file_that_cannot_be_read_is_kept_aside_and_told_once(
    capsys: pytest.CaptureFixture[str], name: str, content: bytes
) -> None:
    path = paths.config_dir(ensure=True) / "settings.json"
    path.write_bytes(content)
    code, _out, err = run(capsys, "library", "--json")
    assert code == 0
    kept = list(path.parent.glob("settings.json.broken-*"))
    assert len(kept) == 1
    assert kept[0].read_bytes() == content
    lines = [line for line in err.splitlines() if "settings file" in line]
    assert len(lines) == 1
    assert lines[0].startswith(f"llm-scout: The settings file {path} could not be read (")
    assert lines[0].endswith(f"; it was moved to {kept[0]} and the defaults are used.")
    code, _out, err = run(capsys, "library", "--json")
    assert code == 0
    assert "settings file" not in err  # told once
