"""`llm-scout rpc-server [--host H] [--port P] [--threads N] [--cache-dir DIR]`.

Serves this machine's devices (its GPUs, else its CPU and RAM) to llama.cpp on another machine
(`llm-scout run MODEL --rpc HOST:PORT --ngl -1`), through ggml's RPC backend in this process:
no separate rpc-server binary. Needs a llama.cpp build with GGML_RPC=ON; the RPC protocol has no
authentication, so listen on a trusted network only.
"""

from __future__ import annotations

from typing import Any

from desktop.core.engine import add_rpc_server_arguments, run_rpc_server


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rpc-server",
        help="lend this machine's memory to llama.cpp elsewhere (RPC)",
        description=(
            "Serve this machine's GPUs (else its CPU and RAM) to llama.cpp clients over the "
            "network: `llm-scout run MODEL --rpc HOST:PORT --ngl -1` on the other machine puts "
            "layers here. Runs until stopped (Ctrl+C)."
        ),
    )
    add_rpc_server_arguments(parser)
    parser.set_defaults(handler=run_rpc_server)
