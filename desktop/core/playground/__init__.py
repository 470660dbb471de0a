"""The Playground without its window: a chat with one model, and the rules the window follows.

Owns the :class:`ChatSession` (a state machine over :class:`Phase`: load or connect, send, stop,
regenerate, unload, reload; which failures end a run; what is stored and what calibrates), the
feed between the engine's threads and the front end and the :class:`Timeline` that turns it into
bands and live tokens/s points, how often the window draws (:func:`drawing_pace`), the facts a
model file's load settings start from, the models that can be loaded here, answers as the history
keeps them, and transcripts saved as Markdown or JSON. Depends on engine (sessions), fit
(predictions, calibration), library and catalog (model files), hardware and history.
"""

from desktop.core.playground.facts import ModelFacts, local_models, read_model_facts
from desktop.core.playground.feed import Drained, EngineFeed
from desktop.core.playground.pace import (
    ACTIVE_TICK_MS,
    IDLE_TICK_MS,
    SPARING_TICK_MS,
    TEXT_TICK_MS,
    DrawingPace,
    PaceNote,
    drawing_pace,
)
from desktop.core.playground.phase import (
    AnswerStatus,
    Background,
    Control,
    Failure,
    Phase,
    RunContext,
    SessionEvents,
    Task,
)
from desktop.core.playground.record import AnswerRecord, store_answer
from desktop.core.playground.session import ChatSession
from desktop.core.playground.timeline import LiveUpdate, Timeline
from desktop.core.playground.transcript import transcript_document, write_transcript

__all__ = [
    "ACTIVE_TICK_MS",
    "IDLE_TICK_MS",
    "SPARING_TICK_MS",
    "TEXT_TICK_MS",
    "AnswerRecord",
    "AnswerStatus",
    "Background",
    "ChatSession",
    "Control",
    "Drained",
    "DrawingPace",
    "EngineFeed",
    "Failure",
    "LiveUpdate",
    "ModelFacts",
    "PaceNote",
    "Phase",
    "RunContext",
    "SessionEvents",
    "Task",
    "Timeline",
    "drawing_pace",
    "local_models",
    "read_model_facts",
    "store_answer",
    "transcript_document",
    "write_transcript",
]
