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
import dataclasses
import sys
from dataclasses import dataclass
from typing import Any

from desktop.commands._engine import (
    add_model_options,
    model_label,
    predict,
    read_header,
    resolve_model,
    warn_if_cpu_only,
)
from desktop.commands.common import add_json_argument
from desktop.commands.output import emit_json, format_table, human_bytes
from desktop.core.engine import protocol as p
from desktop.core.engine.client import EngineClient, Request, WorkerError
from desktop.core.engine.metrics import error_pct, mean_sd


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


@dataclass(frozen=True)
class BenchRun:
    pp_tokens_per_s: float
    tg_tokens_per_s: float
    ttft_ms: float


def bench_prompt(n_tokens: int, n_vocab: int) -> list[int]:
    """A fixed pseudo-random prompt of real token ids (llama-bench uses random tokens too)."""
    return [(7919 * i + 1009) % n_vocab for i in range(1, n_tokens + 1)]


def handle(args: argparse.Namespace) -> int:
    from desktop.cli import CliUsageError

    if args.pp < 1 or args.tg < 2 or args.repetitions < 1:
        raise CliUsageError("--pp must be at least 1, --tg at least 2 and -r at least 1.")
    n_ctx = args.ctx if args.ctx is not None else args.pp + args.tg + 8
    if n_ctx < max(args.pp, args.tg + 1) + 1:
        raise CliUsageError(f"--ctx {n_ctx} cannot hold {args.pp} prompt tokens and {args.tg}.")
    path = resolve_model(args.model)
    client = EngineClient()
    client.start()
    try:
        loaded = client.load_model(path, n_ctx=n_ctx, n_gpu_layers=args.ngl, n_threads=args.threads)
        warn_if_cpu_only(args.ngl, loaded)
        prompt = bench_prompt(args.pp, loaded.n_vocab)
        _one_run(client, prompt, args.tg)  # warm-up, not counted
        runs = [_one_run(client, prompt, args.tg) for _ in range(args.repetitions)]
        peak_rss = max((m.rss_bytes for m in client.memory), default=None)
        vram = [m.vram_bytes for m in client.memory if m.vram_bytes is not None]
        peak_vram = max(vram) if vram else None
    finally:
        client.close()
    header = read_header(path)
    prediction = predict(
        header,
        n_ctx=n_ctx,
        n_gpu_layers=loaded.n_gpu_layers,
        prompt_tokens=max(args.pp, args.tg + 1),
        measure_bandwidth=True,
    )
    pp_mean, pp_sd = mean_sd([r.pp_tokens_per_s for r in runs])
    tg_mean, tg_sd = mean_sd([r.tg_tokens_per_s for r in runs])
    ttft_mean, ttft_sd = mean_sd([r.ttft_ms for r in runs])
    document: dict[str, Any] = {
        "model": str(path),
        "model_label": model_label(path, header, loaded.description),
        "description": loaded.description,  # llama.cpp's own (its size class, not our count)
        "architecture": loaded.architecture,
        "n_params": loaded.n_params,
        "model_size_bytes": loaded.model_size_bytes,
        "n_ctx": loaded.n_ctx,
        "n_threads": loaded.n_threads,
        "n_gpu_layers": loaded.n_gpu_layers,
        "gpu_offload": loaded.gpu_offload,
        "repetitions": args.repetitions,
        "pp": args.pp,
        "tg": args.tg,
        "pp_tokens_per_s": pp_mean,
        "pp_tokens_per_s_sd": pp_sd,
        "tg_tokens_per_s": tg_mean,
        "tg_tokens_per_s_sd": tg_sd,
        "ttft_ms": ttft_mean,
        "ttft_ms_sd": ttft_sd,
        "load_ms": loaded.load_ms,
        "rss_peak_bytes": peak_rss,
        "vram_peak_bytes": peak_vram,
        "predicted_ram_bytes": prediction.ram_bytes,
        "predicted_vram_bytes": prediction.vram_bytes,
        "ram_error_pct": error_pct(prediction.ram_bytes, peak_rss),
        "predicted_tokens_per_s": prediction.tokens_per_s,
        "roofline_tokens_per_s": prediction.roofline_tokens_per_s,
        "runs": [dataclasses.asdict(r) for r in runs],
    }
    if args.json:
        emit_json(document)
    else:
        _write_tables(document, markdown=args.md)
    return 0


def _finish(request: Request) -> p.Done:
    event = request.wait()
    if isinstance(event, p.Error):
        raise WorkerError(event)
    assert isinstance(event, p.Done)
    return event


def _one_run(client: EngineClient, prompt: list[int], tg: int) -> BenchRun:
    pp_params = p.SamplingParams(temperature=0.0, max_tokens=1, ignore_eos=True, seed=1)
    pp_request = client.generate(prompt_tokens=prompt, params=pp_params, cache_prompt=False)
    pp_done = _finish(pp_request)
    ttft = pp_request.meter.ttft_ms()
    tg_params = p.SamplingParams(temperature=0.0, max_tokens=tg, ignore_eos=True, seed=1)
    tg_request = client.generate(prompt_tokens=prompt[:1], params=tg_params, cache_prompt=False)
    _finish(tg_request)
    tg_metrics = tg_request.meter.finish()
    if pp_done.prompt_eval_ms <= 0 or ttft is None or tg_metrics.tokens_per_s is None:
        raise WorkerError(
            p.Error(None, "generation_failed", "The benchmark run produced no timings.")
        )
    return BenchRun(
        pp_tokens_per_s=len(prompt) / (pp_done.prompt_eval_ms / 1000.0),
        tg_tokens_per_s=tg_metrics.tokens_per_s,
        ttft_ms=ttft,
    )


def _pm(mean: float, sd: float, spec: str) -> str:
    return f"{mean:{spec}} ± {sd:{spec}}"


def _write_tables(doc: dict[str, Any], *, markdown: bool) -> None:
    headers = ["model", "size", "params", "threads", "ngl", "test", "t/s"]
    base = [
        doc["model_label"],
        human_bytes(doc["model_size_bytes"]),
        f"{doc['n_params'] / 1e6:.0f} M",
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
