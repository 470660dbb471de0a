"""Multiple choice scored from the logits: the option the model finds most likely after the
question is its answer.

Two methods, both from log-likelihoods (no text is generated, so no answer parsing):

- ``letter`` (default; the method of the MMLU, C-Eval and CMMLU papers): the question with its
  lettered options, then ``Answer:`` (``答案：`` for Chinese); the answer is the letter whose
  token is most likely next. One evaluation per question.
- ``text``: the log-likelihood of each option's own text after the question, per character (so
  long options are not punished for their length). One evaluation per option, the question's
  tokens kept in the KV cache between them.

Accuracy comes with a Wilson 95% interval, per subject and overall; :func:`paired` puts two
models' answers to the same items side by side for McNemar's test. :class:`ChoiceResult` is a
frozen value with a JSON round trip, the ``llm-scout quality --items --json`` document.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from desktop.core.engine import (
    EngineClient,
    Request,
    WorkerError,
    decode_ints,
    encode_ints,
    unpack_scores,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import Cancelled, QualityError
from desktop.core.quality.items import ChoiceItem, ItemSet
from desktop.core.quality.loss import Stopped
from desktop.core.quality.stats import McNemar, mcnemar, wilson

Method = Literal["letter", "text"]
POLL_S = 0.1
LOAD_TIMEOUT_S = 600.0

PROMPTS = {
    "en": ("The following is a multiple choice question about {subject}.\n\n", "Answer:", " "),
    "zh": ("以下是关于{subject}的单项选择题，请直接给出正确答案的选项。\n\n", "答案：", ""),
}


@dataclass(frozen=True)
class ChoiceSettings:
    method: Method = "letter"
    ctx: int = 2048
    n_threads: int | None = None
    n_gpu_layers: int = 0
    max_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.method not in ("letter", "text"):
            raise QualityError(f"Unknown scoring method {self.method!r}; use letter or text.")
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise QualityError("The time budget must be positive.")


@dataclass(frozen=True)
class ItemOutcome:
    key: str
    subject: str
    answer: int
    predicted: int
    n_options: int

    @property
    def correct(self) -> bool:
        return self.answer == self.predicted


@dataclass(frozen=True)
class SubjectScore:
    subject: str
    n: int
    correct: int
    low: float
    high: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0


@dataclass(frozen=True)
class ChoiceResult:
    """One model on a set of items. ``chance`` is the accuracy of random answers on the items
    done; ``skipped`` items were longer than the context."""

    model: str
    model_path: str
    items: str
    method: Method
    planned: int
    n: int
    correct: int
    accuracy: float
    accuracy_ci: tuple[float, float]
    chance: float
    subjects: tuple[SubjectScore, ...]
    outcomes: tuple[ItemOutcome, ...]
    skipped: int
    seconds: float
    complete: bool
    stopped: Stopped | None

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["kind"] = "choice"
        data["accuracy_ci"] = list(self.accuracy_ci)
        data["subjects"] = [
            {**dataclasses.asdict(s), "accuracy": s.accuracy} for s in self.subjects
        ]
        data["outcomes"] = [dataclasses.astuple(o) for o in self.outcomes]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChoiceResult:
        fields = {f.name for f in dataclasses.fields(cls)}
        missing = fields - set(data)
        if missing:
            raise ValueError(f"a choice result lacks {', '.join(sorted(missing))}")
        values = {name: data[name] for name in fields}
        values["accuracy_ci"] = tuple(float(v) for v in values["accuracy_ci"])
        values["subjects"] = tuple(
            SubjectScore(
                s["subject"], int(s["n"]), int(s["correct"]), float(s["low"]), float(s["high"])
            )
            for s in values["subjects"]
        )
        values["outcomes"] = tuple(
            ItemOutcome(str(o[0]), str(o[1]), int(o[2]), int(o[3]), int(o[4]))
            for o in values["outcomes"]
        )
        return cls(**values)


@dataclass(frozen=True)
class ChoiceProgress:
    done: int
    total: int
    elapsed_s: float
    result: ChoiceResult


def paired(a: ChoiceResult, b: ChoiceResult) -> McNemar:
    """McNemar's test of ``a`` against ``b`` on the items both answered."""
    theirs = {o.key: o.correct for o in b.outcomes}
    common = [(o.correct, theirs[o.key]) for o in a.outcomes if o.key in theirs]
    return mcnemar([x for x, _ in common], [y for _, y in common])


def summarize(
    outcomes: Sequence[ItemOutcome],
    *,
    model: str,
    model_path: str,
    items: str,
    method: Method,
    planned: int,
    skipped: int,
    seconds: float,
    stopped: Stopped | None,
) -> ChoiceResult:
    per: dict[str, list[bool]] = defaultdict(list)
    for o in outcomes:
        per[o.subject].append(o.correct)
    subjects = tuple(
        SubjectScore(s, len(v), sum(v), *wilson(sum(v), len(v))) for s, v in per.items()
    )
    n = len(outcomes)
    correct = sum(o.correct for o in outcomes)
    return ChoiceResult(
        model=model,
        model_path=model_path,
        items=items,
        method=method,
        planned=planned,
        n=n,
        correct=correct,
        accuracy=correct / n if n else 0.0,
        accuracy_ci=wilson(correct, n),
        chance=float(np.mean([1.0 / o.n_options for o in outcomes])) if n else 0.0,
        subjects=subjects,
        outcomes=tuple(outcomes),
        skipped=skipped,
        seconds=seconds,
        complete=stopped is None and n + skipped == planned,
        stopped=stopped,
    )


def prompt_for(item: ChoiceItem, method: Method) -> tuple[str, list[str]]:
    """The question as the model sees it, and each option's continuation."""
    head, cue, space = PROMPTS[item.language]
    lines = [head.format(subject=item.subject), item.question.rstrip(), "\n"]
    if method == "letter":
        for label, option in zip(item.labels, item.options, strict=True):
            if option:
                lines.append(f"{label}. {option}\n")
        lines.append(cue)
        return "".join(lines), [space + label for label in item.labels]
    for label, option in zip(item.labels, item.options, strict=True):
        if not option:
            raise QualityError(
                "Scoring by option text needs the options apart from the question; use the "
                "letter method for this set.",
                kind="quality.items",
            )
        lines.append(f"{label}. {option}\n")
    lines.append(cue)
    return "".join(lines), [space + option for option in item.options]


class _Scorer:
    """One loaded model answering items."""

    def __init__(
        self, client: EngineClient, settings: ChoiceSettings, should_stop: Callable[[], bool]
    ):
        self.client = client
        self.settings = settings
        self.should_stop = should_stop
        self._continuations: dict[str, np.ndarray] = {}

    def _wait(self, request: Request) -> p.Event:
        asked = False
        while not request.done:
            request.wait(POLL_S)
            if not asked and self.should_stop():
                self.client.cancel(request.id)
                asked = True
        return request.wait()

    def _tokens(self, text: str, *, bos: bool) -> np.ndarray:
        event = self._wait(self.client.tokenize(text, add_bos=bos))
        if isinstance(event, p.Error):
            raise WorkerError(event)
        assert isinstance(event, p.Tokenized)
        return decode_ints(event.tokens)

    def _continuation(self, text: str) -> np.ndarray:
        if text not in self._continuations:
            self._continuations[text] = self._tokens(text, bos=False)
        return self._continuations[text]

    def _evaluate(
        self, tokens: np.ndarray, first: int, n_out: int, **kw: Any
    ) -> p.Evaluated | None:
        event = self._wait(self.client.evaluate(encode_ints(tokens), first, n_out, **kw))
        if isinstance(event, p.Done) or (isinstance(event, p.Error) and event.kind == "cancelled"):
            return None
        if isinstance(event, p.Error):
            raise WorkerError(event)
        assert isinstance(event, p.Evaluated)
        return event

    def answer(self, item: ChoiceItem) -> int | None:
        """The predicted option, -1 when the question does not fit the context, None when
        stopped."""
        prompt, continuations = prompt_for(item, self.settings.method)
        context = self._tokens(prompt, bos=True)
        conts = [self._continuation(c) for c in continuations]
        longest = max(len(c) for c in conts)
        if len(context) + longest > self.settings.ctx:
            return -1
        if all(len(c) == 1 for c in conts) and self.settings.method == "letter":
            ids = np.array([c[0] for c in conts], np.int32)
            event = self._evaluate(
                context, len(context) - 1, 1, gather=encode_ints(ids), gather_width=len(ids)
            )
            if event is None:
                return None
            scores = unpack_scores(event.data, 1, 0, len(ids))
            return int(np.argmax(scores.gather_lp[0]))
        values = []
        for text, cont in zip(continuations, conts, strict=True):
            tokens = np.concatenate([context, cont])
            event = self._evaluate(tokens, len(context) - 1, len(cont), keep_prefix=True)
            if event is None:
                return None
            total = float(np.sum(unpack_scores(event.data, len(cont), 0, 0).target_lp))
            values.append(
                total / max(1, len(text.strip())) if self.settings.method == "text" else total
            )
        return int(np.argmax(values))


def score_items(
    model: Path,
    items: ItemSet,
    settings: ChoiceSettings,
    *,
    label: str,
    on_progress: Callable[[ChoiceProgress], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    only: set[str] | None = None,
) -> ChoiceResult:
    """Answer each item with ``model`` (``only``: just the items with these keys)."""
    todo = [i for i in items.items if only is None or i.key in only]
    if not todo:
        raise QualityError("There are no questions to answer.", kind="quality.items")
    client = EngineClient()
    client.start()
    outcomes: list[ItemOutcome] = []
    skipped = 0
    stopped: Stopped | None = None
    item_s: list[float] = []

    def result(seconds: float, stopped: Stopped | None) -> ChoiceResult:
        return summarize(
            outcomes,
            model=label,
            model_path=str(model),
            items=items.name,
            method=settings.method,
            planned=len(todo),
            skipped=skipped,
            seconds=seconds,
            stopped=stopped,
        )

    try:
        client.load_model(
            model,
            timeout=LOAD_TIMEOUT_S,
            n_ctx=settings.ctx,
            n_batch=min(settings.ctx, 512),
            n_threads=settings.n_threads,
            n_gpu_layers=settings.n_gpu_layers,
        )
        scorer = _Scorer(client, settings, should_stop)
        started = time.monotonic()
        for index, item in enumerate(todo):
            if item_s and settings.max_seconds is not None:
                expected = sum(item_s) / len(item_s)
                if time.monotonic() - started + expected > settings.max_seconds:
                    stopped = "budget"
                    break
            t = time.monotonic()
            predicted = scorer.answer(item)
            if predicted is not None and predicted >= 0:
                outcomes.append(
                    ItemOutcome(item.key, item.subject, item.answer, predicted, len(item.labels))
                )
            elif predicted is not None:
                skipped += 1
            if predicted is None or (should_stop() and index + 1 < len(todo)):
                stopped = "cancelled"
                break
            item_s.append(time.monotonic() - t)
            if on_progress is not None and outcomes:
                elapsed = time.monotonic() - started
                on_progress(ChoiceProgress(index + 1, len(todo), elapsed, result(elapsed, None)))
        seconds = time.monotonic() - started
    finally:
        client.close()
    if not outcomes:
        if stopped == "cancelled":
            raise Cancelled("The measurement was stopped before the first question was answered.")
        raise QualityError(
            f"No question fits a context of {settings.ctx} tokens; use a larger one.",
            kind="quality.items",
        )
    return result(seconds, stopped)
