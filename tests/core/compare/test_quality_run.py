"""A quality check inside a comparison, run for real: the SmolLM2 and Gemma 3 demos answer the
same two shipped GAOKAO-Bench questions, or are scored against the same reference on a short
text, one after the other, after their answers; the results are stored as measurements tagged
with the comparison, come back when it is opened, and are in the Markdown and JSON reports. Bad
input fails a contestant's check with one sentence while the others run; cancel stops it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.core.bundle import export_results, import_bundle
from desktop.core.compare import (
    CompareRunner,
    ComparisonPlan,
    Prompt,
    QualityCheck,
    QualityFinished,
    QualityProgress,
    QualityStarted,
    build_contestants,
    open_comparison,
    resume_plan,
    to_json,
    to_markdown,
)
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.hardware import load_profile
from desktop.core.history import History
from desktop.core.quality import ChoiceResult, LossResult, load_text
from desktop.core.recommend import pareto_keys
from desktop.core.workspace import Workspace
from tests.core.compare.test_runner import Recorder

pytestmark = [pytest.mark.e2e]

PROMPT = (Prompt("Say hi.", id="hi"),)
SHORT_TEXT_CHARS = 1600  # about 360 tokens: a few 64-token chunks


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


@pytest.fixture
def ws(demo_paths: tuple[Path, Path]) -> Workspace:
    return Workspace.load()


@pytest.fixture
def history(tmp_path: Path) -> Iterator[History]:
    with History(tmp_path / "history.db") as h:
        yield h


def plan_for(ws: Workspace, check: QualityCheck) -> ComparisonPlan:
    contestants = build_contestants(
        ws.resolver,
        ["smollm2", "gemma3"],
        load=LoadSettings(n_ctx=512, n_threads=2),
        sampling=p.SamplingParams(max_tokens=2, seed=1, temperature=0.0),
    )
    return ComparisonPlan(tuple(contestants), PROMPT, quality=check)


def test_every_contestant_answers_the_same_questions_stored_with_the_comparison(
    ws: Workspace, history: History
) -> None:
    events = Recorder()
    check = QualityCheck("items", "gaokao", limit=2)
    runner = CompareRunner(plan_for(ws, check), history=history, on_event=events)
    result = runner.run()
    assert result.complete  # the answers first
    # One contestant after the other: started, progress per question, finished.
    order = [
        (type(e).__name__, e.contestant if not isinstance(e, QualityFinished) else None)
        for e in events.events
        if isinstance(e, QualityStarted | QualityProgress)
    ]
    assert order[0] == ("QualityStarted", 0)
    assert ("QualityStarted", 1) in order
    assert order.index(("QualityStarted", 1)) > order.index(("QualityProgress", 0))
    progress = events.of(QualityProgress)
    assert [e.done for e in progress if e.contestant == 0] == [1, 2]
    assert [f.outcome.contestant for f in events.of(QualityFinished)] == [0, 1]

    assert [o.status for o in result.quality] == ["done", "done"]
    keys = []
    for outcome in result.quality:
        assert isinstance(outcome.result, ChoiceResult)
        assert outcome.result.n == 2
        assert outcome.result.items == "gaokao"
        assert outcome.value == outcome.result.accuracy
        assert outcome.interval is not None
        assert outcome.interval[0] <= outcome.result.accuracy <= outcome.interval[1]
        keys.append([o.key for o in outcome.result.outcomes])
    assert keys[0] == keys[1]  # the same two questions for both

    # Stored as measurements of each contestant's model, tagged with the comparison.
    assert result.id is not None
    stored = history.measurements(kind="quality", comparison=result.id)
    assert len(stored) == 2
    assert {m.settings["contestant"] for m in stored} == {0, 1}
    assert {m.id for m in stored} == {o.measurement_id for o in result.quality}
    assert {m.model.path.name for m in stored if m.model is not None} == {
        Path(c.path or "").name for c in result.contestants
    }

    # A measurement another history tagged with the same comparison number (imported from
    # another machine) is not this comparison's.
    first = stored[0]
    history.record_measurement(
        first.kind,
        metric=first.metric,
        value=0.123,  # not a score two questions can give
        data={**first.data, "accuracy": 0.123},
        model=first.model,
        settings=first.settings,
        profile=load_profile("rtx-3060-12gb"),
        machine="edge-box",
    )
    # Opened from the history: the same check and results.
    opened = open_comparison(history, result.id)
    assert opened.quality_check == check
    assert [o.value for o in opened.quality] == [o.value for o in result.quality]
    plan, existing = resume_plan(history, result.id, ws.resolver)
    assert plan.quality == check
    assert len(existing.quality) == 2

    # Quality against measured speed, the Pareto front marked by its definition.
    points = opened.quality_chart()
    assert [pt.contestant for pt in points] == [0, 1]
    speeds = {row.contestant: row.generation_tokens_per_s for row in opened.summary()}
    for pt in points:
        assert pt.metric == "accuracy"
        assert pt.tokens_per_s == speeds[pt.contestant]
        assert pt.quality == opened.quality[pt.contestant].value
        beaten = any(
            o.quality >= pt.quality
            and o.tokens_per_s >= pt.tokens_per_s
            and (o.quality > pt.quality or o.tokens_per_s > pt.tokens_per_s)
            for o in points
            if o is not pt
        )
        assert pt.pareto is not beaten
    assert any(pt.pareto for pt in points)

    markdown = to_markdown(opened)
    assert "## Quality" in markdown
    assert "multiple choice on gaokao, at most 2 questions" in markdown
    for outcome in result.quality:
        assert outcome.figure() in markdown
        assert "accuracy" in outcome.figure()
    document = json.loads(to_json(opened))
    rows = document["quality"]["results"]
    assert [r["model"] for r in rows] == [c.name for c in result.contestants]
    assert [r["value"] for r in rows] == [o.value for o in result.quality]
    assert rows[0]["result"]["n"] == 2
    assert [c["pareto"] for c in document["quality_chart"]] == [pt.pareto for pt in points]


def test_bad_input_fails_its_column_in_one_sentence_and_the_others_run(
    ws: Workspace, history: History, smollm2_path: Path, tmp_path: Path
) -> None:
    # A reference with another vocabulary: Gemma 3 against the SmolLM2 model.
    text = tmp_path / "short.txt"
    text.write_text(load_text("en").text[:SHORT_TEXT_CHARS], encoding="utf-8")
    check = QualityCheck("text", str(smollm2_path), text=str(text), ctx=64, limit=1)
    result = CompareRunner(plan_for(ws, check), history=history).run()
    smollm2, gemma = result.quality
    assert smollm2.status == "done"
    assert isinstance(smollm2.result, LossResult)
    assert abs(smollm2.result.kld) < 1e-6  # the reference itself
    assert smollm2.result.same_top_token == 1.0
    assert gemma.status == "failed"
    assert gemma.reason is not None
    assert "vocabulary" in gemma.reason or "tokenizer" in gemma.reason
    assert gemma.reason.count(". ") <= 1  # one sentence, no traceback
    assert "Traceback" not in gemma.reason
    assert result.complete  # the answers are all there
    # Reopened later (the window, `compare --show`, the reports): the same sentence, not
    # "not measured".
    assert result.id is not None
    reopened = open_comparison(history, result.id)
    assert [o.status for o in reopened.quality] == ["done", "failed"]
    assert reopened.quality[1].reason == gemma.reason
    markdown = to_markdown(reopened)
    assert f"failed: {gemma.reason}" in markdown
    assert "not measured" not in markdown
    rows = json.loads(to_json(reopened))["quality"]["results"]
    assert [(r["status"], r["reason"]) for r in rows] == [("done", None), ("failed", gemma.reason)]

    # Exported to another machine's history and imported there: the comparison finds its
    # result and its failure again (its number there is not its number here).
    bundle = tmp_path / "results.jsonl"
    export_results(history, bundle, name="edge-box", profile=load_profile("rtx-3060-12gb"))
    with History(tmp_path / "other.db") as other:
        other.create_comparison(title="Other", mode="fair", contestants=[], prompts=[])
        import_bundle(other, bundle)
        imported = next(c.id for c in other.comparisons() if c.machine == "edge-box")
        assert imported != result.id
        elsewhere = open_comparison(other, imported)
    assert [(o.status, o.value, o.reason) for o in elsewhere.quality] == [
        (o.status, o.value, o.reason) for o in reopened.quality
    ]

    # A question folder with a missing column: every column says so, the answers are kept.
    folder = tmp_path / "items" / "test"
    folder.mkdir(parents=True)
    (folder / "maths_test.csv").write_text(
        "question,A,B,C,answer\nOne plus one?,1,2,3,B\n", encoding="utf-8"
    )
    bad = QualityCheck("items", str(folder.parent), limit=2)
    result = CompareRunner(plan_for(ws, bad), history=history).run()
    assert result.complete
    assert [o.status for o in result.quality] == ["failed", "failed"]
    for outcome in result.quality:
        assert outcome.reason is not None
        assert "lacks the column D" in outcome.reason
    assert history.measurements(kind="quality", comparison=result.id) == []
    assert "failed: " in to_markdown(result)
    assert result.id is not None
    reopened = open_comparison(history, result.id)
    assert [(o.status, o.reason) for o in reopened.quality] == [
        (o.status, o.reason) for o in result.quality
    ]

    # The folder mended, a resume measures them: the stored sentences give way to results.
    (folder / "maths_test.csv").write_text(
        "question,A,B,C,D,answer\nOne plus one?,1,2,3,4,B\n", encoding="utf-8"
    )
    plan, existing = resume_plan(history, result.id, ws.resolver)
    assert [o.status for o in existing.quality] == ["failed", "failed"]
    resumed = CompareRunner(plan, history=history, comparison_id=result.id, existing=existing).run()
    assert [o.status for o in resumed.quality] == ["done", "done"]
    reopened = open_comparison(history, result.id)
    assert [o.status for o in reopened.quality] == ["done", "done"]
    assert [o.reason for o in reopened.quality] == [None, None]
    assert "failed: " not in to_markdown(reopened)


def test_cancel_during_the_quality_check_stops_it(ws: Workspace, history: History) -> None:
    runner: CompareRunner | None = None

    def on_event(event: object) -> None:
        if isinstance(event, QualityProgress) and runner is not None:
            runner.cancel()

    check = QualityCheck("items", "gaokao", limit=3)
    runner = CompareRunner(plan_for(ws, check), history=history, on_event=on_event)
    result = runner.run()
    first, second = result.quality
    # The first stops after the question it was on (what was answered counts); the second
    # never starts.
    assert first.status == "done"
    assert isinstance(first.result, ChoiceResult)
    assert first.result.n < 3
    assert first.result.stopped == "cancelled"
    assert second.status == "cancelled"


def test_the_front_is_what_nothing_beats_on_both_quality_and_speed() -> None:
    points = [("a", 0.5, 10.0), ("b", 0.7, 5.0), ("c", 0.4, 8.0), ("d", 0.7, 5.0), ("e", None, 20)]
    # c is slower and worse than a; b and d are equal (both on it); e has no quality.
    assert pareto_keys(points) == {"a", "b", "d"}
