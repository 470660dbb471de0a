"""Output helpers shared by the CLI commands: one JSON document, a plain-text table, a progress
line on stderr."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any, TextIO


def emit_json(document: Any) -> None:
    """Write exactly one JSON document to stdout."""
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n")


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A left-aligned text table; numbers are right-aligned."""
    body = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in body:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    numeric = [all(_is_number(row[i]) for row in body) and bool(body) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.rjust(widths[i]) if numeric[i] else c.ljust(widths[i]) for i, c in enumerate(cells)
        ]
        return "  ".join(parts).rstrip()

    out = [line(list(headers)), line(["-" * w for w in widths])]
    out.extend(line(row) for row in body)
    return "\n".join(out)


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    sys.stdout.write(format_table(headers, rows) + "\n")


def human_bytes(n: float | None) -> str:
    """1536 -> '1.5 KiB'; None -> '-'."""
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def human_params(n: int | None) -> str:
    """A parameter count: 134_515_008 -> '135M', 7_615_616_512 -> '7.6B'; unknown -> '-'."""
    if n is None or n <= 0:
        return "-"
    if n < 999_500:
        return f"{n / 1e3:.0f}K"
    if n < 999_500_000:
        return f"{n / 1e6:.0f}M"
    return f"{n / 1e9:.1f}B"


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _is_number(text: str) -> bool:
    try:
        float(text.split(" ", maxsplit=1)[0])
    except ValueError:
        return text == "-"
    return True


def interactive(stream: TextIO) -> bool:
    """Whether progress may rewrite a line in place on ``stream``: a terminal that understands
    a carriage return (not a pipe, a log file or ``TERM=dumb``). Elsewhere progress is one
    line per step."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False
    return tty and os.environ.get("TERM", "") != "dumb"


class StatusLine:
    """Progress on stderr: one line rewritten in place on a terminal; otherwise (a log, a pipe)
    a line at most every ``every_s`` seconds, or at once when ``force`` (a new state)."""

    def __init__(self, tty: bool, every_s: float) -> None:
        self._tty = tty
        self._every_s = every_s
        self._last = -math.inf
        self._width = 0

    def show(self, line: str, *, force: bool = False) -> None:
        if self._tty:
            pad = max(self._width - len(line), 0)
            sys.stderr.write("\r" + line + " " * pad)
            self._width = len(line)
            sys.stderr.flush()
            return
        now = time.monotonic()
        if force or now - self._last >= self._every_s:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
            self._last = now

    def close(self) -> None:
        """End the rewritten line (a terminal); nothing otherwise."""
        if self._tty and self._width:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._width = 0
