"""`llm-scout fit FILE --dry-run`: llama.cpp's projection beside the estimate, human and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop import cli

H200 = "tests/fixtures/ground_truth/h200-profile.json"


def test_fit_dry_run_json_adds_llama_cpp_and_uses_its_buffers(
    capsys: pytest.CaptureFixture[str], smollm2_path: Path
) -> None:
    args = ["fit", str(smollm2_path), "--ctx", "2048", "--json"]
    assert cli.main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert cli.main([*args, "--dry-run"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert "llama_cpp" not in plain
    llama = checked["llama_cpp"]
    assert llama["n_ctx"] == 2048
    assert llama["n_gpu_layers"] == 0
    assert llama["kv_bytes"] > 0
    assert llama["compute_bytes"] > 0
    terms = llama["terms"]
    assert set(terms) == {"weights", "repacked", "kv_cache", "compute"}
    assert terms["kv_cache"]["ours_bytes"] == plain["ram_breakdown"]["kv_cache"]
    assert terms["compute"]["ours_bytes"] == plain["compute_reserved_bytes"]
    assert abs(terms["compute"]["gap_pct"]) < 3.0
    # The shown result carries llama.cpp's KV cache and compute buffer.
    assert checked["ram_breakdown"]["kv_cache"] == llama["host_kv_bytes"]
    assert checked["compute_reserved_bytes"] == llama["host_compute_bytes"]
    delta = llama["host_compute_bytes"] - plain["compute_reserved_bytes"]
    delta += llama["host_kv_bytes"] - plain["ram_breakdown"]["kv_cache"]
    assert checked["ram_full_context_bytes"] == plain["ram_full_context_bytes"] + delta
    assert any("llama.cpp's own projection" in r for r in checked["reasons"])


def test_fit_dry_run_human_shows_the_gaps(
    capsys: pytest.CaptureFixture[str], gemma3_path: Path
) -> None:
    assert cli.main(["fit", str(gemma3_path), "--ctx", "1024", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "llama.cpp's own projection" in out
    table = out[out.index("llama.cpp's own projection") :]
    for row in ("weights (tensor bytes)", "KV cache", "compute buffers"):
        line = next(li for li in table.splitlines() if li.startswith(row))
        assert line.rstrip().endswith("%"), line  # a gap in percent
    assert "buffers: CPU (host)" in table


def test_fit_dry_run_refuses_a_what_if_profile(
    capsys: pytest.CaptureFixture[str], smollm2_path: Path
) -> None:
    code = cli.main(["fit", str(smollm2_path), "--profile", H200, "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--profile" in err
    assert "this machine" in err


def test_fit_dry_run_refuses_a_variant_not_on_disk(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["fit", "llama-3.1-8b-instruct:Q4_K_M", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert "not downloaded" in err
    assert "llm-scout download" in err
