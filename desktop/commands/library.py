"""`llm-scout library [--scan] [--add DIR] [--json]` and `llm-scout import PATH [--copy] [--json]`.

``library`` lists the models the app knows about (as of the last scan); ``--scan`` looks again in
our models folder, the Hugging Face cache, LM Studio, Ollama, GPT4All (unless the setting
``scan_known_apps`` is off) and the user's folders; ``--add DIR`` remembers a folder in the
settings and scans it. ``import`` adds one GGUF file, in place or copied (``--copy``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.output import emit_json, human_bytes, human_params, print_table
from desktop.core import paths
from desktop.core.errors import UsageError
from desktop.core.library import (
    Library,
    LibraryEntry,
    LibraryProblem,
    ScanReport,
    ScanRoot,
    demo_roots,
    scan_roots,
)
from desktop.core.settings import update_settings
from desktop.core.storage import StoreNotice, add_notice_listener


def register(subparsers: Any) -> None:
    library = subparsers.add_parser(
        "library",
        help="list the models on this machine (scan with --scan)",
        description="List the models on this machine that LLM Scout knows about.",
    )
    library.add_argument(
        "--scan",
        action="store_true",
        help="look again in the models folder, other apps' folders and added folders",
    )
    library.add_argument(
        "--add",
        action="append",
        default=[],
        metavar="DIR",
        help="remember a folder of GGUF files and scan it (may be repeated)",
    )
    add_json_argument(library)
    library.set_defaults(handler=run_library)

    imp = subparsers.add_parser(
        "import",
        help="add a GGUF file to the library",
        description="Add a GGUF file to the library, where it is or as a copy.",
    )
    imp.add_argument("path", metavar="PATH", help="the GGUF file (first part of a split model)")
    imp.add_argument(
        "--copy",
        action="store_true",
        help="copy the file into the models folder instead of referencing it",
    )
    add_json_argument(imp)
    imp.set_defaults(handler=run_import)


def run_library(args: argparse.Namespace) -> int:
    ws = workspace()
    settings = ws.settings
    added: list[Path] = []
    for value in args.add:
        folder = Path(value).expanduser().absolute()
        if folder.is_file():
            raise UsageError(
                f"{folder} is a file, not a folder; add one model file with "
                f"`llm-scout import {folder}`."
            )
        if not folder.is_dir():
            raise UsageError(f"There is no folder at {folder}.")
        added.append(folder)
    if added:
        known = list(settings.extra_model_dirs)
        new = [str(f) for f in added if str(f) not in known]
        if new:
            settings = update_settings(extra_model_dirs=(*known, *new))
    started_anew: list[StoreNotice] = []
    stop = add_notice_listener(started_anew.append)
    try:
        library = Library(
            paths.library_db_path(ensure=True), catalog=ws.catalog, models_dir=ws.models_dir
        )
    finally:
        stop()
    # Always a quick look at our own models folder and the demo models (unchanged files are not
    # read again), so finished downloads show without --scan; --scan looks everywhere, and so
    # does a library that was damaged and started anew.
    roots = [ScanRoot("downloaded", ws.models_dir), *demo_roots(d.path for d in ws.demos)]
    if args.scan or started_anew:
        roots = (
            scan_roots(
                ws.models_dir, settings.extra_model_dirs, known_apps=settings.scan_known_apps
            )
            + roots[1:]
        )
    else:
        roots += [ScanRoot("folder", f) for f in added]
    with library:
        report = library.scan(roots)
        entries = library.entries()
        problems = library.problems()
        db_path = library.db_path
    chosen = {path for path, _origin in ws.resolver.installed().values()}
    if args.json:
        emit_json(
            {
                "database": str(db_path),
                "scan": report.to_dict(),
                "folders": list(settings.extra_model_dirs),
                "added_folders": [str(f) for f in added],
                "entries": [{**e.to_dict(), "resolves_variant": e.path in chosen} for e in entries],
                "problems": [p.to_dict() for p in problems],
            }
        )
        return 0
    if args.scan or added or started_anew:
        sys.stdout.write(_scan_summary(report) + "\n\n")
    if not entries:
        places = "".join(f"  {r.path} ({r.source})\n" for r in report.roots)
        sys.stdout.write(
            f"No GGUF models were found. Looked in:\n{places}Add a folder with `--add DIR` or "
            "import a file with `llm-scout import PATH`.\n"
        )
    elif not entries:
        sys.stdout.write(
            "The library is empty. Run `llm-scout library --scan`, add a folder with "
            "`--add DIR`, or import a file with `llm-scout import PATH`.\n"
        )
    else:
        _print_entries(entries, chosen)
    _print_problems(problems)
    return 0


def run_import(args: argparse.Namespace) -> int:
    ws = workspace(with_demos=False)
    with Library(
        paths.library_db_path(ensure=True), catalog=ws.catalog, models_dir=ws.models_dir
    ) as library:
        entry = library.import_file(args.path, copy=args.copy)
    if args.json:
        emit_json({"copied": bool(args.copy), "entry": entry.to_dict()})
        return 0
    action = "Copied" if args.copy else "Imported"
    sys.stdout.write(f"{action} {entry.display_name} -> {entry.path}\n")
    sys.stdout.write(
        f"  {entry.family}, {human_params(entry.n_params)} parameters, "
        f"{entry.quant or 'unknown quant'}, context {entry.n_ctx_train}, "
        f"{human_bytes(entry.size_bytes)}, "
        f"{'with' if entry.has_chat_template else 'no'} chat template\n"
    )
    if entry.variant_id:
        sys.stdout.write(f"  Catalog: {entry.variant_id} (matched by {entry.match_method})\n")
    else:
        sys.stdout.write("  Catalog: no matching variant\n")
    if entry.sha256:
        sys.stdout.write(f"  sha256: {entry.sha256}\n")
    return 0


def _scan_summary(report: ScanReport) -> str:
    looked = sum(1 for r in report.roots if r.exists)
    return (
        f"Scanned {looked} folder(s) in {report.seconds:.2f} s: {report.found} model file(s), "
        f"{len(report.added)} new, {len(report.updated)} changed, {report.unchanged} unchanged, "
        f"{len(report.missing)} missing, {len(report.problems)} problem(s)."
    )


def _print_entries(entries: list[LibraryEntry], chosen: set[Path]) -> None:
    print_table(
        ["NAME", "FAMILY", "PARAMS", "QUANT", "CTX", "SIZE", "SOURCE", "CATALOG", "STATE", "PATH"],
        [
            [
                e.display_name,
                e.family,
                human_params(e.n_params),
                e.quant,
                e.n_ctx_train,
                human_bytes(e.size_bytes),
                e.source,
                (e.variant_id + (" *" if e.path in chosen else "")) if e.variant_id else None,
                "missing" if e.missing else "ok",
                short_path(e.path),
            ]
            for e in entries
        ],
    )
    if any(e.path in chosen and e.variant_id for e in entries):
        sys.stdout.write("* the file a catalog variant id runs (`llm-scout run VARIANT_ID`)\n")


def short_path(path: Path) -> str:
    """The path with the home folder written as ~."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _print_problems(problems: list[LibraryProblem]) -> None:
    if not problems:
        return
    sys.stdout.write(f"\n{len(problems)} file(s) could not be used:\n")
    for problem in problems:
        sys.stdout.write(f"  {problem.path}: {problem.message}\n")
