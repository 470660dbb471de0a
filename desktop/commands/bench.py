"""`llm-scout bench MODEL`: prompt processing and generation speed, like llama-bench.

One worker, one load, a warm-up, then ``-r`` repetitions of two tests:

- ``pp<N>``: N prompt tokens evaluated from an empty cache (tokens/s from llama.cpp's
  prompt-eval time, the metrics definition); its TTFT is the request-to-first-token time.
- ``tg<N>``: N tokens generated after a one-token prompt, end-of-generation ignored; tokens/s
  as the client sees them, ``(n - 1) / (t_last - t_first)``.

Results are mean ± sample standard deviation, with peak RSS/VRAM over the whole run, the fit
prediction for the same settings and the bandwidth roofline for this hardware.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.engine_options import (
    add_model_options,
    load_settings_from,
    remote_endpoint_from,
    warn_if_cpu_only,
)
from desktop.commands.output import emit_json, format_table, human_bytes, human_params
from desktop.core.engine import BenchSettings, RemoteClient, run_bench
from desktop.core.fit import record_bench


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure prompt and generation speed (like llama-bench)",
        description="Prompt processing and generation tokens/s as mean ± sd over repetitions.",
    )
    add_model_options(parser)
    parser.add_argument("--pp", type=int, default=512, metavar="N", help="prompt tokens")
    parser.add_argument("--tg", type=int, default=128, metavar="N", help="generated tokens")
    parser.add_argument("-r", "--repetitions", type=int, default=5, metavar="R")
    parser.add_argument(
        "--ctx", type=int, default=None, metavar="N", help="context length (default: pp + tg)"
    )
    out = parser.add_mutually_exclusive_group()
    add_json_argument(out, help="one JSON document")
    out.add_argument("--md", action="store_true", help="a markdown table")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    settings = BenchSettings(pp=args.pp, tg=args.tg, repetitions=args.repetitions)
    args.ctx = settings.context(args.ctx)
    load = load_settings_from(args, default_ctx=args.ctx)
    endpoint = remote_endpoint_from(args)
    ws = workspace()
    if endpoint is not None:
        endpoint = endpoint.with_timeout(ws.settings.remote_timeout_s)
        result = run_bench(
            endpoint.base_url,
            load,
            settings,
            label=endpoint.label,
            client=RemoteClient(endpoint),
        )
        document = result.to_dict()
        if args.json:
            emit_json(document)
        else:
            _write_tables(document, markdown=args.md)
        return 0
    resolved = ws.resolver.resolve(args.model)
    path = resolved.require_file()
    profile, _name = ws.profile()
    target = resolved.fit_target() if resolved.header is not None else None
    result = run_bench(path, load, settings, label=resolved.label, target=target, profile=profile)
    record_bench(result, profile)  # calibrates later estimates; never fails the command
    warn_if_cpu_only(args.ngl, result.loaded)
    document = result.to_dict()
    if args.json:
        emit_json(document)
    else:
        _write_tables(document, markdown=args.md)
    return 0


def _pm(mean: float, sd: float, spec: str) -> str:
    return f"{mean:{spec}} ± {sd:{spec}}"


def _write_tables(doc: dict[str, Any], *, markdown: bool) -> None:
    headers = ["model", "size", "params", "threads", "ngl", "test", "t/s"]
    base = [
        doc["model_label"],
        human_bytes(doc["model_size_bytes"]),
        human_params(doc["n_params"]),
        str(doc["n_threads"]),
        str(doc["n_gpu_layers"]),
    ]
    rows = [
        [*base, f"pp{doc['pp']}", _pm(doc["pp_tokens_per_s"], doc["pp_tokens_per_s_sd"], ".2f")],
        [*base, f"tg{doc['tg']}", _pm(doc["tg_tokens_per_s"], doc["tg_tokens_per_s_sd"], ".2f")],
    ]
    ram_error = doc["ram_error_pct"]
    roof = doc["roofline_tokens_per_s"]
    expected = doc["predicted_tokens_per_s"]
    if doc.get("remote"):
        source = (
            "server timings"
            if doc["timing_source"] == "server"
            else "speed measured on the client (pp: prompt tokens / TTFT, network included)"
        )
        extra = [
            ["TTFT (pp)", _pm(doc["ttft_ms"], doc["ttft_ms_sd"], ".1f") + " ms"],
            ["endpoint check", f"{doc['load_ms']:.0f} ms"],
            ["speeds", source],
            ["memory", "unknown"],
            ["prediction", "no prediction: remote"],
        ]
        base[1:3] = ["-", "-"]
        rows = [[*base, *row[5:]] for row in rows]
    else:
        extra = [
            ["TTFT (pp)", _pm(doc["ttft_ms"], doc["ttft_ms_sd"], ".1f") + " ms"],
            ["load", f"{doc['load_ms']:.0f} ms"],
            ["RSS peak", human_bytes(doc["rss_peak_bytes"])],
            [
                "RSS predicted",
                human_bytes(doc["predicted_ram_bytes"])
                + ("" if ram_error is None else f" ({ram_error:+.1f}%)"),
            ],
            ["VRAM peak / predicted", f"{human_bytes(doc['vram_peak_bytes'])} / "
             f"{human_bytes(doc['predicted_vram_bytes'])}"],
            ["roofline tg t/s", "-" if roof is None else f"{roof:.1f}"],
            ["expected tg t/s", "-" if expected is None else f"{expected:.1f}"],
        ]  # fmt: skip
    if markdown:
        _markdown(headers, rows)
        sys.stdout.write("\n")
        _markdown(["metric", "value"], extra)
    else:
        sys.stdout.write(format_table(headers, rows) + "\n\n")
        sys.stdout.write(format_table(["metric", "value"], extra) + "\n")


def _markdown(headers: list[str], rows: list[list[str]]) -> None:
    sys.stdout.write("| " + " | ".join(headers) + " |\n")
    sys.stdout.write("|" + "|".join("---:" if h == "t/s" else "---" for h in headers) + "|\n")
    for row in rows:
        sys.stdout.write("| " + " | ".join(row) + " |\n")
