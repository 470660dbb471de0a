"""Where the layers go: GPU/CPU placement, the memory each device needs, bytes per token.

llama.cpp offloads the last ``n_gpu_layers`` blocks (and the output layer when every block is
offloaded), splits them over GPUs in proportion to their free memory, keeps the token
embeddings on the CPU, and gives every GPU its own compute buffer and the KV cache of its
layers. On unified memory (Apple, Jetson) GPU and CPU share one pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop.core.fit import memory as fm
from desktop.core.fit.speed import CPU_EFFICIENCY, GPU_EFFICIENCY, Stage
from desktop.core.fit.types import CacheType, FitTarget, MemoryBreakdown
from desktop.core.hardware import GpuInfo, HardwareProfile

VRAM_MARGIN_BYTES = 256 * fm.MIB


@dataclass(frozen=True)
class Device:
    gpu: GpuInfo
    capacity: int  # bytes this device can take


@dataclass(frozen=True)
class Placement:
    n_gpu_layers: int
    offload_output: bool
    ram: MemoryBreakdown
    ram_full: int
    vram: MemoryBreakdown
    per_gpu: tuple[int, ...]
    compute_reserved: int
    fits_ram: bool
    fits_vram: bool
    gpu_layer_bytes: int
    cpu_layer_bytes: int

    @property
    def fits(self) -> bool:
        return self.fits_ram and self.fits_vram


@dataclass(frozen=True)
class Setup:
    target: FitTarget
    profile: HardwareProfile
    cache_type: CacheType
    flash_attn: bool
    swa_full: bool
    prompt_tokens: int
    devices: tuple[Device, ...]
    unified: bool
    ram_available: int


def _gpu_capacity(gpu: GpuInfo) -> int:
    return gpu.memory_free_bytes or gpu.memory_total_bytes


def usable_gpus(profile: HardwareProfile) -> tuple[Device, ...]:
    devices = []
    for gpu in profile.gpus:
        capacity = _gpu_capacity(gpu)
        if capacity > 0:
            devices.append(Device(gpu, capacity))
    return tuple(devices)


def _split(n: int, weights: Sequence[int]) -> list[int]:
    """Split ``n`` layers over devices in proportion to ``weights`` (llama.cpp's tensor_split)."""
    total = sum(weights)
    if total <= 0 or not weights:
        return [n] + [0] * (len(weights) - 1) if weights else []
    counts = []
    cumulative = 0.0
    assigned = 0
    for w in weights:
        cumulative += w / total
        upto = round(cumulative * n)
        counts.append(upto - assigned)
        assigned = upto
    counts[-1] += n - assigned
    return counts


def place(setup: Setup, n_ctx: int, n_gpu_layers: int, offload_output: bool) -> Placement:
    target, arch = setup.target, setup.target.arch
    cal = fm.CALIBRATION
    n_layers = arch.n_layers
    layers = target.layers()
    kv = fm.kv_bytes_per_layer(arch, n_ctx, setup.cache_type, swa_full=setup.swa_full)
    ngl = max(0, min(n_gpu_layers, n_layers)) if setup.devices else 0
    offload_output = offload_output and ngl == n_layers and bool(setup.devices)
    first_gpu = n_layers - ngl  # llama.cpp offloads the last layers
    cpu_layers = range(first_gpu)
    reserved = fm.compute_reserved_bytes(
        arch, n_ctx, flash_attn=setup.flash_attn, swa_full=setup.swa_full
    )
    touched = fm.compute_touched_bytes(
        arch, n_ctx, setup.prompt_tokens, flash_attn=setup.flash_attn, swa_full=setup.swa_full
    )
    family = fm.cpu_family(setup.profile.cpu.arch, setup.profile.cpu.flags)
    all_repack = fm.repacked_bytes(target.weight_types, family)
    layer_total = sum(layers) or 1
    cpu_layer_bytes = sum(layers[i] for i in cpu_layers)
    gpu_layer_bytes = layer_total - cpu_layer_bytes if ngl else 0
    out_bytes = target.output_bytes or 0
    overhead = fm.runtime_overhead_bytes(arch, n_ctx)

    if ngl == 0:
        # CPU only. ram: the peak RSS with RAM to spare. mmap populates the whole file and the
        # repacked copies come on top; after the load llama.cpp unmaps the header and repacked
        # tensors at the file's ends, then the KV cache and compute buffer arrive. The peak is the
        # later state unless the unmapped part outweighs them, so the weights term covers the
        # load-time peak too. ram_full: what must fit, with the whole context in use: mapped
        # pages of repacked tensors are clean page cache the kernel can drop, so only the file
        # minus its header counts (used pages, or their repacked copies).
        file_bytes = target.file_bytes or target.weights_bytes
        edges = fm.unmapped_edge_bytes(target.head_run, target.tail_run, family)
        resident = file_bytes - target.header_bytes() - edges + all_repack
        at_load = file_bytes + all_repack - sum(kv) - touched
        needed = file_bytes - target.header_bytes()
        weights = max(resident, at_load)
        # Without that much RAM the kernel drops clean file pages first (the copies of repacked
        # tensors, then the load-time extras): RSS stops at what is available.
        spare = weights + sum(kv) + touched + overhead - setup.ram_available
        if spare > 0:
            weights = max(needed, weights - spare)
        ram = MemoryBreakdown(weights, sum(kv), touched, overhead)
        ram_full = needed + sum(kv) + reserved + overhead
        return Placement(
            0, False, ram, ram_full, MemoryBreakdown(), (), reserved,
            ram_full <= setup.ram_available, True, 0, cpu_layer_bytes,
        )  # fmt: skip

    # Some layers on GPUs: split them by free memory, the output layer on the last device.
    counts = _split(ngl, [d.capacity for d in setup.devices])
    per_gpu: list[MemoryBreakdown] = []
    start = first_gpu
    last = max(i for i, c in enumerate(counts) if c > 0) if any(counts) else 0
    for index, count in enumerate(counts):
        span = range(start, start + count)
        start += count
        if count == 0:
            per_gpu.append(MemoryBreakdown())
            continue
        w = sum(layers[i] for i in span)
        if offload_output and index == last:
            w += out_bytes if out_bytes else target.embd_bytes()
        kv_gpu = sum(kv[i] for i in span)
        per_gpu.append(MemoryBreakdown(w, kv_gpu, reserved, cal.gpu_context_bytes))
    vram = MemoryBreakdown()
    for part in per_gpu:
        vram = vram + part

    # Host memory the process needs: the embeddings (always on the CPU), the CPU layers (their
    # repacked copies replace the mapped pages), the output layer unless offloaded. mmap also
    # maps the GPU layers' pages at load (page cache the kernel can drop; not counted here).
    cpu_weights = target.embd_bytes() + cpu_layer_bytes
    if not offload_output:
        cpu_weights += out_bytes
    cpu_kv = sum(kv[i] for i in cpu_layers)
    # The host keeps input/output staging buffers; CPU layers compute in host memory.
    host_compute = touched if first_gpu > 0 else fm.N_UBATCH * arch.n_embd * fm.F32 * 4
    host_full = reserved if first_gpu > 0 else host_compute
    ram = MemoryBreakdown(cpu_weights, cpu_kv, host_compute, overhead + cal.gpu_host_runtime_bytes)
    ram_full = ram.total - host_compute + host_full
    per_gpu_total = tuple(p.total for p in per_gpu)
    if setup.unified:
        # One pool: the GPU's share and the process's host memory come from the same RAM.
        pool_need = ram_full + vram.total
        fits_vram = all(t <= d.capacity for t, d in zip(per_gpu_total, setup.devices, strict=True))
        fits_ram = pool_need <= setup.ram_available
    else:
        fits_vram = all(
            t == 0 or t <= d.capacity - VRAM_MARGIN_BYTES
            for t, d in zip(per_gpu_total, setup.devices, strict=True)
        )
        fits_ram = ram_full <= setup.ram_available
    return Placement(
        ngl, offload_output, ram, ram_full, vram, per_gpu_total, reserved,
        fits_ram, fits_vram, gpu_layer_bytes, cpu_layer_bytes,
    )  # fmt: skip


def best_placement(setup: Setup, n_ctx: int) -> Placement:
    """Full offload if it fits, else the most layers the GPUs hold, else CPU."""
    n_layers = setup.target.arch.n_layers
    cpu = place(setup, n_ctx, 0, False)
    if not setup.devices:
        return cpu
    full = place(setup, n_ctx, n_layers, True)
    if full.fits:
        return full
    lo, hi = 0, n_layers  # largest k with fits_vram, offload_output False
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if place(setup, n_ctx, mid, False).fits_vram:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return cpu
    partial = place(setup, n_ctx, lo, False)
    if partial.fits or not cpu.fits:
        return partial
    return cpu


def stages(setup: Setup, placement: Placement) -> list[Stage]:
    target, arch, profile = setup.target, setup.target.arch, setup.profile
    kv_used = fm.kv_bytes_per_layer(arch, setup.prompt_tokens, setup.cache_type, swa_full=True)
    n_layers = arch.n_layers
    layers = target.layers()
    dense_share = 1.0
    if arch.is_moe and target.expert_bytes:
        total = sum(layers) or 1
        active = target.expert_bytes * arch.n_expert_used / arch.n_expert
        dense_share = (total - target.expert_bytes + active) / total
    first_gpu = n_layers - placement.n_gpu_layers
    cpu_bytes = sum(layers[:first_gpu]) * dense_share + sum(kv_used[:first_gpu])
    gpu_bytes = sum(layers[first_gpu:]) * dense_share + sum(kv_used[first_gpu:])
    if placement.n_gpu_layers == 0:
        gpu_bytes = 0
    if placement.offload_output:
        gpu_bytes += target.out_bytes()
    else:
        cpu_bytes += target.out_bytes()
    stages = [Stage(int(cpu_bytes), profile.cpu.memory_bandwidth_gbps, CPU_EFFICIENCY)]
    if gpu_bytes and setup.devices:
        bandwidth = min(
            (d.gpu.bandwidth_gbps for d in setup.devices if d.gpu.bandwidth_gbps), default=None
        )
        stages.append(Stage(int(gpu_bytes), bandwidth, GPU_EFFICIENCY))
    return stages
