"""`llm-scout catalog`: filters, fit columns from the real estimator, JSON and errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop import cli
from desktop.core import paths
from desktop.core.catalog import load_catalog

VERDICTS = {"gpu", "partial", "cpu", "no"}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = cli.main(["catalog", *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)  # exactly one JSON document
    return document


def by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["id"]: v for v in document["variants"]}


def test_json_lists_every_variant_with_a_fit(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, "--profile", "rtx-4090-24gb")
    total = len(load_catalog().variants())
    assert document["count"] == len(document["variants"]) == total
    assert document["n_ctx"] == 4096  # the settings' default
    assert "4090" in document["profile"]
    rows = by_id(document)
    for row in rows.values():
        assert row["fit"]["verdict"] in VERDICTS
    small = rows["qwen2.5-0.5b-instruct:Q4_K_M"]
    assert small["fit"]["verdict"] == "gpu"
    assert small["fit"]["tokens_per_s"] > 50
    assert small["zh"] is True
    assert small["license"]["commercial_use"] is True
    big = rows["llama-3.1-70b-instruct:Q8_0"]
    assert big["fit"]["verdict"] in ("partial", "cpu", "no")
    assert len(big["files"]) == 2
    assert big["verified"] is False
    assert all(f["sha256"] is None for f in big["files"])
    awq = rows["qwen2.5-7b-instruct:AWQ"]
    assert awq["format"] == "awq"
    assert awq["fit"]["vram_bytes"] > 0


def test_fits_keeps_only_what_runs(capsys: pytest.CaptureFixture[str]) -> None:
    everything = run_json(capsys, "--profile", "raspberry-pi-5-8gb")
    fitting = run_json(capsys, "--profile", "raspberry-pi-5-8gb", "--fits")
    assert 0 < fitting["count"] < everything["count"]
    assert all(v["fit"]["verdict"] in ("gpu", "partial", "cpu") for v in fitting["variants"])
    ids = set(by_id(fitting))
    assert "qwen2.5-0.5b-instruct:Q4_K_M" in ids
    assert "llama-3.3-70b-instruct:Q4_K_M" not in ids
    assert not any(v["format"] == "awq" for v in fitting["variants"])  # no NVIDIA GPU


def test_ctx_changes_the_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--profile", "laptop-16gb-cpu", "--quant", "Q4_K_M", "--family", "llama")
    short = by_id(run_json(capsys, *args, "--ctx", "2048"))
    long = by_id(run_json(capsys, *args, "--ctx", "65536"))
    key = "llama-3.1-8b-instruct:Q4_K_M"
    assert long[key]["fit"]["ram_bytes"] > short[key]["fit"]["ram_bytes"] + 2 * 1024**3
    assert set(short) == set(long)
    assert all(k.endswith(":Q4_K_M") for k in short)


def test_filters_reach_the_listing(capsys: pytest.CaptureFixture[str]) -> None:
    awq = run_json(capsys, "--profile", "h100-80gb", "--family", "qwen", "--format", "awq")
    assert awq["count"] >= 5
    assert {v["family"] for v in awq["variants"]} == {"qwen"}
    assert {v["format"] for v in awq["variants"]} == {"awq"}
    zh = run_json(capsys, "--profile", "h100-80gb", "--lang", "zh", "--commercial")
    assert zh["count"] > 0
    assert all(v["zh"] and v["license"]["commercial_use"] for v in zh["variants"])
    assert not any(v["model_id"] == "qwen2.5-3b-instruct" for v in zh["variants"])
    found = run_json(capsys, "--profile", "h100-80gb", "--search", "coder", "--quant", "Q8_0")
    assert [v["id"] for v in found["variants"]] == ["qwen2.5-coder-7b-instruct:Q8_0"]


def test_sort_by_size(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, "--profile", "h100-80gb", "--family", "phi", "--sort", "size")
    sizes = [v["size_bytes"] for v in document["variants"]]
    assert sizes == sorted(sizes)


def test_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["catalog", "--profile", "rtx-3060-12gb", "--family", "gemma", "--quant", "Q4_K_M"]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("id"))
    for column in ("params", "quant", "size", "verdict", "est. tok/s", "licence", "zh"):
        assert column in header
    rows = [line for line in lines if line.startswith("gemma-")]
    assert len(rows) == 9
    gemma_4b = next(r for r in rows if r.startswith("gemma-3-4b-it:Q4_K_M"))
    assert " gpu " in gemma_4b
    assert " 3.9B " in gemma_4b
    assert "Gemma Terms of Use" in gemma_4b
    assert gemma_4b.endswith("yes")  # Chinese
    assert "~" in gemma_4b  # size not verified
    assert not next(r for r in rows if r.startswith("gemma-3-1b-it:")).endswith("yes")
    assert "9 variants" in out


def test_this_machine_is_probed_without_profile(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, "--family", "smollm", "--quant", "Q4_1")
    assert document["profile"] == "this machine"
    (row,) = document["variants"]
    assert row["fit"]["verdict"] in ("gpu", "cpu")  # 98 MB fits anywhere tests run
    assert row["fit"]["ram_bytes"] > row["size_bytes"] // 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ctx", "0"], "--ctx"),
        (["--family", "mistral"], "Unknown family mistral"),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert cli.main(["catalog", "--profile", "h100-80gb", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err
    assert err.count("\n") == 1


def test_unknown_profile_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["catalog", "--profile", "no-such-machine"]) == 1
    _, err = capsys.readouterr()
    assert "no-such-machine" in err


def test_broken_user_catalog_warns_and_lists_the_bundled_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    user = paths.user_catalog_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('{"schema_version": 1, "models": [{"id": "Bad Id"}]}', encoding="utf-8")
    document = run_json(capsys, "--profile", "h100-80gb", "--family", "phi")
    assert document["count"] > 0
    assert document["sources"] == [str(paths.bundled_catalog_path())]
    code = cli.main(["catalog", "--profile", "h100-80gb", "--family", "phi", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    json.loads(out)
    assert str(user) in err
    assert "/models/0/id" in err


def test_user_models_show_up(capsys: pytest.CaptureFixture[str]) -> None:
    user = paths.user_catalog_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    overlay = {
        "schema_version": 1,
        "models": [{"id": "phi-4", "variants": [{"quant": "IQ4_XS", "format": "gguf",
                    "repo": "bartowski/phi-4-GGUF",
                    "files": [{"name": "phi-4-IQ4_XS.gguf", "size_bytes": 7_940_000_000}]}]}],
    }  # fmt: skip
    user.write_text(json.dumps(overlay), encoding="utf-8")
    rows = by_id(run_json(capsys, "--profile", "rtx-4090-24gb", "--family", "phi"))
    assert rows["phi-4:IQ4_XS"]["size_bytes"] == 7_940_000_000
    assert rows["phi-4:IQ4_XS"]["fit"]["verdict"] == "gpu"


def test_profile_from_a_saved_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from desktop.core.hardware import load_profile

    saved = tmp_path / "office-pc.json"
    load_profile("rtx-3060-12gb").save(saved)
    from_file = run_json(capsys, "--profile", str(saved), "--family", "qwen", "--quant", "Q4_K_M")
    by_name = run_json(
        capsys, "--profile", "rtx-3060-12gb", "--family", "qwen", "--quant", "Q4_K_M"
    )
    assert from_file["variants"] == by_name["variants"]
    verdicts = {v["id"]: v["fit"]["verdict"] for v in from_file["variants"]}
    assert verdicts["qwen2.5-7b-instruct:Q4_K_M"] == "gpu"
    assert verdicts["qwen2.5-72b-instruct:Q4_K_M"] != "gpu"


def test_context_past_the_trained_length_is_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    rows = by_id(run_json(capsys, "--profile", "rtx-4090-24gb", "--ctx", "131072"))
    small = rows["smollm2-135m-instruct:Q4_1"]  # trained on 8192 tokens
    assert small["fit"]["past_trained_ctx"] is True
    long = rows["qwen2.5-0.5b-instruct:Q4_K_M"]  # trained on 32768 tokens... or more
    trained = load_catalog().variant(long["id"])[0].arch.n_ctx_train
    assert long["fit"]["past_trained_ctx"] is (trained < 131072)
    within = by_id(run_json(capsys, "--profile", "rtx-4090-24gb", "--ctx", "4096"))
    assert within["smollm2-135m-instruct:Q4_1"]["fit"]["past_trained_ctx"] is False
    assert cli.main(["catalog", "--search", "smollm2", "--ctx", "131072"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("smollm2-135m-instruct:Q4_1"))
    assert "cpu!" in line or "gpu!" in line
    assert "past the model's trained length" in out


def test_unverified_sizes_follow_the_quant_order(capsys: pytest.CaptureFixture[str]) -> None:
    """Sizes estimated from the shapes (llama.cpp's per-tensor types), not params x bits: a
    K-quant keeps wider tensors, so for one model the files grow Q3_K_M < Q4_K_M < Q5_K_M < Q8_0
    and the table shows what it estimated, marked '~'."""
    assert cli.main(["catalog", "--search", "gemma-3-270m-it"]) == 0
    out = capsys.readouterr().out
    sizes: dict[str, str] = {}
    for line in out.splitlines():
        if line.startswith("gemma-3-270m-it:"):
            parts = line.split()  # id, params, quant, size number, size unit~, ...
            assert parts[4] == "MiB~", line
            sizes[parts[0].split(":")[1]] = parts[3]
    order = ["Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0"]
    mib = [float(sizes[q]) for q in order if q in sizes]
    assert len(mib) >= 4
    assert mib == sorted(mib)
