"""`llm-scout compare` through the CLI entry point, and a real `python -m desktop compare`
process killed with SIGKILL mid-suite, then resumed."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.cli import main
from desktop.core import paths
from desktop.core.history import History

pytestmark = [pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--max-tokens", "6", "--ctx", "512", "--temp", "0"]
QUALITY = ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi", "--quality"]


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


def test_compare_reports_in_every_format_and_lists_shows_and_deletes(
    demo_paths: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", "--models", "smollm2", "gemma3", "--prompt", "Name a fruit.", *FAST]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    # Markdown on stdout, progress on stderr.
    assert out.startswith("# SmolLM2 135M Instruct Q4_1 vs Gemma 3 270M (base) Q4_K_M")
    assert "| model | quant | ctx | TTFT ms | prompt tok/s | gen tok/s |" in out
    assert "| SmolLM2 135M Instruct Q4_1 | Q4_1 | 512 |" in out
    assert "Comparing 2 models on 1 prompt, one model at a time (comparison 1)" in err
    assert "[2/2] Gemma 3 270M (base) Q4_K_M · prompt 1/1:" in err

    with History.open() as history:
        (summary,) = history.comparisons()
        assert summary.state == "complete"
        record = history.comparison(summary.id)
        assert all(r.report is not None for r in record.runs)
    for name in ("report.md", "report.csv", "report.json"):
        assert main(["compare", "--show", str(summary.id), "--out", str(tmp_path / name)]) == 0
    assert "markdown" not in capsys.readouterr().out
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert md == out
    rows = list(csv.DictReader(io.StringIO((tmp_path / "report.csv").read_text("utf-8"))))
    assert [r["model"] for r in rows] == [
        "SmolLM2 135M Instruct Q4_1",
        "Gemma 3 270M (base) Q4_K_M",
    ]
    assert all(int(r["rss_peak_bytes"]) > 50 << 20 for r in rows)
    assert all(float(r["ttft_ms"]) > 0 for r in rows)
    document = json.loads((tmp_path / "report.json").read_text("utf-8"))
    assert document["comparison"]["id"] == summary.id
    assert [row["status"] for row in document["rows"]] == ["ok", "ok"]
    assert document["summary"][0]["private_peak_bytes"] > 0

    # --out on a new comparison writes the file and keeps stdout empty.
    out_json = tmp_path / "second.json"
    argv = ["compare", "--models", "smollm2", "smollm2@cache=q8_0", "--prompt", "Hi.", *FAST]
    assert main([*argv, "--out", str(out_json), "--title", "Two caches"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert f"json report written to {out_json}" in err
    names = [
        c["name"] for c in json.loads(out_json.read_text("utf-8"))["comparison"]["contestants"]
    ]
    assert names == [
        "SmolLM2 135M Instruct Q4_1 (KV f16, FA off)",
        "SmolLM2 135M Instruct Q4_1 (KV q8_0, FA on)",
    ]
    cells = json.loads(out_json.read_text("utf-8"))["rows"]
    assert [c["status"] for c in cells] == ["ok", "ok"]  # the engine ran the q8_0 cache

    assert main(["compare", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "Two caches" in listing
    assert "complete" in listing
    assert main(["compare", "--list", "--model", "gemma", "--json"]) == 0
    assert [c["id"] for c in json.loads(capsys.readouterr().out)] == [summary.id]
    assert main(["compare", "--list", "--search", "nothing of the sort"]) == 0
    assert "No comparisons match." in capsys.readouterr().err
    assert main(["compare", "--delete", str(summary.id)]) == 0
    assert main(["compare", "--show", str(summary.id)]) == 1
    assert "no comparison" in capsys.readouterr().err


def test_compare_lists_the_built_in_suites(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--suites"]) == 0
    out = capsys.readouterr().out
    for name in ("general-en", "chinese", "coding", "summarisation", "long-context"):
        assert name in out
    assert main(["compare", "--suites", "--json"]) == 0
    suites = {s["name"]: s for s in json.loads(capsys.readouterr().out)}
    assert suites["long-context"]["prompts"] == 3


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["compare", "--models", "smollm2", "gemma3"], 2, "needs --prompt"),
        (["compare", "--models", "smollm2", "--prompt", "Hi"], 2, "2 to 6 models"),
        (["compare", "--list", "--prompt", "Hi"], 2, "go with --models"),
        (
            ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi", "--out", "r.pdf"],
            2,
            ".md, .csv or .json",
        ),
        (["compare", "--models", "smollm2", "gemma3", "--suite", "poetry"], 1, "No prompt suite"),
        (
            ["compare", "--models", "smollm2", "gemma3@temp=hot", "--prompt", "Hi"],
            1,
            "needs a number",
        ),
        (["compare", "--resume", "42"], 1, "no comparison 42"),
        (
            ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi", "--max-tokens", "0"],
            2,
            "at least 1",
        ),
        (
            ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi", "--quality", "vibes"],
            2,
            "--quality takes items, items:DIR or text:REF, not 'vibes'.",
        ),
        (
            ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi", "--quality", "text"],
            2,
            "--quality text needs a reference",
        ),
        (
            [*QUALITY, "items:/no/such/folder"],
            2,
            "There is no question folder or file /no/such/folder.",
        ),
        (
            [*QUALITY, "items", "--quality-limit", "0"],
            2,
            "--quality-limit must be at least 1",
        ),
        (["compare", "--list", "--quality", "items"], 2, "--quality goes with --models"),
    ],
)
def test_compare_explains_what_it_cannot_do(
    demo_paths: tuple[Path, Path],
    argv: list[str],
    code: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(argv) == code
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("llm-scout: ")


def test_a_compare_process_killed_mid_suite_keeps_every_finished_answer_and_resumes(
    demo_paths: tuple[Path, Path],
    scout_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suite = tmp_path / "four.jsonl"
    prompts = ["Say one.", "Say two.", "Say three.", "Say four."]
    suite.write_text(
        "".join(json.dumps({"id": f"p{i}", "prompt": t}) + "\n" for i, t in enumerate(prompts)),
        encoding="utf-8",
    )
    env = {**os.environ, "LLM_SCOUT_HOME": str(scout_home)}
    argv = [sys.executable, "-m", "desktop", "compare", "--models", "smollm2", "gemma3"]
    proc = subprocess.Popen(
        [*argv, "--suite", str(suite), "--max-tokens", "8", "--ctx", "512"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    finished: list[str] = []
    workers: list[psutil.Process] = []
    deadline = time.monotonic() + 300
    try:
        for line in proc.stderr:
            if line.startswith("[") and " · prompt " in line:
                finished.append(line)
            if len(finished) == 3:  # contestant 1 done with three prompts, mid-suite
                workers = psutil.Process(proc.pid).children(recursive=True)
                proc.send_signal(signal.SIGKILL)
                break
            assert time.monotonic() < deadline, "the comparison did not progress"
    finally:
        if proc.poll() is None and len(finished) < 3:
            proc.kill()
        proc.wait(timeout=30)
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert len(finished) == 3
    # The orphaned worker notices its parent is gone (its stdin closes) and exits.
    _gone, alive = psutil.wait_procs(workers, timeout=20)
    for leftover in alive:
        leftover.kill()
    assert not alive, "the engine worker outlived its parent"

    with History(paths.history_db_path()) as history:
        (summary,) = history.comparisons()
        assert summary.state == "running"  # killed: never marked finished
        assert summary.n_answers >= 3  # every answer the process announced was committed
        before = {
            (r.contestant_index, r.prompt_index): r.id for r in history.comparison(summary.id).runs
        }
    assert {(0, 0), (0, 1), (0, 2)} <= set(before)

    out = tmp_path / "resumed.json"
    assert main(["compare", "--resume", str(summary.id), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"(comparison {summary.id})" in err
    document = json.loads(out.read_text("utf-8"))
    assert [row["status"] for row in document["rows"]] == ["ok"] * 8
    with History(paths.history_db_path()) as history:
        record = history.comparison(summary.id)
        assert record.summary.state == "complete"
        after = {(r.contestant_index, r.prompt_index): r.id for r in record.runs}
    assert {k: after[k] for k in before} == before  # the answers kept were not run again


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_rewritten_in_place_on_a_terminal(
    demo_paths: tuple[Path, Path],
) -> None:
    from desktop.commands.compare import Progress
    from desktop.core.compare import (
        AnswerFinished,
        AnswerResult,
        AnswerText,
        ComparisonPlan,
        ComparisonStarted,
        ContestantFailed,
        ContestantStarted,
        build_contestants,
        single_prompt,
    )
    from desktop.core.workspace import Workspace

    contestants = build_contestants(Workspace.load().resolver, ["smollm2", "gemma3"])
    plan = ComparisonPlan.for_suite(contestants, single_prompt("Hi."))
    stream = _Terminal()
    progress = Progress(stream, plan)
    progress(ComparisonStarted(7, "fair", 2, 1, 2))
    progress(ContestantStarted(0, contestants[0].display_name))
    progress(AnswerText(0, 0, "Hel", 3))
    progress(AnswerFinished(AnswerResult(0, 0, "Hello", error="boom"), 1, 2))
    progress(ContestantFailed(1, "The model could not be loaded.", "engine.load_failed"))
    progress.clear()
    text = stream.getvalue()
    assert text.startswith("\rComparing 2 models on 1 prompt, one model at a time (comparison 7)\n")
    assert "\r[0/2] loading SmolLM2 135M Instruct Q4_1" in text
    assert "\r[0/2] SmolLM2 135M Instruct Q4_1 · prompt 1/1 · 3 tokens" in text
    assert "\r[1/2] SmolLM2 135M Instruct Q4_1 · prompt 1/1: failed: boom" in text
    assert "Gemma 3 270M (base) Q4_K_M failed: The model could not be loaded.\n" in text
    assert text.endswith("\n")  # a failure stays on screen; the report starts on a new line


def test_a_comparison_with_answers_missing_exits_non_zero_with_its_report(
    demo_paths: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fixtures.sse_server import closed_port

    nowhere = f"http://127.0.0.1:{closed_port()}/v1@model=gone"
    out = tmp_path / "report.json"
    argv = ["compare", "--models", "smollm2", nowhere, "--prompt", "Say hi.", "--max-tokens", "4"]
    assert main([*argv, "--ctx", "256", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "1 answers are missing" in err
    statuses = [row["status"] for row in json.loads(out.read_text("utf-8"))["rows"]]
    assert "ok" in statuses  # the report was still written, with what did run


def test_compare_with_a_quality_check_reports_it_and_keeps_it_in_the_history(
    demo_paths: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "report.json"
    argv = ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi.", *FAST]
    argv += ["--max-tokens", "2", "--quality", "items", "--quality-limit", "2"]
    assert main([*argv, "--out", str(out_json)]) == 0
    err = capsys.readouterr().err
    assert "quality: SmolLM2 135M Instruct Q4_1 · multiple choice on gaokao" in err
    document = json.loads(out_json.read_text("utf-8"))
    quality = document["quality"]
    assert quality["check"]["kind"] == "items"
    assert quality["check"]["limit"] == 2
    results = quality["results"]
    assert [r["status"] for r in results] == ["done", "done"]
    assert all(r["count"] == 2 for r in results)
    # Each model's line on stderr carries the figure the report holds.
    for r in results:
        low, high = r["interval"]
        figure = f"accuracy {r['value']:.1%} ({low:.1%} – {high:.1%})"
        assert f"quality: {r['model']}: {figure}" in err
    comparison = document["comparison"]["id"]
    # The Markdown of --show has the same figures, read back from the history.
    assert main(["compare", "--show", str(comparison)]) == 0
    out = capsys.readouterr().out
    assert "## Quality" in out
    for r in results:
        assert f"{r['value']:.1%}" in out
    # And `history list` lists them as measurements of each model.
    assert main(["history", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    measured = [x for x in listed if x["kind"] == "measurement"]
    assert {x["settings"]["comparison"] for x in measured} == {comparison}
    assert sorted(x["value"] for x in measured) == sorted(r["value"] for r in results)


def test_a_failed_quality_check_says_its_sentence_again_when_shown_later(
    demo_paths: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "items" / "test"
    folder.mkdir(parents=True)
    (folder / "maths_test.csv").write_text(
        "question,A,B,C,answer\nOne plus one?,1,2,3,B\n", encoding="utf-8"
    )
    out_json = tmp_path / "report.json"
    argv = ["compare", "--models", "smollm2", "gemma3", "--prompt", "Hi.", *FAST]
    argv += ["--max-tokens", "2", "--quality", f"items:{folder.parent}"]
    main([*argv, "--out", str(out_json)])
    live = json.loads(out_json.read_text("utf-8"))
    reasons = [r["reason"] for r in live["quality"]["results"]]
    assert all(reason and "lacks the column D" in reason for reason in reasons)
    comparison = live["comparison"]["id"]
    capsys.readouterr()
    # Shown later from the history: the same sentences, in the Markdown and in the JSON.
    assert main(["compare", "--show", str(comparison)]) == 0
    markdown = capsys.readouterr().out
    for reason in reasons:
        assert f"failed: {reason}" in markdown
    assert "not measured" not in markdown
    assert main(["compare", "--show", str(comparison), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["quality"]["results"]
    assert [(r["status"], r["reason"]) for r in shown] == [("failed", r) for r in reasons]
