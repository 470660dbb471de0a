"""Fit estimator logic: verdicts on what-if profiles, KV cache formulas, placement, speed, disk.

Targets are built from real architecture numbers (Llama 3 8B/70B, Qwen2.5 7B, DeepSeek-V2-Lite,
Gemma 3, Mamba-style recurrent layers); profiles are the bundled what-if files or small edits
of them. Nothing here runs llama.cpp (see test_fit_measured.py for that).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.core.errors import FitError
from desktop.core.fit import FitResult, FitTarget, MemoryBreakdown, estimate
from desktop.core.fit import memory as fm
from desktop.core.fit.speed import (
    CPU_MEMORY_EFFICIENCY,
    CPU_NODE_S,
    CPU_TOKEN_S,
    GPU_EFFICIENCY,
    GPU_NODE_S,
)
from desktop.core.gguf import ModelArch
from desktop.core.hardware import (
    CpuInfo,
    DiskInfo,
    GpuInfo,
    HardwareProfile,
    MemoryInfo,
    load_profile,
)

GIB = 1024**3
GB = 10**9


def arch(
    name: str = "llama",
    *,
    n_layers: int = 32,
    n_embd: int = 4096,
    n_head: int = 32,
    n_head_kv: int = 8,
    head_dim: int = 128,
    n_vocab: int = 128256,
    n_ff: int = 14336,
    n_ctx_train: int = 131072,
    n_params: int = 8_030_000_000,
    **extra: object,
) -> ModelArch:
    values: dict[str, object] = {
        "architecture": name,
        "n_params": n_params,
        "n_layers": n_layers,
        "n_embd": n_embd,
        "n_head": n_head,
        "n_head_kv": (n_head_kv,) * n_layers,
        "head_dim_k": head_dim,
        "head_dim_v": head_dim,
        "n_ctx_train": n_ctx_train,
        "n_vocab": n_vocab,
        "n_ff": n_ff,
    }
    values.update(extra)
    return ModelArch(**values)  # type: ignore[arg-type]


def gguf_target(model: ModelArch, size: int, quant: str = "Q4_K_M") -> FitTarget:
    """A catalog-style target: only the file size is known."""
    embd = int(model.n_vocab * model.n_embd * 8.5 / 8)
    layer = (size - 2 * embd) // model.n_layers
    return FitTarget(
        label=f"{model.architecture}:{quant}",
        format="gguf",
        quant=quant,
        arch=model,
        weights_bytes=size,
        layer_bytes=(layer,) * model.n_layers,
        non_layer_bytes=2 * embd,
        file_bytes=size,
        token_embd_bytes=embd,
        output_bytes=embd,
        download_bytes=size,
    )


LLAMA_8B = arch()
LLAMA_70B = arch(n_layers=80, n_embd=8192, n_head=64, n_ff=28672, n_params=70_550_000_000)
QWEN_7B = arch("qwen2", n_layers=28, n_embd=3584, n_head=28, n_head_kv=4, n_vocab=152064)


def cpu_only(
    ram_gib: float, bandwidth: float | None = 50.0, disk_free: int = 500 * GB
) -> HardwareProfile:
    return HardwareProfile(
        cpu=CpuInfo("test cpu", "x86_64", 8, 16, ("avx2", "fma"), memory_bandwidth_gbps=bandwidth),
        memory=MemoryInfo(int(ram_gib * GIB), int(ram_gib * GIB)),
        disks=(DiskInfo("/models", "nvme0n1", "nvme", 10**12, disk_free, 3e9),),
        name="test",
    )


def with_gpus(
    profile: HardwareProfile, *free_gib: float, bandwidth: float = 1000.0
) -> HardwareProfile:
    gpus = tuple(
        GpuInfo(
            "nvidia",
            f"GPU {i}",
            index=i,
            memory_total_bytes=int(f * GIB),
            memory_free_bytes=int(f * GIB),
            bandwidth_gbps=bandwidth,
            compute_capability="8.9",
        )
        for i, f in enumerate(free_gib)
    )
    return replace(profile, gpus=gpus)


# --------------------------------------------------------------------------- verdicts


def test_rtx3060_cannot_hold_a_70b_q4_on_its_gpu() -> None:
    profile = load_profile("rtx-3060-12gb")
    result = estimate(gguf_target(LLAMA_70B, 42_520_000_000), profile, n_ctx=4096)
    assert result.verdict in ("partial", "cpu", "no")
    assert result.n_gpu_layers < result.n_layers
    # Whatever is on the GPU fits its free memory.
    assert result.vram_bytes <= profile.gpus[0].memory_free_bytes
    assert result.best_n_gpu_layers == result.n_gpu_layers
    assert result.reasons


def test_rtx3060_with_lots_of_ram_runs_a_70b_partially() -> None:
    profile = load_profile("rtx-3060-12gb")
    roomy = replace(profile, memory=MemoryInfo(128 * GIB, 120 * GIB))
    result = estimate(gguf_target(LLAMA_70B, 42_520_000_000), roomy, n_ctx=4096)
    assert result.verdict == "partial"
    assert 0 < result.n_gpu_layers < result.n_layers
    # More layers than that would not fit the card.
    more = estimate(
        gguf_target(LLAMA_70B, 42_520_000_000),
        roomy,
        n_ctx=4096,
        n_gpu_layers=result.n_gpu_layers + 1,
    )
    assert more.verdict == "no"
    assert any("video memory" in r for r in more.reasons)


def test_h100_runs_an_8b_fully_on_the_gpu() -> None:
    profile = load_profile("h100-80gb")
    result = estimate(gguf_target(LLAMA_8B, 4_920_000_000), profile, n_ctx=8192)
    assert result.verdict == "gpu"
    assert result.n_gpu_layers == result.n_layers == 32
    assert result.offload_output
    assert result.to_dict()["llama_n_gpu_layers"] == -1
    assert 4.9e9 < result.vram_bytes < 80 * GIB
    assert result.vram.kv_cache == 32 * 8192 * 2 * 8 * 128 * 2  # layers x ctx x K+V x heads x dim
    assert result.ram_bytes < result.vram_bytes
    assert result.max_ctx == LLAMA_8B.n_ctx_train


def test_no_gpu_means_cpu_or_no() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    assert estimate(target, cpu_only(32), n_ctx=4096).verdict == "cpu"
    small = estimate(target, cpu_only(4), n_ctx=4096)
    assert small.verdict == "no"
    assert any("RAM" in r for r in small.reasons)
    forced = estimate(target, cpu_only(32), n_ctx=4096, n_gpu_layers=-1)
    assert forced.verdict == "cpu"
    assert any("no usable GPU" in r for r in forced.reasons)


def test_unified_memory_counts_one_pool() -> None:
    jetson = load_profile("jetson-orin-nano-8gb")
    assert jetson.unified_memory
    fits = estimate(gguf_target(QWEN_7B, 4_680_000_000), jetson, n_ctx=2048)
    assert fits.verdict == "gpu"
    pool = jetson.memory.available_bytes
    # GPU share and host share together stay within the one pool.
    assert fits.ram_full_context_bytes + fits.vram_bytes <= pool
    # A model whose GPU share alone fits the GPU's free memory, but not together with the
    # process's host memory from the same pool, does not fit.
    big = gguf_target(QWEN_7B, 5_500_000_000)
    result = estimate(big, jetson, n_ctx=4096, n_gpu_layers=-1)
    assert result.vram_bytes <= jetson.gpus[0].memory_free_bytes
    assert result.vram_bytes + result.ram_full_context_bytes > pool
    assert result.verdict == "no"
    assert any("shared memory pool" in r for r in result.reasons)
    # The same GPU as a discrete card, with RAM of its own, takes it.
    discrete = replace(
        jetson,
        gpus=(replace(jetson.gpus[0], unified_memory=False),),
        memory=MemoryInfo(64 * GIB, 60 * GIB),
    )
    assert estimate(big, discrete, n_ctx=4096).verdict == "gpu"


def test_awq_needs_an_nvidia_gpu_with_cc_75() -> None:
    model = QWEN_7B
    awq = FitTarget(
        "qwen2.5-7b-instruct:AWQ", "awq", "AWQ", model, 5_580_000_000, None, None,
        5_580_000_000, download_bytes=5_580_000_000,
    )  # fmt: skip
    apple = estimate(awq, load_profile("apple-m2-16gb"), n_ctx=4096)
    assert apple.verdict == "no"
    assert any("compute capability 7.5" in r for r in apple.reasons)
    a10g = estimate(awq, load_profile("a10g-24gb"), n_ctx=4096)
    assert a10g.verdict == "gpu"
    # 24 GB holds the weights and the whole trained context's f16 cache (56 KiB per token).
    assert a10g.max_ctx == model.n_ctx_train
    assert a10g.ram.weights == 0  # VRAM only
    assert a10g.vram.weights == 5_580_000_000
    assert a10g.tokens_per_s is not None
    assert a10g.tokens_per_s > 0
    old = with_gpus(cpu_only(64), 24)
    old = replace(old, gpus=(replace(old.gpus[0], compute_capability="7.0"),))
    assert estimate(awq, old, n_ctx=4096).verdict == "no"


def test_multi_gpu_splits_layers_by_free_memory() -> None:
    target = gguf_target(LLAMA_70B, 42_520_000_000)
    two = with_gpus(cpu_only(128), 32, 16)
    result = estimate(target, two, n_ctx=4096)
    assert result.verdict == "gpu"
    first, second = result.gpu_vram_bytes
    assert first <= 32 * GIB
    assert second <= 16 * GIB
    # Layers follow free memory (2:1), so the first GPU holds about twice the second's weights.
    assert 1.5 < first / second < 2.5
    one = with_gpus(cpu_only(128), 32)
    assert estimate(target, one, n_ctx=4096).verdict == "partial"


# --------------------------------------------------------------------------- KV cache


def test_q4_0_cache_is_about_3_56_times_smaller_than_f16() -> None:
    f16 = sum(fm.kv_bytes_per_layer(LLAMA_8B, 8192, "f16"))
    q8 = sum(fm.kv_bytes_per_layer(LLAMA_8B, 8192, "q8_0"))
    q4 = sum(fm.kv_bytes_per_layer(LLAMA_8B, 8192, "q4_0"))
    assert f16 / q4 == pytest.approx(64 / 18)  # 32 values: 64 bytes vs 18 with the block scale
    assert f16 / q8 == pytest.approx(64 / 34)
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    a = estimate(target, cpu_only(64), n_ctx=32768, cache_type="f16")
    b = estimate(target, cpu_only(64), n_ctx=32768, cache_type="q4_0")
    assert a.ram.kv_cache / b.ram.kv_cache == pytest.approx(64 / 18)
    assert b.flash_attn
    assert not a.flash_attn
    assert b.ram_full_context_bytes < a.ram_full_context_bytes


def test_sliding_window_cache_is_bounded_unless_full_size() -> None:
    gemma = arch(
        "gemma3", n_layers=18, n_embd=640, n_head=4, n_head_kv=1, head_dim=256,
        n_vocab=262144, n_ff=2048, n_ctx_train=32768, sliding_window=512,
        swa_layers=tuple(i % 6 != 5 for i in range(18)),
    )  # fmt: skip
    per_token = 2 * 256 * 2  # K + V, one KV head, f16
    # llama.cpp's default (and llama-cpp-python's): full-size SWA cache, 18 layers x n_ctx.
    assert sum(fm.kv_bytes_per_layer(gemma, 32768, "f16")) == 18 * 32768 * per_token
    # swa_full off: 3 global layers keep n_ctx, 15 SWA layers keep window + ubatch cells.
    bounded = sum(fm.kv_bytes_per_layer(gemma, 32768, "f16", swa_full=False))
    assert bounded == 3 * 32768 * per_token + 15 * 1024 * per_token
    small = sum(fm.kv_bytes_per_layer(gemma, 512, "f16", swa_full=False))
    assert small == 18 * 512 * per_token  # never more than the context
    assert fm.kv_cache_count(gemma) == 2


def test_mla_cache_holds_the_latent_not_the_heads() -> None:
    lite = arch(
        "deepseek2", n_layers=27, n_embd=2048, n_head=16, n_head_kv=16, head_dim=192,
        n_vocab=102400, n_ff=10944, kv_lora_rank=512, n_rot=64, n_expert=64,
        n_expert_used=6, n_params=15_700_000_000,
    )  # fmt: skip
    mla = sum(fm.kv_bytes_per_layer(lite, 4096, "f16"))
    assert mla == 27 * 4096 * (512 + 64) * 2
    heads = sum(fm.kv_bytes_per_layer(replace(lite, kv_lora_rank=0), 4096, "f16"))
    assert heads / mla > 10


def test_recurrent_layers_keep_a_fixed_state() -> None:
    hybrid = arch(
        "jamba", n_layers=4, n_head_kv=0, ssm_state_bytes=(1_000_000,) * 4, n_params=10**9
    )
    hybrid = replace(hybrid, n_head_kv=(0, 8, 0, 0))
    small = sum(fm.kv_bytes_per_layer(hybrid, 1024, "f16"))
    large = sum(fm.kv_bytes_per_layer(hybrid, 8192, "f16"))
    attention_per_cell = 2 * 8 * 128 * 2
    assert large - small == (8192 - 1024) * attention_per_cell
    assert small == 4 * 1_000_000 + 1024 * attention_per_cell


def test_context_is_padded_like_llama_cpp() -> None:
    # n_ctx 1000 becomes 1024 cells (llama.cpp's log: "n_ctx = 1024").
    assert fm.layer_cells(LLAMA_8B, 0, 1000, swa_full=True) == 1024


# --------------------------------------------------------------------------- compute, context


@pytest.mark.parametrize(
    ("n_ctx", "logged_mib"),
    [(512, 98.25), (2048, 99.38), (8192, 166.38), (32768, 646.38)],
)
def test_compute_buffer_matches_llama_cpp_log_for_smollm2(n_ctx: int, logged_mib: float) -> None:
    # Numbers printed by llama.cpp ("CPU compute buffer size") for SmolLM2-135M on this build.
    smol = arch(
        n_layers=30, n_embd=576, n_head=9, n_head_kv=3, head_dim=64, n_vocab=49152, n_ff=1536
    )
    reserved = fm.compute_reserved_bytes(smol, n_ctx, flash_attn=False)
    assert abs(reserved / fm.MIB - logged_mib) < 1.5


def test_max_ctx_is_monotonic_in_memory_and_tight() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    previous = -1
    for ram in (4, 6, 8, 12, 16, 24, 64):
        result = estimate(target, cpu_only(ram), n_ctx=2048)
        assert result.max_ctx >= previous
        previous = result.max_ctx
        assert result.max_ctx % 256 == 0
        assert result.max_ctx <= LLAMA_8B.n_ctx_train
        if 0 < result.max_ctx < LLAMA_8B.n_ctx_train:
            at = estimate(target, cpu_only(ram), n_ctx=result.max_ctx)
            over = estimate(target, cpu_only(ram), n_ctx=result.max_ctx + 256)
            assert at.verdict == "cpu"
            assert over.verdict == "no"
    assert previous == LLAMA_8B.n_ctx_train
    assert estimate(target, cpu_only(4), n_ctx=2048).max_ctx == 0


def test_ram_grows_with_context_and_long_prompts() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    short = estimate(target, cpu_only(64), n_ctx=8192)
    long = estimate(target, cpu_only(64), n_ctx=8192, prompt_tokens=8192)
    bigger = estimate(target, cpu_only(64), n_ctx=16384)
    assert long.ram.compute > short.ram.compute
    assert long.ram.compute <= long.compute_reserved_bytes
    assert bigger.ram.kv_cache == 2 * short.ram.kv_cache
    assert short.ram_full_context_bytes > short.ram_bytes - short.ram.compute


# --------------------------------------------------------------------------- speed, load, disk


def test_speed_is_the_bandwidth_roofline_times_efficiency_plus_node_costs() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    cpu = estimate(target, cpu_only(64, bandwidth=60.0), n_ctx=4096)
    assert cpu.roofline_tokens_per_s is not None
    assert cpu.tokens_per_s is not None
    # llama: 22 compute nodes per block and 6 outside them (llama.cpp's one-token graph). The
    # profile names no cache, so the 5 GB model is read from memory; its 8 cores compute faster
    # than 60 GB/s at CPU_MEMORY_EFFICIENCY, so memory bounds it.
    nodes = 32 * 22 + 6
    per_token = 1 / (cpu.roofline_tokens_per_s * CPU_MEMORY_EFFICIENCY) + nodes * CPU_NODE_S
    assert cpu.tokens_per_s == pytest.approx(1 / (per_token + CPU_TOKEN_S))
    # A token reads every layer and the output matrix (not the embedding table) and the cache
    # in use: 128 tokens of context by default, which attention reads as 256 cells.
    read = 4_920_000_000 - target.embd_bytes() + 256 * 32 * 2 * 8 * 128 * 2
    assert cpu.roofline_tokens_per_s == pytest.approx(60e9 / read)
    gpu = estimate(target, with_gpus(cpu_only(64), 24, bandwidth=1000.0), n_ctx=4096)
    assert gpu.roofline_tokens_per_s is not None
    assert gpu.tokens_per_s is not None
    per_token = 1 / (gpu.roofline_tokens_per_s * GPU_EFFICIENCY) + nodes * GPU_NODE_S
    assert gpu.tokens_per_s == pytest.approx(1 / (per_token + CPU_TOKEN_S))
    assert gpu.tokens_per_s > 10 * cpu.tokens_per_s


def _speed_line(results: dict[float, FitResult]) -> tuple[float, float]:
    """(seconds per token per 1/GB/s, fixed seconds per token) through the first two of three
    estimates at bandwidths ``results`` keys; the third must lie on the same line."""
    (b1, r1), (b2, r2), (b3, r3) = sorted(results.items())
    t1, t2, t3 = (1 / r.tokens_per_s for r in (r1, r2, r3))  # type: ignore[operator]
    slope = (t1 - t2) / (1 / b1 - 1 / b2)
    fixed = t2 - slope / b2
    assert t3 == pytest.approx(fixed + slope / b3)  # time per token is affine in 1/bandwidth
    return slope, fixed


def test_the_expected_speed_follows_the_bandwidth_below_its_roofline() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    # A token reads every layer and the output matrix (not the embedding table) and the cache
    # in use: 128 tokens of context by default, which attention reads as 256 cells.
    read = 4_920_000_000 - target.embd_bytes() + 256 * 32 * 2 * 8 * 128 * 2
    # 8 cores, no cache named: memory bounds these bandwidths (below the cores' compute)
    cpu = {
        bw: estimate(target, cpu_only(64, bandwidth=bw), n_ctx=4096) for bw in (20.0, 40.0, 60.0)
    }
    gpu = {
        bw: estimate(target, with_gpus(cpu_only(64), 24, bandwidth=bw), n_ctx=4096)
        for bw in (500.0, 1000.0, 2000.0)
    }
    for bandwidth, result in (*cpu.items(), *gpu.items()):
        assert result.roofline_tokens_per_s == pytest.approx(bandwidth * 1e9 / read)
        assert result.tokens_per_s is not None
        assert result.roofline_tokens_per_s is not None
        assert 0 < result.tokens_per_s < result.roofline_tokens_per_s  # never above the roofline
    for results in (cpu, gpu):
        slope, fixed = _speed_line(results)
        # Real runs reach a fraction of the roofline, plus a cost per token the bandwidth does
        # not buy back (ggml's per-layer ops): a plausible fraction, a positive cost.
        assert 0.3 < (read / 1e9) / slope < 1.0
        assert 0 < fixed < 0.05
    assert gpu[1000.0].tokens_per_s > 10 * cpu[60.0].tokens_per_s  # type: ignore[operator]
    # Past the cores' compute, more bandwidth buys nothing: the CPU's roofline has two roofs.
    fast = [estimate(target, cpu_only(64, bandwidth=bw), n_ctx=4096) for bw in (400.0, 800.0)]
    assert fast[0].tokens_per_s == pytest.approx(fast[1].tokens_per_s)
    slow_roof = cpu[20.0].roofline_tokens_per_s
    assert slow_roof is not None
    assert fast[0].roofline_tokens_per_s == pytest.approx(20 * slow_roof)
    unknown = estimate(target, cpu_only(64, bandwidth=None), n_ctx=4096)
    assert unknown.tokens_per_s is None
    assert any("bandwidth is unknown" in r for r in unknown.reasons)


def test_moe_reads_only_active_experts() -> None:
    moe_arch = replace(LLAMA_8B, n_expert=8, n_expert_used=2)
    dense = gguf_target(LLAMA_8B, 8_000_000_000)
    layers = sum(dense.layers())
    moe = replace(dense, arch=moe_arch, expert_bytes=int(layers * 0.9))
    a = estimate(dense, cpu_only(64), n_ctx=4096)
    b = estimate(moe, cpu_only(64), n_ctx=4096)
    assert a.roofline_tokens_per_s is not None
    assert b.roofline_tokens_per_s is not None
    assert b.roofline_tokens_per_s > 2.5 * a.roofline_tokens_per_s
    assert b.ram_bytes == a.ram_bytes  # all experts still live in memory


def test_load_time_and_disk_check() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    roomy = estimate(target, cpu_only(64), n_ctx=4096)
    assert roomy.download_bytes == 4_920_000_000
    assert roomy.fits_disk is True
    assert roomy.load_seconds == pytest.approx(4_920_000_000 / 3e9)
    tiny = estimate(target, cpu_only(64, disk_free=1 * GB), n_ctx=4096)
    assert tiny.fits_disk is False
    local = replace(target, download_bytes=None)
    assert estimate(local, cpu_only(64, disk_free=1), n_ctx=4096).fits_disk is True
    no_disk = replace(cpu_only(64), disks=())
    assert estimate(target, no_disk, n_ctx=4096).fits_disk is None


def test_repacked_weights_count_only_on_cpus_that_repack() -> None:
    target = replace(
        gguf_target(LLAMA_8B, 4_920_000_000, "Q4_0"),
        weight_types=(("Q4_0", 4_000_000_000, 8), ("Q6_K", 400_000_000, 8)),
    )
    avx2 = estimate(target, cpu_only(64), n_ctx=4096)
    plain = cpu_only(64)
    plain = replace(plain, cpu=replace(plain.cpu, flags=("sse3",)))
    old = estimate(target, plain, n_ctx=4096)
    assert avx2.ram.weights - old.ram.weights == 4_000_000_000
    # The mapped originals of repacked tensors are droppable page cache: same requirement.
    assert avx2.ram_full_context_bytes == old.ram_full_context_bytes
    # With less RAM than the peak, the kernel drops those pages: RSS stops at what is there.
    tight = estimate(target, cpu_only(8), n_ctx=4096)
    assert tight.verdict == "cpu"
    assert tight.ram_bytes == 8 * GIB
    assert tight.ram_bytes < avx2.ram_bytes


def test_result_json_has_the_documented_keys() -> None:
    result = estimate(gguf_target(LLAMA_8B, 4_920_000_000), cpu_only(64), n_ctx=4096)
    assert isinstance(result, FitResult)
    doc = result.to_dict()
    for key in (
        "verdict", "n_gpu_layers", "n_layers", "ram_bytes", "vram_bytes", "breakdown",
        "max_ctx", "tokens_per_s", "load_seconds", "fits_disk", "roofline_tokens_per_s",
    ):  # fmt: skip
        assert key in doc
    assert set(doc["breakdown"]) >= {"weights", "kv_cache", "compute", "overhead"}
    assert (
        doc["ram_bytes"]
        == result.ram.total
        == sum(doc["ram_breakdown"][k] for k in ("weights", "kv_cache", "compute", "overhead"))
    )
    assert MemoryBreakdown(1, 2, 3, 4).total == 10


def test_bad_arguments_raise_fit_errors() -> None:
    target = gguf_target(LLAMA_8B, 4_920_000_000)
    with pytest.raises(FitError):
        estimate(target, cpu_only(64), n_ctx=0)
    with pytest.raises(FitError):
        estimate(target, cpu_only(64), n_ctx=4096, cache_type="q5_1")  # type: ignore[arg-type]
    with pytest.raises(FitError):
        estimate(target, cpu_only(64), n_ctx=4096, n_gpu_layers=-2)


def test_every_whatif_profile_gives_an_answer() -> None:
    from desktop.core.hardware import list_profiles

    target = gguf_target(QWEN_7B, 4_680_000_000)
    verdicts = {}
    for name in list_profiles():
        result = estimate(target, load_profile(name), n_ctx=4096)
        verdicts[name] = result.verdict
        assert result.ram_bytes > 0
        assert result.verdict == "no" or result.max_ctx >= 4096
    assert verdicts["rtx-4090-24gb"] == "gpu"
    assert verdicts["raspberry-pi-5-8gb"] in ("cpu", "no")
    assert verdicts["laptop-16gb-cpu"] == "cpu"
