"""`llm-scout compare`: the same prompts on two to six models, side by side.

    llm-scout compare --models M1 M2 [...] (--prompt TEXT | --suite NAME_OR_FILE)
                      [--mode fair|parallel] [--blind] [--ctx N] [--ngl N] [--threads N]
                      [--cache-type f16|q8_0|q4_0] [--temp T] [--seed S] [--max-tokens N]
                      [--system S] [--title T] [--out report.md|.csv|.json] [--json] [--quiet]
                      [--quality items[:SET]|text:REF [--quality-text en|zh|FILE]
                       [--quality-limit N] [--quality-minutes M]]
    llm-scout compare --list [--search TEXT] [--model M]
    llm-scout compare --show ID | --resume ID | --rerun ID | --delete ID
    llm-scout compare --suites

A model may carry its own settings after ``@`` (``smollm2@temp=0.2,ctx=1024``,
``qwen2.5-7b-instruct:Q4_K_M@cache=q8_0``), so one file can compete with itself. Progress goes
to stderr (one line that updates on a terminal, one line per step otherwise: a log file or a
plain SSH session gets no carriage returns; none with ``--quiet``); the report goes
to ``--out`` in the format its extension names, else Markdown (or ``--json``) on stdout. Every
answer is stored in the history as it finishes: an interrupted comparison is listed as partial
and ``--resume ID`` runs what is missing. A comparison that ends with answers missing (a
contestant that failed) still writes its report and exits with status 1.

``--quality`` adds a quality check after the answers, every model on the same input, one after
another: ``items`` (multiple choice on the shipped GAOKAO-Bench questions, or ``items:DIR`` a
folder or file in the C-Eval, CMMLU or MMLU layout) or ``text:REF`` (the loss against REF, a GGUF
model or a reference pack, on ``--quality-text``). Each result is kept in the history as a
measurement and is in the report; a model whose check cannot run says why in its row.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from desktop.commands.common import add_json_argument, add_quiet_argument, warn, workspace
from desktop.commands.output import counted, emit_json, format_table, interactive
from desktop.core.compare import (
    DEFAULT_ITEMS,
    DEFAULT_LIMIT,
    DEFAULT_MAX_SECONDS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    MAX_CONTESTANTS,
    MIN_CONTESTANTS,
    AnswerFinished,
    AnswerText,
    CompareError,
    CompareEvent,
    CompareRunner,
    ComparisonPlan,
    ComparisonResult,
    ComparisonStarted,
    ContestantFailed,
    ContestantStarted,
    QualityCheck,
    QualityFinished,
    QualityProgress,
    QualityStarted,
    build_contestants,
    check_report_path,
    context_for,
    default_load,
    default_sampling,
    find_suite,
    list_suites,
    open_comparison,
    render,
    rerun_plan,
    resume_plan,
    single_prompt,
    to_dict,
    write_report,
)
from desktop.core.engine import check_sampling
from desktop.core.errors import UsageError
from desktop.core.history import History, HistoryNotFound
from desktop.core.kv_cache import CACHE_TYPES
from desktop.core.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="run the same prompts on 2-6 models and compare quality, speed and memory",
        description="Run the same prompts on two to six models side by side: TTFT, tokens/s, "
        "peak memory, predicted vs measured, checks passed. MODEL is a GGUF file, a catalog "
        "variant or a demo key, optionally with settings: smollm2@temp=0.2,ctx=1024 (keys: "
        "ctx, ngl, threads, template, cache (KV cache type), fa (flash attention on/off), "
        "temp, top_p, top_k, min_p, repeat_penalty, seed, max_tokens, name).",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--models", nargs="+", metavar="MODEL", help="two to six models")
    action.add_argument("--list", action="store_true", help="list past comparisons")
    action.add_argument("--show", type=int, metavar="ID", help="report a past comparison")
    action.add_argument("--resume", type=int, metavar="ID", help="run what ID is missing")
    action.add_argument("--rerun", type=int, metavar="ID", help="run ID again on this machine")
    action.add_argument("--delete", type=int, metavar="ID", help="delete a past comparison")
    action.add_argument("--suites", action="store_true", help="list the built-in prompt suites")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--prompt", metavar="TEXT", help="one prompt")
    what.add_argument("--suite", metavar="NAME|FILE", help="a built-in suite or a JSONL/CSV file")
    parser.add_argument(
        "--mode",
        choices=("fair", "parallel"),
        default="fair",
        help="fair: one model at a time (comparable speeds); parallel: all at once, only when "
        "they fit in memory together",
    )
    parser.add_argument(
        "--blind",
        action="store_true",
        help="hide the names: answers labelled A, B, ... in "
        "a shuffled order (vote in the window; names revealed in the report)",
    )
    parser.add_argument(
        "--ctx",
        type=int,
        default=None,
        metavar="N",
        help="context length (default: the setting, or what the longest prompt needs)",
    )
    parser.add_argument("--ngl", type=int, default=0, metavar="N", help="layers on the GPU")
    parser.add_argument("--threads", type=int, default=None, metavar="N", help="CPU threads")
    parser.add_argument(
        "--cache-type",
        choices=CACHE_TYPES,
        default="f16",
        help="KV cache type (a quantized one turns flash attention on)",
    )
    parser.add_argument(
        "--temp", type=float, default=DEFAULT_TEMPERATURE, metavar="T", help="temperature"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        metavar="S",
        help="sampling seed (fixed, so a re-run compares like with like)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        metavar="N",
        help="most tokens per answer",
    )
    parser.add_argument("--system", metavar="S", help="system prompt for every model")
    parser.add_argument("--title", metavar="TEXT", help="a title for the comparison")
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="write the report to FILE (.md, .csv or .json)"
    )
    parser.add_argument(
        "--quality",
        metavar="items[:SET]|text:REF",
        help="after the answers, measure every model on the same input: items (the shipped "
        "GAOKAO-Bench questions, or items:DIR in the C-Eval, CMMLU or MMLU layout) or text:REF "
        "(the loss against REF, a GGUF model or a reference pack)",
    )
    parser.add_argument(
        "--quality-text",
        default="en",
        metavar="en|zh|FILE",
        help="with --quality text: the shipped English or Chinese text, or a UTF-8 file",
    )
    parser.add_argument(
        "--quality-limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"with --quality items: at most N questions per model (default {DEFAULT_LIMIT})",
    )
    parser.add_argument(
        "--quality-minutes",
        type=float,
        default=DEFAULT_MAX_SECONDS / 60,
        metavar="M",
        help="with --quality: time budget per model; what is done by then counts "
        f"(default {DEFAULT_MAX_SECONDS / 60:g})",
    )
    parser.add_argument("--search", metavar="TEXT", help="with --list: words to look for")
    parser.add_argument("--model", metavar="M", help="with --list: comparisons with this model")
    add_json_argument(parser, help="one JSON document (the report, or the list)")
    add_quiet_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.out is not None and args.out.suffix.lower() not in (
        ".md",
        ".markdown",
        ".csv",
        ".json",
    ):
        raise UsageError(f"Name the report {args.out.name} .md, .csv or .json.")
    if args.out is not None and not (args.list or args.suites or args.delete is not None):
        try:  # before anything runs: a typo in the folder must not cost the comparison
            check_report_path(args.out)
        except CompareError as exc:
            raise UsageError(exc.message) from None
    if args.models is not None and not MIN_CONTESTANTS <= len(args.models) <= MAX_CONTESTANTS:
        raise UsageError(
            f"compare takes {MIN_CONTESTANTS} to {MAX_CONTESTANTS} models, not {len(args.models)}."
        )
    if args.suites:
        return _suites(args)
    if args.models is not None and args.prompt is None and args.suite is None:
        raise UsageError("compare --models needs --prompt TEXT or --suite NAME_OR_FILE.")
    if args.models is None and (args.prompt is not None or args.suite is not None):
        raise UsageError("--prompt and --suite go with --models.")
    if args.max_tokens < 1:
        raise UsageError(f"--max-tokens must be at least 1, not {args.max_tokens}.")
    if args.quality is not None and args.models is None:
        raise UsageError("--quality goes with --models.")
    with History.open() as history:
        if args.list:
            return _list(args, history)
        if args.delete is not None:
            if not history.delete_comparison(args.delete):
                # As --show and --resume say it: a failure (exit 1), not a usage error.
                raise HistoryNotFound(f"There is no comparison {args.delete} in the history.")
            sys.stderr.write(f"Comparison {args.delete} deleted.\n")
            return 0
        if args.show is not None:
            return _emit(open_comparison(history, args.show), args)
        ws = workspace()
        if args.resume is not None:
            plan, existing = resume_plan(history, args.resume, ws.resolver)
            return _run(args, ws, history, plan, comparison_id=args.resume, existing=existing)
        if args.rerun is not None:
            return _run(args, ws, history, rerun_plan(history, args.rerun, ws.resolver))
        return _run(args, ws, history, _new_plan(args, ws))


def _new_plan(args: argparse.Namespace, ws: Workspace) -> ComparisonPlan:
    suite = single_prompt(args.prompt, args.system) if args.prompt else find_suite(args.suite)
    for problem in suite.problems:
        warn([f"{suite.path or suite.name}, {problem}: skipped."])
    ctx = args.ctx
    if ctx is None:
        ctx = context_for(suite, args.max_tokens, ws.settings.default_ctx)
    load = default_load(
        ctx, n_threads=args.threads, n_gpu_layers=args.ngl, cache_type=args.cache_type
    )
    sampling = default_sampling(args.max_tokens, temperature=args.temp, seed=args.seed)
    check_sampling(sampling)
    contestants = build_contestants(
        ws.resolver, args.models, load=load, sampling=sampling, system=args.system
    )
    return ComparisonPlan.for_suite(
        contestants,
        suite,
        mode=args.mode,
        blind=args.blind,
        title=args.title or "",
        quality=quality_check(args),
    )


def quality_check(args: argparse.Namespace) -> QualityCheck | None:
    """The --quality options as a check (None without --quality); UsageError with one
    sentence for what cannot work, before anything runs."""
    if args.quality is None:
        return None
    kind, _, source = args.quality.partition(":")
    if kind not in ("items", "text"):
        raise UsageError(f"--quality takes items, items:DIR or text:REF, not {args.quality!r}.")
    if kind == "text" and not source:
        raise UsageError("--quality text needs a reference: text:REF.gguf or text:PACK.")
    source = source or DEFAULT_ITEMS
    if source != DEFAULT_ITEMS and not Path(source).expanduser().exists():
        what = "question folder or file" if kind == "items" else "reference"
        raise UsageError(f"There is no {what} {source}.")
    if args.quality_limit < 1:
        raise UsageError(f"--quality-limit must be at least 1, not {args.quality_limit}.")
    if args.quality_minutes <= 0:
        raise UsageError(f"--quality-minutes must be positive, not {args.quality_minutes:g}.")
    return QualityCheck(
        kind,
        str(Path(source).expanduser()) if source != DEFAULT_ITEMS else source,
        text=args.quality_text,
        limit=args.quality_limit,
        max_seconds=args.quality_minutes * 60,
    )


def _run(
    args: argparse.Namespace,
    ws: Workspace,
    history: History,
    plan: ComparisonPlan,
    *,
    comparison_id: int | None = None,
    existing: ComparisonResult | None = None,
) -> int:
    profile, name = ws.profile()
    progress = Progress(sys.stderr, plan, quiet=args.quiet)
    runner = CompareRunner(
        plan,
        profile=profile,
        history=history,
        machine=name,
        on_event=progress,
        comparison_id=comparison_id,
        existing=existing,
        remote_timeout_s=ws.settings.remote_timeout_s,
    )
    try:
        result = runner.run()
    except KeyboardInterrupt:
        progress.clear()
        if runner.comparison_id is not None:
            sys.stderr.write(
                f"llm-scout: interrupted; the finished answers are kept. Resume with "
                f"`llm-scout compare --resume {runner.comparison_id}`.\n"
            )
            return 130
        raise
    progress.clear()
    for outcome, info in zip(result.outcomes, result.contestants, strict=True):
        if outcome.failed:
            warn([f"{info.name} failed: {outcome.reason}"])
    for quality in result.quality:
        if quality.status == "failed":
            name = result.contestants[quality.contestant].name
            warn([f"{name}: the quality check failed: {quality.reason}"])
    if not result.complete:
        missing = len(result.missing())
        warn(
            [f"{missing} answers are missing; `llm-scout compare --resume {result.id}` runs them."]
        )
    code = _emit(result, args)
    # The report goes out either way; a comparison with answers missing is not a success.
    return code if result.complete else 1


def _emit(result: ComparisonResult, args: argparse.Namespace) -> int:
    if args.out is not None:
        fmt = write_report(result, args.out)
        sys.stderr.write(f"Comparison {result.id}: {fmt} report written to {args.out}\n")
    elif args.json:
        emit_json(to_dict(result))
    else:
        sys.stdout.write(render(result, "md"))
    return 0


def _list(args: argparse.Namespace, history: History) -> int:
    found = history.comparisons(search=args.search, model=args.model)
    if args.json:
        emit_json([c.to_dict() for c in found])
        return 0
    if not found:
        filtered = args.search or args.model
        sys.stderr.write("No comparisons match.\n" if filtered else "No comparisons yet.\n")
        return 0
    rows = [
        [
            c.id,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(c.created_at)),
            c.state,
            c.mode,
            f"{c.n_answers}/{c.n_expected}",
            ", ".join(c.models),
            c.title,
        ]
        for c in found
    ]
    sys.stdout.write(
        format_table(["id", "when", "state", "mode", "answers", "models", "title"], rows) + "\n"
    )
    return 0


def _suites(args: argparse.Namespace) -> int:
    suites = list_suites()
    if args.json:
        emit_json([s.to_dict() for s in suites])
        return 0
    rows = [[s.name, len(s.prompts), s.language or "-", s.title] for s in suites]
    sys.stdout.write(format_table(["suite", "prompts", "language", "title"], rows) + "\n")
    return 0


class Progress:
    """The progress line on stderr: rewritten in place on a terminal (at most 10 times a
    second), one line per step otherwise (a log file, a pipe, ``ssh host llm-scout ...``,
    ``TERM=dumb``: no carriage returns); nothing with ``quiet``."""

    def __init__(self, stream: TextIO, plan: ComparisonPlan, *, quiet: bool = False) -> None:
        self.stream = stream
        self.plan = plan
        self.quiet = quiet
        self.tty = interactive(stream)
        self.done = 0
        self.total = 0
        self._shown = 0.0
        self._width = 0

    def __call__(self, event: CompareEvent) -> None:
        names = [c.display_name for c in self.plan.contestants]
        n_prompts = len(self.plan.prompts)
        if isinstance(event, ComparisonStarted):
            self.total = event.total
            mode = "one model at a time" if event.mode == "fair" else "side by side"
            self._line(
                f"Comparing {event.n_contestants} models on {counted(n_prompts, 'prompt')}, {mode}"
                + (f" (comparison {event.comparison_id})" if event.comparison_id else ""),
                final=True,
            )
        elif isinstance(event, ContestantStarted):
            # A log gets this line too: loading a large model on a small board takes minutes.
            self._line(f"[{self.done}/{self.total}] loading {event.name}", final=not self.tty)
        elif isinstance(event, AnswerText) and self.tty:
            now = time.monotonic()
            if now - self._shown >= 0.1:
                self._shown = now
                self._line(
                    f"[{self.done}/{self.total}] {names[event.contestant]} · prompt "
                    f"{event.prompt + 1}/{n_prompts} · {event.tokens} tokens"
                )
        elif isinstance(event, AnswerFinished):
            self.done = event.done
            answer = event.answer
            report = answer.report
            if report is not None:
                rate = report.metrics.tokens_per_s
                what = f"{report.metrics.generated_tokens} tokens" + (
                    f", {rate:.1f} tokens/s" if rate is not None else ""
                )
            else:
                what = f"failed: {answer.error}"
            self._line(
                f"[{event.done}/{event.total}] {names[answer.contestant]} · prompt "
                f"{answer.prompt + 1}/{n_prompts}: {what}",
                final=not self.tty,
            )
        elif isinstance(event, ContestantFailed):
            self._line(f"{names[event.contestant]} failed: {event.reason}", final=True)
        elif isinstance(event, QualityStarted) and self.plan.quality is not None:
            self._line(
                f"quality: {event.name} · {self.plan.quality.describe()}", final=not self.tty
            )
        elif isinstance(event, QualityProgress) and self.tty:
            figure = "" if event.value is None else f" · {event.value:.4g}"
            self._line(f"quality: {names[event.contestant]} · {event.done}/{event.total}{figure}")
        elif isinstance(event, QualityFinished):
            o = event.outcome
            self._line(f"quality: {names[o.contestant]}: {o.figure()}", final=True)

    def _line(self, text: str, *, final: bool = False) -> None:
        if self.quiet:
            return
        if self.tty:
            pad = max(0, self._width - len(text))
            self.stream.write("\r" + text + " " * pad + ("\n" if final else ""))
            self._width = 0 if final else len(text)
        elif final:
            self.stream.write(text + "\n")
        self.stream.flush()

    def clear(self) -> None:
        if self.tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
