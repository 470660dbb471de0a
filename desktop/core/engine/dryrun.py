"""llama.cpp's own memory projection: a ``no_alloc`` load of a model and context (issue 13).

llama.cpp can load a model and create a context with the model parameter ``no_alloc`` ("only
load metadata and simulate memory allocations"): no weight is read, no buffer allocated, and
the context still works out the buffers it would need per device. ``llama_params_fit`` (the
``--fit`` flags of llama.cpp's tools) reads them through ``llama_get_memory_breakdown``: per
buffer type, the bytes of the model weights, of the context (KV cache) and of the compute
buffers. :func:`dry_run` does the same for the fit estimate's cross-check, in a fresh engine
worker process (the executable's ``--engine-worker --dry-run SPEC``, so it works in the frozen
app too, and a crash or a hang of llama.cpp costs the caller nothing but the answer).

How the figures are read:

- ``llama_get_memory_breakdown`` is C++ (it returns a ``std::map``), with no C function in
  front of it. On Linux the library is built against libstdc++, whose map layout is part of its
  ABI: the child calls the function through ctypes (a class returned by value comes back through
  the same hidden pointer as a large C struct) and walks the tree. ``source`` is then
  ``"breakdown"``: the same numbers ``llama_params_fit`` uses, per buffer type (``CPU``,
  ``CPU_REPACK``, ``CUDA0``, ``CUDA_Host``...).
- Everywhere else, or if that fails, the figures come from llama.cpp's log (``source`` is
  ``"log"``): the compute buffer per buffer type ("compute buffer size"), the KV cache in total
  ("llama_kv_cache: size = ...") and the weights in total (``llama_model_size``); under
  ``no_alloc`` the per-buffer "model buffer size" and "KV buffer size" lines say 0, so which
  device holds them, and the repacked share, stay unknown (None).

The child writes its log-based answer before it tries the breakdown: should walking the map
crash the process, the log's figures still arrive.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from desktop.core.errors import EngineError, UsageError
from desktop.core.kv_cache import CACHE_TYPES, GGML_TYPE_IDS, check_flash_attn

DEFAULT_TIMEOUT_S = 60.0
MIB = 1024 * 1024
N_BATCH = 512  # the engine's n_batch and n_ubatch (llama-cpp-python's defaults)
DRY_RUN_FLAG = "--dry-run"
BREAKDOWN_SYMBOL = "_Z26llama_get_memory_breakdownPK13llama_context"
DEVICE_TYPE_CPU = 0  # GGML_BACKEND_DEVICE_TYPE_CPU
LOG_LINES = 5000  # enough for a whole load's log

Source = Literal["breakdown", "log"]

_COMPUTE = re.compile(r"(\S+) compute buffer size = +([\d.]+) MiB")
_KV_TOTAL = re.compile(r"llama_kv_cache: size = +([\d.]+) MiB")
_KV_BUFFER = re.compile(r"(\S+) KV buffer size = ")
_MODEL_BUFFER = re.compile(r"(\S+) model buffer size = ")


class DryRunError(EngineError):
    """llama.cpp's dry run gave no projection; the message is one plain sentence."""

    kind = "engine.dry_run"


@dataclass(frozen=True)
class BufferProjection:
    """What llama.cpp would allocate in one buffer type (None: the log did not say)."""

    name: str  # llama.cpp's buffer type: CPU, CPU_REPACK, CUDA0, CUDA_Host, Metal...
    host: bool  # in host memory (a host buffer, or one of the CPU device)
    model: int | None
    context: int | None
    compute: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "host": self.host,
            "model_bytes": self.model,
            "kv_bytes": self.context,
            "compute_bytes": self.compute,
        }


@dataclass(frozen=True)
class DryRun:
    """llama.cpp's projection for one load. Totals are over every buffer type; None where
    llama.cpp did not say (see the module docstring)."""

    path: str
    n_ctx: int
    n_gpu_layers: int
    cache_type: str
    flash_attn: bool
    source: Source
    buffers: tuple[BufferProjection, ...]
    model_bytes: int | None  # weights, repacked copies included
    repack_bytes: int | None  # the repacked copies (CPU_REPACK buffers)
    kv_bytes: int | None
    compute_bytes: int | None
    seconds: float = 0.0
    gpu_offload: bool = False

    def _sum(self, attr: str, host: bool) -> int | None:
        chosen = [getattr(b, attr) for b in self.buffers if b.host == host]
        if any(v is None for v in chosen):
            return None
        return int(sum(chosen))

    @property
    def host_kv_bytes(self) -> int | None:
        if self.source == "log" and not self.gpu_offload:
            return self.kv_bytes  # a CPU-only build holds everything in host memory
        return self._sum("context", True)

    @property
    def device_kv_bytes(self) -> int | None:
        if self.source == "log" and not self.gpu_offload:
            return 0
        return self._sum("context", False) if self._has_device() else 0

    @property
    def host_compute_bytes(self) -> int | None:
        return self._sum("compute", True)

    @property
    def device_compute_bytes(self) -> int | None:
        return self._sum("compute", False) if self._has_device() else 0

    def _has_device(self) -> bool:
        return any(not b.host for b in self.buffers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "n_ctx": self.n_ctx,
            "n_gpu_layers": self.n_gpu_layers,
            "cache_type": self.cache_type,
            "flash_attn": self.flash_attn,
            "model_bytes": self.model_bytes,
            "repack_bytes": self.repack_bytes,
            "kv_bytes": self.kv_bytes,
            "compute_bytes": self.compute_bytes,
            "host_kv_bytes": self.host_kv_bytes,
            "device_kv_bytes": self.device_kv_bytes,
            "host_compute_bytes": self.host_compute_bytes,
            "device_compute_bytes": self.device_compute_bytes,
            "buffers": [b.to_dict() for b in self.buffers],
            "seconds": round(self.seconds, 3),
        }


# --------------------------------------------------------------------------- the caller's side


def dry_run(
    path: str | os.PathLike[str],
    *,
    n_ctx: int,
    n_gpu_layers: int = 0,
    cache_type: str = "f16",
    flash_attn: bool = False,
    n_threads: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    command: Sequence[str] | None = None,
) -> DryRun:
    """llama.cpp's projected buffers for loading ``path`` with these settings, from a fresh
    worker process that allocates nothing. Raises :class:`DryRunError` (one sentence) when the
    file cannot be loaded, llama.cpp refuses the context, or no answer comes within
    ``timeout`` seconds (the process is killed)."""
    from desktop.core.engine.client import worker_command

    if n_ctx < 1:
        raise DryRunError(f"The context length must be at least 1, not {n_ctx}.")
    if cache_type not in CACHE_TYPES:
        raise DryRunError(f"Unknown KV cache type {cache_type!r}; use {', '.join(CACHE_TYPES)}.")
    spec = {
        "path": str(Path(path)),
        "n_ctx": int(n_ctx),
        "n_gpu_layers": int(n_gpu_layers),
        "cache_type": cache_type,
        "flash_attn": bool(flash_attn),
        "n_threads": n_threads,
    }
    argv = [*(command if command is not None else worker_command()), DRY_RUN_FLAG, json.dumps(spec)]
    name = Path(path).name
    started = time.perf_counter()
    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise DryRunError(
            f"llama.cpp's dry run of {name} did not finish within {timeout:g} s.",
            kind="engine.timeout",
        ) from exc
    except OSError as exc:
        raise DryRunError(
            f"The engine could not be started for the dry run: {exc.strerror or exc}.",
            kind="engine.spawn_failed",
        ) from exc
    seconds = time.perf_counter() - started
    return parse_answer(done.stdout, done.returncode, name, seconds)


def parse_answer(stdout: bytes, returncode: int, name: str, seconds: float) -> DryRun:
    """The child's last complete answer (the breakdown if it got that far, else the log's)."""
    answer: dict[str, Any] | None = None
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if "error" in message:
            kind = str(message.get("error") or "dry_run")
            raise DryRunError(str(message.get("message", "")), kind=f"engine.{kind}")
        if "result" in message:
            answer = message["result"]
    if answer is None:
        raise DryRunError(
            f"llama.cpp's dry run of {name} stopped without an answer (exit code {returncode})."
        )
    return _from_dict(answer, seconds)


def _from_dict(data: dict[str, Any], seconds: float) -> DryRun:
    buffers = tuple(
        BufferProjection(
            name=str(b["name"]),
            host=bool(b["host"]),
            model=b.get("model"),
            context=b.get("context"),
            compute=b.get("compute"),
        )
        for b in data.get("buffers", ())
    )
    return DryRun(
        path=str(data["path"]),
        n_ctx=int(data["n_ctx"]),
        n_gpu_layers=int(data["n_gpu_layers"]),
        cache_type=str(data["cache_type"]),
        flash_attn=bool(data["flash_attn"]),
        source=data["source"],
        buffers=buffers,
        model_bytes=data.get("model_bytes"),
        repack_bytes=data.get("repack_bytes"),
        kv_bytes=data.get("kv_bytes"),
        compute_bytes=data.get("compute_bytes"),
        seconds=seconds,
        gpu_offload=bool(data.get("gpu_offload", False)),
    )


# --------------------------------------------------------------------------- log parsing


def parse_log(text: str, model_size: int | None, gpu_offload: bool) -> dict[str, Any]:
    """The projection llama.cpp's log states under ``no_alloc`` (see the module docstring)."""
    compute: dict[str, int] = {}
    for buft, mib in _COMPUTE.findall(text):
        compute[buft] = compute.get(buft, 0) + round(float(mib) * MIB)
    kv_lines = _KV_TOTAL.findall(text)
    kv = sum(round(float(mib) * MIB) for mib in kv_lines) if kv_lines else None
    names = list(dict.fromkeys([*_MODEL_BUFFER.findall(text), *_KV_BUFFER.findall(text)]))
    names += [n for n in compute if n not in names]
    buffers = [
        {
            "name": n,
            "host": _host_by_name(n),
            "model": None,
            "context": None,
            # a buffer type with no compute line has none, once any buffer type had one
            "compute": compute.get(n, 0) if compute else None,
        }
        for n in names
    ]
    return {
        "source": "log",
        "buffers": buffers,
        "model_bytes": model_size,
        "repack_bytes": None,
        "kv_bytes": kv,
        "compute_bytes": sum(compute.values()) if compute else None,
        "gpu_offload": gpu_offload,
    }


def _host_by_name(name: str) -> bool:
    upper = name.upper()
    return upper.startswith("CPU") or upper.endswith("_HOST")


# --------------------------------------------------------------------------- the child's side


def child_main(spec_text: str, out_fd: int) -> int:
    """Run one dry run in this process (the worker's ``--dry-run SPEC``); answers are JSON
    lines on ``out_fd``: ``{"result": ...}`` (the log's, then the breakdown's) or
    ``{"error": kind, "message": sentence}``."""
    from desktop.core.engine.cpu_threads import default_threads
    from desktop.core.engine.loadcheck import LoadFailure, check_model_file, classify_load_failure
    from desktop.core.engine.worker_support import LlamaLog

    def send(message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(out_fd, data) :]

    try:
        spec = json.loads(spec_text)
        path = Path(spec["path"])
        n_ctx = int(spec["n_ctx"])
        cache_type = str(spec.get("cache_type", "f16"))
        flash_attn = bool(spec.get("flash_attn", False))
        n_threads = spec.get("n_threads")
    except (ValueError, KeyError, TypeError) as exc:
        send({"error": "invalid_request", "message": f"The dry run request is malformed: {exc}."})
        return 2
    try:
        check_model_file(path)
    except LoadFailure as exc:
        send({"error": exc.kind, "message": str(exc)})
        return 1
    try:
        check_flash_attn(cache_type, flash_attn)
    except UsageError as exc:
        send({"error": "invalid_request", "message": exc.message})
        return 1
    try:
        import llama_cpp.llama_cpp as lc
    except ImportError as exc:
        send({"error": "engine_missing", "message": f"llama-cpp-python is not installed ({exc})."})
        return 1
    llama_log = LlamaLog(lc, max_lines=LOG_LINES)
    lc.llama_backend_init()
    offload = bool(lc.llama_supports_gpu_offload())
    n_gpu_layers = int(spec.get("n_gpu_layers", 0)) if offload else 0
    mparams = lc.llama_model_default_params()
    mparams.no_alloc = True
    mparams.load_mode = 0  # LLAMA_LOAD_MODE_NONE: llama_params_fit's setting (no mmap)
    mparams.n_gpu_layers = n_gpu_layers
    model = lc.llama_model_load_from_file(str(path).encode(), mparams)
    if not model:
        failure = classify_load_failure(
            path, n_ctx, RuntimeError("Failed to load model"), llama_log.tail(400)
        )
        send({"error": failure.kind, "message": str(failure)})
        return 1
    cparams = lc.llama_context_default_params()
    cparams.n_ctx = n_ctx
    cparams.n_batch = min(n_ctx, N_BATCH)
    cparams.n_ubatch = min(cparams.n_batch, N_BATCH)
    threads = default_threads(n_threads)
    cparams.n_threads = threads
    cparams.n_threads_batch = threads
    cparams.flash_attn_type = (
        lc.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attn else lc.LLAMA_FLASH_ATTN_TYPE_DISABLED
    )
    if cache_type != "f16":
        cparams.type_k = cparams.type_v = GGML_TYPE_IDS[cache_type]
    ctx = lc.llama_init_from_model(model, cparams)
    if not ctx:
        failure = classify_load_failure(
            path, n_ctx, RuntimeError("Failed to create llama_context"), llama_log.tail(400)
        )
        send({"error": failure.kind, "message": str(failure)})
        return 1
    base = {
        "path": str(path),
        "n_ctx": n_ctx,
        "n_gpu_layers": n_gpu_layers,
        "cache_type": cache_type,
        "flash_attn": flash_attn,
    }
    model_size = int(lc.llama_model_size(model))
    send({"result": {**base, **parse_log(llama_log.tail(LOG_LINES), model_size, offload)}})
    breakdown = read_breakdown(lc, ctx)
    if breakdown is not None:
        send({"result": {**base, **breakdown, "gpu_offload": offload}})
    with contextlib.suppress(Exception):
        lc.llama_free(ctx)
        lc.llama_model_free(model)
    return 0


def read_breakdown(lc: Any, ctx: Any) -> dict[str, Any] | None:
    """``llama_get_memory_breakdown(ctx)`` per buffer type, where its ``std::map`` layout is
    known (libstdc++ on Linux); None elsewhere or when the map does not look sane."""
    if not sys.platform.startswith("linux"):
        return None
    lib = lc._lib
    try:
        function = getattr(lib, BREAKDOWN_SYMBOL)
        buft_name = lib.ggml_backend_buft_name
        buft_is_host = lib.ggml_backend_buft_is_host
        buft_device = lib.ggml_backend_buft_get_device
        dev_type = lib.ggml_backend_dev_type
    except AttributeError:
        return None

    class StdMap(ctypes.Structure):  # libstdc++'s std::map: compare, header node, node count
        _fields_ = (("words", ctypes.c_uint64 * 6),)

    function.argtypes = [ctypes.c_void_p]
    function.restype = StdMap
    buft_name.argtypes = [ctypes.c_void_p]
    buft_name.restype = ctypes.c_char_p
    buft_is_host.argtypes = [ctypes.c_void_p]
    buft_is_host.restype = ctypes.c_bool
    buft_device.argtypes = [ctypes.c_void_p]
    buft_device.restype = ctypes.c_void_p
    dev_type.argtypes = [ctypes.c_void_p]
    dev_type.restype = ctypes.c_int
    result = function(ctx)
    root, count = int(result.words[2]), int(result.words[5])
    if not 0 < count <= 64 or not root:
        return None
    # A node: color, parent, left, right, then the pair (buffer type, {model, context, compute}).
    nodes: list[tuple[int, int, int, int]] = []
    stack: list[int] = [root]
    seen: set[int] = set()
    while stack:
        address = stack.pop()
        if address in seen or len(seen) > count:
            return None
        seen.add(address)
        node = (ctypes.c_uint64 * 8).from_address(address)
        for child in (int(node[2]), int(node[3])):
            if child:
                stack.append(child)
        nodes.append((int(node[4]), int(node[5]), int(node[6]), int(node[7])))
    if len(nodes) != count:
        return None
    buffers = []
    for buft, model, context, compute in nodes:
        raw = buft_name(buft) if buft else None
        if not raw or max(model, context, compute) >= 1 << 50:
            return None
        device = buft_device(buft)
        host = bool(buft_is_host(buft)) or (bool(device) and dev_type(device) == DEVICE_TYPE_CPU)
        buffers.append(
            {
                "name": raw.decode("utf-8", "replace"),
                "host": host,
                "model": model,
                "context": context,
                "compute": compute,
            }
        )
    buffers.sort(key=lambda b: (not b["host"], b["name"]))
    return {
        "source": "breakdown",
        "buffers": buffers,
        "model_bytes": sum(b["model"] for b in buffers),
        "repack_bytes": sum(b["model"] for b in buffers if "REPACK" in b["name"].upper()),
        "kv_bytes": sum(b["context"] for b in buffers),
        "compute_bytes": sum(b["compute"] for b in buffers),
    }
