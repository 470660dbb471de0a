"""`llm-scout download`: in-process runs of the real CLI, and a process killed mid-file."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.core.download.fetch import CHUNK_SIZE
from tests.fixtures.hubserver import FakeHub, blob

REPO = "unsloth/Tiny-Chat-GGUF"
FILE = "tiny-chat.Q4_K_M.gguf"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


def test_json_result_on_stdout_progress_on_stderr(
    hub: FakeHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = blob(400_000)
    hub.add_file(REPO, FILE, data)
    code = main(["download", REPO, FILE, "--to", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    document = json.loads(out)
    target = tmp_path / "unsloth" / "Tiny-Chat-GGUF" / FILE
    assert document["path"] == str(target)
    assert document["files"][0]["sha256"] == hashlib.sha256(data).hexdigest()
    assert document["files"][0]["verified_against"] == "hub sha256"
    assert document["fetched_bytes"] == len(data)
    assert target.read_bytes() == data
    assert "checking" in err
    assert "done" in err


def test_reconnects_are_shown_as_progress_not_library_warnings(
    hub: FakeHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fixtures.hubserver import Fault

    data = blob(300_000, seed=5)
    hub.add_file(REPO, FILE, data)
    hub.inject(REPO, FILE, Fault(drop_after=100_000), Fault(drop_after=10, drop_mode="reset"))
    assert main(["download", REPO, FILE, "--to", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "retrying" in err  # our progress line says it
    assert "Trying to resume" not in err  # huggingface_hub's own warning is kept quiet
    assert (tmp_path / "unsloth" / "Tiny-Chat-GGUF" / FILE).read_bytes() == data


def test_human_table_and_already_installed(
    hub: FakeHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.add_file(REPO, FILE, blob(5000))
    hub.add_file(REPO, "README.md", b"hello")
    assert main(["download", REPO, FILE, "README.md", "--to", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["file", "size", "sha256", "verified", "against", "path"]
    assert "hub git sha1" in out
    assert main(["download", REPO, FILE, "--to", str(tmp_path)]) == 0
    assert "already installed" in capsys.readouterr().out


def test_catalog_variant_id_downloads_its_files(
    hub: FakeHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop.core.catalog import load_catalog

    _model, variant = load_catalog().variant("qwen2.5-0.5b-instruct:Q4_K_M")
    for file in variant.files:
        hub.add_file(variant.repo, file.name, blob(3000, seed=len(file.name)))
    code = main(["download", variant.id, "--to", str(tmp_path), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert document["variant_id"] == variant.id
    first = tmp_path.joinpath(*variant.repo.split("/"), variant.files[0].name)
    assert document["path"] == str(first)
    assert first.is_file()


def test_errors_are_one_sentence_and_exit_codes(
    hub: FakeHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.add_file(REPO, FILE, b"x")
    assert main(["download", REPO, "missing.gguf", "--to", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    last = err.splitlines()[-1]
    assert last.startswith("llm-scout: ")
    assert "has no file 'missing.gguf'" in last
    assert err.count("missing.gguf") == 1  # said once, not logged twice
    assert "Traceback" not in err

    assert main(["download", REPO, "--to", str(tmp_path)]) == 2  # a repo without files
    assert "Name the files" in capsys.readouterr().err
    assert main(["download", REPO, "../escape.gguf", "--to", str(tmp_path)]) == 1
    assert "Refusing the file name" in capsys.readouterr().err
    assert main(["download", "no-such-model:Q4_K_M", "--to", str(tmp_path)]) == 1
    assert "no variant" in capsys.readouterr().err
    assert not any(tmp_path.rglob("*.gguf"))


def test_offline_cli_says_downloads_are_unavailable(
    hub: FakeHub,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hub.add_file(REPO, FILE, b"x" * 100)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["download", REPO, FILE, "--to", str(tmp_path)]) == 1
    assert "offline mode is on" in capsys.readouterr().err
    assert hub.requests == []


def _partial(models: Path) -> Path:
    return models / ".downloads" / "unsloth" / "Tiny-Chat-GGUF" / (FILE + ".part")


def test_killed_process_is_resumed_by_the_next_one(hub: FakeHub, tmp_path: Path) -> None:
    size = 6 << 20
    data = blob(size, seed=42)
    hub.add_file(REPO, FILE, data)
    hub.file(REPO, FILE).rate_bps = 3 << 20  # about 2 s for the whole file
    models = tmp_path / "models"
    command = [sys.executable, "-m", "desktop", "download", REPO, FILE, "--to", str(models)]
    env = {**os.environ, "HF_ENDPOINT": hub.url}
    with (tmp_path / "first.err").open("wb") as err:
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 60
            while not (_partial(models).exists() and _partial(models).stat().st_size >= 2 << 20):
                assert first.poll() is None, (tmp_path / "first.err").read_text()
                assert time.monotonic() < deadline
                time.sleep(0.02)
            first.send_signal(signal.SIGKILL)
        finally:
            first.wait(30)
    assert first.returncode == -signal.SIGKILL
    kept = _partial(models).stat().st_size
    assert 2 << 20 <= kept < size
    final = models / "unsloth" / "Tiny-Chat-GGUF" / FILE
    assert not final.exists()

    second = subprocess.run(
        [*command, "--json"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert second.returncode == 0, second.stderr
    document = json.loads(second.stdout)
    assert final.read_bytes() == data
    assert document["files"][0]["resumed_from"] == kept
    assert document["files"][0]["fetched_bytes"] == size - kept
    gets = hub.content_gets(REPO, FILE)
    assert [g.range_start for g in gets] == [None, kept]
    assert gets[1].body_bytes == size - kept
    # What the first process received but never wrote is all that was fetched twice.
    refetched = gets[0].body_bytes - kept
    print(f"kill/resume: kept {kept} bytes, fetched again {refetched} bytes")
    assert 0 <= refetched < 16 * CHUNK_SIZE
