"""The options `run` and `bench` share: MODEL, ``--ngl``, ``--threads``, ``--cache-type``,
``--flash-attn``, and how they load."""

from __future__ import annotations

import argparse
import os
import sys

from desktop.core.engine import LoadSettings, RemoteEndpoint
from desktop.core.engine import protocol as p
from desktop.core.errors import UsageError
from desktop.core.kv_cache import CACHE_TYPES, FLASH_ATTN_CHOICES, flash_attn_for
from desktop.core.settings import Settings


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """MODEL plus the load options both commands take."""
    parser.add_argument(
        "model",
        metavar="MODEL",
        nargs="?",
        help="a GGUF file, a catalog variant or model id (downloaded or in the library) "
        "or a demo model key (smollm2, gemma3); or --endpoint and --model instead",
    )
    add_remote_options(parser)
    parser.add_argument("--ngl", type=int, default=0, metavar="N", help="layers on the GPU")
    parser.add_argument(
        "--threads", type=int, default=None, metavar="N", help="CPU threads (physical cores)"
    )
    add_attention_options(parser)


def add_remote_options(parser: argparse.ArgumentParser) -> None:
    """``--endpoint URL --model NAME [--api-key-env VAR]``: a model behind an OpenAI-compatible
    server instead of a local file."""
    remote = parser.add_argument_group("a model behind an OpenAI-compatible server")
    remote.add_argument(
        "--endpoint",
        metavar="URL",
        help="the server's base URL, e.g. http://127.0.0.1:8080/v1 (llama-server, vLLM, "
        "Ollama, LM Studio)",
    )
    remote.add_argument(
        "--model", dest="remote_model", metavar="NAME", help="the model name the server serves"
    )
    remote.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="the environment variable with the API key (default LLM_SCOUT_API_KEY; the "
        "keyring is asked when the keyring package is installed)",
    )


def remote_endpoint_from(args: argparse.Namespace) -> RemoteEndpoint | None:
    """The server ``--endpoint``/``--model`` name, or None for a local MODEL (UsageError when
    the options do not fit together)."""
    endpoint = getattr(args, "endpoint", None)
    name = getattr(args, "remote_model", None)
    if endpoint is None:
        if name is not None or getattr(args, "api_key_env", None) is not None:
            raise UsageError("--model and --api-key-env go with --endpoint URL.")
        if not args.model:
            raise UsageError("Name a MODEL, or a server with --endpoint URL --model NAME.")
        return None
    if args.model:
        raise UsageError(
            f"Give either MODEL ({args.model}) or --endpoint, not both; the server's model "
            "is named with --model NAME."
        )
    if not name:
        raise UsageError("--endpoint needs --model NAME: the model the server should run.")
    return RemoteEndpoint(endpoint, name, key_env=getattr(args, "api_key_env", None))


def add_attention_options(parser: argparse.ArgumentParser) -> None:
    """``--cache-type`` and ``--flash-attn``, for `run`, `bench` and `fit` alike."""
    parser.add_argument(
        "--cache-type",
        choices=CACHE_TYPES,
        default="f16",
        help="KV cache type (q8_0/q4_0 need flash attention)",
    )
    parser.add_argument(
        "--flash-attn",
        choices=FLASH_ATTN_CHOICES,
        default="auto",
        help="flash attention (auto: llama.cpp's default here, on for a quantized KV cache)",
    )


def add_rpc_option(parser: argparse.ArgumentParser) -> None:
    """``--rpc HOST:PORT`` (repeatable): llama.cpp RPC servers that take layers."""
    parser.add_argument(
        "--rpc",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="a llama.cpp RPC server (`llm-scout rpc-server` there) whose memory takes layers, "
        "with --ngl -1 or N (repeatable; needs a llama.cpp built with GGML_RPC=ON)",
    )


def flash_attn_from(args: argparse.Namespace) -> bool:
    """The flash attention the options ask for: auto follows the cache type."""
    return flash_attn_for(getattr(args, "flash_attn", "auto"), getattr(args, "cache_type", "f16"))


def load_settings_from(
    args: argparse.Namespace, *, default_ctx: int, settings: Settings | None = None
) -> LoadSettings:
    """The load settings the options ask for (UsageError for impossible values); threads
    default to the setting (0: the physical cores). More threads than logical CPUs warn."""
    threads = args.threads
    if threads is None and settings is not None and settings.default_threads:
        threads = settings.default_threads
    logical = os.cpu_count() or 1
    if threads is not None and threads > logical:
        sys.stderr.write(
            f"llm-scout: {threads} threads is more than the {logical} logical CPUs; "
            "llama.cpp gets slower, not faster, with more threads than cores.\n"
        )
    rpc_servers = tuple(getattr(args, "rpc", None) or ())
    if rpc_servers and args.ngl == 0:
        raise UsageError(
            "With --ngl 0 every layer stays on this CPU and the RPC servers get none; "
            "pass --ngl -1 (all layers) or a number."
        )
    return LoadSettings(
        rpc_servers=rpc_servers,
        n_ctx=args.ctx if args.ctx is not None else default_ctx,
        n_gpu_layers=args.ngl,
        n_threads=threads,
        template=getattr(args, "template", None),
        cache_type=getattr(args, "cache_type", "f16"),
        flash_attn=flash_attn_from(args),
    )


def warn_if_cpu_only(n_gpu_layers: int, loaded: p.Loaded) -> None:
    """Say on stderr that ``--ngl`` has no effect when this llama.cpp build cannot offload."""
    if n_gpu_layers != 0 and not loaded.gpu_offload:
        sys.stderr.write(
            "llm-scout: GPU offload is unavailable in this llama.cpp build (CPU only); "
            "--ngl is ignored and the model runs on the CPU.\n"
        )
