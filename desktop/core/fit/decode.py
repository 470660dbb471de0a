"""What one generated token costs on each device of a placement, and how fast a prompt is
processed on the CPU (:mod:`~desktop.core.fit.speed` has the model; :mod:`~desktop.core.fit.
place` the placement)."""

from __future__ import annotations

from desktop.core.fit import memory as fm
from desktop.core.fit.place import Placement, Setup, host_expert_layers
from desktop.core.fit.speed import (
    CPU_KV_RATE_PER_CORE,
    CPU_NODE_S,
    CPU_PP_FLOPS_PER_CORE,
    GPU_EFFICIENCY,
    GPU_NODE_S,
    Stage,
    cpu_stage,
    pp_kernel,
)
from desktop.core.fit.types import FitTarget


def stages(setup: Setup, placement: Placement) -> list[Stage]:
    """What one generated token costs on each device (:mod:`~desktop.core.fit.speed`): the
    weights and KV cache it reads there, and the graph nodes computed there. The CPU reads its
    weights, its active experts and its KV cache each at its own kernel's rate, bounded by
    memory when they do not fit in its cache (:func:`~desktop.core.fit.speed.cpu_stage`)."""
    arch, lay, profile = setup.target.arch, setup.layout, setup.profile
    n_layers = arch.n_layers
    ngl = placement.n_gpu_layers if setup.devices else 0
    first_gpu = n_layers - ngl
    layers, used, tokens = lay.layer_prefix, lay.used_kv, setup.prompt_tokens
    moved = host_expert_layers(setup, first_gpu) if ngl else 0
    moved_read = moved * lay.expert_layer_bytes * lay.active_experts
    cpu_weights = layers[first_gpu] * lay.dense_share
    moe_layers = max(0, first_gpu - lay.first_moe_layer)
    cpu_experts = min(moe_layers * lay.expert_layer_bytes * lay.active_experts, cpu_weights)
    cpu_experts += moved_read
    cpu_kv = used.range_bytes(tokens, 0, first_gpu)
    cpu_nodes = first_gpu * lay.block_nodes + moved * lay.expert_nodes
    gpu_bytes = 0.0
    gpu_nodes = 0
    if ngl:
        gpu_bytes = (layers[n_layers] - layers[first_gpu]) * lay.dense_share - moved_read
        gpu_bytes += used.range_bytes(tokens, first_gpu, n_layers)
        gpu_nodes = ngl * lay.block_nodes - moved * lay.expert_nodes
    if placement.offload_output and ngl:
        gpu_bytes += lay.out_read_bytes
        gpu_nodes += lay.outside_nodes
    else:
        cpu_weights += lay.out_read_bytes
        cpu_nodes += lay.outside_nodes
    cpu_other = cpu_weights + moved_read - cpu_experts
    parts = [
        (cpu_other, lay.cpu_weight_rate),
        (cpu_experts, lay.cpu_expert_rate),
        (cpu_kv, CPU_KV_RATE_PER_CORE),
    ]
    # What the CPU holds for a token (whether it stays in the cache): all its layers' weights,
    # every expert included, the output matrix if it reads it, and the KV cache in use.
    held = layers[first_gpu] + (cpu_weights - layers[first_gpu] * lay.dense_share) + cpu_kv
    held += moved * lay.expert_layer_bytes
    out = [cpu_stage(parts, held, profile.cpu, cpu_nodes * CPU_NODE_S)]
    if ngl:
        bandwidth = min(
            (d.gpu.bandwidth_gbps for d in setup.devices if d.gpu.bandwidth_gbps), default=None
        )
        out.append(Stage(int(gpu_bytes), bandwidth, GPU_EFFICIENCY, gpu_nodes * GPU_NODE_S))
    return out


def prompt_flops(target: FitTarget) -> tuple[float, float]:
    """(weight FLOPs, attention FLOPs) per token of a 512-token prompt batch: 2 per block
    weight the token passes (a MoE layer's active experts), and the scores and values of the
    batch's cells (the output matrix runs for the last token only)."""
    arch = target.arch
    embd = arch.n_vocab * arch.n_embd
    tied = not target.output_bytes
    block_params = max(arch.n_params - embd * (1 if tied else 2), 0)
    share = 1.0
    layers = sum(target.layers())
    if arch.is_moe and target.expert_bytes and layers:
        active = target.expert_bytes * arch.n_expert_used / arch.n_expert
        share = (layers - target.expert_bytes + active) / layers
    attention = 0.0
    for i in range(arch.n_layers):
        heads = arch.n_head if arch.n_head_kv[i] else 0
        attention += 2.0 * heads * (arch.head_dim_k + arch.head_dim_v) * fm.N_UBATCH
    return 2.0 * block_params * share, attention


def prompt_tokens_per_s(setup: Setup, placement: Placement) -> float | None:
    """Prompt-processing tokens/s of a 512-token batch (``llm-scout bench``'s pp512) when every
    layer runs on the CPU; None with GPU layers (no GPU compute rate is known yet)."""
    target = setup.target
    cores = setup.profile.cpu.physical_cores
    if placement.n_gpu_layers or cores < 1 or target.arch.n_params <= 0:
        return None
    weights, attention = prompt_flops(target)
    rate = CPU_PP_FLOPS_PER_CORE[pp_kernel(target.quant)] * cores
    seconds = weights / rate + attention / (CPU_PP_FLOPS_PER_CORE["F16"] * cores)
    return 1.0 / seconds if seconds > 0 else None
