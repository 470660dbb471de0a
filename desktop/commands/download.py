"""`llm-scout download (VARIANT_ID | REPO FILE...) [--to DIR] [--revision REV] [--endpoint URL]
[--json] [--quiet]`.

Downloads every file of a catalog variant, or the named files of any Hub repo, into the models
folder (``<models dir>/<owner>/<repo>/<file>``; ``--to DIR`` uses DIR as the models folder).
Progress goes to stderr (one updating line on a terminal, a line every few seconds otherwise;
none with ``--quiet``),
the result to stdout. The exit code is 0 only when every file is complete and verified.
Ctrl-C pauses: run the same command again to resume.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from desktop.commands.common import (
    add_json_argument,
    add_quiet_argument,
    check_endpoint,
    workspace,
)
from desktop.commands.output import (
    StatusLine,
    emit_json,
    human_bytes,
    interactive,
    print_table,
)
from desktop.core.catalog import Catalog
from desktop.core.download import (
    DownloadProgress,
    DownloadRequest,
    DownloadState,
    download,
    request_for_files,
    request_for_variant,
)
from desktop.core.errors import UsageError

_LOG_EVERY_S = 5.0  # progress lines when stderr is not a terminal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "download",
        help="download a catalog variant or files of a Hub repo",
        description=(
            "Download a catalog variant (VARIANT_ID, e.g. qwen2.5-7b-instruct:Q4_K_M) or files "
            "of a Hugging Face repo (REPO FILE...). Transfers resume after an interruption, "
            "every file is verified (sha256) before it appears in the models folder. "
            "HF_ENDPOINT or --endpoint hf-mirror selects a mirror; HF_TOKEN (or `hf auth "
            "login`) gives access to gated repos."
        ),
    )
    parser.add_argument(
        "target",
        nargs="+",
        metavar="VARIANT_ID | REPO FILE",
        help="a catalog variant id, or a repo id followed by one or more file paths",
    )
    parser.add_argument(
        "--to",
        metavar="DIR",
        help="models folder to use instead of the setting (files go to DIR/<owner>/<repo>/)",
    )
    parser.add_argument("--revision", default="main", help="branch, tag or commit (REPO FILE)")
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="Hub endpoint or mirror ('hf-mirror' = https://hf-mirror.com); default: the "
        "setting, else HF_ENDPOINT, else https://huggingface.co",
    )
    add_json_argument(parser)
    add_quiet_argument(parser)
    parser.set_defaults(handler=run_download)


def build_request(args: argparse.Namespace, catalog: Catalog) -> DownloadRequest:
    target: list[str] = args.target
    if len(target) == 1:
        if "/" in target[0]:
            raise UsageError(
                f"Name the files to download from {target[0]} (REPO FILE...), "
                "or give a catalog variant id such as qwen2.5-7b-instruct:Q4_K_M."
            )
        if args.revision != "main":
            raise UsageError("--revision applies to REPO FILE downloads, not catalog variants.")
        _model, variant = catalog.variant(target[0])
        return request_for_variant(variant)
    return request_for_files(target[0], target[1:], revision=args.revision)


def run_download(args: argparse.Namespace) -> int:
    if args.to and Path(args.to).expanduser().is_file():
        raise UsageError(f"--to {args.to} is a file; give the folder to download into.")
    check_endpoint(args.endpoint)
    ws = workspace(with_demos=False)
    request = build_request(args, ws.catalog)
    hub = ws.hub(args.endpoint)
    models_dir = Path(args.to).expanduser().absolute() if args.to else ws.models_dir
    printer = _ProgressPrinter(interactive(sys.stderr), quiet=args.quiet)
    from huggingface_hub.utils import logging as hub_logging

    level = hub_logging.get_verbosity()
    if not getattr(args, "verbose", False):
        # huggingface_hub logs each reconnect as a warning; the progress line already says it.
        hub_logging.set_verbosity(logging.ERROR)
    try:
        result = download(request, models_dir=models_dir, hub=hub, on_progress=printer)
    except KeyboardInterrupt:
        printer.close()
        sys.stderr.write(
            "llm-scout: download interrupted; what arrived is kept: run the same command again "
            "to resume it.\n"
        )
        return 130
    finally:
        printer.close()
        hub_logging.set_verbosity(level)
    if args.json:
        emit_json(result.to_dict())
    else:
        print_table(
            ["file", "size", "sha256", "verified against", "path"],
            [
                (
                    f.name,
                    human_bytes(f.size),
                    f.sha256[:16],
                    ("already installed" if f.skipped else f.verified_against)
                    + ("" if f.known_hash else " (not verified against a known hash)"),
                    str(f.path),
                )
                for f in result.files
            ],
        )
    return 0


def format_progress(p: DownloadProgress) -> str:
    """One line: state, file n/N, bytes, percent, smoothed speed, ETA."""
    parts = [p.state.value]
    if p.file:
        parts.append(f"{p.file} ({min(p.files_done + 1, p.files_total)}/{p.files_total})")
    if p.state is DownloadState.VERIFYING and p.verify_total:
        amount = f"checking {human_bytes(p.verify_done)} / {human_bytes(p.verify_total)}"
        if p.verify_fraction is not None:
            amount += f" ({p.verify_fraction * 100:.0f}%)"
    else:
        total = human_bytes(p.bytes_total) if p.bytes_total is not None else "?"
        amount = f"{human_bytes(p.bytes_done)} / {total}"
        if p.fraction is not None:
            amount += f" ({p.fraction * 100:.0f}%)"
    parts.append(amount)
    if p.state is DownloadState.DOWNLOADING and p.speed_bps > 0:
        parts.append(f"{human_bytes(p.speed_bps)}/s")
        if p.eta_s is not None:
            parts.append(f"ETA {_duration(p.eta_s)}")
    if p.message:
        parts.append(p.message)
    return "  ".join(parts)


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class _ProgressPrinter:
    """Writes progress to stderr: an updating line on a terminal, sparse lines otherwise (and
    one whenever the download's state changes)."""

    def __init__(self, tty: bool, *, quiet: bool = False) -> None:
        self._line = StatusLine(tty, _LOG_EVERY_S)
        self._last_state: DownloadState | None = None
        self._quiet = quiet

    def __call__(self, progress: DownloadProgress) -> None:
        if self._quiet or progress.state in (DownloadState.FAILED, DownloadState.CANCELLED):
            return  # the error itself goes to stderr once, from the CLI
        self._line.show(format_progress(progress), force=progress.state is not self._last_state)
        self._last_state = progress.state

    def close(self) -> None:
        self._line.close()
