"""`llm-scout run MODEL (--prompt TEXT | --chat)`: stream an answer and measure it.

The answer streams to stdout; the measurements (TTFT, tokens/s, memory, predicted vs measured)
follow on stderr so the answer can be piped on its own. ``--json`` prints one document at the
end instead (keys from ``RunReport.to_dict``).

``--chat`` keeps a conversation going (``desktop.core.engine.Conversation``): Ctrl-C stops an
answer and returns to the prompt; Ctrl-C or Ctrl-D at the prompt leaves; a conversation that
outgrows the context drops its oldest turns (the system prompt stays) and says so; commands
start with ``/`` and never reach the model. A worker that dies (mid-answer or while idle) is
restarted with the model and the conversation goes on; the error gets its own line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.engine_options import (
    add_model_options,
    add_rpc_option,
    load_settings_from,
    remote_endpoint_from,
    warn_if_cpu_only,
)
from desktop.commands.output import emit_json, format_table, human_bytes
from desktop.core.engine import (
    Conversation,
    Prediction,
    RemoteClient,
    RemoteEndpoint,
    RunReport,
    Session,
    check_sampling,
    error_pct,
    worker_gone,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError, UsageError
from desktop.core.fit import calibrates, past_trained_context, record_run
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history import History, settings_dict

CHAT_HELP = """Commands:
  /help          this list
  /clear         forget the conversation (the system prompt stays)
  /system TEXT   set the system prompt (/system alone removes it)
  /save FILE     save the transcript (.md, or .json with settings and metrics)
  /stats         tokens, speed and memory so far
  /exit          leave (Ctrl-D or Ctrl-C at an empty prompt too)
Ctrl-C while the model answers stops the answer."""

FINISH_TEXT = {
    "stop": "the model ended its answer",
    "length": "--max-tokens reached",
    "context": "the context is full",
    "cancelled": "stopped",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a model on a prompt (or chat) and measure it",
        description="Load MODEL in an engine worker, stream its answer, report the metrics.",
    )
    add_model_options(parser)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--prompt", metavar="TEXT", help="one user message")
    what.add_argument(
        "--chat", action="store_true", help="a conversation on the terminal (/help inside)"
    )
    parser.add_argument("--raw", action="store_true", help="send --prompt without the template")
    parser.add_argument("--system", metavar="S", help="system prompt")
    parser.add_argument(
        "--ctx", type=int, default=None, metavar="N", help="context length (default: settings)"
    )
    parser.add_argument("--temp", type=float, default=0.8, metavar="T", help="temperature")
    parser.add_argument("--top-p", type=float, default=0.95, metavar="P", help="nucleus sampling")
    parser.add_argument("--top-k", type=int, default=40, metavar="K", help="top-k sampling")
    parser.add_argument("--min-p", type=float, default=0.05, metavar="P", help="min-p sampling")
    parser.add_argument(
        "--repeat-penalty", type=float, default=1.0, metavar="R", help="1.0: no penalty"
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="random if not set")
    parser.add_argument(
        "--max-tokens", type=int, default=256, metavar="N", help="most tokens per answer"
    )
    parser.add_argument(
        "--stop", action="append", default=[], metavar="TEXT", help="stop string (repeatable)"
    )
    parser.add_argument(
        "--template",
        metavar="NAME",
        help="chat template: a name (chatml, gemma, llama3, ...) or Jinja text; default: the "
        "file's own, else one chosen by architecture",
    )
    add_rpc_option(parser)
    add_json_argument(parser, help="one JSON document at the end")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.chat and args.json:
        raise UsageError("--json works with --prompt, not with --chat.")
    if args.max_tokens < 1:
        raise UsageError(f"--max-tokens must be at least 1, not {args.max_tokens}.")
    endpoint = remote_endpoint_from(args)
    ws = workspace()
    load = load_settings_from(args, default_ctx=ws.settings.default_ctx, settings=ws.settings)
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
    check_sampling(params)
    if endpoint is not None:
        endpoint = endpoint.with_timeout(ws.settings.remote_timeout_s)
        label = endpoint.label
        session = Session(endpoint.base_url, load, client=RemoteClient(endpoint))
    else:
        resolved = ws.resolver.resolve(args.model)
        path = resolved.require_file()
        label = resolved.label
        target = resolved.fit_target() if resolved.header is not None else None
        past = past_trained_context(target.arch, load.n_ctx) if target is not None else None
        if past:
            sys.stderr.write(f"llm-scout: warning: {past}\n")
        session = Session(path, load, target=target, profile=profile)
    with session:
        loaded = session.open()
        if endpoint is None:
            warn_if_cpu_only(args.ngl, loaded)
        if args.chat:
            return _chat(Conversation(session, system=args.system, params=params), label)
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
    # This machine's own profile (never a what-if one here); an answer that failed raised.
    if calibrates(remote=endpoint is not None, what_if=False, failed=False):
        record_run(report, loaded, profile, label=label)  # never fails the command
    _store(
        report,
        model=None if endpoint is not None else path,
        label=label,
        prompt=args.prompt,
        system=None if args.raw else args.system,
        settings=settings_dict(
            load,
            params,
            **(
                {"remote": endpoint.to_dict()}
                if endpoint is not None
                else {"template": loaded.template_name, "n_gpu_layers_loaded": loaded.n_gpu_layers}
            ),
        ),
        profile=profile,
    )
    if args.json:
        emit_json(report.to_dict())
    else:
        sys.stdout.write("\n")
        sys.stdout.flush()
        if endpoint is not None:
            rows = _remote_rows(report, endpoint)
        else:
            rows = _report_rows(report, loaded, prediction, label)
        sys.stderr.write("\n" + format_table(*rows) + "\n")
        warning = report.speed_warning()
        if warning:
            sys.stderr.write(f"llm-scout: {warning}\n")
    return 0


def _store(
    report: RunReport,
    *,
    model: Path | None,
    label: str,
    prompt: str,
    system: str | None,
    settings: dict[str, Any],
    profile: HardwareProfile,
) -> None:
    """Keep the answer in the history, as the Playground keeps its answers (so it travels with
    ``history export``); a history that cannot be written costs a warning, not the answer."""
    try:
        with History.open() as history:
            history.record_run(
                report,
                model=model,
                prompt=prompt,
                system=system,
                label=label,
                settings=settings,
                profile=profile,
                machine=THIS_MACHINE,
                source="run",
            )
    except ScoutError as exc:
        sys.stderr.write(f"llm-scout: the answer was not stored in the history: {exc}\n")


def _echo(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _read(interactive: bool) -> str | None:
    """One line from the user; None at the end of input (Ctrl-D)."""
    if interactive:
        try:
            return input("> ")
        except EOFError:
            sys.stderr.write("\n")
            return None
    line = sys.stdin.readline()
    return line if line else None


def _chat(chat: Conversation, label: str) -> int:
    interactive = sys.stdin.isatty()
    if interactive:
        # Ctrl-C stops an answer: make sure it raises KeyboardInterrupt even when this process
        # was started with SIGINT ignored (a background job of a script inherits SIG_IGN, and
        # Python then keeps it).
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if interactive:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:  # pragma: no cover - Windows without pyreadline
            pass
    sys.stderr.write(
        f"Chatting with {label}. Type /help for commands; Ctrl-D or /exit leaves, Ctrl-C "
        "stops an answer.\n"
    )
    while True:
        try:
            line = _read(interactive)
        except KeyboardInterrupt:
            sys.stderr.write("\n")
            return 0
        if line is None:
            return 0
        text = line.strip()
        if not text:
            continue
        if text.startswith("/"):
            if _command(chat, text, label):
                return 0
            continue
        echo = _LineEcho()
        try:
            answer = chat.ask(text, echo, _say_restarted)
        except KeyboardInterrupt:
            sys.stdout.write("\n")
            sys.stderr.write("[stopped]\n")
            continue
        except ScoutError as exc:
            echo.end_line()
            if worker_gone(exc):
                if not _restart(chat, exc.message):
                    return 1
                continue
            if exc.kind != "engine.context_overflow":
                raise
            sys.stderr.write(f"llm-scout: {exc.message} /clear starts over.\n")
            continue
        sys.stdout.write("\n")
        sys.stdout.flush()
        if answer.dropped_turns:
            turns = "turn" if answer.dropped_turns == 1 else "turns"
            sys.stderr.write(
                f"[the conversation outgrew the context: the {answer.dropped_turns} oldest "
                f"{turns} were dropped, the system prompt kept]\n"
            )
        metrics = answer.report.metrics
        rate, ttft = _num(metrics.tokens_per_s, ".1f"), _num(metrics.ttft_ms, ".0f")
        why = FINISH_TEXT.get(answer.finish_reason, answer.finish_reason)
        sys.stderr.write(
            f"[{metrics.generated_tokens} tokens, {rate} tokens/s, TTFT {ttft} ms; {why}]\n"
        )


class _LineEcho:
    """Streams an answer to stdout and knows whether its line is still open."""

    def __init__(self) -> None:
        self.open = False

    def __call__(self, text: str) -> None:
        _echo(text)
        self.open = not text.endswith("\n")

    def end_line(self) -> None:
        if self.open:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.open = False


def _say_restarted(why: str) -> None:
    sys.stderr.write(f"llm-scout: {why} It was restarted with the model; the chat goes on.\n")


def _restart(chat: Conversation, why: str) -> bool:
    """After the worker died mid-answer: say so on its own line, start a new one. False when
    the model cannot be loaded again (the chat then ends)."""
    sys.stderr.write(f"llm-scout: {why} Restarting it with the model; the conversation is kept.\n")
    try:
        chat.restart()
    except ScoutError as exc:
        sys.stderr.write(f"llm-scout: the model could not be loaded again: {exc.message}\n")
        return False
    sys.stderr.write("[restarted; the answer so far is kept, marked as cut off]\n")
    return True


def _command(chat: Conversation, text: str, label: str) -> bool:
    """Run a /command; True when the chat should end."""
    name, _, rest = text.partition(" ")
    rest = rest.strip()
    if name in ("/exit", "/quit"):
        return True
    if name == "/help":
        sys.stderr.write(CHAT_HELP + "\n")
    elif name == "/clear":
        chat.clear()
        sys.stderr.write("[conversation cleared]\n")
    elif name == "/system":
        chat.set_system(rest)
        sys.stderr.write("[system prompt set]\n" if rest else "[system prompt removed]\n")
    elif name == "/save":
        if not rest:
            sys.stderr.write("/save needs a file name, e.g. /save chat.md\n")
        else:
            sys.stderr.write(_save(chat, Path(rest).expanduser(), label) + "\n")
    elif name == "/stats":
        stats = chat.stats()
        rate = _num(stats["mean_tokens_per_s"], ".1f")
        sys.stderr.write(
            f"[{stats['turns']} turns kept, {stats['dropped_turns']} dropped; "
            f"{stats['generated_tokens']} tokens generated at {rate} tokens/s on average; "
            f"RSS peak {human_bytes(stats['rss_peak_bytes'])}]\n"
        )
    else:
        sys.stderr.write(f"Unknown command {name}; /help lists them.\n")
    return False


def _save(chat: Conversation, path: Path, label: str) -> str:
    if path.suffix.lower() == ".json":
        text = json.dumps(chat.to_dict(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = chat.to_markdown(f"Chat with {label}")
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        return f"Cannot save to {path}: {exc.strerror or exc}."
    return f"[saved to {path}]"


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _speed_source(report: RunReport) -> str:
    if report.timing_source == "server":
        return "server timings (the server's own prompt and generation times)"
    return "speed measured on the client (token arrival times, network included)"


def _remote_rows(report: RunReport, endpoint: RemoteEndpoint) -> tuple[list[str], list[list[str]]]:
    """The table for a model behind a server: what was measured here, what the server said,
    memory only as far as the server exposes it."""
    m = report.metrics
    reason = report.finish_reason or "-"
    memory = []
    if report.server_vram_bytes is not None:
        memory.append(f"VRAM {human_bytes(report.server_vram_bytes)}")
    if report.kv_cache_usage_pct is not None:
        memory.append(f"KV cache {report.kv_cache_usage_pct:.0f}% used")
    rows = [
        ["model", f"{endpoint.model} on {endpoint.base_url} (remote)"],
        ["stopped by", FINISH_TEXT.get(reason, reason)],
        ["endpoint check", f"{_num(report.load_ms, '.0f')} ms"],
        ["TTFT", f"{_num(m.ttft_ms, '.0f')} ms"],
        ["prompt", f"{m.prompt_tokens} tokens, {_num(m.prompt_tokens_per_s, '.1f')} tokens/s"],
        ["generation", f"{m.generated_tokens} tokens, {_num(m.tokens_per_s, '.1f')} tokens/s"],
        ["speeds", _speed_source(report)],
        ["memory", ", ".join(memory) + " (server)" if memory else "unknown"],
        ["prediction", "no prediction: remote"],
    ]
    return ["metric", "value"], rows


def _report_rows(
    report: RunReport, loaded: p.Loaded, prediction: Prediction, label: str
) -> tuple[list[str], list[list[str]]]:
    m = report.metrics
    ram_error = error_pct(report.predicted_ram_bytes, report.rss_peak_bytes)
    reason = report.finish_reason or "-"
    rows = [
        ["model", f"{label}, {loaded.architecture} architecture"],
        ["stopped by", FINISH_TEXT.get(reason, reason)],
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
        rows.append(
            ["predicted speed", f"{prediction.tokens_per_s:.1f} tokens/s" + _compared(report)]
        )
    return ["metric", "value"], rows


def _compared(report: RunReport) -> str:
    """How the measured speed compares with the prediction, as the window's error column says
    it: a signed percent, or in words when the machine was busy (the percent says nothing)."""
    if not report.speed_compared:
        return " (the machine was busy: not compared with the prediction)"
    error = report.speed_error_pct
    return "" if error is None else f" ({error:+.1f}% vs measured)"
