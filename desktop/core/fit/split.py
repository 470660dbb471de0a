"""A model split across machines: llama.cpp's RPC backend, estimated.

``rpc-server`` on another box offers its backend devices (its GPUs, else its CPU and RAM) to a
llama.cpp process here (``--rpc HOST:PORT``). llama.cpp then lists the RPC devices first and
the local GPUs after them, offloads the last ``n_gpu_layers`` blocks to that list, split in
proportion to the devices' free memory (``--tensor-split``), with each block's KV cache on the
device that holds it; the token embeddings stay on the local CPU, and blocks not offloaded run
on the local CPU first.

:func:`estimate_split` does the same with saved hardware profiles (``hw --save`` on each box):
every box's share of the layers in proportion to its free memory (VRAM where it has a GPU, else
RAM), the local CPU's share too when this machine has no GPU, what each device and each box then
holds (layers, weights, KV cache, compute buffer), and the ``--rpc``/``-ngl``/``--tensor-split``
that reproduce it. The speed is the memory-bandwidth roofline of :mod:`~desktop.core.fit.speed`
over every device in turn plus the network: per generated token the activations (``n_embd``
floats) cross every boundary between machines on the layer path, a box-to-box boundary twice
(the RPC client relays it), and the logits come back when the output layer sits on a box; each
crossing costs its bytes at the link speed plus the link's latency.

Memory terms are those of :mod:`~desktop.core.fit.place` (the same layout, compute buffer and
per-device context), the local host's through :func:`~desktop.core.fit.place.place` itself.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from desktop.core.errors import FitError, HardwareError
from desktop.core.fit import memory as fm
from desktop.core.fit.place import VRAM_MARGIN_BYTES, Device, Setup, make_setup, place, split_layers
from desktop.core.fit.speed import (
    CPU_KV_RATE_PER_CORE,
    CPU_NODE_S,
    CPU_TOKEN_S,
    GPU_EFFICIENCY,
    GPU_NODE_S,
    Stage,
    cpu_stage,
    roofline,
)
from desktop.core.fit.types import DEFAULT_PROMPT_TOKENS, FitTarget, MemoryBreakdown
from desktop.core.hardware import GpuInfo, HardwareProfile
from desktop.core.kv_cache import CacheType, flash_attn_for

LOCAL = "local"
GIB = 1024**3
ACTIVATION_BYTES = 4  # f32 activations cross the network between layers
# An rpc-server process on a CPU-only box: the runtime besides the buffers it is sent (a
# Python-hosted server: the interpreter with llama_cpp loaded, as the estimator's runtime).
CPU_SERVER_BYTES = fm.CALIBRATION.runtime_bytes

DeviceKind = Literal["cpu", "gpu"]


@dataclass(frozen=True)
class Link:
    """The network between this machine and the boxes: bandwidth and one-way latency."""

    gbit_per_s: float = 1.0
    latency_ms: float = 0.5

    def __post_init__(self) -> None:
        if not self.gbit_per_s > 0:  # also refuses NaN
            raise FitError(f"The link speed must be positive, not {self.gbit_per_s} Gbit/s.")
        if not self.latency_ms >= 0:
            raise FitError(f"The link latency must be 0 or more, not {self.latency_ms} ms.")

    def seconds(self, n_bytes: int) -> float:
        """One transfer of ``n_bytes``: its bytes at the link speed plus the latency."""
        return n_bytes * 8 / (self.gbit_per_s * 1e9) + self.latency_ms / 1000.0


def check_endpoint(text: str) -> str:
    """``HOST:PORT`` (``[v6]:PORT`` for IPv6) as llama.cpp's ``--rpc`` takes it; FitError."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise FitError(f"An RPC server is HOST:PORT (like 192.168.1.20:50052), not {text!r}.")
    return f"{host}:{int(port)}"


@dataclass(frozen=True)
class RpcBox:
    """A machine running llama.cpp's ``rpc-server`` at ``endpoint``, described by ``profile``."""

    endpoint: str
    profile: HardwareProfile

    @classmethod
    def parse(cls, spec: str) -> RpcBox:
        """``FILE@HOST:PORT``: a profile saved on that box (``hw --save``) and where it serves."""
        path, sep, endpoint = spec.rpartition("@")
        if not sep or not path:
            raise FitError(
                f"An RPC box is PROFILE.json@HOST:PORT (the box's `llm-scout hw --save` file and "
                f"its rpc-server's address), not {spec!r}."
            )
        try:
            profile = HardwareProfile.load(Path(path).expanduser())
        except HardwareError as exc:
            raise FitError(str(exc)) from exc
        return cls(check_endpoint(endpoint), profile)

    def devices(self) -> tuple[SplitDevice, ...]:
        """What its rpc-server offers: every GPU with memory, else the CPU with its RAM."""
        gpus = [g for g in self.profile.gpus if (g.memory_free_bytes or g.memory_total_bytes)]
        if gpus:
            return tuple(
                SplitDevice(
                    name=f"{self.endpoint} GPU {i} ({g.name})",
                    machine=self.endpoint,
                    processor="gpu",
                    capacity=g.memory_free_bytes or g.memory_total_bytes,
                    bandwidth_gbps=g.bandwidth_gbps,
                    context_bytes=fm.CALIBRATION.gpu_context_bytes,
                )
                for i, g in enumerate(gpus)
            )
        return (
            SplitDevice(
                name=f"{self.endpoint} CPU",
                machine=self.endpoint,
                processor="cpu",
                capacity=self.profile.memory.available_bytes,
                bandwidth_gbps=self.profile.cpu.memory_bandwidth_gbps,
                context_bytes=CPU_SERVER_BYTES,
            ),
        )


@dataclass(frozen=True)
class SplitDevice:
    """One device layers can go to: a box's (RPC) or a local GPU."""

    name: str
    machine: str  # LOCAL or the box's endpoint
    processor: DeviceKind
    capacity: int  # free bytes
    bandwidth_gbps: float | None
    context_bytes: int  # fixed cost on the device (CUDA context, a CPU server's runtime)


@dataclass(frozen=True)
class Holder:
    """What one device holds: layers ``first_layer`` to ``first_layer + n_layers - 1`` (and the
    output layer when ``output``), their weights and KV cache, a compute buffer."""

    name: str
    machine: str
    processor: DeviceKind
    first_layer: int
    n_layers: int
    output: bool
    memory: MemoryBreakdown
    capacity: int
    fits: bool
    bandwidth_gbps: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "machine": self.machine,
            "processor": self.processor,
            "first_layer": self.first_layer,
            "n_layers": self.n_layers,
            "output": self.output,
            "memory": self.memory.to_dict(),
            "capacity_bytes": self.capacity,
            "fits": self.fits,
        }


@dataclass(frozen=True)
class MachineShare:
    """One machine's part: its devices' layers and bytes together."""

    machine: str
    n_layers: int
    bytes: int
    weights_bytes: int
    kv_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "machine": self.machine,
            "n_layers": self.n_layers,
            "bytes": self.bytes,
            "weights_bytes": self.weights_bytes,
            "kv_bytes": self.kv_bytes,
        }


@dataclass(frozen=True)
class SplitResult:
    """The split of one model over this machine and its RPC boxes.

    ``holders``: in the order a token passes them (local CPU layers first, then the RPC devices,
    then the local GPUs); the local CPU's entry is the host memory the process keeps (the
    embeddings always, the output layer unless a device holds it). ``n_gpu_layers``,
    ``tensor_split`` (one weight per llama.cpp device: the RPC devices, then the local GPUs) and
    ``rpc_servers`` reproduce the split in llama.cpp (:meth:`llama_args`).
    """

    label: str
    n_ctx: int
    cache_type: CacheType
    n_layers: int
    holders: tuple[Holder, ...]
    n_gpu_layers: int  # llama.cpp's value: -1 when the output layer is offloaded too
    tensor_split: tuple[int, ...]
    rpc_servers: tuple[str, ...]
    left_out: tuple[str, ...]
    ram_full_bytes: int
    ram_available_bytes: int
    link: Link
    crossings: int
    network_bytes_per_token: int
    network_s_per_token: float
    tokens_per_s: float | None
    tokens_per_s_without_network: float | None
    roofline_tokens_per_s: float | None
    fits: bool
    reasons: tuple[str, ...] = field(default=())

    def machines(self) -> tuple[MachineShare, ...]:
        """Each machine's layers and bytes (this machine first, then the boxes in order)."""
        order: list[str] = []
        for holder in self.holders:
            if holder.machine not in order:
                order.append(holder.machine)
        order.sort(key=lambda m: m != LOCAL)
        shares = []
        for machine in order:
            mine = [h for h in self.holders if h.machine == machine]
            shares.append(
                MachineShare(
                    machine,
                    sum(h.n_layers for h in mine),
                    sum(h.memory.total for h in mine),
                    sum(h.memory.weights for h in mine),
                    sum(h.memory.kv_cache for h in mine),
                )
            )
        return tuple(shares)

    def llama_args(self) -> str:
        """The llama.cpp options (llama-cli, llama-server) that make the same split."""
        parts = []
        if self.rpc_servers:
            parts.append("--rpc " + ",".join(self.rpc_servers))
        parts.append(f"-ngl {self.n_gpu_layers}")
        if len(self.tensor_split) > 1:
            parts.append("--tensor-split " + ",".join(str(w) for w in self.tensor_split))
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "n_ctx": self.n_ctx,
            "cache_type": self.cache_type,
            "n_layers": self.n_layers,
            "fits": self.fits,
            "holders": [h.to_dict() for h in self.holders],
            "machines": [m.to_dict() for m in self.machines()],
            "n_gpu_layers": self.n_gpu_layers,
            "tensor_split": list(self.tensor_split),
            "rpc_servers": list(self.rpc_servers),
            "llama_args": self.llama_args(),
            "left_out": list(self.left_out),
            "ram_full_context_bytes": self.ram_full_bytes,
            "ram_available_bytes": self.ram_available_bytes,
            "link": {"gbit_per_s": self.link.gbit_per_s, "latency_ms": self.link.latency_ms},
            "network": {
                "crossings_per_token": self.crossings,
                "bytes_per_token": self.network_bytes_per_token,
                "seconds_per_token": self.network_s_per_token,
            },
            "tokens_per_s": self.tokens_per_s,
            "tokens_per_s_without_network": self.tokens_per_s_without_network,
            "roofline_tokens_per_s": self.roofline_tokens_per_s,
            "reasons": list(self.reasons),
        }


def estimate_split(
    target: FitTarget,
    local: HardwareProfile,
    boxes: tuple[RpcBox, ...] | list[RpcBox],
    *,
    n_ctx: int,
    cache_type: CacheType = "f16",
    flash_attn: bool | None = None,
    link: Link | None = None,
    local_layers: bool = True,
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
) -> SplitResult:
    """Split ``target``'s layers over this machine (``local``) and ``boxes`` by free memory.

    ``local_layers=False`` keeps every block off this machine (it holds the embeddings and the
    output layer only: a laptop driving the boxes). A device that cannot hold one layer with
    its compute buffer is left out and the rest split again (said in ``reasons``).
    """
    if target.format != "gguf":
        raise FitError(f"{target.label} is not a GGUF model; llama.cpp's RPC backend runs GGUF.")
    if n_ctx < 1:
        raise FitError(f"The context length must be at least 1, not {n_ctx}.")
    n_layers = target.arch.n_layers
    if n_layers < 1:
        raise FitError(f"{target.label} has no layers to place.")
    endpoints = [box.endpoint for box in boxes]
    if len(set(endpoints)) != len(endpoints):
        raise FitError("The same RPC server is given twice.")
    link = link or Link()
    fa = flash_attn_for(flash_attn, cache_type)
    used = min(max(1, prompt_tokens), fm.padded_ctx(n_ctx))
    setup = make_setup(target, local, cache_type, flash_attn=fa, swa_full=True, prompt_tokens=used)
    lay = setup.layout
    local_gpus = tuple(
        SplitDevice(
            name=f"this machine GPU {i} ({d.gpu.name})",
            machine=LOCAL,
            processor="gpu",
            capacity=d.capacity,
            bandwidth_gbps=d.gpu.bandwidth_gbps,
            context_bytes=fm.CALIBRATION.gpu_context_bytes,
        )
        for i, d in enumerate(setup.devices)
    )
    rpc_devices = tuple(dev for box in boxes for dev in box.devices())
    devices = rpc_devices + (local_gpus if local_layers else ())
    reserved = fm.reserved_for_cells(
        target.arch, lay.kv.max_cells(n_ctx), flash_attn=setup.flash_attn
    )
    reasons: list[str] = []
    left_out: list[str] = []
    # The least a device needs to take a layer: its fixed costs and the largest block with its
    # KV cache. Smaller devices are left out (llama.cpp would give them a layer they cannot hold).
    one_layer = lay.max_layer_bytes + max(
        (lay.kv.range_bytes(n_ctx, i, i + 1) for i in range(n_layers)), default=0
    )
    usable = []
    for dev in devices:
        need = dev.context_bytes + reserved + one_layer + VRAM_MARGIN_BYTES
        if dev.capacity < need:
            left_out.append(dev.name)
            reasons.append(
                f"{dev.name} has {dev.capacity / GIB:.2f} GiB free, less than the "
                f"{need / GIB:.2f} GiB one layer needs there; it is left out."
            )
        else:
            usable.append(dev)
    devices = tuple(usable)
    # This machine's CPU takes a share by its RAM only when it has no GPU doing its part.
    cpu_share = local_layers and not local_gpus
    ram = setup.ram_available
    capacities = [d.capacity for d in devices]
    if not devices:
        ngl = 0
    elif cpu_share:
        ngl = n_layers - round(n_layers * ram / (ram + sum(capacities)))
    else:
        ngl = n_layers
    offload_output = bool(devices) and ngl == n_layers and bool(local_gpus) and local_layers
    counts = split_layers(ngl, capacities) if devices else []

    # The host: place() with the devices as GPUs of that capacity (only their count, the layer
    # numbers and the output matter for the host's terms).
    stand_ins = tuple(
        Device(GpuInfo(vendor="nvidia", name=d.name, memory_free_bytes=d.capacity), d.capacity)
        for d in devices
    )
    host = place(_with_devices(setup, stand_ins), n_ctx, ngl, offload_output)
    host_ram, host_full = host.ram, host.ram_full
    if ngl and not local_gpus:
        # place() counts the CUDA runtime's host memory with any GPU layer; RPC devices
        # bring no runtime into this process.
        runtime = fm.CALIBRATION.gpu_host_runtime_bytes
        host_ram = replace(host_ram, overhead=host_ram.overhead - runtime)
        host_full -= runtime
    first_gpu = n_layers - ngl
    holders = [
        Holder(
            name="this machine CPU",
            machine=LOCAL,
            processor="cpu",
            first_layer=0,
            n_layers=first_gpu,
            output=not offload_output,
            memory=host_ram,
            capacity=ram,
            fits=host_full <= ram,
            bandwidth_gbps=local.cpu.memory_bandwidth_gbps,
        )
    ]
    staging = lay.staged_bytes if first_gpu > 0 else 0
    last = max((i for i, c in enumerate(counts) if c > 0), default=-1)
    start = first_gpu
    for index, (dev, count) in enumerate(zip(devices, counts, strict=True)):
        stop = start + count
        weights = lay.layer_prefix[stop] - lay.layer_prefix[start]
        output = offload_output and index == last
        if output:
            weights += lay.output_bytes or lay.embd_bytes
        if count:
            memory = MemoryBreakdown(
                weights,
                lay.kv.range_bytes(n_ctx, start, stop),
                reserved + (staging if start == first_gpu else 0),
                dev.context_bytes,
            )
        else:
            memory = MemoryBreakdown()
        fits = memory.total == 0 or memory.total <= dev.capacity - VRAM_MARGIN_BYTES
        holders.append(
            Holder(
                dev.name,
                dev.machine,
                dev.processor,
                start,
                count,
                output,
                memory,
                dev.capacity,
                fits,
                dev.bandwidth_gbps,
            )
        )
        start = stop
    for holder in holders:
        if not holder.fits:
            what = "RAM available" if holder.processor == "cpu" else "free"
            host_side = holder.machine == LOCAL and holder.processor == "cpu"
            total = host_full if host_side else holder.memory.total
            reasons.append(
                f"{holder.name} needs {total / GIB:.2f} GiB, more than the "
                f"{holder.capacity / GIB:.2f} GiB {what}."
            )
    if not boxes:
        reasons.append("No RPC server given: this is the split of this machine alone.")

    # llama.cpp's devices: the RPC devices of the boxes given, then the local GPUs. The layer
    # counts themselves are a --tensor-split that reproduces the split exactly (the output
    # layer is one more slot on the device holding it).
    slots = {h.name: h.n_layers + int(h.output) for h in holders[1:]}
    rpc_used = tuple(e for e in endpoints if any(d.machine == e for d in devices))
    llama_devices = [d for d in rpc_devices if d.machine in rpc_used] + list(local_gpus)
    tensor_split = tuple(slots.get(d.name, 0) for d in llama_devices)
    if not any(tensor_split):
        tensor_split = ()

    crossings, net_bytes, net_s = _network(holders, target, link)
    tokens, without, roof = _speed(setup, holders, used, net_s)
    if tokens is None:
        reasons.append("A memory bandwidth on the path is unknown, so no speed is predicted.")
    return SplitResult(
        label=target.label,
        n_ctx=n_ctx,
        cache_type=cache_type,
        n_layers=n_layers,
        holders=tuple(holders),
        n_gpu_layers=-1 if offload_output else ngl,
        tensor_split=tensor_split,
        rpc_servers=rpc_used,
        left_out=tuple(left_out),
        ram_full_bytes=host_full,
        ram_available_bytes=ram,
        link=link,
        crossings=crossings,
        network_bytes_per_token=net_bytes,
        network_s_per_token=net_s,
        tokens_per_s=tokens,
        tokens_per_s_without_network=without,
        roofline_tokens_per_s=roof,
        fits=all(h.fits for h in holders),
        reasons=tuple(reasons),
    )


def _with_devices(setup: Setup, devices: tuple[Device, ...]) -> Setup:
    # One memory pool (Apple, Jetson) is this machine's: the boxes' memory is not in it.
    return replace(setup, devices=devices, unified=False)


def _network(holders: list[Holder], target: FitTarget, link: Link) -> tuple[int, int, float]:
    """(transfers, bytes, seconds) per generated token over the network.

    The path: the embeddings (this machine), every holder of layers in order, the output layer,
    and the logits back here. A boundary between two boxes is two transfers: the RPC client
    reads the activations from one and writes them to the other.
    """
    arch = target.arch
    activations = arch.n_embd * ACTIVATION_BYTES
    path = [LOCAL] + [h.machine for h in holders if h.n_layers > 0]
    output_at = next((h.machine for h in holders if h.output), LOCAL)
    path.append(output_at)
    transfers: list[int] = []
    for here, there in itertools.pairwise(path):
        if here == there:
            continue
        hops = 2 if LOCAL not in (here, there) else 1
        transfers.extend([activations] * hops)
    if output_at != LOCAL:
        transfers.append(arch.n_vocab * ACTIVATION_BYTES)  # the logits
    return len(transfers), sum(transfers), sum(link.seconds(b) for b in transfers)


def _speed(
    setup: Setup, holders: list[Holder], used: int, network_s: float
) -> tuple[float | None, float | None, float | None]:
    """(expected tokens/s, the same without the network, roofline): every holder reads its
    layers (active experts only), their KV cache in use and the output matrix if it holds it,
    at its own bandwidth, one after the other; its graph nodes' costs and the network on top."""
    lay = setup.layout
    stages = []
    overhead = CPU_TOKEN_S
    for h in holders:
        start, stop = h.first_layer, h.first_layer + h.n_layers
        weights = (lay.layer_prefix[stop] - lay.layer_prefix[start]) * lay.dense_share
        kv = lay.used_kv.range_bytes(used, start, stop)
        nodes = h.n_layers * lay.block_nodes
        if h.output:
            weights += lay.out_read_bytes
            nodes += lay.outside_nodes
        if h.processor == "gpu":
            stages.append(
                Stage(int(weights + kv), h.bandwidth_gbps, GPU_EFFICIENCY, nodes * GPU_NODE_S)
            )
            continue
        # each read at its kernel's rate, as in decode.stages; another machine's CPU (an RPC
        # server) by its bandwidth only
        moe_layers = max(0, stop - max(start, lay.first_moe_layer))
        experts = min(moe_layers * lay.expert_layer_bytes * lay.active_experts, weights)
        parts = [
            (weights - experts, lay.cpu_weight_rate),
            (experts, lay.cpu_expert_rate),
            (kv, CPU_KV_RATE_PER_CORE),
        ]
        held = lay.layer_prefix[stop] - lay.layer_prefix[start] + kv
        held += lay.out_read_bytes if h.output else 0
        remote = None if h.machine == LOCAL else h.bandwidth_gbps
        stages.append(
            cpu_stage(parts, held, setup.profile.cpu, nodes * CPU_NODE_S, bandwidth_gbps=remote)
        )
    roof, without = roofline(stages, overhead)
    _, expected = roofline(stages, overhead + network_s)
    return expected, without, roof
