"""The vLLM command for AWQ variants: real catalog variants on bundled what-if profiles and
edits of them (several identical GPUs, an older GPU, a busy GPU, mixed cards)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from desktop.core.catalog import load_catalog
from desktop.core.fit import (
    FitTarget,
    estimate,
    per_gpu_memory,
    plan_vllm,
    what_if_plan,
)
from desktop.core.fit import memory as fm
from desktop.core.fit.vllm import (
    UTILIZATION_MARGIN,
    UTILIZATION_MAX,
    tensor_parallel_ok,
    usable_bytes,
)
from desktop.core.hardware import HardwareProfile, load_profile

GIB = 1024**3


def awq(model_id: str) -> FitTarget:
    model, variant = load_catalog().variant(f"{model_id}:AWQ")
    assert variant.format == "awq"
    return FitTarget.from_variant(model, variant)


def gpus(name: str, count: int) -> HardwareProfile:
    """``count`` copies of the GPU of the bundled profile ``name``."""
    profile = load_profile(name)
    gpu = profile.gpus[0]
    return replace(profile, gpus=tuple(replace(gpu, index=i) for i in range(count)))


def test_one_gpu_fits_and_the_command_matches_the_estimate() -> None:
    target = awq("qwen2.5-7b-instruct")
    profile = load_profile("rtx-3060-12gb")
    plan = plan_vllm(target, profile, n_ctx=8192)
    assert plan.fits
    assert plan.tensor_parallel_size == 1
    share = plan.per_gpu
    assert share is not None
    kv = fm.kv_shape(target.arch, "f16").range_bytes(8192, 0, target.arch.n_layers)
    assert share.kv_cache == kv
    assert share.weights == target.weights_bytes
    assert share.overhead == fm.CALIBRATION.vllm_overhead_bytes
    total = profile.gpus[0].memory_total_bytes
    wanted = math.ceil(share.total * (1 + UTILIZATION_MARGIN) / total * 100) / 100
    assert plan.gpu_memory_utilization == pytest.approx(wanted)
    assert 0.5 < plan.gpu_memory_utilization <= UTILIZATION_MAX
    assert plan.command == (
        "vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ --quantization awq --max-model-len 8192 "
        f"--gpu-memory-utilization {wanted:.2f}"
    )
    assert "--tensor-parallel-size" not in plan.command
    assert plan.env == {}
    # The fit's verdict and the command agree.
    fit = estimate(target, profile, n_ctx=8192)
    assert fit.verdict == "gpu"
    assert len(fit.gpu_vram_bytes) == 1
    document = plan.to_dict()
    assert document["command"] == plan.command
    assert document["argv"][:3] == ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct-AWQ"]
    assert document["per_gpu"]["total"] == share.total


def test_a_model_too_big_for_one_gpu_gets_tensor_parallel_two() -> None:
    target = awq("qwen2.5-32b-instruct")  # 8K fits one 4090; a 32K cache does not
    assert plan_vllm(target, gpus("rtx-4090-24gb", 1), n_ctx=8192).tensor_parallel_size == 1
    one = plan_vllm(target, gpus("rtx-4090-24gb", 1), n_ctx=32768)
    assert not one.fits
    assert "per GPU" in one.reason
    assert "RTX 4090" in one.reason
    assert one.command == ""
    profile = gpus("rtx-4090-24gb", 2)
    plan = plan_vllm(target, profile, n_ctx=32768)
    assert plan.fits
    assert plan.tensor_parallel_size == 2
    assert plan.command.endswith("--tensor-parallel-size 2")
    assert plan.gpu_indexes == (0, 1)
    share = plan.per_gpu
    assert share is not None
    assert share.total <= usable_bytes(profile.gpus[0])
    assert share.weights == pytest.approx(target.weights_bytes / 2, rel=1e-6)
    fit = estimate(target, profile, n_ctx=32768)
    assert fit.verdict == "gpu"
    assert len(fit.gpu_vram_bytes) == 2


def test_seventy_b_takes_four_gpus_and_the_smallest_power_of_two_wins() -> None:
    target = awq("llama-3.1-70b-instruct")
    plan = plan_vllm(target, gpus("rtx-4090-24gb", 8), n_ctx=32768)
    assert plan.fits
    assert plan.tensor_parallel_size == 4  # 2 is too few, 8 more than needed
    assert per_gpu_memory(target, 32768, tensor_parallel=2).total > usable_bytes(
        load_profile("rtx-4090-24gb").gpus[0]
    )
    assert "--tensor-parallel-size 4" in plan.command
    assert plan.gpu_indexes == (0, 1, 2, 3)
    # Three GPUs: four are needed, so it does not fit, and asking for 4 says why.
    three = plan_vllm(target, gpus("rtx-4090-24gb", 3), n_ctx=32768)
    assert not three.fits
    asked = plan_vllm(target, gpus("rtx-4090-24gb", 3), n_ctx=32768, tensor_parallel=4)
    assert not asked.fits
    assert "needs 4 identical GPUs" in asked.reason


def test_does_not_fit_says_how_much_it_needs() -> None:
    target = awq("qwen2.5-72b-instruct")
    plan = plan_vllm(target, load_profile("rtx-3060-12gb"), n_ctx=8192)
    assert not plan.fits
    assert plan.tensor_parallel_size == 0
    assert plan.command == ""
    assert plan.argv() == []
    need = per_gpu_memory(target, 8192).total / GIB
    assert f"{need:.1f} GiB per GPU" in plan.reason
    assert "RTX 3060" in plan.reason
    assert estimate(target, load_profile("rtx-3060-12gb"), n_ctx=8192).verdict == "no"


@pytest.mark.parametrize("profile_name", ["laptop-16gb-cpu", "apple-m2-16gb"])
def test_no_nvidia_gpu_explains_what_is_needed(profile_name: str) -> None:
    plan = plan_vllm(awq("qwen2.5-7b-instruct"), load_profile(profile_name), n_ctx=4096)
    assert not plan.fits
    assert "NVIDIA GPU with compute capability 7.5" in plan.reason
    assert "Linux" in plan.reason
    assert plan.to_dict()["command"] is None


def test_a_compute_capability_7_0_gpu_is_not_enough() -> None:
    profile = load_profile("a100-80gb")
    v100 = replace(profile, gpus=(replace(profile.gpus[0], compute_capability="7.0"),))
    plan = plan_vllm(awq("qwen2.5-7b-instruct"), v100, n_ctx=4096)
    assert not plan.fits
    assert "compute capability 7.5" in plan.reason
    turing = replace(profile, gpus=(replace(profile.gpus[0], compute_capability="7.5"),))
    assert plan_vllm(awq("qwen2.5-7b-instruct"), turing, n_ctx=4096).fits


def test_tensor_parallel_needs_heads_that_divide() -> None:
    target = awq("qwen2.5-7b-instruct")  # 28 attention heads, 4 KV heads
    assert target.arch.n_head == 28
    assert tensor_parallel_ok(target, 2)
    assert tensor_parallel_ok(target, 4)
    assert not tensor_parallel_ok(target, 8)
    plan = plan_vllm(target, gpus("rtx-3060-12gb", 8), n_ctx=4096, tensor_parallel=8)
    assert not plan.fits
    assert "28 attention heads over 8 GPUs" in plan.reason
    forced = plan_vllm(target, gpus("rtx-3060-12gb", 8), n_ctx=4096, tensor_parallel=4)
    assert forced.tensor_parallel_size == 4
    assert "--tensor-parallel-size 4" in forced.command


def test_kv_heads_are_copied_not_split_below_one_head_per_gpu() -> None:
    target = awq("llama-3.1-70b-instruct")  # 8 KV heads
    full = per_gpu_memory(target, 8192).kv_cache
    assert per_gpu_memory(target, 8192, tensor_parallel=8).kv_cache == full // 8
    # Sixteen GPUs still hold one KV head each: the same as eight.
    assert per_gpu_memory(target, 8192, tensor_parallel=16).kv_cache == full // 8


def test_pipeline_parallel_reports_the_heaviest_stage() -> None:
    target = awq("llama-3.1-70b-instruct")  # 80 layers, untied output matrix
    one = per_gpu_memory(target, 8192)
    two = per_gpu_memory(target, 8192, pipeline_parallel=2)
    assert two.n_gpus == 2
    assert two.kv_cache == one.kv_cache // 2
    # Half the layers and one of the embeddings / output matrix: half the weights.
    assert two.weights == pytest.approx(one.weights / 2, rel=1e-6)
    # Tied embeddings: both end stages need the matrix, so a stage holds more than half.
    tied = awq("qwen2.5-3b-instruct")
    assert tied.arch.extra.get("tied_embeddings") is not False
    half = per_gpu_memory(tied, 8192, pipeline_parallel=2).weights
    assert tied.weights_bytes / 2 < half < tied.weights_bytes
    both = per_gpu_memory(target, 8192, tensor_parallel=4, pipeline_parallel=2)
    assert both.n_gpus == 8
    assert both.weights == pytest.approx(two.weights / 4, rel=1e-6)
    assert both.to_dict()["total"] == both.total
    # Two nodes of two 4090s each: pipeline over the nodes, tensor parallel inside.
    plan = plan_vllm(target, gpus("rtx-4090-24gb", 1), n_ctx=32768, pipeline_parallel=2)
    assert not plan.fits  # two nodes of one 4090 are too few for 70B at 32K
    assert "2 pipeline stages" in plan.reason
    plan = plan_vllm(target, gpus("rtx-4090-24gb", 4), n_ctx=32768, pipeline_parallel=2)
    assert plan.fits
    assert plan.tensor_parallel_size == 2
    assert plan.command.endswith("--tensor-parallel-size 2 --pipeline-parallel-size 2")
    assert any("Ray cluster" in note for note in plan.notes)
    with pytest.raises(ValueError, match="at least 1"):
        per_gpu_memory(target, 8192, tensor_parallel=0)


def test_utilization_stays_within_bounds_and_what_is_free() -> None:
    small = awq("qwen2.5-0.5b-instruct")
    h100 = load_profile("h100-80gb")
    plan = plan_vllm(small, h100, n_ctx=4096)
    assert plan.gpu_memory_utilization == 0.5  # the floor: room for more than one sequence
    gpu = h100.gpus[0]
    free = int(gpu.memory_total_bytes * 0.305)
    busy = replace(h100, gpus=(replace(gpu, memory_free_bytes=free),))
    plan = plan_vllm(small, busy, n_ctx=4096)
    assert plan.fits
    assert plan.gpu_memory_utilization == 0.3  # never more than is free (vLLM checks)
    big = awq("qwen2.5-72b-instruct")
    tight = plan_vllm(big, h100, n_ctx=32768)
    assert tight.fits
    assert tight.gpu_memory_utilization <= UTILIZATION_MAX


def test_the_gpus_used_are_named_when_they_are_not_the_first() -> None:
    base = load_profile("rtx-4090-24gb")
    small = load_profile("rtx-3060-12gb").gpus[0]
    profile = replace(base, gpus=(replace(small, index=0), replace(base.gpus[0], index=1)))
    plan = plan_vllm(awq("qwen2.5-14b-instruct"), profile, n_ctx=8192)
    assert plan.fits
    assert plan.gpu_indexes == (1,)
    assert plan.env == {"CUDA_VISIBLE_DEVICES": "1"}
    assert plan.command.startswith("CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen2.5-14B")
    # A 3060 and a 4090 are not identical: no tensor parallel across them.
    mixed = plan_vllm(awq("qwen2.5-32b-instruct"), profile, n_ctx=32768)
    assert not mixed.fits


def test_context_past_training_is_capped_and_gguf_is_refused() -> None:
    target = awq("qwen2.5-7b-instruct")
    plan = plan_vllm(target, load_profile("a100-80gb"), n_ctx=65536)
    assert plan.max_model_len == 32768
    assert "--max-model-len 32768" in plan.command
    assert any("trained context" in n for n in plan.notes)
    model, variant = load_catalog().variant("qwen2.5-7b-instruct:Q4_K_M")
    gguf = plan_vllm(FitTarget.from_variant(model, variant), load_profile("a100-80gb"), n_ctx=4096)
    assert not gguf.fits
    assert "AWQ" in gguf.reason


def test_what_if_picks_the_smallest_discrete_gpu_that_runs_it() -> None:
    found = what_if_plan(awq("qwen2.5-7b-instruct"), 4096)
    assert found is not None
    name, plan = found
    assert name == "rtx-3060-12gb"
    assert plan.fits
    assert not load_profile(name).unified_memory
    big = what_if_plan(awq("qwen2.5-72b-instruct"), 8192)
    assert big is not None
    assert big[0] in {"a100-80gb", "h100-80gb"}
