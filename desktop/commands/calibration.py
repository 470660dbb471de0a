"""`llm-scout calibration`: what this machine's estimates learned from its own runs, and taking
it back.

Lists the figures (generation speed factor per device, RAM offset) with the runs behind them,
then every stored run of this machine, newest first, with whether it counts and why not (made
while other programs used the CPU, too short, far from the others...). ``--undo`` forgets the
newest run; ``--reset`` forgets them all (the file is copied aside first). The Hardware page
shows and does the same (both read :func:`desktop.core.fit.review_calibration`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.output import emit_json, format_table, human_bytes
from desktop.core.fit import (
    CalibrationReview,
    ReviewedRun,
    machine_fingerprint,
    reset_calibration,
    review_calibration,
    undo_last_run,
)

SHOWN_RUNS = 20


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "calibration",
        help="what this machine's estimates learned from its runs; undo or reset it",
        description=(
            "This machine's calibration (measured speed and RAM against the estimates) and the "
            "runs behind it, with why a run does not count. Runs made while other programs "
            "used the CPU never count."
        ),
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--undo", action="store_true", help="forget the newest run")
    what.add_argument(
        "--reset", action="store_true", help="forget every run (the file is copied aside first)"
    )
    parser.add_argument(
        "--all", action="store_true", help=f"list every run (default: the newest {SHOWN_RUNS})"
    )
    add_json_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    profile, _name = workspace(with_demos=False).profile(None)
    machine = machine_fingerprint(profile)
    if args.undo:
        removed = undo_last_run(machine)
        if removed is None:
            sys.stderr.write("llm-scout: there is no run to forget.\n")
        else:
            when = _when(removed.time)
            sys.stderr.write(f"Forgot the run of {removed.model} at {when}.\n")
    elif args.reset:
        count, copy = reset_calibration(machine)
        if copy is None:
            sys.stderr.write("llm-scout: there is no run to forget.\n")
        else:
            runs = "1 run" if count == 1 else f"{count} runs"
            sys.stderr.write(f"Forgot {runs}; the file before is kept as {copy}.\n")
    review = review_calibration(machine)
    if args.json:
        emit_json(review.to_dict())
        return 0
    sys.stdout.write(render(review, shown=None if args.all else SHOWN_RUNS))
    return 0


def render(review: CalibrationReview, shown: int | None = SHOWN_RUNS) -> str:
    cal = review.calibration
    lines = []
    if not review.runs:
        return (
            "No runs of this machine are stored yet: `llm-scout run` and `bench` (and the "
            "window's Playground) record each one, and the estimates follow them after "
            "2 runs.\n"
        )
    lines.append(figure("Generation speed on the CPU", cal.cpu_speed_factor, cal.cpu_speed_runs))
    lines.append(figure("Generation speed on the GPU", cal.gpu_speed_factor, cal.gpu_speed_runs))
    ram = f"not yet ({cal.ram_runs} of 2 CPU runs)"
    if cal.ram_offset_bytes is not None:
        sign = "+" if cal.ram_offset_bytes >= 0 else "-"
        ram = f"{sign}{human_bytes(abs(cal.ram_offset_bytes))} from {cal.ram_runs} runs"
    lines.append(f"RAM against the estimate: {ram}")
    left_out = review.left_out
    lines.append(
        f"{len(review.runs)} runs stored, {len(review.runs) - left_out} counted, "
        f"{left_out} left out."
    )
    lines.append("")
    runs = review.runs if shown is None else review.runs[:shown]
    rows = []
    for run in runs:
        e = run.entry
        measured = f"{e.measured_tokens_per_s:.1f}" if e.measured_tokens_per_s else "-"
        predicted = f"{e.predicted_tokens_per_s:.1f}" if e.predicted_tokens_per_s else "-"
        rows.append(
            [
                _when(e.time),
                e.model,
                e.device,
                measured,
                predicted,
                _counts(run),
            ]
        )
    lines.append(
        format_table(["when", "model", "device", "t/s", "predicted", "counts"], rows).rstrip()
    )
    if shown is not None and len(review.runs) > shown:
        lines.append(f"(the newest {shown} of {len(review.runs)}; --all lists every run)")
    lines.append("")
    lines.append("--undo forgets the newest run, --reset every run; fit --uncalibrated ignores it.")
    return "\n".join(lines) + "\n"


def _counts(run: ReviewedRun) -> str:
    if run.memory_only:
        return f"memory only: {run.left_out}"
    return "yes" if run.counted else f"no: {run.left_out}"


def figure(title: str, factor: float | None, runs: int) -> str:
    if factor is None:
        return f"{title}: not yet ({runs} of 2 runs)"
    return f"{title}: x{factor:.2f} the model's estimate, from {runs} runs"


def _when(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")
