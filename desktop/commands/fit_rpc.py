"""`llm-scout fit TARGET --rpc-profile FILE@HOST:PORT [...]`: a model split across machines.

Each ``--rpc-profile`` is a box running llama.cpp's rpc-server (``llm-scout rpc-server``),
described by the profile saved there with ``llm-scout hw --save FILE``. The split
(:func:`~desktop.core.fit.split.estimate_split`) gives every device layers in proportion to its
free memory and says what each box holds, the network's cost per token, and the llama.cpp
options that make the same split.
"""

from __future__ import annotations

import argparse
import sys

from desktop.commands.engine_options import flash_attn_from
from desktop.commands.output import emit_json, human_bytes, print_table
from desktop.core.errors import UsageError
from desktop.core.fit import FitTarget, Holder, Link, RpcBox, SplitResult, estimate_split
from desktop.core.hardware import HardwareProfile


def add_rpc_split_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("split across machines (llama.cpp RPC)")
    group.add_argument(
        "--rpc-profile",
        action="append",
        default=[],
        metavar="FILE@HOST:PORT",
        help="a box running `llm-scout rpc-server`: its `hw --save` profile and address "
        "(repeatable); the estimate becomes the split across this machine and the boxes",
    )
    group.add_argument(
        "--link-gbps",
        type=float,
        default=1.0,
        metavar="G",
        help="network speed to the boxes in Gbit/s (default 1)",
    )
    group.add_argument(
        "--link-latency-ms",
        type=float,
        default=0.5,
        metavar="MS",
        help="network latency per transfer in ms (default 0.5)",
    )
    group.add_argument(
        "--no-local-layers",
        action="store_true",
        help="keep every layer on the boxes (this machine holds the embeddings and output)",
    )


def run_split(
    args: argparse.Namespace,
    target: FitTarget,
    profile: HardwareProfile,
    profile_name: str,
    n_ctx: int,
) -> int:
    if args.link_gbps <= 0 or args.link_latency_ms < 0:
        raise UsageError("--link-gbps must be positive and --link-latency-ms 0 or more.")
    boxes = tuple(RpcBox.parse(spec) for spec in args.rpc_profile)
    result = estimate_split(
        target,
        profile,
        boxes,
        n_ctx=n_ctx,
        cache_type=args.cache_type,
        flash_attn=flash_attn_from(args),
        link=Link(args.link_gbps, args.link_latency_ms),
        local_layers=not args.no_local_layers,
        prompt_tokens=args.prompt_tokens or 128,
    )
    if args.json:
        document = result.to_dict()
        document["profile"] = profile_name
        emit_json(document)
        return 0
    print_split(result, profile_name)
    return 0


def _layers(holder: Holder) -> str:
    if holder.n_layers == 0:
        text = "-"
    elif holder.n_layers == 1:
        text = str(holder.first_layer)
    else:
        text = f"{holder.first_layer}-{holder.first_layer + holder.n_layers - 1}"
    return text + (" + output" if holder.output else "")


def print_split(result: SplitResult, profile_name: str) -> None:
    out = sys.stdout
    n_boxes = len({h.machine for h in result.holders} - {"local"})
    out.write(
        f"{result.label} split over {profile_name} and {n_boxes} RPC server(s), "
        f"context {result.n_ctx} tokens\n"
    )
    out.write(f"Verdict: {'fits' if result.fits else 'does not fit'}\n\n")
    rows = []
    for h in result.holders:
        m = h.memory
        rows.append(
            (
                h.name,
                _layers(h),
                human_bytes(m.weights),
                human_bytes(m.kv_cache),
                human_bytes(m.compute + m.overhead),
                human_bytes(m.total),
                human_bytes(h.capacity),
                "yes" if h.fits else "NO",
            )
        )
    print_table(
        ("device", "layers", "weights", "KV cache", "compute+other", "total", "free", "fits"),
        rows,
    )
    out.write("\nEach machine holds:\n")
    for share in result.machines():
        name = "this machine" if share.machine == "local" else share.machine
        out.write(f"  {name}: {share.n_layers} layers, {human_bytes(share.bytes)}\n")
    out.write(f"\nllama.cpp: {result.llama_args()}\n")
    link = result.link
    out.write(
        f"network: {result.crossings} transfers per token, "
        f"{human_bytes(result.network_bytes_per_token)}, "
        f"{result.network_s_per_token * 1000:.2f} ms at {link.gbit_per_s:g} Gbit/s and "
        f"{link.latency_ms:g} ms latency\n"
    )
    out.write(
        f"expected generation: {_rate(result.tokens_per_s)} "
        f"({_rate(result.tokens_per_s_without_network)} without the network; "
        f"roofline {_rate(result.roofline_tokens_per_s)})\n"
    )
    if result.reasons:
        out.write("\n" + "\n".join(f"- {r}" for r in result.reasons) + "\n")


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} tokens/s"
