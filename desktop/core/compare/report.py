"""Reports of a comparison: Markdown (tables to paste into an issue or a forum post), CSV and
JSON (one row per (model, prompt)). The chart's PNG is the window's job; its points are in the
JSON (``chart``).

:func:`write_report` picks the format from the file name (``.md``, ``.csv``, ``.json``) and
writes atomically.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from pathlib import Path
from typing import Any, Literal

from desktop.core.compare.errors import CompareError
from desktop.core.compare.quality_check import quality_dict, quality_markdown
from desktop.core.compare.ratings import describe_gap
from desktop.core.compare.results import AnswerResult, ComparisonResult, SummaryRow

ReportFormat = Literal["md", "csv", "json"]
_SUFFIXES: dict[str, ReportFormat] = {
    ".md": "md",
    ".markdown": "md",
    ".csv": "csv",
    ".json": "json",
}
#: A prompt longer than this is shortened in Markdown and CSV (spreadsheets cap a cell at
#: 32,767 characters; a long-context prompt is 130,000). JSON keeps every character.
PROMPT_CHARS = 600

ROW_FIELDS = (
    "comparison_id",
    "contestant",
    "model",
    "blind_label",
    "quant",
    "n_ctx",
    "prompt_index",
    "prompt_id",
    "prompt",
    "prompt_chars",
    "status",
    "finish_reason",
    "error",
    "ttft_ms",
    "prompt_tokens",
    "prompt_tokens_per_s",
    "generated_tokens",
    "generation_tokens_per_s",
    "load_ms",
    "private_peak_bytes",
    "rss_peak_bytes",
    "vram_peak_bytes",
    "predicted_ram_bytes",
    "predicted_vram_bytes",
    "ram_error_pct",
    "checks_passed",
    "checks_total",
    "output",
)


def report_format(path: Path) -> ReportFormat:
    """The format a file name asks for; CompareError for another extension."""
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise CompareError(
            f"Cannot tell the report format from {path.name}; name it .md, .csv or .json.",
            kind="compare.option",
        )
    return found


def check_report_path(path: Path) -> ReportFormat:
    """The report's format, once its file could be written (before a comparison runs, so that
    a typo in the folder costs nothing): CompareError for a name without a report extension, a
    folder that is not there, a folder in its place, or a folder this user cannot write to."""
    fmt = report_format(path)
    folder = path.parent
    if path.is_dir():
        raise CompareError(f"{path} is a folder; name the report file.", kind="compare.option")
    if not folder.is_dir():
        raise CompareError(
            f"Cannot write the report to {path}: there is no folder {folder}.",
            kind="compare.option",
        )
    probe = path.with_name(f".{path.name}.tmp")  # the very file write_report writes first
    try:
        with probe.open("x", encoding="utf-8"):
            pass
    except FileExistsError:
        pass  # a leftover of an earlier run: write_report replaces it
    except OSError as exc:
        raise CompareError(
            f"Cannot write the report to {path}: {exc.strerror or exc}.", kind="compare.option"
        ) from exc
    else:
        probe.unlink(missing_ok=True)
    return fmt


def render(result: ComparisonResult, fmt: ReportFormat) -> str:
    if fmt == "csv":
        return to_csv(result)
    if fmt == "json":
        return to_json(result)
    return to_markdown(result)


def write_report(result: ComparisonResult, path: Path) -> ReportFormat:
    """Write the report in the format the name asks for (atomically); return the format."""
    fmt = report_format(path)
    text = render(result, fmt)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8", newline="")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CompareError(
            f"Cannot write the report to {path}: {exc.strerror or exc}.", kind="compare.option"
        ) from exc
    return fmt


# -- rows ------------------------------------------------------------------------------------


def rows(result: ComparisonResult, *, full_prompts: bool = True) -> list[dict[str, Any]]:
    """One dict per (contestant, prompt), answered or not (``status``: ok, error, missing)."""
    out = []
    blind = result.blind
    for info in result.contestants:
        for q, prompt in enumerate(result.prompts):
            answer = result.answer(info.index, q)
            report = answer.report if answer is not None else None
            m = report.metrics if report is not None else None
            status = "missing" if answer is None else "ok" if answer.ok else "error"
            out.append(
                {
                    "comparison_id": result.id,
                    "contestant": info.index,
                    "model": info.name,
                    "blind_label": blind.label(info.index) if blind is not None else None,
                    "quant": info.quant,
                    "n_ctx": (report.n_ctx if report is not None else None) or info.n_ctx,
                    "prompt_index": q,
                    "prompt_id": prompt.id,
                    "prompt": prompt.text if full_prompts else _shorten(prompt.text),
                    "prompt_chars": len(prompt.text),
                    "status": status,
                    "finish_reason": answer.finish_reason if answer is not None else None,
                    "error": answer.error if answer is not None else None,
                    "ttft_ms": m.ttft_ms if m else None,
                    "prompt_tokens": m.prompt_tokens if m else None,
                    "prompt_tokens_per_s": m.prompt_tokens_per_s if m else None,
                    "generated_tokens": m.generated_tokens if m else None,
                    "generation_tokens_per_s": m.tokens_per_s if m else None,
                    "load_ms": report.load_ms if report is not None else None,
                    "private_peak_bytes": report.private_peak_bytes if report else None,
                    "rss_peak_bytes": report.rss_peak_bytes if report else None,
                    "vram_peak_bytes": report.vram_peak_bytes if report else None,
                    "predicted_ram_bytes": report.predicted_ram_bytes if report else None,
                    "predicted_vram_bytes": report.predicted_vram_bytes if report else None,
                    "ram_error_pct": report.ram_error_pct if report else None,
                    "checks_passed": answer.checks_passed if answer is not None else None,
                    "checks_total": answer.checks_total if answer is not None else None,
                    "output": answer.text if answer is not None else None,
                }
            )
    return out


def _shorten(text: str, limit: int = PROMPT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return (
        f"{text[: limit // 2].rstrip()} […{len(text) - limit:,} characters…] "
        + text[-limit // 2 :].lstrip()
    )


# -- JSON and CSV -----------------------------------------------------------------------------


def to_dict(result: ComparisonResult) -> dict[str, Any]:
    """The JSON document: the comparison, its summary, the chart points, votes (with their
    Bradley-Terry ratings) and rows."""
    ratings = result.vote_ratings()
    return {
        "comparison": {
            "id": result.id,
            "title": result.title,
            "mode": result.mode,
            "suite": result.suite,
            "machine": result.machine,
            "created_at": result.created_at,
            "complete": result.complete,
            "blind_order": list(result.blind.order) if result.blind is not None else None,
            "contestants": [
                {
                    "index": c.index,
                    "name": c.name,
                    "spec": c.spec,
                    "label": c.label,
                    "path": c.path,
                    "sha256": c.sha256,
                    "quant": c.quant,
                    "settings": c.settings,
                    "status": result.outcomes[c.index].status,
                    "reason": result.outcomes[c.index].reason,
                }
                for c in result.contestants
            ],
        },
        "summary": [row.to_dict() for row in result.summary()],
        "chart": [
            {
                "contestant": point.contestant,
                "model": point.name,
                "generation_tokens_per_s": point.tokens_per_s,
                "memory_bytes": point.memory_bytes,
                "score": point.score,
            }
            for point in result.chart()
        ],
        "votes": [
            {"prompt": v.prompt, "outcome": v.outcome, "winner": v.winner, "among": list(v.among)}
            for v in result.votes
        ],
        "vote_ratings": None if ratings is None else ratings.to_dict(),
        "quality": quality_dict(
            result.quality_check, result.quality, [c.name for c in result.contestants]
        ),
        "quality_chart": [point.to_dict() for point in result.quality_chart()],
        "rows": rows(result),
    }


def to_json(result: ComparisonResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"


def to_csv(result: ComparisonResult) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ROW_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows(result, full_prompts=False):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buffer.getvalue()


# -- Markdown ---------------------------------------------------------------------------------

SUMMARY_HEADERS = (
    "model",
    "quant",
    "ctx",
    "TTFT ms",
    "prompt tok/s",
    "gen tok/s",
    "peak private RAM",
    "peak VRAM",
    "RAM predicted / measured",
    "checks",
    "votes",
)
_ALIGN = ("---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---", "---:", "---")


def summary_cells(row: SummaryRow) -> list[str]:
    """The summary table's cells for one contestant, as the Markdown report writes them."""
    name = f"{row.blind_label} · {row.name}" if row.blind_label else row.name
    if row.status == "failed":
        name += " (failed)"
    measured = human_bytes(row.rss_peak_bytes)
    error = "" if row.ram_error_pct is None else f" ({row.ram_error_pct:+.1f}%)"
    if row.remote:
        return [
            name,
            row.quant or "-",
            str(row.n_ctx) if row.n_ctx else "-",
            _num(row.ttft_ms, ".0f"),
            _num(row.prompt_tokens_per_s, ".1f"),
            _num(row.generation_tokens_per_s, ".1f")
            + (" (server timings)" if row.timing_source == "server" else ""),
            "unknown",
            _remote_memory(row),
            "no prediction: remote",
            f"{row.checks_passed}/{row.checks_total}" if row.checks_total else "-",
            row.votes.describe(),
        ]
    return [
        name,
        row.quant or "-",
        str(row.n_ctx) if row.n_ctx else "-",
        _num(row.ttft_ms, ".0f"),
        _num(row.prompt_tokens_per_s, ".1f"),
        _num(row.generation_tokens_per_s, ".1f"),
        human_bytes(row.private_peak_bytes),
        human_bytes(row.vram_peak_bytes),
        f"{human_bytes(row.predicted_ram_bytes)} / {measured}{error}",
        f"{row.checks_passed}/{row.checks_total}" if row.checks_total else "-",
        row.votes.describe(),
    ]


def _ratings_lines(result: ComparisonResult) -> list[str]:
    """The blind votes as Bradley-Terry ratings with 95% intervals, and for each two
    neighbours whether the votes tell them apart (nothing before a vote)."""
    ratings = result.vote_ratings()
    if ratings is None:
        return []
    blind = result.blind

    def name(i: int) -> str:
        info = result.contestants[i]
        return f"{blind.label(i)} · {info.name}" if blind is not None else info.name

    lines = [
        "## Votes: Bradley-Terry ratings",
        "",
        _table_row(("model", "rating", "95% interval", "pairs")),
        _table_row(("---", "---:", "---", "---:")),
    ]
    lines += [
        _table_row(
            (
                _cell(name(r.contestant)),
                f"{r.rating:.0f}",
                f"{r.low:.0f} – {r.high:.0f}",
                str(r.pairs),
            )
        )
        for r in ratings.ratings
    ]
    lines.append("")
    lines += ["- " + _inline(describe_gap(g, name(g.better), name(g.worse))) for g in ratings.gaps]
    lines += [
        "",
        f"From {ratings.votes} vote{'s' if ratings.votes != 1 else ''} ({ratings.pairs} "
        "pairwise outcomes; a tie or all bad counts half each way). 1000 is the average here; "
        "400 points are 10:1 odds.",
        "",
    ]
    return lines


def _remote_memory(row: SummaryRow) -> str:
    """A server's memory as far as it said: its VRAM, its KV cache use, else unknown."""
    parts = []
    if row.vram_peak_bytes is not None:
        parts.append(human_bytes(row.vram_peak_bytes))
    if row.kv_cache_usage_pct is not None:
        parts.append(f"KV cache {row.kv_cache_usage_pct:.0f}% used")
    return ", ".join(parts) or "unknown"


def to_markdown(result: ComparisonResult) -> str:
    n, m = len(result.contestants), len(result.prompts)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(result.created_at or time.time()))
    head = [f"Comparison {result.id}" if result.id is not None else "Comparison"]
    head += [f"{result.mode} mode", f"{n} models × {m} prompt{'s' if m != 1 else ''}"]
    if result.suite:
        head.append(f"suite {result.suite}")
    if result.machine:
        head.append(result.machine)
    head.append(when)
    lines = [f"# {_inline(result.title)}", "", " · ".join(head), ""]
    if result.mode == "parallel":
        lines += [
            "_The models ran side by side, sharing the machine: their speeds are not "
            "comparable with runs made one at a time._",
            "",
        ]
    missing = len(result.missing())
    if missing:
        lines += [f"_Incomplete: {missing} of {n * m} answers are missing._", ""]
    lines += ["## Summary", "", _table_row(SUMMARY_HEADERS), _table_row(_ALIGN)]
    summary = result.summary()
    lines += [_table_row([_cell(c) for c in summary_cells(row)]) for row in summary]
    lines.append("")
    for row in summary:
        if row.status == "failed" and row.reason:
            lines.append(f"- **{_inline(row.name)}** failed: {_inline(row.reason)}")
    if any(row.status == "failed" and row.reason for row in summary):
        lines.append("")
    lines += [
        "TTFT and speeds are medians over the answers; memory is the peak. RAM predicted is "
        "the fit estimate for the same settings, measured is the peak resident set.",
        "",
    ]
    lines += _ratings_lines(result)
    lines += quality_markdown(
        result.quality_check, result.quality, [c.name for c in result.contestants]
    )
    if any(row.remote for row in summary):
        lines += [
            "A model behind a server has no prediction; its TTFT and speeds are measured on "
            "this client (network included) unless marked as the server's own timings, and its "
            "memory is what the server exposes, else unknown.",
            "",
        ]
    lines += [
        "## Answers",
        "",
    ]
    for q, prompt in enumerate(result.prompts):
        title = prompt.preview(80)
        lines += [f"### {q + 1}. {_inline(title)}", ""]
        lines += _quote(_shorten(prompt.text))
        checks = ", ".join(c.describe() for c in prompt.checks)
        if checks:
            lines += [f"Checks: {_inline(checks)}", ""]
        for info in result.contestants:
            lines += _answer_lines(result, info.index, q)
    return "\n".join(lines).rstrip() + "\n"


def _answer_lines(result: ComparisonResult, contestant: int, q: int) -> list[str]:
    info = result.contestants[contestant]
    name = info.name
    if result.blind is not None:
        name = f"{result.blind.label(contestant)} · {name}"
    answer: AnswerResult | None = result.answer(contestant, q)
    if answer is None:
        return [f"**{_inline(name)}**: no answer", ""]
    if not answer.ok:
        return [f"**{_inline(name)}**: failed: {_inline(answer.error or '')}", ""]
    facts = []
    report = answer.report
    if report is not None:
        m = report.metrics
        facts.append(f"{m.generated_tokens} tokens")
        facts.append(f"{_num(m.tokens_per_s, '.1f')} tok/s")
        facts.append(f"TTFT {_num(m.ttft_ms, '.0f')} ms")
    if answer.checks_total:
        facts.append(f"checks {answer.checks_passed}/{answer.checks_total}")
    if answer.finish_reason and answer.finish_reason != "stop":
        facts.append(f"stopped: {answer.finish_reason}")
    return [f"**{_inline(name)}** ({', '.join(facts)})", "", *_quote(answer.text)]


def _quote(text: str) -> list[str]:
    body = text.strip() or "(empty)"
    return [f"> {line}".rstrip() for line in body.splitlines()] + [""]


def _inline(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _table_row(cells: Any) -> str:
    return "| " + " | ".join(cells) + " |"


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def human_bytes(n: float | None) -> str:
    """1536 -> '1.5 KiB'; None -> '-'."""
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
