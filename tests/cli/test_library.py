"""`llm-scout library` and `llm-scout import` through the real CLI dispatcher."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from desktop import cli
from desktop.core import demo
from desktop.core.catalog import load_catalog
from desktop.core.settings import load_settings, update_settings
from tests.fixtures.library_files import link, write_tiny


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder where LM Studio, Ollama and GPT4All would keep models."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("OLLAMA_MODELS", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def mine(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries a test made (the demo models are always listed too)."""
    return [e for e in entries if e["source"] != "demo"]


def demos() -> list[str]:
    """The demo model files found in this test's home (Gemma's lives under ~/.cache)."""
    return sorted(str(d.path) for d in demo.demo_models(assemble=False))


def test_a_first_listing_shows_the_demo_models_without_a_scan(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    doc = run_json(capsys, "library")
    assert demos()
    assert sorted(e["path"] for e in doc["entries"]) == demos()
    assert {e["source"] for e in doc["entries"]} == {"demo"}
    assert all(e["resolves_variant"] for e in doc["entries"])  # what `run VARIANT_ID` runs
    assert doc["problems"] == []
    assert [r["source"] for r in doc["scan"]["roots"]] == ["downloaded"] + ["demo"] * len(demos())
    assert doc["folders"] == []
    code, out, _ = run(capsys, "library")
    assert code == 0
    assert "SmolLM2 135M Instruct Q4_1" in out
    assert "smollm2-135m-instruct:Q4_1 *" in out
    assert "* the file a catalog variant id runs" in out
    code, out, _ = run(capsys, "library", "--scan")
    assert code == 0
    assert out.startswith("Scanned ")


def test_add_remembers_the_folder_and_scans_it(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, smollm2_path: Path
) -> None:
    folder = tmp_path / "my models"
    link(smollm2_path, folder / "smol.gguf")
    (folder / "junk.gguf").write_bytes(b"junk")

    doc = run_json(capsys, "library", "--add", str(folder))
    again = run_json(capsys, "library", "--add", str(folder))

    assert load_settings().extra_model_dirs == (str(folder),)  # once, not twice
    assert doc["added_folders"] == [str(folder)]
    assert again["folders"] == [str(folder)]  # the folders the settings hold
    assert [r["source"] for r in doc["scan"]["roots"]][-1] == "folder"
    assert [e["file_name"] for e in mine(doc["entries"])] == ["smol.gguf"]
    entry = mine(doc["entries"])[0]
    assert (entry["architecture"], entry["quant"], entry["source"]) == ("llama", "Q4_1", "folder")
    assert [p["path"] for p in doc["problems"]] == [str(folder / "junk.gguf")]
    assert "not a GGUF file" in doc["problems"][0]["message"]
    assert again["scan"]["unchanged"] == 2 + len(demos())  # the two files and the demo models
    assert again["scan"]["headers_read"] == 0


def test_scan_looks_in_every_known_place(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    scout_home: Path,
    tmp_path: Path,
    demo_paths: tuple[Path, Path],
) -> None:
    smollm2_path, gemma3_path = demo_paths
    sha = hashlib.sha256(smollm2_path.read_bytes()).hexdigest()
    repo = scout_home / "hf" / "hub" / "models--HuggingFaceTB--SmolLM2-135M-Instruct-GGUF"
    link(smollm2_path, repo / "blobs" / sha)
    (repo / "snapshots" / "r1").mkdir(parents=True)
    (repo / "snapshots" / "r1" / "smollm2.q4_1.gguf").symlink_to(f"../../blobs/{sha}")
    link(gemma3_path, home / ".lmstudio/models/lmstudio-community/gemma-3-GGUF/gemma.gguf")
    write_tiny(scout_home / "data/models/someone/Tiny-GGUF/tiny.gguf", name="Tiny Download")
    extra = tmp_path / "extra"
    write_tiny(extra / "phi.gguf", arch="phi3", name="Phi Tiny")
    update_settings(extra_model_dirs=(str(extra),))

    doc = run_json(capsys, "library", "--scan")

    by_source = {e["source"]: e for e in mine(doc["entries"])}
    assert sorted(by_source) == ["downloaded", "folder", "hf-cache", "lmstudio"]
    expected = load_catalog().find_by_sha256(sha)
    assert expected is not None  # the bundled catalog knows the demo file
    hf = by_source["hf-cache"]
    assert (hf["repo_id"], hf["sha256"]) == ("HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", sha)
    assert (hf["variant_id"], hf["match_method"]) == (expected[1].id, "sha256")
    assert by_source["lmstudio"]["family"] == "gemma"
    assert by_source["downloaded"]["repo_id"] == "someone/Tiny-GGUF"
    assert by_source["folder"]["family"] == "phi"
    looked = {(r["source"], r["path"]) for r in doc["scan"]["roots"]}
    assert ("gpt4all", str(home / ".local/share/nomic.ai/GPT4All")) in looked
    assert ("ollama", str(home / ".ollama/models")) in looked

    update_settings(scan_known_apps=False)
    os_only = run_json(capsys, "library", "--scan")
    assert {r["source"] for r in os_only["scan"]["roots"]} == {"downloaded", "folder", "demo"}
    # Entries found before stay (their files still exist), nothing is reported missing.
    assert len(mine(os_only["entries"])) == 4
    assert os_only["scan"]["missing"] == []


def test_scan_reports_a_deleted_model_as_missing(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "f"
    path = write_tiny(folder / "gone.gguf")
    run_json(capsys, "library", "--add", str(folder))
    path.unlink()

    doc = run_json(capsys, "library", "--scan")
    code, out, _ = run(capsys, "library")

    assert doc["scan"]["missing"] == [str(path)]
    assert [e["missing"] for e in mine(doc["entries"])] == [True]
    assert code == 0
    assert any("missing" in line and "gone.gguf" in line for line in out.splitlines())


def test_human_listing(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, gemma3_path: Path
) -> None:
    folder = tmp_path / "f"
    link(gemma3_path, folder / "gemma.gguf")
    (folder / "bad.gguf").write_bytes(b"nope")
    code, out, err = run(capsys, "library", "--add", str(folder))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Scanned ")
    header = next(line for line in lines if line.startswith("NAME"))
    assert header.split() == [
        "NAME",
        "FAMILY",
        "PARAMS",
        "QUANT",
        "CTX",
        "SIZE",
        "SOURCE",
        "CATALOG",
        "STATE",
        "PATH",
    ]
    row = next(line for line in lines if "Q4_K_M" in line and "gemma" in line)
    assert "268M" in row
    assert "32768" in row
    assert "1 file(s) could not be used:" in out
    assert f"{folder / 'bad.gguf'}:" in out


def test_import_copy_json(
    capsys: pytest.CaptureFixture[str], home: Path, scout_home: Path, tmp_path: Path
) -> None:
    src = write_tiny(tmp_path / "tiny-model.gguf", chat_template="{{ messages }}")
    doc = run_json(capsys, "import", str(src), "--copy")
    dest = scout_home / "data/models/imported/tiny-model.gguf"
    assert doc["copied"] is True
    assert doc["entry"]["path"] == str(dest)
    assert doc["entry"]["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert doc["entry"]["has_chat_template"] is True
    assert dest.read_bytes() == src.read_bytes()
    listed = run_json(capsys, "library")
    assert [e["path"] for e in mine(listed["entries"])] == [str(dest)]
    assert mine(listed["entries"])[0]["source"] == "imported"


def test_import_in_place_human(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, smollm2_path: Path
) -> None:
    src = link(smollm2_path, tmp_path / "smol.gguf")
    code, out, err = run(capsys, "import", str(src))
    assert code == 0, err
    assert out.startswith("Imported ")
    assert str(src) in out.splitlines()[0]
    assert "Q4_1" in out
    assert f"sha256: {hashlib.sha256(smollm2_path.read_bytes()).hexdigest()}" in out


def test_errors_are_one_sentence_with_exit_codes(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "import", str(tmp_path / "absent.gguf"))
    assert (code, out) == (1, "")
    assert err == f"llm-scout: There is no file at {tmp_path / 'absent.gguf'}.\n"

    (tmp_path / "text.gguf").write_text("plain text")
    code, _, err = run(capsys, "import", str(tmp_path / "text.gguf"), "--json")
    assert code == 1
    assert err.startswith("llm-scout: text.gguf is not a GGUF file")
    assert len(err.strip().splitlines()) == 1

    code, _, err = run(capsys, "library", "--add", str(tmp_path / "no-such-dir"))
    assert code == 2
    assert "There is no folder at" in err
    assert load_settings().extra_model_dirs == ()
