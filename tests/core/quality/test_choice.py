"""Multiple choice on the real SmolLM2 demo: the predictions do not depend on the answer key, a
shuffled key gives chance within its interval, two runs pair up for McNemar, and a result
round-trips through JSON."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from desktop.core.errors import Cancelled
from desktop.core.quality import (
    ChoiceResult,
    ChoiceSettings,
    load_items,
    paired,
    score_items,
    shuffled_answers,
)
from desktop.core.quality.choice import summarize

N_ITEMS = 40


@pytest.fixture(scope="module")
def easy_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Short questions in MMLU's layout (no header), written for the test."""
    rng = random.Random(11)
    rows = []
    for _ in range(N_ITEMS):
        a, b = rng.randrange(2, 20), rng.randrange(2, 20)
        right = a + b
        options = [right, right + 1, right - 1, right + 2]
        rng.shuffle(options)
        letter = "ABCD"[options.index(right)]
        rows.append(f"What is {a} plus {b}?,{','.join(map(str, options))},{letter}")
    folder = tmp_path_factory.mktemp("mmlu") / "test"
    folder.mkdir()
    (folder / "arithmetic_test.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder.parent


@pytest.fixture(scope="module")
def real_run(smollm2_path: Path, easy_items: Path) -> ChoiceResult:
    return score_items(
        smollm2_path, load_items(easy_items), ChoiceSettings(n_threads=2), label="SmolLM2"
    )


def test_a_shuffled_answer_key_gives_chance_within_its_interval(
    smollm2_path: Path, easy_items: Path, real_run: ChoiceResult
) -> None:
    items = shuffled_answers(load_items(easy_items, limit=16), seed=2024)
    shuffled = score_items(smollm2_path, items, ChoiceSettings(n_threads=2), label="SmolLM2")
    assert shuffled.n == 16
    assert shuffled.chance == 0.25
    # The model never sees the key: the same predictions, whatever the key says.
    assert [o.predicted for o in shuffled.outcomes] == [o.predicted for o in real_run.outcomes[:16]]
    expected = sum(
        o.predicted == i.answer for o, i in zip(shuffled.outcomes, items.items, strict=True)
    )
    assert shuffled.correct == expected
    # Over many shuffled keys the accuracy is chance, and chance lies within the interval
    # about 95% of the time (whatever the model's own preferences, such as always "A").
    accuracies, covered = [], 0
    for seed in range(400):
        key = shuffled_answers(load_items(easy_items), seed=seed).items
        outcomes = [
            replace(o, answer=k.answer) for o, k in zip(real_run.outcomes, key, strict=True)
        ]
        result = summarize(
            outcomes,
            model="m",
            model_path="m",
            items="i",
            method="letter",
            planned=N_ITEMS,
            skipped=0,
            seconds=1.0,
            stopped=None,
        )
        accuracies.append(result.accuracy)
        covered += result.accuracy_ci[0] <= 0.25 <= result.accuracy_ci[1]
    assert abs(sum(accuracies) / len(accuracies) - 0.25) < 0.02
    assert covered / 400 >= 0.9


def test_a_result_has_subjects_intervals_and_a_json_round_trip(real_run: ChoiceResult) -> None:
    assert real_run.complete
    assert real_run.method == "letter"
    (subject,) = real_run.subjects
    assert subject.subject == "arithmetic"
    assert subject.n == N_ITEMS
    assert subject.low <= subject.accuracy <= subject.high
    assert real_run.accuracy_ci == (subject.low, subject.high)
    assert ChoiceResult.from_dict(real_run.to_dict()) == real_run
    test = paired(real_run, real_run)
    assert (test.n, test.only_a, test.only_b, test.verdict) == (N_ITEMS, 0, 0, "undecided")
    assert {o.predicted for o in real_run.outcomes} <= {0, 1, 2, 3}


def test_the_text_method_and_the_budget(smollm2_path: Path, easy_items: Path) -> None:
    items = load_items(easy_items, limit=3)
    result = score_items(
        smollm2_path, items, ChoiceSettings(method="text", n_threads=2), label="SmolLM2"
    )
    assert result.n == 3
    assert result.method == "text"
    budget = score_items(
        smollm2_path,
        load_items(easy_items),
        ChoiceSettings(n_threads=2, max_seconds=0.001),
        label="SmolLM2",
    )
    assert budget.n == 1  # at least one question, then the budget is spent
    assert budget.stopped == "budget"
    assert not budget.complete


def test_questions_longer_than_the_context_are_skipped(smollm2_path: Path, tmp_path: Path) -> None:
    long_question = "word " * 400
    (tmp_path / "long_test.csv").write_text(
        f"{long_question},a,b,c,d,A\nWhat is one plus one?,2,3,4,5,A\n", encoding="utf-8"
    )
    result = score_items(
        smollm2_path,
        load_items(tmp_path / "long_test.csv"),
        ChoiceSettings(ctx=256, n_threads=2),
        label="SmolLM2",
    )
    assert result.skipped == 1
    assert result.n == 1
    assert result.complete


def test_a_stop_before_the_first_answer(smollm2_path: Path, easy_items: Path) -> None:
    with pytest.raises(Cancelled):
        score_items(
            smollm2_path,
            load_items(easy_items),
            ChoiceSettings(n_threads=2),
            label="SmolLM2",
            should_stop=lambda: True,
        )
