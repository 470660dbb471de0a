"""Where the layers go: GPU/CPU placement, the memory each device needs, bytes per token.

llama.cpp offloads the last ``n_gpu_layers`` blocks (and the output layer when every block is
offloaded), splits them over GPUs in proportion to their free memory, keeps the token
embeddings on the CPU, and gives every GPU its own compute buffer and the KV cache of its
layers. On unified memory (Apple, Jetson) GPU and CPU share one pool.

Host weights used by a prompt batch run on the GPU all the same (op offload, for batches of 32
tokens or more): the scheduler copies each such weight into the GPU's compute buffer, starting
a new graph split at every one so the copies reuse one region (ggml-backend.cpp,
``ggml_backend_sched_split_graph``). The compute buffer therefore grows by the largest weight
staged, plus a constant measured on one partial load (:data:`STAGING_EXTRA_BYTES`). A MoE
layer's expert tensor is staged whole (only the experts a batch uses are copied, but the
space is reserved for all). ``n_cpu_moe`` keeps the expert tensors of the first layers in host
memory while the rest of those layers is on the GPU (llama.cpp's ``--n-cpu-moe``): their
experts then run on the CPU for a generated token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from desktop.core.fit import memory as fm
from desktop.core.fit.speed import (
    block_nodes,
    expert_nodes,
    expert_rate,
    outside_nodes,
    weight_rate,
)
from desktop.core.fit.types import FitTarget, MemoryBreakdown
from desktop.core.gguf import guess_tokenizer
from desktop.core.hardware import GpuInfo, HardwareProfile
from desktop.core.kv_cache import CacheType

VRAM_MARGIN_BYTES = 256 * fm.MIB
# Staging beyond the largest weight copied: fitted on the one partial-offload load measured
# (H200, llama-3.1-8b's shape, 16 of 32 layers), where the whole 231.8 MB block matched.
STAGING_EXTRA_BYTES = 169_400_000


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
class Layout:
    """What :func:`place` and :func:`stages` need that does not depend on the context: prefix
    sums over the layers (weights, KV cache rows, the KV cache a run uses) and the target's
    fixed byte counts, computed once per :class:`Setup` so a placement costs O(devices)."""

    kv: fm.KvShape
    n_caches: int  # fm.kv_cache_count
    layer_prefix: tuple[int, ...]  # fm.prefix_sums(target.layers())
    layer_total: int  # sum(target.layers()) or 1
    file_bytes: int
    header_bytes: int
    edge_bytes: int  # repacked tensors at the file's ends (unmapped after load)
    repacked_bytes: int
    embd_bytes: int
    output_bytes: int  # target.output_bytes or 0 (0: tied to the embeddings)
    out_read_bytes: int  # target.out_bytes(): the output projection read per token
    used_kv: fm.KvShape  # the KV cache a run of prompt_tokens reads (full-size SWA caches)
    dense_share: float  # share of the layer bytes one token reads (MoE: active experts only)
    model_overhead: int  # fm.model_overhead_bytes: the tokenizer's tables and the graph
    load_overhead: int  # fm.load_overhead_bytes: the rest of the process at the load's peak
    max_layer_bytes: int  # the largest block
    staged_bytes: int  # what op offload stages on the GPU for host weights (module docstring)
    expert_layer_bytes: int  # expert tensors of one MoE layer (0: not MoE)
    first_moe_layer: int  # layers before it have no experts (n_layer_dense_lead)
    active_experts: float  # share of a layer's experts one token reads
    block_nodes: int  # compute nodes per block for one token (speed.block_nodes)
    expert_nodes: int  # of those, the ones that run where the experts are
    outside_nodes: int
    cpu_weight_rate: float  # speed.weight_rate of the target's weight types (bytes/s/core)
    cpu_expert_rate: float  # speed.expert_rate: its active experts on the CPU


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
    layout: Layout = field(compare=False, repr=False)
    n_cpu_moe: int = 0  # expert tensors of the first n_cpu_moe layers kept in host memory


def make_setup(
    target: FitTarget,
    profile: HardwareProfile,
    cache_type: CacheType,
    *,
    flash_attn: bool,
    swa_full: bool,
    prompt_tokens: int,
    n_cpu_moe: int = 0,
) -> Setup:
    """The :class:`Setup` of ``target`` on ``profile``, its :class:`Layout` computed."""
    arch = target.arch
    layers = target.layers()
    family = fm.cpu_family(profile.cpu.arch, profile.cpu.flags)
    layer_sum = sum(layers)
    dense_share = 1.0
    active_share = 1.0
    expert_layer = 0
    lead = 0
    if arch.is_moe and target.expert_bytes:
        total = layer_sum or 1
        active_share = arch.n_expert_used / arch.n_expert
        active = target.expert_bytes * active_share
        dense_share = (total - target.expert_bytes + active) / total
        lead = min(_int(arch.extra.get("n_layer_dense_lead")), arch.n_layers - 1)
        expert_layer = target.expert_bytes // max(arch.n_layers - lead, 1)
    largest = max(target.max_block_tensor_bytes, target.max_expert_tensor_bytes)
    staged = largest + STAGING_EXTRA_BYTES if largest else max(layers, default=0)
    kv = fm.kv_shape(arch, cache_type, swa_full=swa_full)
    tokenizer = target.tokenizer or guess_tokenizer(arch)
    layout = Layout(
        kv=kv,
        n_caches=fm.kv_cache_count(arch),
        layer_prefix=fm.prefix_sums(layers),
        layer_total=layer_sum or 1,
        file_bytes=target.file_bytes or target.weights_bytes,
        header_bytes=target.header_bytes(),
        edge_bytes=fm.unmapped_edge_bytes(target.head_run, target.tail_run, family),
        repacked_bytes=fm.repacked_bytes(target.weight_types, family),
        embd_bytes=target.embd_bytes(),
        output_bytes=target.output_bytes or 0,
        out_read_bytes=target.out_bytes(),
        used_kv=kv,
        dense_share=dense_share,
        model_overhead=fm.model_overhead_bytes(
            tokenizer, target.n_tensors or fm.estimated_tensor_count(arch)
        ),
        load_overhead=fm.load_overhead_bytes(tokenizer),
        max_layer_bytes=max(layers, default=0),
        staged_bytes=staged,
        expert_layer_bytes=expert_layer,
        first_moe_layer=lead,
        active_experts=active_share,
        block_nodes=block_nodes(arch),
        expert_nodes=expert_nodes(arch),
        outside_nodes=outside_nodes(arch),
        cpu_weight_rate=weight_rate(target.weight_types, target.quant),
        cpu_expert_rate=expert_rate(target.weight_types, target.quant),
    )
    return Setup(
        target, profile, cache_type, flash_attn, swa_full, prompt_tokens, usable_gpus(profile),
        profile.unified_memory, profile.memory.available_bytes, layout,
        max(0, n_cpu_moe) if expert_layer else 0,
    )  # fmt: skip


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def host_expert_layers(setup: Setup, first_gpu: int) -> int:
    """GPU layers (from ``first_gpu`` on) whose expert tensors stay in host memory."""
    stop = min(setup.n_cpu_moe, setup.target.arch.n_layers)
    return max(0, stop - max(first_gpu, setup.layout.first_moe_layer))


def _host_experts(setup: Setup, start: int, stop: int) -> int:
    """Expert bytes of layers ``start..stop-1`` kept in host memory (``n_cpu_moe``)."""
    if not setup.n_cpu_moe:
        return 0
    lo = max(start, setup.layout.first_moe_layer)
    hi = min(stop, setup.n_cpu_moe)
    return max(0, hi - lo) * setup.layout.expert_layer_bytes


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


def split_layers(n: int, capacities: Sequence[int]) -> list[int]:
    """How many of ``n`` offloaded layers each device gets, in proportion to ``capacities``
    (what :func:`place` does over GPUs; :mod:`~desktop.core.fit.split` over RPC boxes too)."""
    return _split(n, capacities)


def place(setup: Setup, n_ctx: int, n_gpu_layers: int, offload_output: bool) -> Placement:
    arch, lay = setup.target.arch, setup.layout
    cal = fm.CALIBRATION
    kv = lay.kv
    n_layers = arch.n_layers
    ngl = max(0, min(n_gpu_layers, n_layers)) if setup.devices else 0
    offload_output = offload_output and ngl == n_layers and bool(setup.devices)
    first_gpu = n_layers - ngl  # llama.cpp offloads the last layers
    max_cells = kv.max_cells(n_ctx)
    reserved = fm.reserved_for_cells(arch, max_cells, flash_attn=setup.flash_attn)
    touched = fm.touched_for_cells(
        arch,
        n_ctx,
        setup.prompt_tokens,
        max_cells=max_cells,
        reserved=reserved,
        flash_attn=setup.flash_attn,
    )
    cpu_layer_bytes = lay.layer_prefix[first_gpu]
    gpu_layer_bytes = lay.layer_total - cpu_layer_bytes if ngl else 0
    out_bytes = lay.output_bytes
    overhead = fm.overhead_for_caches(arch, n_ctx, lay.n_caches, lay.model_overhead)

    if ngl == 0:
        # CPU only. ram: the peak RSS with RAM to spare. mmap populates the whole file and the
        # repacked copies come on top, while the GGUF metadata is held (the load overhead);
        # after the load llama.cpp unmaps the header and repacked tensors at the file's ends and
        # frees the metadata, then the KV cache and compute buffer arrive. The peak is the later
        # state unless the load's outweighs it, so the weights term covers the load-time peak.
        # ram_full: what must fit, with the whole context in use: mapped pages of repacked
        # tensors are clean page cache the kernel can drop, so only the file minus its header
        # counts (used pages, or their repacked copies).
        kv_total = kv.range_bytes(n_ctx, 0, n_layers)
        file_bytes = lay.file_bytes
        resident = file_bytes - lay.header_bytes - lay.edge_bytes + lay.repacked_bytes
        at_load = file_bytes + lay.repacked_bytes + lay.load_overhead
        at_load -= overhead + kv_total + touched
        needed = file_bytes - lay.header_bytes
        weights = max(resident, at_load)
        # Without that much RAM the kernel drops clean file pages first (the copies of repacked
        # tensors, then the load-time extras): RSS stops at what is available.
        spare = weights + kv_total + touched + overhead - setup.ram_available
        if spare > 0:
            weights = max(needed, weights - spare)
        ram = MemoryBreakdown(weights, kv_total, touched, overhead)
        ram_full = needed + kv_total + reserved + overhead
        return Placement(
            0, False, ram, ram_full, MemoryBreakdown(), (), reserved,
            ram_full <= setup.ram_available, True, 0, cpu_layer_bytes,
        )  # fmt: skip

    # Some layers on GPUs: split them by free memory, the output layer on the last device. With
    # weights left in host memory, llama.cpp's op offload copies them one at a time into the
    # first device's compute buffer for a prompt batch (``staging``, module docstring).
    counts = _split(ngl, [d.capacity for d in setup.devices])
    per_gpu: list[MemoryBreakdown] = []
    start = first_gpu
    last = max(i for i, c in enumerate(counts) if c > 0) if any(counts) else 0
    moved = host_expert_layers(setup, first_gpu)
    staging = lay.staged_bytes if first_gpu > 0 or moved else 0
    for index, count in enumerate(counts):
        stop = start + count
        if count == 0:
            per_gpu.append(MemoryBreakdown())
            continue
        w = lay.layer_prefix[stop] - lay.layer_prefix[start] - _host_experts(setup, start, stop)
        if offload_output and index == last:
            w += out_bytes if out_bytes else lay.embd_bytes
        kv_gpu = kv.range_bytes(n_ctx, start, stop)
        compute = reserved + (staging if start == first_gpu else 0)
        per_gpu.append(MemoryBreakdown(w, kv_gpu, compute, cal.gpu_context_bytes))
        start = stop
    vram = MemoryBreakdown()
    for part in per_gpu:
        vram = vram + part

    # Host memory the process needs: the embeddings (always on the CPU), the CPU layers (their
    # repacked copies replace the mapped pages), the output layer unless offloaded. mmap also
    # maps the GPU layers' pages at load (page cache the kernel can drop; not counted here).
    cpu_weights = lay.embd_bytes + cpu_layer_bytes + moved * lay.expert_layer_bytes
    if not offload_output:
        cpu_weights += out_bytes
    cpu_kv = kv.range_bytes(n_ctx, 0, first_gpu)
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


class AtCtx(NamedTuple):
    """What every placement at one context shares (see :func:`at_ctx`)."""

    n_ctx: int
    cells: int  # KV cells of a full-size layer: the padded context
    swa_cells: int  # KV cells of a bounded sliding-window layer
    reserved: int  # the compute buffer (fm.compute_reserved_bytes)
    overhead: int  # fm.runtime_overhead_bytes


def at_ctx(setup: Setup, n_ctx: int) -> AtCtx:
    """The context's share of :func:`fit_flags`, computed once for a search over layers."""
    arch, lay = setup.target.arch, setup.layout
    cells = fm.padded_ctx(n_ctx)
    reserved = fm.reserved_for_cells(arch, lay.kv.max_cells(n_ctx), flash_attn=setup.flash_attn)
    overhead = fm.overhead_for_caches(arch, n_ctx, lay.n_caches, lay.model_overhead)
    return AtCtx(n_ctx, cells, min(cells, lay.kv.swa_cells), reserved, overhead)


def fit_flags(
    setup: Setup, n_ctx: int | AtCtx, n_gpu_layers: int, offload_output: bool
) -> tuple[bool, bool]:
    """``(fits_ram, fits_vram)`` of ``place(setup, n_ctx, n_gpu_layers, offload_output)``.

    The same sums as :func:`place` without the breakdowns it builds: the searches for the
    most GPU layers and the largest context call this thousands of times per catalog.
    ``n_ctx`` may be :func:`at_ctx`'s terms, for a search at one context.
    """
    ctx = at_ctx(setup, n_ctx) if isinstance(n_ctx, int) else n_ctx
    arch, lay = setup.target.arch, setup.layout
    kv, cells, swa = lay.kv, ctx.cells, ctx.swa_cells
    n_layers = arch.n_layers
    devices = setup.devices
    ngl = max(0, min(n_gpu_layers, n_layers)) if devices else 0
    reserved = ctx.reserved
    if ngl == 0:
        needed = lay.file_bytes - lay.header_bytes
        ram_full = needed + kv.range_at(cells, swa, 0, n_layers) + reserved + ctx.overhead
        return ram_full <= setup.ram_available, True
    offload_output = offload_output and ngl == n_layers
    first_gpu = n_layers - ngl
    prefix = lay.layer_prefix
    cal = fm.CALIBRATION
    out = (lay.output_bytes or lay.embd_bytes) if offload_output else 0
    moved = host_expert_layers(setup, first_gpu)
    staging = lay.staged_bytes if first_gpu > 0 or moved else 0  # as in place()
    host_experts = moved * lay.expert_layer_bytes
    if len(devices) == 1:  # _split gives the one device every layer
        totals = [
            prefix[n_layers]
            - prefix[first_gpu]
            - host_experts
            + out
            + kv.range_at(cells, swa, first_gpu, n_layers)
            + reserved
            + staging
            + cal.gpu_context_bytes
        ]
    else:
        counts = _split(ngl, [d.capacity for d in devices])
        last = max(i for i, c in enumerate(counts) if c > 0) if any(counts) else 0
        totals = []
        start = first_gpu
        for index, count in enumerate(counts):
            if count == 0:
                totals.append(0)
                continue
            stop = start + count
            w = prefix[stop] - prefix[start] + (out if index == last else 0)
            w += (staging if start == first_gpu else 0) - _host_experts(setup, start, stop)
            totals.append(
                w + kv.range_at(cells, swa, start, stop) + reserved + cal.gpu_context_bytes
            )
            start = stop
    cpu_weights = lay.embd_bytes + prefix[first_gpu] + host_experts
    if not offload_output:
        cpu_weights += lay.output_bytes
    cpu_kv = kv.range_at(cells, swa, 0, first_gpu)
    host_full = reserved if first_gpu > 0 else fm.N_UBATCH * arch.n_embd * fm.F32 * 4
    ram_full = cpu_weights + cpu_kv + ctx.overhead + cal.gpu_host_runtime_bytes + host_full
    if setup.unified:
        fits_vram = all(t <= d.capacity for t, d in zip(totals, devices, strict=True))
        return ram_full + sum(totals) <= setup.ram_available, fits_vram
    fits_vram = all(
        t == 0 or t <= d.capacity - VRAM_MARGIN_BYTES for t, d in zip(totals, devices, strict=True)
    )
    return ram_full <= setup.ram_available, fits_vram


def best_placement(setup: Setup, n_ctx: int) -> Placement:
    """Full offload if it fits, else the most layers the GPUs hold, else CPU."""
    if not setup.devices:
        return place(setup, n_ctx, 0, False)
    ngl, offload_output = _best(setup, at_ctx(setup, n_ctx))
    return place(setup, n_ctx, ngl, offload_output)


def fits_at(setup: Setup, n_ctx: int) -> bool:
    """``best_placement(setup, n_ctx).fits``, without building placements.

    The placement chosen fits if the CPU does (it is chosen then, or a placement that fits
    is), so the CPU is checked first: one placement where the layer search takes several.
    """
    ctx = at_ctx(setup, n_ctx)
    if all(fit_flags(setup, ctx, 0, False)):
        return True
    if not setup.devices:
        return False
    return all(fit_flags(setup, ctx, *_best(setup, ctx)))


def _best(setup: Setup, ctx: AtCtx) -> tuple[int, bool]:
    """(n_gpu_layers, offload_output) of :func:`best_placement` on a setup with GPUs."""
    n_layers = setup.target.arch.n_layers
    if all(fit_flags(setup, ctx, n_layers, True)):
        return n_layers, True
    lo, hi = 0, n_layers  # largest k with fits_vram, offload_output False
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fit_flags(setup, ctx, mid, False)[1]:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return 0, False
    if all(fit_flags(setup, ctx, lo, False)) or not all(fit_flags(setup, ctx, 0, False)):
        return lo, False
    return 0, False
