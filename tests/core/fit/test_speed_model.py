"""The speed model from first principles and the MoE placements (no llama.cpp run here).

A token reads attention, dense weights, the router and k of n experts, the output matrix and
the KV cells in use (a bounded sliding-window cache only its window); every compute node of
llama.cpp's one-token graph costs a fixed time on its device. Mixture-of-experts layers have
more nodes; a prompt batch stages the largest host weight on the GPU; ``n_cpu_moe`` keeps
expert tensors in RAM.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.core.catalog import load_catalog
from desktop.core.fit import FitTarget, estimate
from desktop.core.fit import memory as fm
from desktop.core.fit.place import STAGING_EXTRA_BYTES
from desktop.core.fit.speed import (
    CPU_DECODE_RATE_PER_CORE,
    CPU_EXPERT_RATE_PER_CORE,
    CPU_KV_RATE_PER_CORE,
    CPU_MEMORY_EFFICIENCY,
    CPU_NODE_S,
    CPU_PP_FLOPS_PER_CORE,
    CPU_TOKEN_S,
    GPU_EFFICIENCY,
    GPU_NODE_S,
    block_nodes,
    decode_kernel,
    outside_nodes,
    pp_kernel,
    quant_kernel,
    weight_rate,
)
from desktop.core.hardware import load_profile

GB = 1e9


def variant(vid: str) -> FitTarget:
    model, var = load_catalog().variant(vid)
    return FitTarget.from_variant(model, var)


def test_block_nodes_follow_the_architecture() -> None:
    moe = variant("qwen3-30b-a3b:Q4_K_M").arch
    dense = variant("qwen3-4b:Q4_K_M").arch
    gemma = variant("gemma-2-2b-it:Q4_K_M").arch
    assert block_nodes(dense) == 26  # llama's 22 + q/k RMS norms
    # a MoE FFN: 8 more nodes than a dense one, plus an ADD per expert used beyond the first
    assert block_nodes(moe) == 26 + 8 + (moe.n_expert_used - 1)
    assert block_nodes(gemma) == 30
    assert outside_nodes(gemma) == 10
    assert outside_nodes(dense) == 6


def test_cpu_time_per_token_is_the_longer_of_compute_and_memory_plus_nodes() -> None:
    target = variant("qwen3-30b-a3b:Q4_K_M")
    profile = load_profile("h100-80gb")
    cpu = estimate(target, profile, n_ctx=4096, n_gpu_layers=0)
    assert cpu.roofline_tokens_per_s is not None
    assert cpu.tokens_per_s is not None
    bandwidth = profile.cpu.memory_bandwidth_gbps
    assert bandwidth is not None
    read = bandwidth * GB / cpu.roofline_tokens_per_s
    # The bytes: everything but the embeddings, with 8 of 128 experts' share, and the cache.
    layers = sum(target.layers())
    experts = target.expert_bytes * 8 / 128
    kv = fm.kv_shape(target.arch, "f16").range_bytes(128, 0, 48)
    assert read == pytest.approx(layers - target.expert_bytes + experts + target.out_bytes() + kv)
    # Compute: the experts at the quantized MUL_MAT_ID rate, the rest at the mix of the file's
    # weight types, the cache at its own rate, on every physical core; memory: every byte at
    # CPU_MEMORY_EFFICIENCY of the bandwidth (17 GB do not fit in any cache).
    cores = profile.cpu.physical_cores
    other = read - experts - kv
    compute = (
        other / weight_rate(target.weight_types, target.quant)
        + experts / CPU_EXPERT_RATE_PER_CORE["quantized"]
        + kv / CPU_KV_RATE_PER_CORE
    ) / cores
    memory = read / (bandwidth * GB * CPU_MEMORY_EFFICIENCY)
    nodes = 48 * block_nodes(target.arch) + 6
    seconds = max(compute, memory) + nodes * CPU_NODE_S + CPU_TOKEN_S
    assert cpu.tokens_per_s == pytest.approx(1 / seconds, rel=1e-6)


def test_a_model_the_cache_holds_is_bound_by_compute_only() -> None:
    """The ground truth's small models stay in the CPU's last-level cache and run faster than
    memory would allow; the same model on a CPU whose cache is too small is memory-bound."""
    target = variant("qwen2.5-0.5b-instruct:Q4_K_M")
    base = load_profile("h100-80gb")
    bandwidth = 10.0  # slow memory, so that memory is what bounds the uncached model
    big_cache = replace(
        base, cpu=replace(base.cpu, l3_bytes=2 * 1024**3, memory_bandwidth_gbps=bandwidth)
    )
    small_cache = replace(big_cache, cpu=replace(big_cache.cpu, l3_bytes=8 * 1024**2))
    cached = estimate(target, big_cache, n_ctx=4096, n_gpu_layers=0)
    uncached = estimate(target, small_cache, n_ctx=4096, n_gpu_layers=0)
    assert cached.tokens_per_s
    assert uncached.tokens_per_s
    assert uncached.roofline_tokens_per_s
    assert cached.roofline_tokens_per_s == uncached.roofline_tokens_per_s
    assert cached.tokens_per_s > uncached.tokens_per_s
    assert uncached.tokens_per_s < uncached.roofline_tokens_per_s  # never above the roofline
    nodes = target.arch.n_layers * block_nodes(target.arch) + outside_nodes(target.arch)
    read = bandwidth * GB / uncached.roofline_tokens_per_s
    memory = read / (bandwidth * GB * CPU_MEMORY_EFFICIENCY)
    assert 1 / uncached.tokens_per_s == pytest.approx(memory + nodes * CPU_NODE_S, rel=1e-6)


def test_fewer_threads_compute_on_fewer_cores() -> None:
    target = variant("qwen2.5-0.5b-instruct:Q4_K_M")
    base = load_profile("h100-80gb")
    cached = replace(base, cpu=replace(base.cpu, l3_bytes=2 * 1024**3))
    every = estimate(target, cached, n_ctx=4096, n_gpu_layers=0)
    one = estimate(target, cached, n_ctx=4096, n_gpu_layers=0, n_threads=1)
    assert every.tokens_per_s
    assert one.tokens_per_s
    assert every.prompt_tokens_per_s
    assert one.prompt_tokens_per_s
    nodes = target.arch.n_layers * block_nodes(target.arch) + outside_nodes(target.arch)
    fixed = nodes * CPU_NODE_S
    # compute time scales with the cores: (1/one - fixed) = cores x (1/every - fixed)
    cores = base.cpu.physical_cores
    assert 1 / one.tokens_per_s - fixed == pytest.approx(cores * (1 / every.tokens_per_s - fixed))
    assert every.prompt_tokens_per_s == pytest.approx(cores * one.prompt_tokens_per_s)


def test_each_weight_type_reads_at_its_kernels_rate() -> None:
    assert decode_kernel("q4_k") == "Q4_K"
    assert decode_kernel("Q4_0") == "Q4_K"  # repacked on x86, like Q4_K
    assert decode_kernel("Q4_1") == "Q5_0"
    assert decode_kernel("BF16") == "F16"
    assert decode_kernel("IQ3_S") == "Q6_K"  # no row: the slowest measured
    assert quant_kernel("Q4_K_M") == "Q4_K"
    assert quant_kernel("Q8_0") == "Q8_0"
    assert quant_kernel("something") == "Q6_K"
    rows = (("Q4_K", 300, 8), ("Q6_K", 100, 1))
    mixed = weight_rate(rows, "Q4_K_M")
    expected = 400 / (
        300 / CPU_DECODE_RATE_PER_CORE["Q4_K"] + 100 / CPU_DECODE_RATE_PER_CORE["Q6_K"]
    )
    assert mixed == pytest.approx(expected)
    assert weight_rate((), "Q8_0") == CPU_DECODE_RATE_PER_CORE["Q8_0"]


def test_moe_is_slower_per_byte_than_dense_of_the_same_active_size() -> None:
    """The issue's direction: a MoE model reads few bytes but runs many more nodes."""
    profile = load_profile("h100-80gb")
    moe = estimate(variant("qwen3-30b-a3b:Q4_K_M"), profile, n_ctx=4096)
    dense = estimate(variant("qwen3-4b:Q4_K_M"), profile, n_ctx=4096)
    assert moe.verdict == dense.verdict == "gpu"
    assert moe.roofline_tokens_per_s
    assert dense.roofline_tokens_per_s
    assert moe.tokens_per_s
    assert dense.tokens_per_s
    roof_ratio = moe.roofline_tokens_per_s / dense.roofline_tokens_per_s
    assert moe.tokens_per_s / dense.tokens_per_s < roof_ratio
    # Without the node costs the MoE model would be predicted at the roofline's share.
    bandwidth = profile.gpus[0].bandwidth_gbps
    assert bandwidth is not None
    bytes_only = moe.roofline_tokens_per_s * GPU_EFFICIENCY
    nodes = 48 * block_nodes(variant("qwen3-30b-a3b:Q4_K_M").arch) + 6
    assert 1 / moe.tokens_per_s == pytest.approx(
        1 / bytes_only + nodes * GPU_NODE_S + CPU_TOKEN_S, rel=1e-6
    )


def test_a_bounded_sliding_window_cache_is_read_only_to_its_window() -> None:
    target = variant("gemma-3-4b-it:Q4_K_M")
    profile = load_profile("h100-80gb")
    arch = target.arch
    full = estimate(target, profile, n_ctx=32768, prompt_tokens=30000)
    bounded = estimate(target, profile, n_ctx=32768, prompt_tokens=30000, swa_full=False)
    assert full.roofline_tokens_per_s
    assert bounded.roofline_tokens_per_s
    bandwidth = profile.gpus[0].bandwidth_gbps
    assert bandwidth is not None
    read_full = bandwidth * GB / full.roofline_tokens_per_s
    read_bounded = bandwidth * GB / bounded.roofline_tokens_per_s
    swa = [i for i in range(arch.n_layers) if arch.swa_layers[i]]
    row = 2 * arch.n_head_kv[swa[0]] * arch.head_dim_k * 2  # K + V, f16
    window = fm.swa_cells(arch)
    cells = fm.padded_ctx(30000)
    assert read_full - read_bounded == pytest.approx(len(swa) * row * (cells - window), rel=1e-6)


def test_partial_offload_stages_the_largest_host_weight() -> None:
    profile = load_profile("h100-80gb")
    for vid in ("llama-3.1-8b-instruct:Q8_0", "qwen3-30b-a3b:Q4_K_M"):
        target = variant(vid)
        n = target.arch.n_layers
        all_gpu = estimate(target, profile, n_ctx=8192, n_gpu_layers=-1)
        half = estimate(target, profile, n_ctx=8192, n_gpu_layers=n // 2)
        largest = max(target.max_block_tensor_bytes, target.max_expert_tensor_bytes)
        assert half.vram.compute - all_gpu.vram.compute == largest + STAGING_EXTRA_BYTES
    moe = variant("qwen3-30b-a3b:Q4_K_M")
    # A MoE layer stages one expert tensor, not its three and its attention.
    assert moe.max_expert_tensor_bytes < max(moe.layers()) / 2


def test_experts_kept_in_ram_move_their_bytes_and_their_reads() -> None:
    target = variant("qwen3-30b-a3b:Q4_K_M")
    profile = load_profile("h100-80gb")
    gpu = estimate(target, profile, n_ctx=8192, n_gpu_layers=-1)
    some = estimate(target, profile, n_ctx=8192, n_gpu_layers=-1, n_cpu_moe=12)
    every = estimate(target, profile, n_ctx=8192, n_gpu_layers=-1, n_cpu_moe=48)
    per_layer = target.expert_bytes // 48
    assert some.n_cpu_moe == 12
    assert every.n_cpu_moe == 48
    assert gpu.vram.weights - some.vram.weights == 12 * per_layer
    assert some.ram.weights - gpu.ram.weights == 12 * per_layer
    assert every.vram.weights - gpu.vram.weights == -48 * per_layer
    # Host experts are staged on the GPU for a prompt batch, like partial offload's layers.
    assert some.vram.compute - gpu.vram.compute == (
        target.max_expert_tensor_bytes + STAGING_EXTRA_BYTES
    )
    assert gpu.tokens_per_s
    assert some.tokens_per_s
    assert every.tokens_per_s
    assert every.tokens_per_s < some.tokens_per_s < gpu.tokens_per_s
    assert any("--n-cpu-moe 12" in r and "cannot load" in r for r in some.reasons)
    assert some.to_dict()["n_cpu_moe"] == 12


def test_a_moe_model_too_big_for_the_gpu_is_told_how_many_experts_to_keep_in_ram() -> None:
    target = variant("qwen3-30b-a3b:Q4_K_M")
    small = load_profile("rtx-3060-12gb")
    result = estimate(target, small, n_ctx=8192)
    assert result.verdict == "partial"
    n = result.suggested_n_cpu_moe
    assert 0 < n < 48
    suggested = estimate(target, small, n_ctx=8192, n_cpu_moe=n)
    fewer = estimate(target, small, n_ctx=8192, n_cpu_moe=n - 1, n_gpu_layers=-1)
    assert suggested.verdict == "gpu"
    assert fewer.verdict != "gpu"  # the fewest that fit
    assert suggested.tokens_per_s
    assert result.tokens_per_s
    assert suggested.tokens_per_s > result.tokens_per_s
    said = [r for r in result.reasons if f"--n-cpu-moe {n}" in r]
    assert said
    assert f"{suggested.tokens_per_s:.0f} tokens/s" in said[0]
    # A dense model and a model that fits are told nothing of the sort.
    assert estimate(target, load_profile("h100-80gb"), n_ctx=8192).suggested_n_cpu_moe == 0
    dense = estimate(variant("qwen3-32b:Q4_K_M"), small, n_ctx=8192)
    assert dense.suggested_n_cpu_moe == 0
    assert dense.n_cpu_moe == 0


def test_n_cpu_moe_means_nothing_without_experts() -> None:
    target = variant("qwen3-4b:Q4_K_M")
    profile = load_profile("h100-80gb")
    plain = estimate(target, profile, n_ctx=8192)
    asked = estimate(target, profile, n_ctx=8192, n_cpu_moe=10)
    assert asked.n_cpu_moe == 0
    assert replace(asked, reasons=plain.reasons) == plain
    assert any("no experts" in r for r in asked.reasons)


def test_prompt_processing_is_arithmetic_on_the_cpu_cores() -> None:
    profile = load_profile("laptop-16gb-cpu")
    cores = profile.cpu.physical_cores
    dense = variant("qwen3-4b:Q8_0")
    result = estimate(dense, profile, n_ctx=4096)
    assert result.verdict == "cpu"
    arch = dense.arch
    tied = not dense.output_bytes
    blocks = arch.n_params - arch.n_vocab * arch.n_embd * (1 if tied else 2)
    attention = arch.n_layers * 2 * arch.n_head * (arch.head_dim_k + arch.head_dim_v) * 512
    rates = CPU_PP_FLOPS_PER_CORE
    seconds = 2 * blocks / (rates["Q8_0"] * cores) + attention / (rates["F16"] * cores)
    assert result.prompt_tokens_per_s == pytest.approx(1 / seconds)
    assert result.to_dict()["prompt_tokens_per_s"] == result.prompt_tokens_per_s
    # A MoE batch multiplies only the experts its tokens use; fewer cores, fewer tokens/s.
    moe = estimate(variant("qwen3-30b-a3b:Q8_0"), load_profile("h100-80gb"), n_ctx=4096,
                   n_gpu_layers=0)  # fmt: skip
    assert moe.prompt_tokens_per_s is not None
    assert pp_kernel("Q4_K_M") == "Q4_K"
    assert pp_kernel("BF16") == "F16"
    # With GPU layers no prompt speed is predicted (no GPU compute rate is known).
    assert estimate(dense, load_profile("h100-80gb"), n_ctx=4096).prompt_tokens_per_s is None
