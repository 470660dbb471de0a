"""`llm-scout fit FILE --dry-run`: llama.cpp's own projection beside the estimate (issue 13).

Only for a file on this machine estimated for this machine: llama.cpp loads the model and a
context with ``no_alloc`` in a fresh worker (seconds, nothing allocated) and says the buffers
it would allocate. The KV cache and compute buffers of the shown result become llama.cpp's;
the table shows each term modelled and projected, with the gap.
"""

from __future__ import annotations

import argparse
import sys

from desktop.commands.output import human_bytes, print_table
from desktop.core.engine import CrossCheck, DryRun
from desktop.core.engine import cross_check as check_file
from desktop.core.errors import UsageError
from desktop.core.fit import FitResult, FitTarget, TermGap
from desktop.core.hardware import HardwareProfile
from desktop.core.library import ResolvedModel

TERM_TEXT = {
    "weights": "weights (tensor bytes)",
    "repacked": "repacked copies (CPU)",
    "kv_cache": "KV cache",
    "compute": "compute buffers",
}


def add_dry_run_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help=(
            "also ask llama.cpp what it would allocate (a load that allocates nothing; a local "
            "file on this machine only) and use its KV cache and compute buffers"
        ),
    )


def cross_check(
    args: argparse.Namespace,
    resolved: ResolvedModel,
    target: FitTarget,
    profile: HardwareProfile,
    result: FitResult,
) -> CrossCheck:
    """Run the dry run for the load ``result`` describes; UsageError when it cannot apply."""
    if getattr(args, "profile", None):
        raise UsageError(
            "--dry-run asks llama.cpp on this machine, so it cannot be combined with --profile "
            "(a saved or what-if profile)."
        )
    if result.format != "gguf":
        raise UsageError(f"--dry-run needs a GGUF file; {result.label} is {result.format}.")
    if resolved.path is None:
        raise UsageError(
            f"--dry-run needs the model file on this machine, and {result.label} is not "
            f"downloaded; run `llm-scout download {result.label}` first."
        )
    return check_file(
        resolved.path, target, profile, result, n_threads=getattr(args, "threads", None)
    )


def print_cross_check(check: CrossCheck) -> None:
    out = sys.stdout
    projection = check.projection
    out.write(
        f"\nllama.cpp's own projection (dry run, nothing allocated, {projection.seconds:.1f} s; "
        f"read from {_source_text(projection)}):\n"
    )
    rows = [
        (TERM_TEXT[t.term], human_bytes(t.ours), human_bytes(t.llama_cpp), _gap(t))
        for t in check.terms
    ]
    print_table(("term", "estimate", "llama.cpp", "gap"), rows)
    if projection.buffers:
        parts = [
            f"{b.name} ({'host' if b.host else 'device'}): model {human_bytes(b.model)}, "
            f"KV {human_bytes(b.context)}, compute {human_bytes(b.compute)}"
            for b in projection.buffers
        ]
        out.write("buffers: " + "; ".join(parts) + "\n")
    out.write(
        "The memory table and the verdict above use llama.cpp's KV cache and compute buffers.\n"
    )


def _source_text(projection: DryRun) -> str:
    if projection.source == "breakdown":
        return "llama_get_memory_breakdown, as llama.cpp's --fit reads it"
    return "llama.cpp's log"


def _gap(term: TermGap) -> str:
    pct = term.gap_pct
    if pct is None:
        if term.llama_cpp is None:
            return "-"
        return "0" if term.gap_bytes == 0 else human_bytes(term.gap_bytes)
    return f"{pct:+.1f}%"
