"""Comparisons run for real: both demo models in real worker processes, a real history file.

Small answers (a few tokens, a 512-token context) keep each run to seconds on two cores.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import psutil
import pytest

from desktop.core.compare import (
    AnswerFinished,
    AnswerResult,
    AnswerStarted,
    AnswerText,
    CompareEvent,
    CompareRunner,
    ComparisonFinished,
    ComparisonPlan,
    ComparisonStarted,
    ContestantFailed,
    ContestantFinished,
    ContestantLoaded,
    ContestantStarted,
    Prompt,
    Vote,
    build_contestants,
    find_suite,
    open_comparison,
    record_vote,
    rerun_plan,
    resume,
    to_csv,
    to_json,
    to_markdown,
)
from desktop.core.compare.checks import Check
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.hardware import HardwareProfile
from desktop.core.history import History
from desktop.core.workspace import Workspace

pytestmark = [pytest.mark.e2e]

E = TypeVar("E")

PROMPTS = (
    Prompt(
        "What is the capital of France? One word.",
        id="capital",
        checks=(Check.from_dict({"contains": "Paris"}),),
    ),
    Prompt("Name a colour.", id="colour"),
)


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


@pytest.fixture
def ws(demo_paths: tuple[Path, Path]) -> Workspace:
    return Workspace.load()


@pytest.fixture
def profile(ws: Workspace) -> HardwareProfile:
    return ws.profile()[0]


@pytest.fixture
def history(tmp_path: Path) -> Iterator[History]:
    with History(tmp_path / "history.db") as h:
        yield h


def plan_for(
    ws: Workspace,
    specs: list[str],
    prompts: tuple[Prompt, ...] = PROMPTS,
    max_tokens: int = 6,
    **options: object,
) -> ComparisonPlan:
    contestants = build_contestants(
        ws.resolver,
        specs,
        load=LoadSettings(n_ctx=512),
        sampling=p.SamplingParams(max_tokens=max_tokens, seed=1, temperature=0.0),
    )
    return ComparisonPlan(tuple(contestants), prompts, **options)  # type: ignore[arg-type]


def cell(answer: AnswerResult) -> tuple[object, ...]:
    """What an answer says (arrival times aside, which only a live run has)."""
    report = answer.report.to_dict() if answer.report is not None else None
    return (
        answer.contestant,
        answer.prompt,
        answer.text,
        report,
        answer.finish_reason,
        answer.checks_passed,
        answer.checks_total,
        answer.check_results,
        answer.run_id,
    )


class Recorder:
    """Every event, and the thread each came on."""

    def __init__(self) -> None:
        self.events: list[CompareEvent] = []
        self.threads: set[int] = set()

    def __call__(self, event: CompareEvent) -> None:
        self.events.append(event)
        self.threads.add(threading.get_ident())

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]


def test_a_fair_blind_comparison_is_stored_voted_on_and_reported(
    ws: Workspace, profile: HardwareProfile, history: History
) -> None:
    plan = plan_for(ws, ["smollm2", "gemma3"], blind=True, blind_seed=3, title="Demo pair")
    events = Recorder()
    result = CompareRunner(
        plan, profile=profile, history=history, machine="here", on_event=events
    ).run()

    # Progress: on this thread, in order, one contestant at a time.
    assert events.threads == {threading.get_ident()}
    kinds = [type(e) for e in events.events if not isinstance(e, AnswerText)]
    per_contestant = [
        ContestantStarted,
        ContestantLoaded,
        AnswerStarted,
        AnswerFinished,
        AnswerStarted,
        AnswerFinished,
        ContestantFinished,
    ]
    assert kinds == [ComparisonStarted, *per_contestant, *per_contestant, ComparisonFinished]
    assert [e.done for e in events.of(AnswerFinished)] == [1, 2, 3, 4]
    streamed = "".join(e.text for e in events.of(AnswerText) if e.contestant == 0 and e.prompt == 0)
    assert streamed == result.answer(0, 0).text  # type: ignore[union-attr]

    # The measured numbers, for every cell.
    assert result.complete
    assert [o.status for o in result.outcomes] == ["done", "done"]
    for answer in result.answers:
        assert answer.ok
        assert answer.run_id is not None
        report = answer.report
        assert report is not None
        assert 0 < report.metrics.generated_tokens <= 6
        assert report.metrics.ttft_ms is not None
        assert report.metrics.ttft_ms > 0
        assert report.rss_peak_bytes is not None
        assert report.rss_peak_bytes > 50 << 20
        assert report.predicted_ram_bytes is not None
        assert report.predicted_ram_bytes > 0
    assert result.answer(0, 0).checks_total == 1  # type: ignore[union-attr]
    assert result.answer(0, 1).checks_total is None  # type: ignore[union-attr]
    summary = result.summary()
    assert [row.name for row in summary] == [c.display_name for c in plan.contestants]
    for row in summary:
        assert row.answers == 2
        assert row.n_ctx == 512
        assert row.quant in ("Q4_1", "Q4_K_M")
        assert row.private_peak_bytes is not None
        assert row.rss_peak_bytes is not None
        assert row.ram_error_pct is not None
        assert abs(row.ram_error_pct) < 25
        assert row.checks_total == 1
    assert len(result.chart()) == 2

    # Stored as it ran: the same result comes back from the history.
    assert result.id is not None
    stored = open_comparison(history, result.id)
    assert [cell(a) for a in stored.answers] == [cell(a) for a in result.answers]
    assert stored.blind == result.blind
    assert stored.blind is not None
    assert stored.contestants[0].sha256 == plan.contestants[0].known_sha256()
    record = history.comparison(result.id)
    assert record.summary.state == "complete"
    assert record.profile["cpu"]["physical_cores"] == profile.cpu.physical_cores
    assert len(history.runs(comparison_id=result.id)) == 4

    # Run again on this machine: the same contestants and prompts, a new comparison.
    again = rerun_plan(history, result.id, ws.resolver)
    assert [c.display_name for c in again.contestants] == [c.display_name for c in plan.contestants]
    assert [c.load for c in again.contestants] == [c.load for c in plan.contestants]
    assert [(q.text, q.checks) for q in again.prompts] == [(q.text, q.checks) for q in PROMPTS]
    assert again.blind
    assert again.title == "Demo pair"

    # Blind votes: by letter, revealed with win rates.
    labels = stored.blind
    first, _second = labels.labels
    record_vote(history, result.id, Vote(0, "win", winner=labels.contestant(first)))
    record_vote(history, result.id, Vote(1, "tie"))
    voted = open_comparison(history, result.id)
    rates = voted.win_rates()
    winner = labels.contestant(first)
    assert rates[winner].wins == 1
    assert rates[winner].rate == pytest.approx(0.75)
    assert rates[1 - winner].rate == pytest.approx(0.25)
    assert voted.summary()[winner].blind_label == first

    # Reports with the measured numbers.
    markdown = to_markdown(voted)
    assert "| model | quant | ctx | TTFT ms |" in markdown
    assert f"{first} · {plan.contestants[winner].display_name}" in markdown
    assert "1 W / 1 T / 0 L (75%)" in markdown
    rows = list(csv.DictReader(io.StringIO(to_csv(voted))))
    assert len(rows) == 4
    assert {r["status"] for r in rows} == {"ok"}
    assert all(float(r["generation_tokens_per_s"] or 0) >= 0 for r in rows)
    assert all(int(r["rss_peak_bytes"]) > 50 << 20 for r in rows)
    document = json.loads(to_json(voted))
    assert len(document["rows"]) == 4
    assert document["summary"][0]["rss_peak_bytes"] == summary[0].rss_peak_bytes
    assert document["comparison"]["blind_order"] == list(labels.order)
    assert len(document["votes"]) == 2


def test_a_worker_killed_mid_suite_fails_its_contestant_and_the_rest_finish_then_it_resumes(
    ws: Workspace, profile: HardwareProfile, history: History
) -> None:
    # The answer killed is long enough that the kill lands while it is being generated.
    prompts = (
        dataclasses.replace(PROMPTS[0], max_tokens=6),
        Prompt("Write a long story about a cat.", id="story"),
        Prompt("Say yes.", id="yes", max_tokens=6),
    )
    plan = plan_for(ws, ["smollm2", "gemma3"], prompts=prompts, max_tokens=32)
    runner: CompareRunner

    def kill_on_second_prompt(event: CompareEvent) -> None:
        if isinstance(event, AnswerText) and (event.contestant, event.prompt) == (0, 1):
            session = runner.session(0)
            assert session is not None
            session.client.kill()

    runner = CompareRunner(plan, profile=profile, history=history, on_event=kill_on_second_prompt)
    result = runner.run()
    assert result.outcomes[0].status == "failed"
    assert result.outcomes[0].error_kind == "engine.crashed"
    assert "SIGKILL" in (result.outcomes[0].reason or "")
    assert result.outcomes[1].status == "done"
    assert sorted((a.contestant, a.prompt) for a in result.answers) == [
        (0, 0),
        (1, 0),
        (1, 1),
        (1, 2),
    ]
    assert result.missing() == [(0, 1), (0, 2)]
    assert result.id is not None
    summary = history.comparisons()[0]
    assert summary.state == "partial"
    assert "failed" in to_markdown(result)
    first_run = result.answer(0, 0).run_id  # type: ignore[union-attr]

    events = Recorder()
    resumed = resume(
        result.id, history=history, resolver=ws.resolver, profile=profile, on_event=events
    )
    assert resumed.id == result.id
    assert events.of(ComparisonStarted)[0].total == 2
    assert {(e.answer.contestant, e.answer.prompt) for e in events.of(AnswerFinished)} == {
        (0, 1),
        (0, 2),
    }
    assert resumed.complete
    assert [o.status for o in resumed.outcomes] == ["done", "done"]
    assert resumed.answer(0, 0).run_id == first_run  # type: ignore[union-attr]
    assert history.comparison(result.id).summary.state == "complete"


def test_cancel_stops_at_once_and_leaves_a_resumable_comparison(
    ws: Workspace, profile: HardwareProfile, history: History
) -> None:
    plan = plan_for(ws, ["smollm2", "gemma3"], max_tokens=64)
    finished: list[AnswerFinished] = []

    def on_event(event: CompareEvent) -> None:
        if isinstance(event, AnswerFinished):
            finished.append(event)

    result = CompareRunner(
        plan,
        profile=profile,
        history=history,
        on_event=on_event,
        should_stop=lambda: bool(finished),
    ).run()
    assert len(result.answers) == 1
    assert result.outcomes[0].status == "cancelled"
    assert result.outcomes[1].status == "pending"  # never started
    assert result.id is not None
    assert history.comparison(result.id).summary.state == "cancelled"
    assert len(history.runs(comparison_id=result.id)) == 1


def test_a_model_that_does_not_load_fails_alone_and_a_prompt_too_long_fails_alone(
    ws: Workspace, profile: HardwareProfile, history: History, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)
    long_prompt = Prompt("Repeat after me: " + "tick tock " * 400, id="long")
    plan = plan_for(ws, [str(broken), "smollm2"], prompts=(long_prompt, PROMPTS[1]), max_tokens=4)
    events = Recorder()
    result = CompareRunner(plan, profile=profile, history=history, on_event=events).run()
    (failed,) = events.of(ContestantFailed)
    assert failed.contestant == 0
    assert failed.kind.startswith("engine.")
    assert result.outcomes[0].status == "failed"
    assert result.outcomes[0].reason
    assert result.outcomes[1].status == "done"
    too_long = result.answer(1, 0)
    assert too_long is not None
    assert too_long.error_kind == "engine.context_overflow"
    assert too_long.report is None
    assert result.answer(1, 1) is not None
    assert result.answer(1, 1).ok  # type: ignore[union-attr]
    rows = list(csv.DictReader(io.StringIO(to_csv(result))))
    assert [r["status"] for r in rows] == ["missing", "missing", "error", "ok"]


def test_parallel_mode_runs_both_models_at_once_with_events_on_this_thread(
    ws: Workspace, profile: HardwareProfile, history: History
) -> None:
    plan = plan_for(ws, ["smollm2", "gemma3"], prompts=PROMPTS[:1], mode="parallel")
    events = Recorder()
    result = CompareRunner(plan, profile=profile, history=history, on_event=events).run()
    assert events.threads == {threading.get_ident()}
    assert result.complete
    assert [o.status for o in result.outcomes] == ["done", "done"]
    loaded = events.of(ContestantLoaded)
    cores = profile.cpu.physical_cores
    assert {e.n_threads for e in loaded} == {max(1, cores // 2)}
    assert "side by side" in to_markdown(result)
    assert history.comparison(result.id or 0).summary.mode == "parallel"


def test_chinese_prompts_stream_whole_characters(ws: Workspace, profile: HardwareProfile) -> None:
    suite = find_suite("chinese")
    prompts = tuple(q for q in suite.prompts if q.id in ("zh-poem", "zh-landlord"))
    plan = plan_for(ws, ["smollm2", "gemma3"], prompts=prompts, max_tokens=16)
    pieces: dict[tuple[int, int], list[str]] = {}

    def on_event(event: CompareEvent) -> None:
        if isinstance(event, AnswerText):
            pieces.setdefault((event.contestant, event.prompt), []).append(event.text)

    result = CompareRunner(plan, profile=profile, on_event=on_event).run()
    assert result.id is None  # no history: nothing stored
    for answer in result.answers:
        assert answer.ok
        streamed = "".join(pieces[(answer.contestant, answer.prompt)])
        assert streamed == answer.text
        assert "\ufffd" not in streamed
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in a.text) for a in result.answers)
