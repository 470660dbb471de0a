"""`llm-scout quality MODEL ...`: measure a model's quality on this machine.

Three modes:

- ``--reference REF.gguf|PACK``: what MODEL loses against a reference (KL divergence, ΔPPL,
  same top token, with 95% bootstrap intervals) on a text shipped with the app (``--text en``,
  ``zh``) or a file; the reference's pass is cached, so the next quant of the same model skips it.
- ``--save-reference PACK``: MODEL is the reference; its top tokens per position go to a small
  file a Jetson can score quants against without the big model.
- ``--items DIR|gaokao``: multiple choice scored from the logits, accuracy with Wilson intervals
  per subject; with a second MODEL both answer the same items and McNemar's test says whether one
  is better.

Progress goes to stderr. Ctrl-C stops after the current chunk or question and prints what is done
(exit status 130); a second Ctrl-C quits at once. ``--max-minutes`` is a time budget for the whole
measurement.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.output import StatusLine, emit_json, format_table, human_bytes
from desktop.core.errors import UsageError

if TYPE_CHECKING:
    from desktop.core.quality import ChoiceResult, LossProgress, LossResult, McNemar

INTERRUPTED = 130


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "quality",
        help="measure quality here: loss against a reference, or multiple-choice accuracy",
        description="What a quantization loses against a reference (KL divergence, ΔPPL, same "
        "top token), or multiple-choice accuracy, each with a 95%% interval.",
    )
    parser.add_argument(
        "models",
        metavar="MODEL",
        nargs="+",
        help="a GGUF file, catalog variant or model id, or demo key (smollm2, gemma3); with "
        "--items a second MODEL answers the same questions",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--reference",
        metavar="REF",
        help="the reference: a GGUF model (F16/BF16 or a better quant, same tokenizer) or a "
        "reference pack",
    )
    mode.add_argument(
        "--save-reference",
        metavar="PACK",
        help="write MODEL's top tokens on the text to PACK (a reference pack)",
    )
    mode.add_argument(
        "--items",
        metavar="DIR",
        help="multiple choice: a folder or file in the C-Eval, CMMLU or MMLU CSV layout, a "
        "JSONL set, or gaokao (shipped, Apache-2.0)",
    )
    parser.add_argument(
        "--text",
        default="en",
        metavar="en|zh|FILE",
        help="the text the logits are evaluated on: shipped English or Chinese, or a UTF-8 file",
    )
    parser.add_argument(
        "--ctx", type=int, default=512, metavar="N", help="chunk length in tokens (half scored)"
    )
    parser.add_argument(
        "--top-k", type=int, default=32, metavar="K", help="reference tokens kept per position"
    )
    parser.add_argument(
        "--method",
        choices=("letter", "text"),
        default="letter",
        help="multiple choice: the answer letter's likelihood, or each option text's",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="answer at most N questions")
    parser.add_argument(
        "--max-minutes", type=float, metavar="M", help="time budget; what is done by then counts"
    )
    parser.add_argument(
        "--threads", type=int, default=None, metavar="N", help="CPU threads (physical cores)"
    )
    parser.add_argument("--ngl", type=int, default=0, metavar="N", help="layers on the GPU")
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="do not keep the result in the history (kept by default: `llm-scout history list`)",
    )
    add_json_argument(parser, help="one JSON document")
    parser.set_defaults(handler=handle)


# --------------------------------------------------------------------------- stopping


class StopFlag:
    """The first Ctrl-C asks the measurement to stop after what runs; the second quits."""

    def __init__(self) -> None:
        self.set = False

    def __call__(self) -> bool:
        return self.set


@contextmanager
def ctrl_c_stops(flag: StopFlag, status: StatusLine) -> Iterator[None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        if flag.set:
            raise KeyboardInterrupt
        flag.set = True
        status.close()
        sys.stderr.write("llm-scout: stopping after the current step (Ctrl-C again quits)\n")

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# --------------------------------------------------------------------------- handle


@dataclass
class _Job:
    """What every mode needs: the options, the workspace, the stop flag, the status line."""

    args: argparse.Namespace
    ws: Any
    flag: StopFlag
    status: StatusLine
    paths: list[Path]
    labels: list[str]
    variants: list[str | None]


def handle(args: argparse.Namespace) -> int:
    from desktop.core import quality

    if len(args.models) > 2 or (len(args.models) == 2 and not args.items):
        raise UsageError("A second MODEL goes with --items (both answer the same questions).")
    if args.max_minutes is not None and args.max_minutes <= 0:
        raise UsageError("--max-minutes must be positive.")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1.")
    ws = workspace()
    threads = args.threads or (ws.settings.default_threads or None)
    budget = args.max_minutes * 60.0 if args.max_minutes is not None else None
    flag = StopFlag()
    status = StatusLine(sys.stderr.isatty(), every_s=5.0)
    resolved = [ws.resolver.resolve(m) for m in args.models]
    job = _Job(
        args,
        ws,
        flag,
        status,
        [r.require_file() for r in resolved],
        [r.label for r in resolved],
        [r.variant_id for r in resolved],
    )
    with ctrl_c_stops(flag, status):
        if args.items:
            settings = quality.ChoiceSettings(
                method=args.method, n_threads=threads, n_gpu_layers=args.ngl, max_seconds=budget
            )
            return _choice(job, quality.load_items(args.items, limit=args.limit), settings)
        loss_settings = quality.LossSettings(
            ctx=args.ctx,
            top_k=args.top_k,
            n_threads=threads,
            n_gpu_layers=args.ngl,
            max_seconds=budget,
        )
        if args.save_reference:
            return _save_reference(job, loss_settings)
        return _loss(job, loss_settings)


def _loss(job: _Job, settings: Any) -> int:
    from desktop.core.quality import load_text, measure_loss

    args, model, label, status = job.args, job.paths[0], job.labels[0], job.status
    reference, ref_label, is_pack = _reference(args.reference, job.ws)
    text = None if is_pack else load_text(args.text)
    result = measure_loss(
        model,
        reference,
        text,
        settings,
        model_label=label,
        reference_label=ref_label,
        on_progress=_loss_printer(status),
        should_stop=job.flag,
    )
    status.close()
    _keep(job, [result])
    if args.json:
        emit_json(result.to_dict())
    else:
        sys.stdout.write(format_loss(result) + "\n")
    return INTERRUPTED if result.stopped == "cancelled" else 0


def _reference(spec: str, ws: Any) -> tuple[Path, str, bool]:
    """A reference pack (by its magic, whatever its name) or a model the resolver knows."""
    from desktop.core.quality import PACK_SUFFIX

    path = Path(spec).expanduser()
    if path.suffix == PACK_SUFFIX or (path.is_file() and _starts_like_a_pack(path)):
        return path, path.name, True
    resolved = ws.resolver.resolve(spec)
    return resolved.require_file(), resolved.label, False


def _starts_like_a_pack(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(8) == b"LLMSCOUT"
    except OSError:
        return False


def _save_reference(job: _Job, settings: Any) -> int:
    from desktop.core.quality import load_text, make_pack, write_pack

    args, model, label, status, flag = job.args, job.paths[0], job.labels[0], job.status, job.flag
    text = load_text(args.text)
    pack = make_pack(
        model,
        text,
        settings,
        label=label,
        on_progress=_loss_printer(status),
        should_stop=flag,
        budget_s=settings.max_seconds,
    )
    status.close()
    out = Path(args.save_reference).expanduser()
    size = write_pack(pack, out)
    tokens = pack.scored_tokens
    document = {
        "pack": str(out),
        "bytes": size,
        "bytes_per_1000_tokens": size * 1000 / tokens,
        "reference": label,
        "text": text.name,
        "ctx": pack.header.ctx,
        "top_k": pack.header.top_k,
        "chunks": pack.header.chunks,
        "chunks_planned": pack.header.chunks_planned,
        "tokens": tokens,
        "reference_ppl": pack.perplexity(),
        "complete": pack.complete,
    }
    if args.json:
        emit_json(document)
    else:
        part = (
            ""
            if pack.complete
            else (f" (stopped: {pack.header.chunks} of {pack.header.chunks_planned} chunks)")
        )
        sys.stdout.write(
            f"Wrote {out}: {label} on {text.title}, {tokens:,} scored tokens in "
            f"{pack.header.chunks} chunks{part}, {human_bytes(size)} "
            f"({human_bytes(size * 1000 / tokens)} per 1,000 tokens); reference perplexity "
            f"{pack.perplexity():.3f}.\n"
        )
    return INTERRUPTED if flag.set else 0


def _loss_printer(status: StatusLine) -> Callable[[LossProgress], None]:
    def show(progress: LossProgress) -> None:
        if progress.phase == "vocabulary":
            status.show("checking the vocabularies…", force=True)
            return
        line = (
            f"{progress.phase}: chunk {progress.done}/{progress.total} · {progress.elapsed_s:.0f} s"
        )
        result = progress.result
        if result is not None:
            line += f" · KLD {_with_ci(result.kld, result.kld_ci, '.4f')}"
        status.show(line, force=progress.done == progress.total)

    return show


def _with_ci(value: float, ci: tuple[float, float] | None, spec: str) -> str:
    if ci is None:
        return format(value, spec)
    return f"{format(value, spec)} ({format(ci[0], spec)}–{format(ci[1], spec)})"


def format_loss(r: LossResult) -> str:
    """The human report of a loss measurement."""
    done = f"{r.chunks} of {r.chunks_planned} chunks" if not r.complete else f"{r.chunks} chunks"
    lines = [
        f"{r.model} against {r.reference} on {_text_title(r.text)} ({r.ctx}-token chunks, {done})",
        "",
    ]

    def ci(interval: tuple[float, float] | None, spec: str, scale: float = 1.0) -> str:
        if interval is None:
            return "- (one chunk)"
        return f"{format(interval[0] * scale, spec)} – {format(interval[1] * scale, spec)}"

    rows = [
        ("KL divergence", f"{r.kld:.5f}", ci(r.kld_ci, ".5f")),
        (
            "same top token",
            f"{r.same_top_token * 100:.2f}%",
            ci(r.same_top_token_ci, ".2f", 100) + (" %" if r.same_top_token_ci else ""),
        ),
        ("perplexity", f"{r.ppl:.4f}", ci(r.ppl_ci, ".4f")),
        ("reference perplexity", f"{r.reference_ppl:.4f}", ci(r.reference_ppl_ci, ".4f")),
        ("ΔPPL", f"{r.delta_ppl:+.4f}", ci(r.delta_ppl_ci, "+.4f")),
        ("KLD median / 99% / max", f"{r.kld_median:.5f} / {r.kld_p99:.4f} / {r.kld_max:.3f}", ""),
    ]
    lines.append(format_table(("metric", "value", "95% interval"), rows))
    lines.append("")
    place = r.scale
    if place.below is None and place.above is not None:
        where = f"below {place.above[0]} ({place.above[1]:.4f})"
    elif place.above is None and place.below is not None:
        where = f"above {place.below[0]} ({place.below[1]:.4f})"
    else:
        assert place.below is not None
        assert place.above is not None
        where = (
            f"between {place.below[0]} ({place.below[1]:.4f}) and {place.above[0]} "
            f"({place.above[1]:.4f})"
        )
    lines.append(
        f"On llama.cpp's scale (Llama 3 8B against F16, Wikitext-2) this KLD lies {where}; the "
        "loss of a quant depends on the model, so take it as an order of magnitude."
    )
    lines.append(
        f"{r.tokens:,} tokens scored, {r.tokens_evaluated:,} evaluated in {r.seconds:.1f} s "
        f"({r.tokens_per_s:.0f} tokens/s); KLD over the reference's top {r.top_k} tokens "
        "and the rest."
    )
    if r.stopped == "budget":
        lines.append(
            "The time budget ended the measurement early: the figures cover the chunks done."
        )
    elif r.stopped == "cancelled":
        lines.append("Stopped: the figures cover the chunks done.")
    return "\n".join(lines)


def _text_title(name: str) -> str:
    from desktop.core.quality import BUILTIN_TEXTS

    if name in BUILTIN_TEXTS:
        return f"the {BUILTIN_TEXTS[name]} text"
    return Path(name).name


def _keep(job: _Job, results: list[Any]) -> None:
    """Store each result with something measured in the history, one measurement per model
    (so it shows in `history list` and travels with `history export`); a history that cannot
    be written costs a warning, not the result."""
    from desktop.core.errors import ScoutError
    from desktop.core.quality import store_result

    # results[i] is the measurement of job.paths[i] (the second model's comes second).
    done = [(i, r) for i, r in enumerate(results) if (r.n if hasattr(r, "n") else r.chunks) > 0]
    if job.args.no_history or not done:
        return
    profile, _name = job.ws.profile()
    try:
        for i, result in done:
            store_result(
                result,
                model=job.paths[i],
                label=job.labels[i],
                variant_id=job.variants[i],
                profile=profile,
            )
    except ScoutError as exc:
        sys.stderr.write(f"llm-scout: the result was not stored in the history: {exc}\n")


# --------------------------------------------------------------------------- multiple choice


def _choice(job: _Job, items: Any, settings: Any) -> int:
    from desktop.core.quality import paired, score_items

    args, paths, labels, flag, status = job.args, job.paths, job.labels, job.flag, job.status
    results: list[ChoiceResult] = []
    only: set[str] | None = None
    for path, label in zip(paths, labels, strict=True):
        if flag.set:
            break
        result = score_items(
            path,
            items,
            settings,
            label=label,
            on_progress=_choice_printer(status, label),
            should_stop=flag,
            only=only,
        )
        status.close()
        results.append(result)
        only = {o.key for o in result.outcomes}  # the second model answers the same items
    _keep(job, results)
    test = paired(results[0], results[1]) if len(results) == 2 else None
    if args.json:
        if len(results) == 1 and len(paths) == 1:
            emit_json(results[0].to_dict())
        else:
            emit_json(
                {
                    "models": [r.to_dict() for r in results],
                    "mcnemar": None if test is None else _mcnemar_dict(test, results),
                }
            )
    else:
        for r in results:
            sys.stdout.write(format_choice(r) + "\n\n")
        if test is not None:
            sys.stdout.write(describe_mcnemar(test, labels[0], labels[1]) + "\n")
    stopped = flag.set or any(r.stopped == "cancelled" for r in results)
    return INTERRUPTED if stopped else 0


def _choice_printer(status: StatusLine, label: str) -> Callable[[Any], None]:
    def show(progress: Any) -> None:
        r = progress.result
        status.show(
            f"{label}: question {progress.done}/{progress.total} · accuracy "
            f"{r.accuracy * 100:.1f}% ({r.accuracy_ci[0] * 100:.1f}–{r.accuracy_ci[1] * 100:.1f}) "
            f"· {progress.elapsed_s:.0f} s",
            force=progress.done == progress.total,
        )

    return show


def format_choice(r: ChoiceResult) -> str:
    done = "" if r.complete else f", {r.n} of {r.planned} answered"
    head = (
        f"{r.model} on {r.items} ({r.method} method{done}): accuracy {r.accuracy * 100:.1f}% "
        f"({r.correct}/{r.n}), 95% interval {r.accuracy_ci[0] * 100:.1f}–"
        f"{r.accuracy_ci[1] * 100:.1f}%; chance {r.chance * 100:.0f}%"
    )
    rows = [
        (s.subject, s.n, f"{s.accuracy * 100:.1f}%", f"{s.low * 100:.1f} – {s.high * 100:.1f} %")
        for s in r.subjects
    ]
    lines = [head, "", format_table(("subject", "questions", "accuracy", "95% interval"), rows)]
    if r.skipped:
        lines.append(f"{r.skipped} questions did not fit the context and were skipped.")
    if r.stopped == "budget":
        lines.append("The time budget ended the run early.")
    elif r.stopped == "cancelled":
        lines.append("Stopped: the figures cover the questions answered.")
    return "\n".join(lines)


def describe_mcnemar(test: McNemar, a: str, b: str) -> str:
    """One sentence: which is better, or how many more items would tell."""
    head = (
        f"On {test.n} questions both answered, {a} alone was right on {test.only_a} and "
        f"{b} alone on {test.only_b}: "
    )
    if test.verdict == "a":
        return head + f"{a} is better than {b} (p = {test.p_value:.3g})."
    if test.verdict == "b":
        return head + f"{b} is better than {a} (p = {test.p_value:.3g})."
    if test.more_items is None:
        return head + "cannot tell yet: they have not differed."
    more = f"about {test.more_items:,} more questions needed"
    return head + f"cannot tell yet (p = {test.p_value:.2g}): {more}."


def _mcnemar_dict(test: McNemar, results: list[ChoiceResult]) -> dict[str, Any]:
    better = {"a": results[0].model, "b": results[1].model}.get(test.verdict)
    return {
        "n": test.n,
        "only_a": test.only_a,
        "only_b": test.only_b,
        "p_value": test.p_value,
        "better": better,
        "more_items": test.more_items,
    }
