"""vLLM for AWQ variants: the ``vllm serve`` command that matches a fit, and per-GPU memory.

AWQ variants run through vLLM on NVIDIA GPUs of compute capability 7.5 or newer (vLLM's AWQ
kernels need Turing or later). :func:`plan_vllm` picks how many GPUs a variant needs and turns
the estimate into the command a person can paste::

    vllm serve REPO --quantization awq --max-model-len N --gpu-memory-utilization X
        [--tensor-parallel-size K]

**What one GPU holds.** With tensor parallelism over K GPUs every GPU holds 1/K of each weight
matrix (the vocabulary-parallel embeddings and output matrix too), the KV cache of its share
of the KV heads (a model with fewer KV heads than K has each head copied to K / heads GPUs, so
that share never drops below one head), and its own runtime overhead (CUDA context, CUDA
graphs, the activation peak vLLM profiles, NCCL buffers):
``weights / K + KV(max_model_len) x max(1, kv_heads // K) / kv_heads + overhead``.
With pipeline parallelism over P stages (vLLM's multi-node path: tensor parallel inside a
node, pipeline across nodes, over vLLM's own Ray cluster) each stage holds ceil(layers / P)
layers and their KV cache; the first stage also holds the token embeddings and the last the
output matrix, so the heaviest stage is reported. :func:`per_gpu_memory` gives these numbers
for any (K, P).

**The utilisation X.** vLLM preallocates ``X x total memory`` of each GPU at start-up: the
weights and the runtime come out of that budget and everything left becomes the KV cache pool,
which must hold at least one sequence of ``max_model_len`` tokens or vLLM refuses to start.
It also refuses to start when less than ``X x total`` is free. So::

    X = clamp(ceil_0.01(need_per_gpu x (1 + margin) / total), 0.5, min(0.95, free / total))

with a 10% margin because the overhead term is modelled, not measured. The floor 0.5 leaves a
small model room for more than one concurrent sequence (vLLM's own default is 0.9); the
ceiling leaves the driver and other processes their share and never asks for more than is free.
A GPU "fits" when ``need_per_gpu <= min(0.95, free / total) x total``.

**K.** The smallest power of two such that K identical GPUs (same name and total memory) of
the profile each fit their share and the model's attention heads divide evenly by K (vLLM
requires ``n_head % K == 0``, and KV heads divisible by K or K by KV heads).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from typing import Any

from desktop.core.fit import memory as fm
from desktop.core.fit.types import FitTarget
from desktop.core.hardware import GpuInfo, HardwareProfile, list_profiles, load_profile

AWQ_MIN_COMPUTE_CAPABILITY = (7, 5)
UTILIZATION_MIN = 0.5
UTILIZATION_MAX = 0.95
UTILIZATION_MARGIN = 0.10
MAX_TENSOR_PARALLEL = 8  # one node: vLLM's tensor parallel stays inside NVLink/PCIe reach
AWQ_EMBD_BYTES = 2  # AWQ keeps the embeddings and the output matrix in f16

NEEDS_TEXT = (
    "AWQ models run with vLLM, which needs Linux and an NVIDIA GPU with compute capability "
    "7.5 or newer (Turing, e.g. RTX 20xx, T4, or later)"
)


@dataclass(frozen=True)
class GpuShare:
    """Bytes one GPU holds for a tensor parallel size K and pipeline parallel size P (the
    heaviest GPU: the first or last pipeline stage)."""

    tensor_parallel: int
    pipeline_parallel: int
    weights: int
    kv_cache: int
    overhead: int

    @property
    def total(self) -> int:
        return self.weights + self.kv_cache + self.overhead

    @property
    def n_gpus(self) -> int:
        return self.tensor_parallel * self.pipeline_parallel

    def to_dict(self) -> dict[str, int]:
        return {
            "tensor_parallel_size": self.tensor_parallel,
            "pipeline_parallel_size": self.pipeline_parallel,
            "n_gpus": self.n_gpus,
            "weights": self.weights,
            "kv_cache": self.kv_cache,
            "overhead": self.overhead,
            "total": self.total,
        }


@dataclass(frozen=True)
class VllmPlan:
    """The vLLM server that matches an AWQ variant on a profile.

    ``fits``: a command was found; otherwise ``reason`` says why not (no capable GPU, too
    large for the GPUs) and ``tensor_parallel_size``/``gpu_memory_utilization`` are 0.
    ``gpu_indexes``: the GPUs the command uses (``CUDA_VISIBLE_DEVICES`` is set in
    :attr:`command` when they are not the first K).
    """

    repo: str
    max_model_len: int
    tensor_parallel_size: int = 0
    pipeline_parallel_size: int = 1
    gpu_memory_utilization: float = 0.0
    per_gpu: GpuShare | None = None
    gpu_name: str = ""
    gpu_total_bytes: int = 0
    gpu_indexes: tuple[int, ...] = ()
    reason: str = ""
    notes: tuple[str, ...] = ()

    @property
    def fits(self) -> bool:
        return self.tensor_parallel_size > 0

    def argv(self, *, port: int | None = None, host: str | None = None) -> list[str]:
        """The ``vllm serve`` arguments (empty when nothing fits); ``port``/``host`` added for
        a managed server."""
        if not self.fits:
            return []
        args = [
            "vllm",
            "serve",
            self.repo,
            "--quantization",
            "awq",
            "--max-model-len",
            str(self.max_model_len),
            "--gpu-memory-utilization",
            f"{self.gpu_memory_utilization:.2f}",
        ]
        if self.tensor_parallel_size > 1:
            args += ["--tensor-parallel-size", str(self.tensor_parallel_size)]
        if self.pipeline_parallel_size > 1:
            args += ["--pipeline-parallel-size", str(self.pipeline_parallel_size)]
        if host is not None:
            args += ["--host", host]
        if port is not None:
            args += ["--port", str(port)]
        return args

    @property
    def env(self) -> dict[str, str]:
        """Environment the command needs: the GPUs to use when they are not the first K."""
        if not self.fits or self.gpu_indexes == tuple(range(len(self.gpu_indexes))):
            return {}
        return {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in self.gpu_indexes)}

    @property
    def command(self) -> str:
        """The shell line to paste ("" when nothing fits)."""
        if not self.fits:
            return ""
        prefix = "".join(f"{k}={v} " for k, v in self.env.items())
        return prefix + shlex.join(self.argv())

    def to_dict(self) -> dict[str, Any]:
        """The ``vllm`` object of ``llm-scout fit --json``."""
        return {
            "command": self.command or None,
            "argv": self.argv() or None,
            "env": self.env,
            "repo": self.repo,
            "max_model_len": self.max_model_len,
            "tensor_parallel_size": self.tensor_parallel_size or None,
            "pipeline_parallel_size": self.pipeline_parallel_size,
            "gpu_memory_utilization": self.gpu_memory_utilization or None,
            "gpu_name": self.gpu_name or None,
            "gpu_total_bytes": self.gpu_total_bytes or None,
            "gpu_indexes": list(self.gpu_indexes),
            "per_gpu": self.per_gpu.to_dict() if self.per_gpu is not None else None,
            "reason": self.reason or None,
            "notes": list(self.notes),
        }


def compute_capability_ok(capability: str | None) -> bool:
    """True for an NVIDIA compute capability ("8.6") of 7.5 or newer."""
    if not capability:
        return False
    try:
        major, _, minor = capability.partition(".")
        return (int(major), int(minor or 0)) >= AWQ_MIN_COMPUTE_CAPABILITY
    except ValueError:
        return False


def capable_gpus(profile: HardwareProfile) -> tuple[GpuInfo, ...]:
    """The profile's GPUs vLLM can run AWQ on: NVIDIA, compute capability 7.5+, memory known."""
    return tuple(
        g
        for g in profile.gpus
        if g.vendor == "nvidia"
        and compute_capability_ok(g.compute_capability)
        and g.memory_total_bytes > 0
    )


def per_gpu_memory(
    target: FitTarget, n_ctx: int, *, tensor_parallel: int = 1, pipeline_parallel: int = 1
) -> GpuShare:
    """Bytes the heaviest GPU holds when vLLM serves ``target`` at ``n_ctx`` over
    ``tensor_parallel`` GPUs per stage and ``pipeline_parallel`` stages (see the module
    docstring for the model). Raises ValueError for sizes below 1."""
    if tensor_parallel < 1 or pipeline_parallel < 1:
        raise ValueError("parallel sizes are at least 1")
    arch = target.arch
    n_layers = max(arch.n_layers, 1)
    embd, output = _edge_bytes(target)
    layer_total = max(target.weights_bytes - embd - output, 0)
    stage_layers = min(math.ceil(n_layers / pipeline_parallel), n_layers)
    per_layer = layer_total / n_layers
    ends = embd + output if pipeline_parallel == 1 else max(embd, output or embd)
    weights = int((per_layer * stage_layers + ends) / tensor_parallel)
    shape = fm.kv_shape(arch, "f16", swa_full=True)
    kv_stage = shape.range_bytes(n_ctx, 0, stage_layers)
    kv_heads = max(arch.n_head_kv, default=0)
    if kv_heads > 0:
        kv = kv_stage * max(1, kv_heads // tensor_parallel) // kv_heads
    else:
        kv = kv_stage // tensor_parallel
    return GpuShare(
        tensor_parallel, pipeline_parallel, weights, kv, fm.CALIBRATION.vllm_overhead_bytes
    )


def tensor_parallel_ok(target: FitTarget, k: int) -> bool:
    """vLLM splits attention heads evenly: ``n_head % k == 0``; KV heads are split or copied
    (``kv_heads % k == 0`` or ``k % kv_heads == 0``)."""
    arch = target.arch
    if k == 1:
        return True
    if arch.n_head % k:
        return False
    kv_heads = max(arch.n_head_kv, default=0)
    return kv_heads <= 0 or kv_heads % k == 0 or k % kv_heads == 0


def usable_bytes(gpu: GpuInfo, profile: HardwareProfile | None = None) -> int:
    """What vLLM may take of ``gpu``: at most 95% of its memory, and never more than is free.
    On unified memory (Jetson) the pool is the profile's RAM: what is available less the
    server process's own host memory."""
    free = gpu.memory_free_bytes or gpu.memory_total_bytes
    if gpu.unified_memory and profile is not None:
        host = fm.CALIBRATION.vllm_host_bytes
        free = min(free, max(0, profile.memory.available_bytes - host))
    return min(int(gpu.memory_total_bytes * UTILIZATION_MAX), free)


def utilization(need: int, gpu: GpuInfo, profile: HardwareProfile | None = None) -> float:
    """``--gpu-memory-utilization`` for ``need`` bytes per GPU on ``gpu`` (module docstring)."""
    total = gpu.memory_total_bytes
    cap = math.floor(usable_bytes(gpu, profile) / total * 100) / 100
    wanted = math.ceil(need * (1 + UTILIZATION_MARGIN) / total * 100) / 100
    return round(min(max(wanted, UTILIZATION_MIN), cap), 2)


def choose_gpus(
    target: FitTarget,
    profile: HardwareProfile,
    *,
    n_ctx: int,
    tensor_parallel: int | None = None,
    pipeline_parallel: int = 1,
) -> tuple[GpuShare, tuple[GpuInfo, ...]] | None:
    """The per-GPU share and the GPUs (of ``profile.gpus``) vLLM would use for ``target`` at
    ``n_ctx``: K identical GPUs, K the smallest power of two that fits (or exactly
    ``tensor_parallel``) per node, each node (one of ``pipeline_parallel`` stages) being a
    machine like ``profile``; None when nothing fits. The fit (``estimate`` for AWQ) and
    :func:`plan_vllm` both choose through here, so the verdict and the command agree."""
    gpus = capable_gpus(profile)
    if not gpus:
        return None
    groups = _identical_groups(gpus)
    if tensor_parallel is not None:
        sizes = [tensor_parallel]
    else:
        most = max(len(g) for g in groups)
        sizes = [k for k in (1, 2, 4, 8) if k <= min(most, MAX_TENSOR_PARALLEL)]
    for k in sizes:
        if k < 1 or not tensor_parallel_ok(target, k):
            continue
        share = per_gpu_memory(
            target, n_ctx, tensor_parallel=k, pipeline_parallel=pipeline_parallel
        )
        for group in groups:
            if len(group) < k:
                continue
            chosen = sorted(group, key=lambda g: usable_bytes(g, profile), reverse=True)[:k]
            if share.total <= min(usable_bytes(g, profile) for g in chosen):
                return share, tuple(sorted(chosen, key=lambda g: g.index))
    return None


def plan_vllm(
    target: FitTarget,
    profile: HardwareProfile,
    *,
    n_ctx: int,
    tensor_parallel: int | None = None,
    pipeline_parallel: int = 1,
) -> VllmPlan:
    """The vLLM command for the AWQ ``target`` on ``profile`` at ``n_ctx`` tokens.

    ``tensor_parallel``: use exactly that many GPUs (None: the smallest power of two that
    fits). ``pipeline_parallel``: that many nodes, each a machine like ``profile``, joined in
    vLLM's own Ray cluster (``ray start --head`` on one, ``ray start --address=HEAD:6379`` on
    the others, then the command on the head node). ``n_ctx`` past the trained context is
    capped to it (vLLM refuses a longer ``--max-model-len`` than the model's config allows).
    """
    variant = target.variant
    repo = variant.repo if variant is not None else target.label
    notes: list[str] = []
    max_len = n_ctx
    trained = target.arch.n_ctx_train
    if trained > 0 and n_ctx > trained:
        max_len = trained
        notes.append(
            f"--max-model-len is capped at the trained context ({trained:,} tokens); vLLM "
            "refuses a longer one."
        )
    base = VllmPlan(repo=repo, max_model_len=max_len)
    if target.format != "awq":
        return _no(base, notes, "vLLM commands are made for AWQ variants; this one is GGUF.")
    if pipeline_parallel < 1:
        return _no(
            base, notes, f"The pipeline parallel size must be 1 or more, not {pipeline_parallel}."
        )
    if pipeline_parallel > 1:
        notes.append(
            f"Pipeline parallel over {pipeline_parallel} nodes like this one, in vLLM's own "
            "Ray cluster: `ray start --head` on the first node, `ray start "
            "--address=HEAD:6379` on the others, then run the command on the first."
        )
    if tensor_parallel is not None and tensor_parallel < 1:
        return _no(
            base, notes, f"The tensor parallel size must be 1 or more, not {tensor_parallel}."
        )
    gpus = capable_gpus(profile)
    if not gpus:
        return _no(base, notes, NEEDS_TEXT + "; this profile has none.")
    found = choose_gpus(
        target,
        profile,
        n_ctx=max_len,
        tensor_parallel=tensor_parallel,
        pipeline_parallel=pipeline_parallel,
    )
    if found is None:
        why = _why_not(
            target,
            profile,
            max_len,
            _identical_groups(gpus),
            tensor_parallel,
            pipeline=pipeline_parallel,
        )
        return _no(base, notes, why)
    share, chosen = found
    tightest = min(chosen, key=lambda g: usable_bytes(g, profile))
    return VllmPlan(
        repo=repo,
        max_model_len=max_len,
        tensor_parallel_size=share.tensor_parallel,
        pipeline_parallel_size=share.pipeline_parallel,
        gpu_memory_utilization=utilization(share.total, tightest, profile),
        per_gpu=share,
        gpu_name=tightest.name,
        gpu_total_bytes=tightest.memory_total_bytes,
        gpu_indexes=tuple(g.index for g in chosen),
        notes=tuple(notes),
    )


def what_if_plan(target: FitTarget, n_ctx: int) -> tuple[str, VllmPlan] | None:
    """The bundled what-if profile with the least GPU memory that runs ``target`` with vLLM
    (discrete cards before unified-memory boards), and its plan (None when none does): the
    command to show where this machine cannot."""
    found: list[tuple[bool, int, str, VllmPlan]] = []
    for name in list_profiles():
        profile = load_profile(name)
        if not capable_gpus(profile):
            continue
        plan = plan_vllm(target, profile, n_ctx=n_ctx)
        if plan.fits:
            memory = plan.gpu_total_bytes * plan.tensor_parallel_size
            found.append((profile.unified_memory, memory, name, plan))
    if not found:
        return None
    _, _, name, plan = min(found, key=lambda f: f[:3])
    return name, plan


def _no(base: VllmPlan, notes: list[str], reason: str) -> VllmPlan:
    return VllmPlan(
        repo=base.repo, max_model_len=base.max_model_len, reason=reason, notes=tuple(notes)
    )


def _edge_bytes(target: FitTarget) -> tuple[int, int]:
    """(token embeddings, output matrix) bytes in f16; output 0 when tied to the embeddings."""
    arch = target.arch
    embd = arch.n_vocab * arch.n_embd * AWQ_EMBD_BYTES
    output = embd if arch.extra.get("tied_embeddings") is False else 0
    # Never more than half the weights (a catalog whose vocabulary numbers are off).
    half = target.weights_bytes // 2
    if embd + output > half:
        scale = half / (embd + output)
        embd, output = int(embd * scale), int(output * scale)
    return embd, output


def _identical_groups(gpus: tuple[GpuInfo, ...]) -> list[list[GpuInfo]]:
    """GPUs grouped by (name, total memory), the largest memory first."""
    groups: dict[tuple[str, int], list[GpuInfo]] = {}
    for gpu in gpus:
        groups.setdefault((gpu.name, gpu.memory_total_bytes), []).append(gpu)
    return sorted(groups.values(), key=lambda g: (-g[0].memory_total_bytes, g[0].name))


def _why_not(
    target: FitTarget,
    profile: HardwareProfile,
    n_ctx: int,
    groups: list[list[GpuInfo]],
    asked: int | None,
    *,
    pipeline: int = 1,
) -> str:
    gib = 1024**3
    if asked is not None and not tensor_parallel_ok(target, asked):
        return (
            f"vLLM cannot split {target.arch.n_head} attention heads over {asked} GPUs "
            "(the heads must divide evenly)."
        )
    largest = max(len(g) for g in groups)
    if asked is not None and asked > largest:
        return (
            f"--tensor-parallel-size {asked} needs {asked} identical GPUs; this profile has "
            f"{largest} of a kind."
        )
    biggest = groups[0]
    k = asked or max(
        (k for k in (1, 2, 4, 8) if k <= len(biggest) and tensor_parallel_ok(target, k)),
        default=1,
    )
    share = per_gpu_memory(target, n_ctx, tensor_parallel=k, pipeline_parallel=pipeline)
    room = max(usable_bytes(g, profile) for g in biggest)
    over = f"over {k} GPUs " if k > 1 else ""
    if pipeline > 1:
        over += f"and {pipeline} pipeline stages "
    more = "" if asked is not None else " More GPUs, a shorter context or a smaller model would."
    return (
        f"With vLLM the model needs {share.total / gib:.1f} GiB per GPU {over}at "
        f"{n_ctx:,} tokens of context; one {biggest[0].name} can give it {room / gib:.1f} "
        f"GiB.{more}"
    )
