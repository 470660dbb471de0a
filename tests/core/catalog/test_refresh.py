"""`catalog refresh` against a real HTTP server on 127.0.0.1 speaking the Hub's API."""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop import cli
from desktop.core.catalog import Catalog, load_catalog, refresh_catalog, refresh_overlay_path
from desktop.core.errors import CatalogError
from desktop.core.hub import Hub
from tests.fixtures.hubserver import FakeHub

GGUF_REPO = "bartowski/phi-4-GGUF"
GGUF_QUANTS = ("Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0")
AWQ_REPO = "Qwen/Qwen2.5-7B-Instruct-AWQ"
AWQ_SIDE = {
    "config.json": b'{"architectures": ["Qwen2ForCausalLM"], "quantization_config": {}}',
    "generation_config.json": b'{"do_sample": true}',
    "model.safetensors.index.json": b'{"metadata": {}, "weight_map": {}}',
    "tokenizer.json": b'{"model": {"type": "BPE"}}' * 50,
    "tokenizer_config.json": b'{"model_max_length": 131072}',
    "vocab.json": b'{"a": 0}',
    "merges.txt": b"#version: 0.2\na b\n",
}
AWQ_SHARDS = [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]


def content(name: str) -> bytes:
    return b"GGUF" + hashlib.sha256(name.encode()).digest() * (3 + len(name) % 5)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as server:
        for quant in GGUF_QUANTS:
            name = f"phi-4-{quant}.gguf"
            server.add_file(GGUF_REPO, name, content(name))
        server.add_file(GGUF_REPO, "README.md", b"# phi-4 GGUF\n")
        for name, data in AWQ_SIDE.items():
            server.add_file(AWQ_REPO, name, data)
        for name in AWQ_SHARDS:
            server.add_file(AWQ_REPO, name, content(name))
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_refresh_fills_exact_sizes_and_hashes_and_marks_them_verified(hub: FakeHub) -> None:
    before = load_catalog()
    assert not before.variant("phi-4:Q4_K_M")[1].verified
    report = refresh_catalog(hub.access(), model_ids=["phi-4", "qwen2.5-7b-instruct"])
    statuses = {r.repo: r.status for r in report.repos}
    assert statuses[GGUF_REPO] == "ok"
    assert statuses[AWQ_REPO] == "ok"
    assert report.path == refresh_overlay_path()
    assert report.path.is_file()

    after = load_catalog()
    for quant in GGUF_QUANTS:
        variant = after.variant(f"phi-4:{quant}")[1]
        data = content(f"phi-4-{quant}.gguf")
        assert variant.verified
        assert variant.files[0].sha256 == sha(data)
        assert variant.size_bytes == len(data)
    assert after.find_by_sha256(sha(content("phi-4-Q8_0.gguf")))[1].id == "phi-4:Q8_0"  # type: ignore[index]
    assert str(report.path) in after.sources
    # Models that were not asked for stay as they were.
    assert not after.variant("phi-4-mini-instruct:Q4_K_M")[1].verified


def test_awq_file_list_is_corrected_and_plain_files_are_hashed(hub: FakeHub) -> None:
    catalog_names = [f.name for f in load_catalog().variant("qwen2.5-7b-instruct:AWQ")[1].files]
    assert "model-00003-of-00003.safetensors" not in catalog_names  # the bundled guess differs
    report = refresh_catalog(hub.access(), model_ids=["qwen2.5-7b-instruct"])
    awq = next(r for r in report.repos if r.repo == AWQ_REPO)
    assert awq.corrected == ("qwen2.5-7b-instruct:AWQ",)
    variant = load_catalog().variant("qwen2.5-7b-instruct:AWQ")[1]
    names = [f.name for f in variant.files]
    assert names[-3:] == AWQ_SHARDS
    assert set(names[:-3]) == set(AWQ_SIDE)
    assert variant.verified
    by_name = {f.name: f for f in variant.files}
    assert by_name["config.json"].sha256 == sha(AWQ_SIDE["config.json"])
    assert by_name["merges.txt"].size_bytes == len(AWQ_SIDE["merges.txt"])
    # Plain files were fetched once each, at the commit the metadata came from.
    gets = [r for r in hub.requests if r.method == "GET" and r.filename == "config.json"]
    assert len(gets) == 1
    assert hub.repo(AWQ_REPO).commit in gets[0].path


def test_missing_repo_is_reported_and_the_others_are_still_refreshed(hub: FakeHub) -> None:
    # The Qwen GGUF repo of qwen2.5-7b-instruct is bartowski's, which this hub lacks.
    report = refresh_catalog(hub.access(), model_ids=["qwen2.5-7b-instruct", "phi-4"])
    by_repo = {r.repo: r for r in report.repos}
    missing = by_repo["bartowski/Qwen2.5-7B-Instruct-GGUF"]
    assert missing.status == "not_found"
    assert missing.files_verified == 0
    assert by_repo[GGUF_REPO].status == "ok"
    assert [r.repo for r in report.failed] == ["bartowski/Qwen2.5-7B-Instruct-GGUF"]
    catalog = load_catalog()
    assert catalog.variant("phi-4:Q4_K_M")[1].verified
    assert not catalog.variant("qwen2.5-7b-instruct:Q4_K_M")[1].verified


def test_names_the_repo_lacks_are_reported_and_stay_unverified(hub: FakeHub) -> None:
    hub.add_file(GGUF_REPO, "phi-4-Q8_0-renamed-v2.gguf", b"x")  # no longer unambiguous
    hub.repo(GGUF_REPO).files.pop("phi-4-Q8_0.gguf")
    hub.add_file(GGUF_REPO, "other-Q8_0.gguf", b"y")
    report = refresh_catalog(hub.access(), model_ids=["phi-4"])
    (repo,) = report.repos
    assert repo.status == "partial"
    assert repo.missing == ("phi-4-Q8_0.gguf",)
    assert "phi-4-Q8_0.gguf" in repo.message
    catalog = load_catalog()
    assert not catalog.variant("phi-4:Q8_0")[1].verified
    assert catalog.variant("phi-4:Q6_K")[1].verified


def test_renamed_gguf_split_is_found(hub: FakeHub) -> None:
    hub.repo(GGUF_REPO).files.pop("phi-4-Q8_0.gguf")
    parts = [f"phi-4-Q8_0/phi-4-Q8_0-0000{i}-of-00002.gguf" for i in (1, 2)]
    for part in parts:
        hub.add_file(GGUF_REPO, part, content(part))
    report = refresh_catalog(hub.access(), model_ids=["phi-4"])
    assert report.repos[0].corrected == ("phi-4:Q8_0",)
    variant = load_catalog().variant("phi-4:Q8_0")[1]
    assert [f.name for f in variant.files] == parts
    assert variant.size_bytes == sum(len(content(p)) for p in parts)


def test_plain_file_with_wrong_content_is_not_verified(hub: FakeHub) -> None:
    hub.file(AWQ_REPO, "vocab.json").wrong_bytes = True
    report = refresh_catalog(hub.access(), model_ids=["qwen2.5-7b-instruct"])
    awq = next(r for r in report.repos if r.repo == AWQ_REPO)
    assert awq.status == "partial"
    assert "vocab.json" in awq.message
    variant = load_catalog().variant("qwen2.5-7b-instruct:AWQ")[1]
    assert not variant.verified  # the correction needs every file, so the old list stays
    assert {f.name: f.verified for f in variant.files}["config.json"]


def test_refreshes_accumulate_in_the_overlay(hub: FakeHub) -> None:
    refresh_catalog(hub.access(), model_ids=["phi-4"])
    refresh_catalog(hub.access(), model_ids=["qwen2.5-7b-instruct"])
    document = json.loads(refresh_overlay_path().read_text(encoding="utf-8"))
    assert {GGUF_REPO, AWQ_REPO} <= set(document["repos"])
    assert document["endpoint"] == hub.url
    catalog = load_catalog()
    assert catalog.variant("phi-4:Q4_K_M")[1].verified
    assert catalog.variant("qwen2.5-7b-instruct:AWQ")[1].verified
    assert not list(refresh_overlay_path().parent.glob("*.tmp"))


def test_offline_mode_fails_fast_without_a_request(
    hub: FakeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CatalogError, match="offline") as info:
        refresh_catalog(hub.access(), model_ids=["phi-4"])
    assert info.value.kind == "catalog.offline"
    assert hub.requests == []
    assert not refresh_overlay_path().exists()


def test_unreachable_hub_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(CatalogError, match="Cannot reach the Hub") as info:
        refresh_catalog(Hub.from_settings(endpoint=f"http://127.0.0.1:{port}"), timeout=5)
    assert info.value.kind == "catalog.unreachable"
    assert not refresh_overlay_path().exists()


def test_unknown_model_id_is_refused(hub: FakeHub) -> None:
    with pytest.raises(CatalogError, match="did you mean"):
        refresh_catalog(hub.access(), model_ids=["phi-5"])


def test_cli_refresh_json_and_exit_code(hub: FakeHub, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["catalog", "refresh", "--model", "phi-4", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    document = json.loads(out)
    assert document["endpoint"] == hub.url  # from HF_ENDPOINT
    assert document["repos_failed"] == 0
    assert document["files_verified"] == len(GGUF_QUANTS)
    assert err == ""

    code = cli.main(["catalog", "refresh", "--model", "qwen2.5-7b-instruct"])
    out, err = capsys.readouterr()
    assert code == 1  # the bartowski repo is missing here
    assert "not_found" in out
    assert "bartowski/Qwen2.5-7B-Instruct-GGUF" in err
    assert "Verified" in out


def test_cli_refresh_offline_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert cli.main(["catalog", "refresh"]) == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1
    assert err.startswith("llm-scout: ")
    assert "offline" in err


def test_refreshed_catalog_object_can_be_passed_in(hub: FakeHub, tmp_path: Path) -> None:
    base = load_catalog()
    small = Catalog(models=(base.model("phi-4"),))
    out = tmp_path / "facts.json"
    report = refresh_catalog(hub.access(), small, output=out)
    assert [r.repo for r in report.repos] == [GGUF_REPO]
    assert out.is_file()
    assert not refresh_overlay_path().exists()
    assert load_catalog(refreshed=out).variant("phi-4:Q5_K_M")[1].verified
