"""`llm-scout run MODEL (--prompt TEXT | --chat)`: stream an answer and measure it.

The answer streams to stdout; the measurements (TTFT, tokens/s, memory, predicted vs measured)
follow on stderr so the answer can be piped on its own. ``--json`` prints one document at the
end instead (keys from ``RunReport.to_json_dict``). ``--chat`` keeps a conversation going on
stdin until an empty line, ``/exit`` or end of input.
"""

from __future__ import annotations

import argparse
import sys

from desktop.commands._engine import (
    Prediction,
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
from desktop.core.engine.metrics import RunReport, error_pct


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a model on a prompt (or chat) and measure it",
        description="Load MODEL in an engine worker, stream its answer, report the metrics.",
    )
    add_model_options(parser)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--prompt", metavar="TEXT", help="one user message")
    what.add_argument("--chat", action="store_true", help="chat on stdin until an empty line")
    parser.add_argument("--raw", action="store_true", help="send --prompt without the template")
    parser.add_argument("--system", metavar="S", help="system prompt")
    parser.add_argument("--ctx", type=int, default=2048, metavar="N", help="context length")
    parser.add_argument("--temp", type=float, default=0.8, metavar="T", help="temperature")
    parser.add_argument("--top-p", type=float, default=0.95, metavar="P")
    parser.add_argument("--top-k", type=int, default=40, metavar="K")
    parser.add_argument("--min-p", type=float, default=0.05, metavar="P")
    parser.add_argument("--repeat-penalty", type=float, default=1.0, metavar="R")
    parser.add_argument("--seed", type=int, default=None, metavar="S")
    parser.add_argument("--max-tokens", type=int, default=256, metavar="N")
    parser.add_argument(
        "--stop", action="append", default=[], metavar="TEXT", help="stop string (repeatable)"
    )
    parser.add_argument(
        "--template", metavar="NAME", help="chat template: a name (chatml, gemma, ...) or Jinja"
    )
    add_json_argument(parser, help="one JSON document at the end")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from desktop.cli import CliUsageError

    if args.chat and args.json:
        raise CliUsageError("--json works with --prompt, not with --chat.")
    if args.ctx < 16:
        raise CliUsageError("--ctx must be at least 16.")
    path = resolve_model(args.model)
    params = p.SamplingParams(
        temperature=args.temp,
        top_p=args.top_p,
        top_k=args.top_k,
        min_p=args.min_p,
        repeat_penalty=args.repeat_penalty,
        seed=args.seed,
        max_tokens=args.max_tokens,
        stop=tuple(args.stop),
    )
    client = EngineClient()
    client.start()
    try:
        load = client.load(
            path,
            n_ctx=args.ctx,
            n_gpu_layers=args.ngl,
            n_threads=args.threads,
            template=args.template,
        )
        loaded = load.result()
        assert isinstance(loaded, p.Loaded)
        warn_if_cpu_only(args.ngl, loaded)
        if args.chat:
            return _chat(client, args, params)
        messages = () if args.raw else (p.ChatMessage("user", args.prompt),)
        request = client.generate(
            messages=messages,
            prompt=args.prompt if args.raw else None,
            system=None if args.raw else args.system,
            params=params,
        )
        _stream(client, request, echo=not args.json)
        header = read_header(path)
        prediction = predict(
            header,
            n_ctx=args.ctx,
            n_gpu_layers=loaded.n_gpu_layers,
            prompt_tokens=request.meter.finish().prompt_tokens + request.meter.generated_tokens,
        )
        report = RunReport.build(
            request.text,
            request.meter.finish(),
            client.memory_phases(load, request),
            load_ms=loaded.load_ms,
            predicted_ram_bytes=prediction.ram_bytes,
            predicted_vram_bytes=prediction.vram_bytes,
        )
        if args.json:
            emit_json(report.to_json_dict())
        else:
            sys.stdout.write("\n")
            sys.stdout.flush()
            label = model_label(path, header, loaded.description)
            rows = _report_rows(report, loaded, prediction, label)
            sys.stderr.write("\n" + format_table(*rows) + "\n")
        return 0
    finally:
        client.close()


def _stream(client: EngineClient, request: Request, *, echo: bool) -> None:
    """Write tokens as they come; raise the worker's error; Ctrl+C cancels the answer."""
    try:
        for event in request.events():
            if isinstance(event, p.Tokens) and echo and event.text:
                sys.stdout.write(event.text)
                sys.stdout.flush()
            elif isinstance(event, p.Error):
                raise WorkerError(event)
    except KeyboardInterrupt:
        client.cancel(request.id)
        request.wait(10.0)
        raise


def _chat(client: EngineClient, args: argparse.Namespace, params: p.SamplingParams) -> int:
    history: list[p.ChatMessage] = []
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            sys.stderr.write("> ")
            sys.stderr.flush()
        line = sys.stdin.readline()
        text = line.strip()
        if not line or not text or text in ("/exit", "/quit"):
            return 0
        history.append(p.ChatMessage("user", text))
        request = client.generate(messages=history, system=args.system, params=params)
        _stream(client, request, echo=True)
        sys.stdout.write("\n")
        sys.stdout.flush()
        history.append(p.ChatMessage("assistant", request.text))
        metrics = request.meter.finish()
        rate, ttft = _num(metrics.tokens_per_s, ".1f"), _num(metrics.ttft_ms, ".0f")
        sys.stderr.write(f"[{metrics.generated_tokens} tokens, {rate} tokens/s, TTFT {ttft} ms]\n")


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _report_rows(
    report: RunReport, loaded: p.Loaded, prediction: Prediction, label: str
) -> tuple[list[str], list[list[str]]]:
    m = report.metrics
    ram_error = error_pct(report.predicted_ram_bytes, report.rss_peak_bytes)
    rows = [
        ["model", f"{label}, {loaded.architecture} architecture"],
        ["threads", f"{loaded.n_threads} (batch {loaded.n_threads_batch})"],
        ["GPU layers", f"{loaded.n_gpu_layers}" + ("" if loaded.gpu_offload else " (CPU build)")],
        ["chat template", f"{loaded.template_name} ({loaded.template_source})"],
        ["load", f"{_num(report.load_ms, '.0f')} ms"],
        ["TTFT", f"{_num(m.ttft_ms, '.0f')} ms"],
        ["prompt", f"{m.prompt_tokens} tokens, {_num(m.prompt_tokens_per_s, '.1f')} tokens/s"],
        ["generation", f"{m.generated_tokens} tokens, {_num(m.tokens_per_s, '.1f')} tokens/s"],
        ["RSS after load", human_bytes(report.rss_after_load_bytes)],
        ["RSS peak", human_bytes(report.rss_peak_bytes)],
        [
            "RSS predicted",
            human_bytes(report.predicted_ram_bytes)
            + ("" if ram_error is None else f" ({ram_error:+.1f}% vs peak)"),
        ],
    ]
    if report.vram_peak_bytes is not None or report.predicted_vram_bytes:
        rows.append(
            [
                "VRAM peak / predicted",
                f"{human_bytes(report.vram_peak_bytes)} / "
                f"{human_bytes(report.predicted_vram_bytes)}",
            ]
        )
    if prediction.tokens_per_s is not None:
        rows.append(["predicted speed", f"{prediction.tokens_per_s:.1f} tokens/s"])
    return ["metric", "value"], rows
