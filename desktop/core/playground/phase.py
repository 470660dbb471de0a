"""The words a Playground session and its front end share: phases, failures, events, threads.

:class:`Phase` is where a :class:`~desktop.core.playground.ChatSession` is; a :class:`Failure`
says why a load, a connection or an answer did not finish; :class:`SessionEvents` are what the
session tells its front end; :class:`Background` is how the front end runs the session's
blocking work off its own thread (the window: its thread pool; a test: a thread and a queue).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, TypeVar

from desktop.core.engine import Answer
from desktop.core.engine import protocol as p
from desktop.core.errors import ScoutError
from desktop.core.hardware import HardwareProfile
from desktop.core.playground.record import AnswerRecord

T = TypeVar("T")


class Phase(str, Enum):
    """Where the session is; the value is the word the front end's signal carries."""

    EMPTY = "empty"  # no model (never loaded, unloaded)
    LOADING = "loading"  # a worker starts and loads, or a server is checked
    READY = "ready"  # loaded: a message can be sent
    GENERATING = "generating"  # an answer streams
    ERROR = "error"  # the engine is gone or refused the model; Reload may help

    @property
    def engaged(self) -> bool:
        """A model is loading, loaded or answering: its memory and speed are followed."""
        return self in (Phase.LOADING, Phase.READY, Phase.GENERATING)

    @property
    def busy(self) -> bool:
        """Something streams: a load's progress or an answer."""
        return self in (Phase.LOADING, Phase.GENERATING)


class AnswerStatus(str, Enum):
    """What the status line under the chat says about the answer: it follows the session's
    :class:`Phase` and what streamed, so it never says "waiting" once text came, after an
    answer ended or after the engine went away."""

    NONE = "none"  # nothing asked with this model yet (or the conversation was cleared)
    WAITING = "waiting"  # asked; no token has come yet
    STREAMING = "streaming"  # tokens arrive
    ANSWERED = "answered"  # the last answer ended (stopped, cut off or whole): its figures
    FAILED = "failed"  # the last answer failed; the model still serves
    ENGINE_GONE = "engine_gone"  # the worker died or the server went away (phase ``error``)
    UNLOADED = "unloaded"  # the model was unloaded


class Control(Protocol):
    """What a piece of background work sees of its caller."""

    def should_stop(self) -> bool: ...


class Task(Protocol):
    """Background work in flight: after :meth:`stop` its callbacks no longer come."""

    def stop(self) -> None: ...


class Background(Protocol):
    """Runs ``work`` off the caller's thread; ``done`` (its result) or ``failed`` (its
    exception) are called back on the caller's thread."""

    def __call__(
        self,
        work: Callable[[Control], T],
        done: Callable[[T], None],
        failed: Callable[[Exception], None],
    ) -> Task: ...


@dataclass(frozen=True)
class RunContext:
    """What the answers are measured for: this machine's profile (stored with each answer) and,
    when the prediction was made for a what-if profile, its name (then nothing calibrates)."""

    machine: HardwareProfile | None = None
    predicted_for: str | None = None


@dataclass(frozen=True)
class Failure:
    """Why a load, a connection or an answer did not finish.

    ``fatal``: the engine is gone (the session is in ``error``); ``loading``: it happened
    while loading or connecting; ``detail``: llama.cpp's log or the error's own detail;
    ``partial``: what an answer had said when it failed.
    """

    error: Exception
    fatal: bool
    loading: bool = False
    remote: bool = False
    detail: str = ""
    partial: str = ""

    @property
    def kind(self) -> str:
        return self.error.kind if isinstance(self.error, ScoutError) else "error"

    @property
    def message(self) -> str:
        return self.error.message if isinstance(self.error, ScoutError) else str(self.error)


def ignore(*_args: object) -> None:
    return None


@dataclass
class SessionEvents:
    """What the session tells its front end (called on the front end's thread)."""

    phase_changed: Callable[[Phase], None] = ignore
    loaded: Callable[[p.Loaded], None] = ignore  # loaded, or connected (``remote`` set)
    load_failed: Callable[[Failure], None] = ignore  # the session is in ``error`` after it
    answer_finished: Callable[[Answer], None] = ignore
    answer_failed: Callable[[Failure], None] = ignore  # ``error`` after it when fatal
    engine_stopped: Callable[[Failure], None] = ignore  # died while the model waited
    answer_status_changed: Callable[[AnswerStatus], None] = ignore
    record: Callable[[AnswerRecord], None] = ignore  # store it (off the front end's thread)
