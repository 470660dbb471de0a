"""`llm-scout history`: what is stored, and results that travel between machines.

    llm-scout history export [--since DATE] [--kind runs|comparisons|quality|all] [--out FILE]
                             [--name NAME] [--json]
    llm-scout history import FILE [--json]
    llm-scout history list [--machine M] [--model M] [--search TEXT] [--limit N] [--json]
    llm-scout history machines [--json]
    llm-scout history across MODEL [--settings ID] [--json]

``export`` writes one results file (``desktop.core.bundle``): the answers, comparisons,
quality measurements and calibration runs stored here, with this machine's profile (as
``hw --save`` writes it) and the llama.cpp build; ``import`` merges one into this history
(twice adds nothing twice; a damaged, foreign or newer file is refused whole, with one
sentence). An imported machine then answers ``--profile NAME`` in ``fit`` and ``catalog``,
calibrated by its own runs. ``across`` puts one model with the same settings side by side on
every machine that ran it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.output import emit_json, format_table, human_bytes
from desktop.core.bundle import SUFFIX, export_results, import_bundle
from desktop.core.errors import ScoutError, UsageError
from desktop.core.hardware import THIS_MACHINE
from desktop.core.history import (
    RESULT_KINDS,
    AcrossMachines,
    History,
    MachineRecord,
    MeasurementRecord,
    RunRecord,
    across_machines,
    find_model,
    models_across_machines,
)
from desktop.core.quality import MeasurementFigures, figures_of


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "history",
        help="list stored results; export them to a file and import one from another machine",
        description="What the history holds, and results that travel between machines in one file.",
    )
    sub = parser.add_subparsers(dest="history_command", metavar="ACTION", required=True)

    export = sub.add_parser(
        "export",
        help="write this history's results to one file",
        description="Write the stored answers, comparisons, quality measurements and "
        "calibration runs to one file, with this machine's profile and llama.cpp build.",
    )
    export.add_argument(
        "--since",
        metavar="DATE",
        help="only results stored on or after DATE (2025-06-01, or 2025-06-01T14:30, local time)",
    )
    export.add_argument(
        "--kind", choices=RESULT_KINDS, default="all", help="which results to write"
    )
    export.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="the file to write (default: llm-scout-results-NAME-TIME.jsonl here)",
    )
    export.add_argument(
        "--name",
        metavar="NAME",
        help="what this machine is called in the file (default: its host name)",
    )
    add_json_argument(export)
    export.set_defaults(handler=run_export)

    imp = sub.add_parser(
        "import",
        help="merge a results file from another machine into this history",
        description="Merge a results file (written by `llm-scout history export`) into this "
        "history: all of it or nothing, and nothing twice.",
    )
    imp.add_argument("file", type=Path, metavar="FILE")
    add_json_argument(imp)
    imp.set_defaults(handler=run_import)

    listing = sub.add_parser(
        "list",
        help="list stored answers, comparisons and quality measurements, with their machine",
        description="List stored answers, comparisons and quality measurements, newest first.",
    )
    listing.add_argument("--machine", metavar="M", help="only those of one machine")
    listing.add_argument("--model", metavar="M", help="only those of a model (part of its name)")
    listing.add_argument("--search", metavar="TEXT", help="words in a prompt, answer or title")
    listing.add_argument("--limit", type=int, default=200, metavar="N", help="at most N of each")
    add_json_argument(listing, help="one JSON list of records, each naming its machine")
    listing.set_defaults(handler=run_list)

    machines = sub.add_parser(
        "machines",
        help="list the machines results are stored from, with their profiles",
        description="The machines of the history: this one and those whose results were "
        "imported, with what is stored from each and their calibration.",
    )
    add_json_argument(machines)
    machines.set_defaults(handler=run_machines)

    across = sub.add_parser(
        "across",
        help="one model with the same settings side by side on every machine that ran it",
        description="Tokens/s, TTFT, memory and quality of one model with the same settings "
        "on every machine that ran it (medians of the stored answers).",
    )
    across.add_argument("model", metavar="MODEL", help="a model's name (or part of it)")
    across.add_argument(
        "--settings", metavar="ID", help="which settings (ctx=4096,ngl=0,kv=f16,fa=off)"
    )
    add_json_argument(across)
    across.set_defaults(handler=run_across)


# -- export and import -----------------------------------------------------------------------


def parse_since(text: str | None) -> float | None:
    """``2025-06-01`` or ``2025-06-01T14:30`` (local time) as seconds since the epoch."""
    if text is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--since takes a date like 2025-06-01 (or 2025-06-01T14:30), not {text!r}."
        ) from None
    return moment.timestamp()


def default_name() -> str:
    return socket.gethostname().split(".")[0] or "unnamed machine"


def default_out(name: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "machine"
    return Path(f"llm-scout-results-{slug}-{time.strftime('%Y%m%d-%H%M%S')}{SUFFIX}")


def run_export(args: argparse.Namespace) -> int:
    since = parse_since(args.since)
    name = args.name if args.name is not None else default_name()
    out = args.out if args.out is not None else default_out(name)
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; give the file to write.")
    profile, _ = workspace(with_demos=False).profile()
    with History.open() as history:
        summary = export_results(
            history,
            out,
            name=name,
            profile=profile,
            llama_cpp=_llama_cpp(),
            since=since,
            kinds=(args.kind,),
        )
    if args.json:
        emit_json(summary.to_dict())
        return 0
    counts = summary.header.counts
    sys.stdout.write(
        f"Wrote {summary.path} ({human_bytes(summary.size_bytes)}) from "
        f"{summary.header.machine_name}: {_n(counts['runs'], 'answer')}, "
        f"{_n(counts['comparisons'], 'comparison')} ({_n(counts['answers'], 'answer')}), "
        f"{_n(counts['measurements'], 'measurement')}, "
        f"{_n(counts['calibration'], 'calibration run')}.\n"
    )
    return 0


def _llama_cpp() -> dict[str, Any] | None:
    """The engine's build (a worker started once), None when it cannot start."""
    from desktop.core.engine import engine_info

    try:
        info = engine_info()
    except (ScoutError, OSError) as exc:
        sys.stderr.write(f"llm-scout: the llama.cpp build is not known ({exc}).\n")
        return None
    return {**info.to_dict(), "summary": info.summary(), "system_info": info.system_info}


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def run_import(args: argparse.Namespace) -> int:
    path: Path = args.file
    if path.is_dir():
        raise UsageError(f"{path} is a folder; give the results file to import.")
    with History.open() as history:
        summary = import_bundle(history, path)
    if args.json:
        emit_json(summary.to_dict())
    elif summary.counts.added == 0:
        sys.stdout.write(f"Nothing new in {path.name}: everything in it is already here.\n")
    else:
        sys.stdout.write(summary.text() + "\n")
    return 0


# -- what is stored --------------------------------------------------------------------------


def run_record(run: RunRecord) -> dict[str, Any]:
    """One stand-alone answer in ``history list --json``."""
    report = run.report
    metrics = report.metrics if report is not None else None
    model = run.model.label if run.model is not None else None
    if model is None and run.remote is not None:
        model = f"{run.remote.get('model', '')} @ {run.remote.get('endpoint', '')}"
    return {
        "kind": "run",
        "id": run.id,
        "created_at": run.created_at,
        "machine": run.machine or THIS_MACHINE,
        "source": run.source,
        "model": model,
        "prompt": run.prompt,
        "generation_tokens_per_s": metrics.tokens_per_s if metrics is not None else None,
        "ttft_ms": metrics.ttft_ms if metrics is not None else None,
        "generated_tokens": metrics.generated_tokens if metrics is not None else None,
        "rss_peak_bytes": report.rss_peak_bytes if report is not None else None,
        "finish_reason": run.finish_reason,
        "error": run.error,
    }


def measurement_record(m: MeasurementRecord) -> dict[str, Any]:
    """One quality measurement in ``history list --json``: its figure, interval and what it
    was measured against (a reference, or a set of questions); the figures are
    :func:`~desktop.core.quality.figures_of`'s, as the History page's detail shows them."""
    f = figures_of(m)
    return {
        **m.to_dict(),
        "kind": "measurement",
        "measurement": m.kind,
        "interval": list(f.interval) if f.interval else None,
        "result": figure_text(f),
        "what": what_text(f),
    }


def figure_text(f: MeasurementFigures) -> str:
    """``accuracy 62.0% (51.0% – 72.3%)`` or ``KLD 0.01234 (0.01100 – 0.01400)``."""

    def number(x: float) -> str:
        return f"{x * 100:.{f.decimals}f}%" if f.percent else f"{x:.{f.decimals}f}"

    if f.value is None:
        return "-"
    text = f"{'accuracy' if f.choice else 'KLD'} {number(f.value)}"
    if f.interval:
        text += f" ({number(f.interval[0])} – {number(f.interval[1])})"
    return text


def what_text(f: MeasurementFigures) -> str:
    count = "?" if f.count is None else str(f.count)
    if f.choice:
        return f"{f.against}: {count} questions"
    return f"against {f.against}, {count} tokens"


def run_list(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, not {args.limit}.")
    with History.open() as history:
        if args.machine:
            history.machine(args.machine)  # an unknown machine: one sentence, not an empty list
        filters = {"search": args.search, "model": args.model, "machine": args.machine}
        runs = [
            r
            for source in ("playground", "run")
            for r in history.runs(source=source, limit=args.limit, **filters)
        ]
        comparisons = history.comparisons(limit=args.limit, **filters)
        # Quality measurements (issue 25); a search is over prompts and titles, they have none.
        measurements = (
            []
            if args.search
            else history.measurements(kind="quality", machine=args.machine, limit=args.limit)
        )
    records = [run_record(r) for r in runs] + [
        {"kind": "comparison", **c.to_dict(), "machine": c.machine or THIS_MACHINE}
        for c in comparisons
    ]
    records += [
        measurement_record(m)
        for m in measurements
        if not args.model or args.model.lower() in (m.model.label if m.model else "").lower()
    ]
    records.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
    if args.json:
        emit_json(records)
        return 0
    if not records:
        sys.stderr.write("Nothing stored matches.\n")
        return 0
    rows = []
    for r in records:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_at"]))
        if r["kind"] == "run":
            rate = r["generation_tokens_per_s"]
            result = "failed" if r["error"] else (f"{rate:.1f} t/s" if rate else "-")
            what, models = " ".join(r["prompt"].split())[:48], r["model"] or "-"
        elif r["kind"] == "measurement":
            result, what, models = r["result"], r["what"], r["model"] or "-"
        else:
            result = f"{r['state']} {r['n_answers']}/{r['n_expected']}"
            what, models = r["title"], ", ".join(r["models"])
        rows.append([r["id"], when, r["kind"], r["machine"], models, result, what])
    sys.stdout.write(
        format_table(["id", "when", "kind", "machine", "model", "result", "prompt or title"], rows)
        + "\n"
    )
    return 0


def machine_summary(m: MachineRecord) -> str:
    """CPU, RAM and GPU of a machine in one line."""
    p = m.profile
    if p is None:
        return "-"
    parts = [f"{p.cpu.brand} x{p.cpu.logical_cores}", f"{human_bytes(p.memory.total_bytes)} RAM"]
    parts += [f"{g.name} {human_bytes(g.memory_total_bytes)}" for g in p.gpus[:2]]
    return " · ".join(parts)


def calibration_text(m: MachineRecord) -> str:
    cal = m.calibration
    if cal is None or not cal.applies:
        return "-"
    factor = cal.cpu_speed_factor or cal.gpu_speed_factor
    speed = f"speed x{factor:.2f}, " if factor is not None else ""
    return f"{speed}{_n(cal.runs, 'run')}"


def run_machines(args: argparse.Namespace) -> int:
    with History.open() as history:
        machines = history.machines()
    if args.json:
        emit_json([m.to_dict() for m in machines])
        return 0
    if not machines:
        sys.stderr.write("No results stored yet.\n")
        return 0
    rows = [
        [
            m.name,
            m.runs,
            m.comparisons,
            m.measurements,
            time.strftime("%Y-%m-%d", time.localtime(m.last_at)) if m.last_at else "-",
            calibration_text(m),
            machine_summary(m),
        ]
        for m in machines
    ]
    sys.stdout.write(
        format_table(
            ["machine", "answers", "comparisons", "measurements", "last", "calibrated", "hardware"],
            rows,
        )
        + "\n"
    )
    return 0


def run_across(args: argparse.Namespace) -> int:
    with History.open() as history:
        choices = models_across_machines(history)
        choice = find_model(choices, args.model)
        settings = None
        if args.settings:
            known = {s.id: s for s, _ in choice.settings}
            settings = known.get(args.settings.strip())
            if settings is None:
                raise UsageError(
                    f"{choice.label} has no answers with settings {args.settings!r} (it has: "
                    + ", ".join(known)
                    + ")."
                )
        view = across_machines(history, choice.key, settings)
    if args.json:
        emit_json(view.to_dict())
        return 0
    _print_across(view, [s.id for s, _ in choice.settings])
    return 0


def _print_across(view: AcrossMachines, settings_ids: list[str]) -> None:
    out = sys.stdout
    out.write(f"{view.model}, settings {view.settings.id}\n\n")
    columns = view.columns

    def row(label: str, values: list[str]) -> list[str]:
        return [label, *values]

    def num(value: float | None, unit: str, spec: str = ".1f") -> str:
        return "-" if value is None else f"{value:{spec}} {unit}"

    quality_keys = sorted({(q.kind, q.metric) for c in columns for q in c.quality})
    rows = [
        row("answers", [str(c.runs) for c in columns]),
        row("generation", [num(c.generation_tokens_per_s, "t/s") for c in columns]),
        row("prompt", [num(c.prompt_tokens_per_s, "t/s") for c in columns]),
        row("TTFT", [num(c.ttft_ms, "ms", ".0f") for c in columns]),
        row("RSS peak", [human_bytes(c.rss_peak_bytes) for c in columns]),
        row("VRAM peak", [human_bytes(c.vram_peak_bytes) for c in columns]),
        row("threads", [", ".join(map(str, c.threads)) or "-" for c in columns]),
    ]
    for kind, metric in quality_keys:
        values = []
        for c in columns:
            found = next((q for q in c.quality if (q.kind, q.metric) == (kind, metric)), None)
            values.append("-" if found is None or found.value is None else f"{found.value:.4g}")
        rows.append(row(f"quality: {metric}", values))
    if not quality_keys:
        rows.append(row("quality", ["not measured" for _ in columns]))
    rows.append(row("calibrated", [calibration_text(c.machine) for c in columns]))
    out.write(format_table(["", *(c.machine.name for c in columns)], rows) + "\n\n")
    for c in columns:
        out.write(f"{c.machine.name}: {machine_summary(c.machine)}\n")
    others = [s for s in settings_ids if s != view.settings.id]
    if others:
        out.write("\nOther settings (--settings): " + "; ".join(others) + "\n")
