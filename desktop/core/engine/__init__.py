"""The engine: one llama.cpp model per worker process, measured while it runs.

Owns running models: the JSON-lines protocol (``protocol``), the worker process and the
:class:`EngineClient` that starts, feeds and reaps it, memory sampling from outside the worker,
chat templates, the metrics definitions, a measured :class:`Session` (load, generate, predicted
vs measured) and :func:`run_bench`. Depends on gguf (templates from headers), fit and hardware
(the prediction a run is compared with).

The worker process imports this package too, and every megabyte it imports shows up in the
memory it reports (and the fit estimate is calibrated against): so everything but ``protocol``
is imported on first use (PEP 562), and the worker loads only the modules it runs. The quality
commands (tokenize, evaluate logits, quantize) run in the same worker; ``logits`` is their codec.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from desktop.core.engine import protocol

if TYPE_CHECKING:
    from desktop.core.engine.backend import EngineBackend, Measures
    from desktop.core.engine.bench import (
        BenchProgress,
        BenchResult,
        BenchRun,
        BenchSettings,
        run_bench,
    )
    from desktop.core.engine.chat import Answer, Conversation, Turn, worker_gone
    from desktop.core.engine.client import EngineClient, worker_command
    from desktop.core.engine.cpu_threads import default_threads, too_many_threads
    from desktop.core.engine.cpu_use import CpuUse
    from desktop.core.engine.dryrun import BufferProjection, DryRun, DryRunError, dry_run
    from desktop.core.engine.log_lines import log_excerpt
    from desktop.core.engine.logits import Scores, decode_ints, encode_ints, unpack_scores
    from desktop.core.engine.managed import (
        READY_TIMEOUT_S,
        ManagedServer,
        ServerProgress,
        VllmAvailability,
        run_command_line,
        vllm_available,
        vllm_server,
    )
    from desktop.core.engine.memory import ProcessMemory
    from desktop.core.engine.metrics import (
        LIVE_WINDOW_S,
        GenerationMeter,
        GenerationMetrics,
        MemorySample,
        RunReport,
        error_pct,
        mean_sd,
    )
    from desktop.core.engine.remote import RemoteClient, served_models
    from desktop.core.engine.remote_endpoint import (
        RemoteEndpoint,
        endpoint_from_spec,
        is_remote_spec,
    )
    from desktop.core.engine.request import Request, WorkerError
    from desktop.core.engine.rpc import RpcDevice, supports_rpc
    from desktop.core.engine.rpc import add_arguments as add_rpc_server_arguments
    from desktop.core.engine.rpc import add_servers as add_rpc_servers
    from desktop.core.engine.rpc import run_server as run_rpc_server
    from desktop.core.engine.run import (
        EngineInfo,
        LoadSettings,
        Prediction,
        Session,
        check_sampling,
        engine_info,
    )
    from desktop.core.engine.templates import family_template_name, template_names
    from desktop.core.engine.worker import main as worker_main

_LAZY: dict[str, tuple[str, str]] = {
    "Answer": ("chat", "Answer"),
    "Conversation": ("chat", "Conversation"),
    "Turn": ("chat", "Turn"),
    "worker_gone": ("chat", "worker_gone"),
    "BenchProgress": ("bench", "BenchProgress"),
    "BenchResult": ("bench", "BenchResult"),
    "BenchRun": ("bench", "BenchRun"),
    "BenchSettings": ("bench", "BenchSettings"),
    "run_bench": ("bench", "run_bench"),
    "EngineClient": ("client", "EngineClient"),
    "default_threads": ("cpu_threads", "default_threads"),
    "too_many_threads": ("cpu_threads", "too_many_threads"),
    "CpuUse": ("cpu_use", "CpuUse"),
    "worker_command": ("client", "worker_command"),
    "BufferProjection": ("dryrun", "BufferProjection"),
    "DryRun": ("dryrun", "DryRun"),
    "DryRunError": ("dryrun", "DryRunError"),
    "dry_run": ("dryrun", "dry_run"),
    "CrossCheck": ("crosscheck", "CrossCheck"),
    "cross_check": ("crosscheck", "cross_check"),
    "Scores": ("logits", "Scores"),
    "decode_ints": ("logits", "decode_ints"),
    "encode_ints": ("logits", "encode_ints"),
    "unpack_scores": ("logits", "unpack_scores"),
    "ProcessMemory": ("memory", "ProcessMemory"),
    "log_excerpt": ("log_lines", "log_excerpt"),
    "LIVE_WINDOW_S": ("metrics", "LIVE_WINDOW_S"),
    "GenerationMeter": ("metrics", "GenerationMeter"),
    "GenerationMetrics": ("metrics", "GenerationMetrics"),
    "MemorySample": ("metrics", "MemorySample"),
    "RunReport": ("metrics", "RunReport"),
    "error_pct": ("metrics", "error_pct"),
    "mean_sd": ("metrics", "mean_sd"),
    "EngineBackend": ("backend", "EngineBackend"),
    "Measures": ("backend", "Measures"),
    "RemoteClient": ("remote", "RemoteClient"),
    "served_models": ("remote", "served_models"),
    "READY_TIMEOUT_S": ("managed", "READY_TIMEOUT_S"),
    "ManagedServer": ("managed", "ManagedServer"),
    "ServerProgress": ("managed", "ServerProgress"),
    "VllmAvailability": ("managed", "VllmAvailability"),
    "run_command_line": ("managed", "run_command_line"),
    "vllm_available": ("managed", "vllm_available"),
    "vllm_server": ("managed", "vllm_server"),
    "RemoteEndpoint": ("remote_endpoint", "RemoteEndpoint"),
    "is_remote_spec": ("remote_endpoint", "is_remote_spec"),
    "endpoint_from_spec": ("remote_endpoint", "endpoint_from_spec"),
    "Request": ("request", "Request"),
    "WorkerError": ("request", "WorkerError"),
    "RpcDevice": ("rpc", "RpcDevice"),
    "add_rpc_servers": ("rpc", "add_servers"),
    "add_rpc_server_arguments": ("rpc", "add_arguments"),
    "run_rpc_server": ("rpc", "run_server"),
    "supports_rpc": ("rpc", "supports_rpc"),
    "LoadSettings": ("run", "LoadSettings"),
    "Prediction": ("run", "Prediction"),
    "Session": ("run", "Session"),
    "EngineInfo": ("run", "EngineInfo"),
    "engine_info": ("run", "engine_info"),
    "check_sampling": ("run", "check_sampling"),
    "family_template_name": ("templates", "family_template_name"),
    "template_names": ("templates", "template_names"),
    "worker_main": ("worker", "main"),
}

__all__ = [
    "LIVE_WINDOW_S",
    "READY_TIMEOUT_S",
    "Answer",
    "BenchProgress",
    "BenchResult",
    "BenchRun",
    "BenchSettings",
    "BufferProjection",
    "Conversation",
    "CpuUse",
    "CrossCheck",
    "DryRun",
    "DryRunError",
    "EngineBackend",
    "EngineClient",
    "EngineInfo",
    "GenerationMeter",
    "GenerationMetrics",
    "LoadSettings",
    "ManagedServer",
    "Measures",
    "MemorySample",
    "Prediction",
    "ProcessMemory",
    "RemoteClient",
    "RemoteEndpoint",
    "Request",
    "RpcDevice",
    "RunReport",
    "Scores",
    "ServerProgress",
    "Session",
    "Turn",
    "VllmAvailability",
    "WorkerError",
    "add_rpc_server_arguments",
    "add_rpc_servers",
    "check_sampling",
    "cross_check",
    "decode_ints",
    "default_threads",
    "dry_run",
    "encode_ints",
    "endpoint_from_spec",
    "engine_info",
    "error_pct",
    "family_template_name",
    "is_remote_spec",
    "log_excerpt",
    "mean_sd",
    "protocol",
    "run_bench",
    "run_command_line",
    "run_rpc_server",
    "served_models",
    "supports_rpc",
    "template_names",
    "too_many_threads",
    "unpack_scores",
    "vllm_available",
    "vllm_server",
    "worker_command",
    "worker_gone",
    "worker_main",
]


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = where
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value
    return value
