"""A Playground answer as the history keeps it, and what it adds to this machine's calibration.

:class:`ChatSession <desktop.core.playground.ChatSession>` describes every answer that ended
(finished, stopped, or cut off by a failure: then marked with the error) as an
:class:`AnswerRecord`; the front end stores it off its GUI thread with :func:`store_answer`,
which writes it with :meth:`History.record_run <desktop.core.history.History.record_run>` and,
when the answer calibrates this machine's estimates (:func:`~desktop.core.fit.calibrates`: the
session then fills :attr:`AnswerRecord.loaded`), records the run for the calibration too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.engine import (
    Conversation,
    LoadSettings,
    RemoteEndpoint,
    RunReport,
    Session,
)
from desktop.core.engine import protocol as p
from desktop.core.fit import calibrates
from desktop.core.fit import record_run as record_calibration
from desktop.core.hardware import THIS_MACHINE, HardwareProfile
from desktop.core.history import History, settings_dict


@dataclass(frozen=True)
class AnswerRecord:
    """One answer as the history keeps it: what ran, with which settings, on which machine.

    ``extra``: more settings keys (the chat template, the profile the prediction was for);
    ``error``/``error_kind``: the answer was cut off by a failure (``report.text`` is what came).
    ``loaded``: the worker's load facts when the answer also calibrates this machine's
    estimates, else None.
    """

    report: RunReport
    model: Path | None  # None: a model on a server (``extra["remote"]`` says which)
    label: str
    prompt: str
    system: str | None
    load: LoadSettings
    params: p.SamplingParams
    profile: HardwareProfile | None
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_kind: str | None = None
    source: str = "playground"
    loaded: p.Loaded | None = None


def answer_record(
    report: RunReport,
    engine: Session,
    conversation: Conversation,
    *,
    label: str,
    prompt: str,
    remote: RemoteEndpoint | None,
    machine: HardwareProfile | None,
    predicted_for: str | None,
    error: str | None = None,
    error_kind: str | None = None,
) -> AnswerRecord:
    """The answer that just ended on ``engine``: run here, or on ``remote`` (stored with its
    endpoint and model name, never the key); predicted for this machine, or for the what-if
    profile ``predicted_for``; cut off by ``error``, or not. It calibrates this machine's
    estimates by :func:`~desktop.core.fit.calibrates`."""
    extra: dict[str, Any] = {}
    loaded = engine.loaded
    if remote is not None:
        extra["remote"] = remote.to_dict()
    elif loaded is not None:
        extra["template"] = loaded.template_name
        extra["n_gpu_layers_loaded"] = loaded.n_gpu_layers
    if predicted_for is not None and remote is None:
        extra["predicted_for"] = predicted_for
    here = calibrates(
        remote=remote is not None, what_if=predicted_for is not None, failed=error is not None
    )
    return AnswerRecord(
        report=report,
        model=None if remote is not None else Path(engine.path),
        label=label,
        prompt=prompt,
        system=conversation.system,
        load=engine.load_settings,
        params=conversation.params,
        profile=machine,
        extra=extra,
        error=error,
        error_kind=error_kind,
        loaded=loaded if here else None,
    )


def store_answer(answer: AnswerRecord) -> int:
    """Write ``answer`` to the app's history (blocking), and to the calibration when it
    calibrates; returns its id in the history."""
    with History.open() as history:
        record = history.record_run(
            answer.report,
            model=answer.model,
            prompt=answer.prompt,
            system=answer.system,
            label=answer.label,
            settings=settings_dict(answer.load, answer.params, **answer.extra),
            profile=answer.profile,
            machine=THIS_MACHINE,
            source=answer.source,
            error=answer.error,
            error_kind=answer.error_kind,
        )
    if answer.loaded is not None and answer.profile is not None:
        record_calibration(answer.report, answer.loaded, answer.profile, label=answer.label)
    return record.id
