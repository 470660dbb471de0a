"""`llm-scout vllm serve VARIANT [--ctx N] [--port P] [--tensor-parallel K] [--profile NAME]
[--ready-timeout S]`.

Starts the vLLM server that matches an AWQ variant's fit (:func:`~desktop.core.fit.plan_vllm`,
the command `fit` prints) as a managed process on 127.0.0.1
(:class:`~desktop.core.engine.managed.ManagedServer`): its output goes to ``vllm-PORT.log`` in
the app's log folder, a progress line on stderr while it starts, then the base URL and the
``llm-scout run --endpoint … --model …`` line that uses it on stdout. It runs until Ctrl+C (or
SIGTERM), which stops the server and every process it started. Where vLLM cannot run (not Linux,
no NVIDIA GPU, not installed) it says what is needed, exit code 2. ``LLM_SCOUT_VLLM`` names an
executable that replaces ``vllm`` (see :mod:`desktop.core.engine.managed`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from types import FrameType
from typing import Any

from desktop.commands.common import add_profile_argument, workspace
from desktop.commands.output import StatusLine, interactive
from desktop.core.engine import (
    READY_TIMEOUT_S,
    ManagedServer,
    ServerProgress,
    run_command_line,
    vllm_available,
    vllm_server,
)
from desktop.core.errors import EngineError, UsageError
from desktop.core.fit import default_context, plan_vllm

PROGRESS_EVERY_S = 5.0  # a line this often when stderr is not a terminal
RUNNING_POLL_S = 0.5


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vllm",
        help="start a vLLM server for an AWQ variant (Linux, NVIDIA GPU)",
        description="Serve AWQ variants with vLLM, managed by LLM Scout.",
    )
    sub = parser.add_subparsers(dest="vllm_command", metavar="ACTION", required=True)
    serve = sub.add_parser(
        "serve",
        help="start the server that matches the fit and keep it running until Ctrl+C",
        description=(
            "Start the `vllm serve` command that matches the variant's fit on 127.0.0.1, wait "
            "until it answers, print its base URL and the `llm-scout run` line that uses it, "
            "and keep it running until Ctrl+C, which stops it. Needs Linux, an NVIDIA GPU "
            "(compute capability 7.5 or newer) and vLLM (pip install 'llm-scout[vllm]'); "
            "LLM_SCOUT_VLLM names an executable to run instead of `vllm`."
        ),
    )
    serve.add_argument("target", metavar="VARIANT", help="an AWQ catalog variant or model id")
    serve.add_argument("--ctx", type=int, metavar="N", help="--max-model-len (default: settings)")
    serve.add_argument(
        "--port", type=int, metavar="P", help="port on 127.0.0.1 (default: a free one)"
    )
    serve.add_argument(
        "--tensor-parallel",
        type=int,
        metavar="K",
        help="GPUs for --tensor-parallel-size (default: fewest that fit)",
    )
    add_profile_argument(
        serve, help="plan for a saved or what-if profile instead of this machine's"
    )
    serve.add_argument(
        "--ready-timeout",
        type=float,
        metavar="S",
        default=READY_TIMEOUT_S,
        help="seconds to wait for the server to answer before stopping it",
    )
    serve.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    if args.ctx is not None and args.ctx < 1:
        raise UsageError(f"--ctx must be a positive number of tokens, not {args.ctx}.")
    if args.port is not None and not 0 < args.port < 65536:
        raise UsageError(f"--port must be between 1 and 65535, not {args.port}.")
    if args.tensor_parallel is not None and args.tensor_parallel < 1:
        raise UsageError(f"--tensor-parallel must be at least 1, not {args.tensor_parallel}.")
    if args.ready_timeout <= 0:
        raise UsageError(f"--ready-timeout must be positive, not {args.ready_timeout:g}.")
    available = vllm_available()
    if not available.ok:
        raise UsageError(available.reason)
    ws = workspace()
    target = ws.resolver.resolve(args.target).fit_target()
    if target.format != "awq":
        raise UsageError(
            f"{target.label} is a {target.format.upper()} model run by llama.cpp; vLLM serves "
            "the AWQ variants (e.g. qwen2.5-7b-instruct:AWQ)."
        )
    profile, profile_name = ws.profile(args.profile)
    n_ctx = args.ctx or default_context(target.arch, ws.settings.default_ctx)
    plan = plan_vllm(target, profile, n_ctx=n_ctx, tensor_parallel=args.tensor_parallel)
    if not plan.fits:
        raise EngineError(f"Not on {profile_name}: {plan.reason}", kind="engine")
    server = vllm_server(plan, port=args.port, command=available.command)
    err = sys.stderr
    err.write(f"Starting vLLM: {' '.join(server.argv)}\nIts log: {server.log_path}\n")
    err.flush()
    previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl+C does
    try:
        return _serve(server, plan.repo, args.ready_timeout)
    except KeyboardInterrupt:
        err.write("Stopping the vLLM server…\n")
        err.flush()
        server.stop()
        err.write("llm-scout: the vLLM server was stopped.\n")
        return 0
    finally:
        server.stop()  # whatever happened: no server left behind
        signal.signal(signal.SIGTERM, previous)


def _serve(server: ManagedServer, model: str, timeout: float) -> int:
    printer = _ProgressPrinter(interactive(sys.stderr))
    try:
        base_url = server.launch(timeout, on_progress=printer)
    finally:
        printer.close()
    out = sys.stdout
    out.write(f"vLLM serves {model} at {base_url}\n")
    out.write(f"Use it with:\n  {run_command_line(base_url, model)}\n")
    out.write("Press Ctrl+C to stop the server.\n")
    out.flush()
    while server.running:
        time.sleep(RUNNING_POLL_S)
    code = server.returncode
    tail = server.log_tail()
    raise EngineError(
        f"The vLLM server exited with code {code} while serving. Its log is "
        f"{server.log_path}; its last lines:\n{tail}",
        kind="engine.crashed",
    )


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def progress_line(progress: ServerProgress) -> str:
    """``Waiting for vLLM to answer: 12 s (at most 900 s); last: INFO Loading weights``."""
    line = (
        f"Waiting for vLLM to answer: {progress.elapsed_s:.0f} s (at most {progress.timeout_s:g} s)"
    )
    last = progress.last_line.strip()
    if last:
        line += f"; last: {last[:100]}"
    return line


class _ProgressPrinter:
    """An updating line on a terminal; a line every few seconds otherwise."""

    def __init__(self, tty: bool) -> None:
        self._line = StatusLine(tty, PROGRESS_EVERY_S)

    def __call__(self, progress: ServerProgress) -> None:
        self._line.show(progress_line(progress))

    def close(self) -> None:
        self._line.close()
