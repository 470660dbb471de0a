"""`llm-scout run MODEL (--prompt TEXT | --chat)`: stream an answer and measure it.

The answer streams to stdout; the measurements (TTFT, tokens/s, memory, predicted vs measured)
follow on stderr so the answer can be piped on its own. ``--json`` prints one document at the
end instead (keys from ``RunReport.to_dict``). ``--chat`` keeps a conversation going on
stdin until an empty line, ``/exit`` or end of input.
"""

from __future__ import annotations

import argparse
import sys

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.engine_options import add_model_options, load_settings_from, warn_if_cpu_only
from desktop.commands.output import emit_json, format_table, human_bytes
from desktop.core.engine import Prediction, RunReport, Session, error_pct
from desktop.core.engine import protocol as p
from desktop.core.errors import UsageError


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
    if args.chat and args.json:
        raise UsageError("--json works with --prompt, not with --chat.")
    load = load_settings_from(args, default_ctx=2048)
    ws = workspace()
    resolved = ws.resolver.resolve(args.model)
    path = resolved.require_file()
    profile, _name = ws.profile()
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
    target = resolved.fit_target() if resolved.header is not None else None
    with Session(path, load, target=target, profile=profile) as session:
        loaded = session.open()
        warn_if_cpu_only(args.ngl, loaded)
        if args.chat:
            return _chat(session, args, params)
        messages = () if args.raw else (p.ChatMessage("user", args.prompt),)
        request = session.generate(
            messages=messages,
            prompt=args.prompt if args.raw else None,
            system=None if args.raw else args.system,
            params=params,
        )
        session.stream(request, None if args.json else _echo)
        report = session.report(request)
        metrics = report.metrics
        prediction = session.prediction(metrics.prompt_tokens + metrics.generated_tokens)
    if args.json:
        emit_json(report.to_dict())
    else:
        sys.stdout.write("\n")
        sys.stdout.flush()
        rows = _report_rows(report, loaded, prediction, resolved.label)
        sys.stderr.write("\n" + format_table(*rows) + "\n")
    return 0


def _echo(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _chat(session: Session, args: argparse.Namespace, params: p.SamplingParams) -> int:
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
        request = session.generate(messages=history, system=args.system, params=params)
        session.stream(request, _echo)
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
