"""`catalog refresh` against a mirror whose model info is broken (issue 22): each repo so answered
is reported in one sentence, the others are still refreshed, and nothing ends in a traceback
(huggingface_hub raised ``KeyError: 'pointerSize'`` and ``UnicodeDecodeError`` here before)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from desktop import cli
from desktop.core.catalog import load_catalog, refresh_catalog
from tests.fixtures.hubserver import FakeHub

BROKEN = "bartowski/phi-4-GGUF"
GOOD = "unsloth/Phi-4-mini-instruct-GGUF"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with FakeHub() as server:
        for repo, stem in ((BROKEN, "phi-4"), (GOOD, "Phi-4-mini-instruct")):
            name = f"{stem}-Q4_K_M.gguf"
            server.add_file(repo, name, b"GGUF" + hashlib.sha256(name.encode()).digest() * 9)
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        yield server


@pytest.mark.parametrize(
    "fault", ["no_pointer_size", "not_utf8", "not_json", "siblings_not_a_list"]
)
def test_a_malformed_model_info_is_one_sentence_and_the_rest_is_refreshed(
    hub: FakeHub, fault: str
) -> None:
    hub.model_info_faults[BROKEN] = fault
    report = refresh_catalog(hub.access(), model_ids=["phi-4", "phi-4-mini-instruct"])
    by_repo = {r.repo: r for r in report.repos}
    broken = by_repo[BROKEN]
    assert broken.status == "error"
    assert "model info is malformed" in broken.message
    assert "\n" not in broken.message
    assert by_repo[GOOD].status in ("ok", "partial")
    catalog = load_catalog()
    assert catalog.variant("phi-4-mini-instruct:Q4_K_M")[1].verified
    assert not catalog.variant("phi-4:Q4_K_M")[1].verified


def test_the_cli_reports_a_broken_mirror_without_a_traceback(
    hub: FakeHub, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.model_info_faults[BROKEN] = "no_pointer_size"
    code = cli.main(["catalog", "refresh", "--model", "phi-4"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in out + err
    assert BROKEN in err
    assert "malformed" in out + err
