"""What one generated token costs on each device of a placement (:mod:`~desktop.core.fit.speed`
has the model; :mod:`~desktop.core.fit.place` the placement)."""

from __future__ import annotations

from desktop.core.fit.place import Placement, Setup, host_expert_layers
from desktop.core.fit.speed import CPU_EFFICIENCY, CPU_NODE_S, GPU_EFFICIENCY, GPU_NODE_S, Stage


def stages(setup: Setup, placement: Placement) -> list[Stage]:
    """What one generated token costs on each device (:mod:`~desktop.core.fit.speed`): the
    weights and KV cache it reads there, and the graph nodes computed there."""
    arch, lay, profile = setup.target.arch, setup.layout, setup.profile
    n_layers = arch.n_layers
    ngl = placement.n_gpu_layers if setup.devices else 0
    first_gpu = n_layers - ngl
    layers, used, tokens = lay.layer_prefix, lay.used_kv, setup.prompt_tokens
    moved = host_expert_layers(setup, first_gpu) if ngl else 0
    moved_read = moved * lay.expert_layer_bytes * lay.active_experts
    cpu_bytes = layers[first_gpu] * lay.dense_share + used.range_bytes(tokens, 0, first_gpu)
    cpu_bytes += moved_read
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
        cpu_bytes += lay.out_read_bytes
        cpu_nodes += lay.outside_nodes
    out = [
        Stage(
            int(cpu_bytes), profile.cpu.memory_bandwidth_gbps, CPU_EFFICIENCY,
            cpu_nodes * CPU_NODE_S,
        )
    ]  # fmt: skip
    if ngl:
        bandwidth = min(
            (d.gpu.bandwidth_gbps for d in setup.devices if d.gpu.bandwidth_gbps), default=None
        )
        out.append(Stage(int(gpu_bytes), bandwidth, GPU_EFFICIENCY, gpu_nodes * GPU_NODE_S))
    return out
