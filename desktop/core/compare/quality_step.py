"""Running a comparison's quality check: each contestant in turn, through core/quality.

:class:`QualityStep` runs after the answers (the runner calls it on its own thread): for each
contestant it loads the model in a fresh engine worker (core/quality's), answers the questions
or scores the text, posts :class:`~desktop.core.compare.events.QualityStarted`, a
:class:`~desktop.core.compare.events.QualityProgress` per question or chunk and
:class:`~desktop.core.compare.events.QualityFinished`, and stores the result in the history as
a measurement of the contestant's model (the measurement hook ``llm-scout quality`` uses),
tagged with the comparison and the contestant so the comparison finds it again. The questions
and the text are read once; a file that cannot be used (a question file with a missing column,
a text shorter than one chunk), a model that does not load or a reference with another
vocabulary fail that contestant's check with one sentence, and the next one runs. A server
contestant is skipped: there are no logits to score.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from desktop.core.compare.contestants import Contestant
from desktop.core.compare.events import (
    CompareEvent,
    QualityFinished,
    QualityProgress,
    QualityStarted,
)
from desktop.core.compare.quality_check import QualityCheck, QualityOutcome
from desktop.core.errors import ScoutError
from desktop.core.hardware import HardwareProfile
from desktop.core.history import History, ModelRef
from desktop.core.quality import (
    ChoiceProgress,
    ChoiceResult,
    ChoiceSettings,
    EvalText,
    ItemSet,
    LossProgress,
    LossResult,
    LossSettings,
    load_items,
    load_text,
    measure_loss,
    measurement_of,
    score_items,
)

log = logging.getLogger(__name__)

NO_LOGITS = "A model behind a server gives no logits to score here."


class QualityStep:
    """One quality check over the contestants of a plan (see the module docstring)."""

    def __init__(
        self,
        check: QualityCheck,
        contestants: Sequence[Contestant],
        *,
        post: Callable[[CompareEvent], None],
        should_stop: Callable[[], bool],
        history: History | None = None,
        comparison_id: int | None = None,
        models: Sequence[ModelRef | None] = (),
        profile: HardwareProfile | None = None,
        machine: str = "",
    ) -> None:
        self.check = check
        self.contestants = contestants
        self.post = post
        self.should_stop = should_stop
        self.history = history
        self.comparison_id = comparison_id
        self.models = list(models) or [None] * len(contestants)
        self.profile = profile
        self.machine = machine
        self._items: ItemSet | str | None = None  # read once; a str: why it cannot be
        self._text: EvalText | str | None = None

    def run(self, todo: Sequence[int]) -> None:
        """Measure the contestants ``todo``, one after another, until stopped."""
        for c in todo:
            if self.should_stop():
                self.post(QualityFinished(QualityOutcome(c, "cancelled", reason="Stopped.")))
                continue
            self.post(QualityFinished(self._one(c)))

    # -- one contestant --------------------------------------------------------------------

    def _one(self, c: int) -> QualityOutcome:
        contestant = self.contestants[c]
        if contestant.endpoint is not None:
            return QualityOutcome(c, "skipped", reason=NO_LOGITS)
        planned = self.check.limit if self.check.kind == "items" else None
        self.post(QualityStarted(c, contestant.display_name, planned))
        try:
            if contestant.unavailable is not None:
                raise ScoutError(contestant.unavailable)
            path = contestant.model.require_file()
            result = (
                self._choice(c, contestant, path)
                if self.check.kind == "items"
                else self._loss(c, contestant, path)
            )
        except ScoutError as exc:
            if self.should_stop():
                return QualityOutcome(c, "cancelled", reason="Stopped.")
            return QualityOutcome(c, "failed", reason=exc.message)
        # Stopped part way: what was measured counts, as with `llm-scout quality` and Ctrl-C.
        return QualityOutcome(c, "done", result, measurement_id=self._store(c, result))

    def _choice(self, c: int, contestant: Contestant, path: Path) -> ChoiceResult:
        items = self._read_items()
        settings = ChoiceSettings(
            n_threads=contestant.load.n_threads,
            n_gpu_layers=contestant.load.n_gpu_layers,
            max_seconds=self.check.max_seconds,
        )

        def progress(p: ChoiceProgress) -> None:
            r = p.result
            self.post(QualityProgress(c, p.done, p.total, r.accuracy, r.accuracy_ci))

        return score_items(
            path,
            items,
            settings,
            label=contestant.display_name,
            on_progress=progress,
            should_stop=self.should_stop,
        )

    def _loss(self, c: int, contestant: Contestant, path: Path) -> LossResult:
        reference = Path(self.check.source).expanduser()
        settings = LossSettings(
            ctx=self.check.ctx,
            n_threads=contestant.load.n_threads,
            n_gpu_layers=contestant.load.n_gpu_layers,
            max_seconds=self.check.max_seconds,
        )

        def progress(p: LossProgress) -> None:
            r = p.result
            value = r.kld if r is not None else None
            interval = r.kld_ci if r is not None else None
            self.post(QualityProgress(c, p.done, p.total, value, interval))

        return measure_loss(
            path,
            reference,
            None if self.check.pack else self._read_text(),
            settings,
            model_label=contestant.display_name,
            reference_label=reference.name,
            on_progress=progress,
            should_stop=self.should_stop,
        )

    def _read_items(self) -> ItemSet:
        if self._items is None:
            try:
                self._items = load_items(self.check.source, limit=self.check.limit)
            except ScoutError as exc:
                self._items = exc.message
        if isinstance(self._items, str):
            raise ScoutError(self._items)
        return self._items

    def _read_text(self) -> EvalText:
        if self._text is None:
            try:
                self._text = load_text(self.check.text)
            except ScoutError as exc:
                self._text = exc.message
        if isinstance(self._text, str):
            raise ScoutError(self._text)
        return self._text

    def _store(self, c: int, result: LossResult | ChoiceResult) -> int | None:
        """The result as a measurement of the contestant's model, tagged with the comparison;
        its id (None: no history, or it could not be written: the result is still shown)."""
        model = self.models[c] if c < len(self.models) else None
        if self.history is None or model is None:
            return None
        m = measurement_of(result)
        try:
            record = self.history.record_measurement(
                m.kind,
                metric=m.metric,
                value=m.value,
                data=m.data,
                model=model,
                settings={**m.settings, "comparison": self.comparison_id, "contestant": c},
                profile=self.profile,
                machine=self.machine,
            )
        except ScoutError as exc:
            log.warning("a quality result was not stored: %s", exc)
            return None
        return record.id
