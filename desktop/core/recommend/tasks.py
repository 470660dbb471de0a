"""The tasks a person chooses a model for, and which published benchmarks tell each one.

A task is judged by a list of *measures*: a benchmark with the metrics that count for it (a
record with another metric, e.g. AIME cons@64 next to pass@1, is kept and shown but not used).
Each measure is its own pool: scores of one measure are compared with each other only.

- chat: IFEval (instruction following; Qwen's prompt-level strict accuracy, Meta's average of
  four accuracies and Google's unstated metric are three separate measures), Arena-Hard (win
  rate against a reference model, judged by a model), MMLU-Pro, MMLU-Redux, MMLU (knowledge).
- code: HumanEval, MBPP, MBPP EvalPlus, LiveCodeBench (each published version is its own
  measure: v5 2024.10-2025.02, 2305-2409, 2408-2501, unstated).
- zh (中文): C-Eval, CMMLU (Chinese exam questions across subjects).
- reasoning (maths and science): MATH-500, MATH, GSM8K, GPQA Diamond, GPQA (subset not stated),
  AIME 2024 (pass@1).
- long (long context): RULER (average of 4K-128K, and at 128K), InfiniteBench En.MC, Meta's
  multi-needle recall.

Thinking: reasoning models that can switch (Qwen3) are judged thinking on for reasoning and
thinking off for the other tasks, when both were published; models that always think (the
DeepSeek-R1 distills) are judged as they run. Every score says which.

How the scores are put on one scale (:mod:`desktop.core.recommend.scale`): within a measure, a
model's score becomes its percentile among the catalog's models that have a score on that
measure; the task score is the mean of the model's percentiles over the task's measures it has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from desktop.core.errors import UsageError

TaskId = Literal["chat", "code", "zh", "reasoning", "long"]


@dataclass(frozen=True)
class Measure:
    """One pool of comparable scores: a benchmark and the metrics that count as the same."""

    benchmark: str
    metrics: tuple[str, ...]
    label: str  # what people call it: "IFEval (strict prompt)"

    @property
    def key(self) -> str:
        return f"{self.benchmark}/{'+'.join(self.metrics)}"


@dataclass(frozen=True)
class TaskSpec:
    id: TaskId
    title: str  # English; the window translates by id
    measures: tuple[Measure, ...]
    thinking: bool  # judge a switchable reasoning model with thinking on


_ACC = ("accuracy",)
_GEN = ("accuracy", "pass@1")  # one answer per question, right or wrong: the same thing

TASKS: dict[TaskId, TaskSpec] = {
    "chat": TaskSpec(
        "chat",
        "chat and instructions",
        (
            Measure("ifeval", ("prompt-strict",), "IFEval (strict prompt)"),
            Measure("ifeval", ("avg-4",), "IFEval (Meta's average)"),
            Measure("ifeval", ("unstated",), "IFEval (metric not stated)"),
            Measure("arena-hard", ("win-rate",), "Arena-Hard"),
            Measure("mmlu-pro", _ACC, "MMLU-Pro"),
            Measure("mmlu-redux", _ACC, "MMLU-Redux"),
            Measure("mmlu", _ACC, "MMLU"),
        ),
        thinking=False,
    ),
    "code": TaskSpec(
        "code",
        "code",
        (
            Measure("humaneval", ("pass@1",), "HumanEval"),
            Measure("mbpp", ("pass@1",), "MBPP"),
            Measure("mbpp-evalplus", ("pass@1",), "MBPP EvalPlus"),
            Measure("livecodebench-v5", ("pass@1",), "LiveCodeBench v5"),
            Measure("livecodebench-2305-2409", ("pass@1",), "LiveCodeBench 2305-2409"),
            Measure("livecodebench-2408-2501", ("pass@1",), "LiveCodeBench 2408-2501"),
            Measure("livecodebench", ("pass@1",), "LiveCodeBench (version not stated)"),
        ),
        thinking=False,
    ),
    "zh": TaskSpec(
        "zh",
        "Chinese (中文)",
        (
            Measure("c-eval", _ACC, "C-Eval"),
            Measure("cmmlu", _ACC, "CMMLU"),
        ),
        thinking=False,
    ),
    "reasoning": TaskSpec(
        "reasoning",
        "reasoning and maths",
        (
            Measure("math-500", _GEN, "MATH-500"),
            Measure("math", _GEN, "MATH"),
            Measure("gsm8k", _GEN, "GSM8K"),
            Measure("gpqa-diamond", _GEN, "GPQA Diamond"),
            Measure("gpqa", _GEN, "GPQA"),
            Measure("aime-2024", _GEN, "AIME 2024"),
        ),
        thinking=True,
    ),
    "long": TaskSpec(
        "long",
        "long context",
        (
            Measure("ruler", ("average",), "RULER (4K-128K average)"),
            Measure("ruler-128k", _ACC, "RULER at 128K"),
            Measure("infinitebench-en-mc", _ACC, "InfiniteBench En.MC"),
            Measure("nih-multi-needle", ("recall",), "multi-needle recall"),
        ),
        thinking=False,
    ),
}

TASK_IDS: tuple[TaskId, ...] = tuple(TASKS)


def task_spec(task: str) -> TaskSpec:
    """The task called ``task`` (an id); a UsageError naming the tasks otherwise."""
    for key, spec in TASKS.items():
        if key == task:
            return spec
    raise UsageError(f"There is no task {task!r}; the tasks are {', '.join(TASK_IDS)}.")
