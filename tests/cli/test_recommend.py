"""`llm-scout recommend`: the bundled catalog and its published scores, ranked on what-if
profiles; the same verdicts and speeds as `catalog`; every figure with its source."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop import cli

FIT_OK = {"gpu", "partial", "cpu"}


def run_json(capsys: pytest.CaptureFixture[str], command: str, *args: str) -> dict[str, Any]:
    code = cli.main([command, *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)  # exactly one JSON document
    return document


def test_json_picks_are_ranked_fitting_variants_with_sources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = run_json(capsys, "recommend", "--task", "code", "--profile", "rtx-4090-24gb")
    picks = doc["picks"]
    assert doc["task"] == "code"
    assert doc["count"] == len(picks) > 10
    assert [p["rank"] for p in picks] == list(range(1, len(picks) + 1))
    for pick in picks:
        assert {"variant", "fits", "quality", "tokens_per_s", "pareto", "sources"} <= set(pick)
        assert pick["fits"] is True
        assert pick["verdict"] in FIT_OK
        assert pick["tokens_per_s"] >= doc["min_speed"]
        for evidence in pick["evidence"]:
            assert evidence["record"]["source"] in pick["sources"]
            assert evidence["record"]["source"].startswith("https://")
        if pick["quant_cost"] is not None:
            assert pick["quant_cost"]["source"] in pick["sources"]
    scored = [p["quality"] for p in picks if p["quality"] is not None]
    assert scored == sorted(scored, reverse=True), "best first"
    first_unscored = next(i for i, p in enumerate(picks) if p["quality"] is None)
    assert all(p["quality"] is None for p in picks[first_unscored:])
    assert picks[0]["pareto"] is True
    assert set(doc["pareto"]) == {p["variant"] for p in picks if p["pareto"]}
    assert doc["mixing"]["mixes_sources"] is True


def test_the_numbers_are_the_catalogs(capsys: pytest.CaptureFixture[str]) -> None:
    """One source for every number: the speed and memory of a pick are `catalog`'s."""
    rec = run_json(capsys, "recommend", "--profile", "rtx-3060-12gb", "--ctx", "8192")
    cat = run_json(capsys, "catalog", "--profile", "rtx-3060-12gb", "--ctx", "8192")
    rows = {v["id"]: v["fit"] for v in cat["variants"]}
    for pick in rec["picks"]:
        fit = rows[pick["variant"]]
        assert fit["verdict"] == pick["verdict"]
        assert fit["tokens_per_s"] == pick["tokens_per_s"]
        assert fit["ram_bytes"] == pick["ram_bytes"]
        assert fit["vram_bytes"] == pick["vram_bytes"]
    not_ranked = {k for k, f in rows.items() if f["verdict"] not in FIT_OK}
    assert not not_ranked & {p["variant"] for p in rec["picks"]}


def test_a_jetson_and_an_rtx_4090_get_different_best_picks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    jetson = run_json(capsys, "recommend", "--task", "code", "--profile", "jetson-orin-nano-8gb")
    rtx = run_json(capsys, "recommend", "--task", "code", "--profile", "rtx-4090-24gb")
    assert jetson["picks"][0]["variant"] != rtx["picks"][0]["variant"]


def test_min_speed_zero_keeps_slow_variants(capsys: pytest.CaptureFixture[str]) -> None:
    default = run_json(capsys, "recommend", "--profile", "rtx-4090-24gb")
    everything = run_json(capsys, "recommend", "--profile", "rtx-4090-24gb", "--min-speed", "0")
    assert everything["count"] > default["count"]
    assert default["left_out"]["below the minimum speed"] == everything["count"] - default["count"]


def test_human_output_says_why_and_lists_the_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["recommend", "--task", "zh", "--profile", "jetson-orin-nano-8gb"])
    out, _err = capsys.readouterr()
    assert code == 0
    assert out.startswith("Best for Chinese")
    assert "C-Eval" in out
    assert "Sources:\n  [1] https://" in out
    assert "same top token" in out  # the quant cost, cited
    assert "not directly comparable across vendors" in out


def test_explain_prints_the_whole_derivation(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        [
            "recommend",
            "--task",
            "reasoning",
            "--profile",
            "rtx-4090-24gb",
            "--explain",
            "qwen3-8b:Q4_K_M",
        ]
    )
    out, _err = capsys.readouterr()
    assert code == 0
    assert "Task score" in out
    assert "MATH-500" in out
    assert "thinking on" in out
    assert "not used:" in out  # the thinking-off scores, and why
    assert "Quant cost: Q4_K_M keeps the same top token 91.9%" in out
    assert "Quality " in out
    assert "Rank " in out


def test_explain_json_of_a_variant_that_does_not_fit(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(
        capsys,
        "recommend",
        "--profile",
        "raspberry-pi-5-8gb",
        "--explain",
        "qwen2.5-72b-instruct:Q8_0",
    )
    assert doc["ranked"] is False
    assert doc["pick"] is None
    assert doc["left_out"].startswith("does not fit")
    assert doc["task_score"] is not None  # its published scores still show
    assert doc["evidence"]


def test_a_model_without_published_scores_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "recommend", "--profile", "raspberry-pi-5-8gb", "--min-speed", "0")
    smollm = [p for p in doc["picks"] if p["model_id"] == "smollm2-135m-instruct"]
    assert smollm
    assert all(p["quality"] is None and p["no_published_score"] for p in smollm)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ctx", "0"], "--ctx must be a positive"),
        (["--min-speed", "-3"], "--min-speed must be 0 or more"),
        (["--top", "0"], "--top must be 1 or more"),
    ],
)
def test_bad_values_get_one_sentence(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert cli.main(["recommend", *args]) == 2
    _out, err = capsys.readouterr()
    assert message in err
    assert "Traceback" not in err


def test_an_unknown_variant_to_explain_suggests_close_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["recommend", "--explain", "qwen3-8b:Q4_K"]) == 1
    _out, err = capsys.readouterr()
    assert "There is no variant 'qwen3-8b:Q4_K'" in err
    assert "did you mean" in err
