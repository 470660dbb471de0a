"""`llm-scout fit` for AWQ variants: the vLLM command, in text and in ``--json``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop import cli
from desktop.core.catalog import load_catalog
from desktop.core.fit import FitTarget, plan_vllm
from desktop.core.hardware import load_profile

AWQ_7B = "qwen2.5-7b-instruct:AWQ"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = cli.main(["fit", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def expected_command(variant_id: str, profile: str, n_ctx: int, **kwargs: Any) -> str:
    model, variant = load_catalog().variant(variant_id)
    target = FitTarget.from_variant(model, variant)
    return plan_vllm(target, load_profile(profile), n_ctx=n_ctx, **kwargs).command


def test_fit_prints_the_vllm_command(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, AWQ_7B, "--profile", "rtx-3060-12gb", "--ctx", "8192")
    command = expected_command(AWQ_7B, "rtx-3060-12gb", 8192)
    assert command.startswith("vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ --quantization awq")
    assert f"  {command}\n" in out
    assert "--max-model-len 8192" in out
    assert "per GPU:" in out


def test_fit_json_carries_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(
        run(capsys, AWQ_7B, "--profile", "rtx-3060-12gb", "--ctx", "8192", "--json")
    )
    vllm = document["vllm"]
    assert vllm["command"] == expected_command(AWQ_7B, "rtx-3060-12gb", 8192)
    assert vllm["argv"][:2] == ["vllm", "serve"]
    assert vllm["tensor_parallel_size"] == 1
    assert vllm["per_gpu"]["total"] > vllm["per_gpu"]["weights"] > 0
    assert document["vllm_what_if"] is None


def test_without_a_capable_gpu_it_says_what_is_needed_and_shows_a_what_if(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run(capsys, AWQ_7B, "--profile", "laptop-16gb-cpu")
    assert "NVIDIA GPU with compute capability 7.5 or newer" in out
    assert "on the what-if profile rtx-3060-12gb:" in out
    n_ctx = json.loads(run(capsys, AWQ_7B, "--profile", "laptop-16gb-cpu", "--json"))["n_ctx"]
    assert expected_command(AWQ_7B, "rtx-3060-12gb", n_ctx) in out
    document = json.loads(run(capsys, AWQ_7B, "--profile", "laptop-16gb-cpu", "--json"))
    assert document["vllm"]["command"] is None
    assert "compute capability 7.5" in document["vllm"]["reason"]
    assert document["vllm_what_if"]["profile"] == "rtx-3060-12gb"
    assert document["vllm_what_if"]["command"].startswith("vllm serve Qwen/Qwen2.5-7B")


def test_tensor_and_pipeline_parallel_options(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("llama-3.1-70b-instruct:AWQ", "--profile", "h100-80gb", "--ctx", "8192")
    document = json.loads(run(capsys, *args, "--json", "--pipeline-parallel", "2"))
    vllm = document["vllm"]
    assert vllm["pipeline_parallel_size"] == 2
    assert vllm["command"].endswith("--pipeline-parallel-size 2")
    assert vllm["per_gpu"]["n_gpus"] == 2
    out = run(capsys, *args, "--tensor-parallel", "2")
    assert "not on" in out  # the profile has one H100: two cannot be used
    assert "needs 2 identical GPUs" in out
    assert cli.main(["fit", "qwen2.5-7b-instruct:Q4_K_M", "--tensor-parallel", "2"]) != 0
    assert "AWQ variants" in capsys.readouterr().err
