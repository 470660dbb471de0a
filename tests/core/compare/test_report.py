"""Reports and the summary from a result built by hand: tables, escaping, long prompts, failed
and missing cells, blind labels, the chart points."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from desktop.core.compare import (
    AnswerResult,
    BlindLabels,
    CompareError,
    ComparisonResult,
    ContestantInfo,
    ContestantOutcome,
    Prompt,
    Vote,
    check_report_path,
    render,
    report_format,
    to_csv,
    to_dict,
    to_markdown,
    write_report,
)
from desktop.core.compare.checks import Check
from desktop.core.engine import GenerationMetrics, RunReport

MIB = 1 << 20


def report(rate: float, ttft: float, peak: int, predicted: int, text: str = "x") -> RunReport:
    metrics = GenerationMetrics(ttft, 30, 250.0, 12, rate, (), None, None)
    return RunReport(
        text,
        metrics,
        load_ms=300.0,
        rss_peak_bytes=peak,
        private_peak_bytes=peak // 3,
        predicted_ram_bytes=predicted,
        predicted_vram_bytes=0,
        finish_reason="stop",
        n_ctx=2048,
    )


@pytest.fixture
def result() -> ComparisonResult:
    infos = (
        ContestantInfo(0, "Fast | small", "smollm2", "SmolLM2", "/m/s.gguf", "Q4_1"),
        ContestantInfo(1, "Slow", "gemma3", "Gemma", "/m/g.gguf", "Q4_K_M"),
        ContestantInfo(2, "Broken", "broken.gguf", "broken", "/m/b.gguf", None),
    )
    long_text = "Read this. " + "word " * 2000 + "\nQuestion: what?"
    prompts = (
        Prompt(
            "Capital of France?", id="capital", checks=(Check.from_dict({"contains": "Paris"}),)
        ),
        Prompt(long_text, id="long"),
    )
    answers = (
        AnswerResult(
            0,
            0,
            "Paris.",
            report(100.0, 80.0, 200 * MIB, 210 * MIB),
            "stop",
            checks_passed=1,
            checks_total=1,
        ),
        AnswerResult(
            0, 1, "What?\nNo idea | none", report(90.0, 400.0, 220 * MIB, 215 * MIB), "length"
        ),
        AnswerResult(
            1,
            0,
            "Lyon.",
            report(60.0, 120.0, 380 * MIB, 360 * MIB),
            "stop",
            checks_passed=0,
            checks_total=1,
        ),
        AnswerResult(
            1, 1, "", error="The prompt does not fit.", error_kind="engine.context_overflow"
        ),
    )
    return ComparisonResult(
        id=3,
        title="Small | models",
        mode="fair",
        contestants=infos,
        outcomes=(
            ContestantOutcome("done"),
            ContestantOutcome("done"),
            ContestantOutcome("failed", "Not a GGUF file.", "engine.not_gguf"),
        ),
        prompts=prompts,
        answers=answers,
        votes=(Vote(0, "win", winner=0), Vote(1, "all_bad")),
        blind=BlindLabels((2, 0, 1)),
        suite="mine",
        machine="this machine",
        created_at=1_800_000_000.0,
    )


def test_the_summary_takes_medians_peaks_and_the_checks(result: ComparisonResult) -> None:
    fast, slow, broken = result.summary()
    assert fast.generation_tokens_per_s == 95.0  # median of 100 and 90
    assert fast.ttft_ms == 240.0
    assert fast.rss_peak_bytes == 220 * MIB
    assert fast.predicted_ram_bytes == 215 * MIB  # from the same answer as the peak
    assert fast.ram_error_pct == pytest.approx((215 - 220) / 220 * 100)
    assert (fast.checks_passed, fast.checks_total, fast.score) == (1, 1, 1.0)
    assert fast.blind_label == "B"
    assert fast.votes.wins == 1
    assert slow.answers == 2
    assert slow.generation_tokens_per_s == 60.0
    assert slow.score == 0.0
    assert broken.status == "failed"
    assert broken.generation_tokens_per_s is None
    assert broken.blind_label == "A"
    assert result.missing() == [(2, 0), (2, 1)]
    points = result.chart()
    assert [(pt.name, pt.tokens_per_s, pt.memory_bytes, pt.score) for pt in points] == [
        ("Fast | small", 95.0, 220 * MIB, 1.0),
        ("Slow", 60.0, 380 * MIB, 0.0),
    ]


def test_markdown_is_ready_to_paste(result: ComparisonResult) -> None:
    text = to_markdown(result)
    lines = text.splitlines()
    assert lines[0] == "# Small | models"
    assert lines[2].startswith("Comparison 3 · fair mode · 3 models × 2 prompts · suite mine")
    votes_at = lines.index("## Votes: Bradley-Terry ratings")
    table = [line for line in lines[:votes_at] if line.startswith("| ")]
    assert table[0].startswith("| model | quant | ctx | TTFT ms | prompt tok/s | gen tok/s |")
    assert all(line.count(" | ") == table[0].count(" | ") for line in table)  # | escaped
    assert "| B · Fast \\| small | Q4_1 | 2048 | 240 | 250.0 | 95.0 | 73.3 MiB | - |" in text
    assert "215.0 MiB / 220.0 MiB (-2.3%)" in text
    assert "| A · Broken (failed) |" in text
    assert "- **Broken** failed: Not a GGUF file." in text
    assert "_Incomplete: 2 of 6 answers are missing._" in text
    assert "### 2. Question: what?" in text
    assert "characters…]" in text  # the long prompt is shortened
    assert len(text) < 6000
    assert "> What?\n> No idea | none" in text  # answers quoted line by line
    assert "**C · Slow**: failed: The prompt does not fit." in text
    assert "**A · Broken**: no answer" in text
    assert 'Checks: contains "Paris"' in text
    assert "1 W / 0 T / 0 L / 1 bad (50%)" in text
    # The votes' ratings: the win over both others puts B (contestant 0) first.
    assert lines[votes_at + 4].startswith("| B · Fast \\| small | ")
    assert "From 2 votes (5 pairwise outcomes;" in text


def test_csv_and_json_have_one_row_per_model_and_prompt(result: ComparisonResult) -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(result))))
    assert len(rows) == 6
    assert [r["status"] for r in rows] == ["ok", "ok", "ok", "error", "missing", "missing"]
    assert rows[0]["blind_label"] == "B"
    assert rows[1]["output"] == "What?\nNo idea | none"
    assert len(rows[1]["prompt"]) < 700  # spreadsheets cap a cell; JSON keeps it all
    assert int(rows[1]["prompt_chars"]) > 10_000
    assert rows[3]["error"] == "The prompt does not fit."
    document = to_dict(result)
    assert json.loads(json.dumps(document)) == document
    assert len(document["rows"]) == 6
    assert document["rows"][1]["prompt"] == result.prompts[1].text
    assert document["comparison"]["contestants"][2]["reason"] == "Not a GGUF file."
    assert document["summary"][0]["votes"]["win_rate"] == 0.5
    assert [c["model"] for c in document["chart"]] == ["Fast | small", "Slow"]


def test_the_format_follows_the_file_name(result: ComparisonResult, tmp_path: Path) -> None:
    for name, fmt in (("r.md", "md"), ("r.MARKDOWN", "md"), ("r.csv", "csv"), ("r.json", "json")):
        path = tmp_path / name
        assert write_report(result, path) == fmt
        assert path.read_text(encoding="utf-8") == render(result, report_format(path))
    with pytest.raises(CompareError, match=r"\.md, \.csv or \.json"):
        write_report(result, tmp_path / "r.pdf")
    with pytest.raises(CompareError, match="Cannot write"):
        write_report(result, tmp_path / "missing-folder" / "r.md")


def test_the_report_path_is_checked_before_anything_runs(tmp_path: Path) -> None:
    """A folder that is not there, a folder in the file's place, a file in the folder's place:
    said before a comparison runs; a good path leaves nothing behind."""
    assert check_report_path(tmp_path / "r.json") == "json"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(CompareError, match=r"there is no folder .*missing"):
        check_report_path(tmp_path / "missing" / "r.md")
    (tmp_path / "a-folder.md").mkdir()
    with pytest.raises(CompareError, match="is a folder; name the report file"):
        check_report_path(tmp_path / "a-folder.md")
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(CompareError, match="there is no folder"):
        check_report_path(tmp_path / "a-file" / "r.md")
    with pytest.raises(CompareError, match=r"\.md, \.csv or \.json"):
        check_report_path(tmp_path / "r.pdf")
