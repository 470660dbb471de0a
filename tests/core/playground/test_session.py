"""The Playground's session without Qt, on the real SmolLM2 demo model: load, send, stop,
regenerate, a worker that dies (while answering and while waiting), reload, what is stored and
what calibrates. Its blocking work runs on plain threads (``ThreadBackground``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from desktop.core.engine import Answer, LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.fit import FitTarget
from desktop.core.gguf import read_gguf_split
from desktop.core.hardware import load_profile
from desktop.core.playground import (
    AnswerRecord,
    AnswerStatus,
    ChatSession,
    Failure,
    LiveUpdate,
    Phase,
    RunContext,
    SessionEvents,
)
from tests.fixtures.background import ThreadBackground

pytestmark = [pytest.mark.e2e]

WAIT_S = 180.0
GREEDY = p.SamplingParams(temperature=0.0, seed=1, max_tokens=24)
LONG = p.SamplingParams(temperature=0.8, seed=1, max_tokens=900)


@dataclass
class Seen:
    """Everything the session told its front end, in order."""

    phases: list[Phase] = field(default_factory=list)
    loaded: list[p.Loaded] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    failures: list[tuple[str, Failure]] = field(default_factory=list)
    records: list[AnswerRecord] = field(default_factory=list)
    updates: list[LiveUpdate] = field(default_factory=list)
    statuses: list[AnswerStatus] = field(default_factory=list)

    def events(self) -> SessionEvents:
        return SessionEvents(
            phase_changed=self.phases.append,
            loaded=self.loaded.append,
            load_failed=lambda f: self.failures.append(("load", f)),
            answer_finished=self.answers.append,
            answer_failed=lambda f: self.failures.append(("answer", f)),
            engine_stopped=lambda f: self.failures.append(("stopped", f)),
            answer_status_changed=self.statuses.append,
            record=self.records.append,
        )

    def bands(self) -> list[str | None]:
        return [kind for u in self.updates for kind, _t in u.bands]


@pytest.fixture
def chat() -> Iterator[tuple[ChatSession, ThreadBackground, Seen]]:
    background, seen = ThreadBackground(), Seen()
    session = ChatSession(background, seen.events())
    yield session, background, seen
    session.close()
    assert background.join(30.0)  # the worker ended off the caller's thread


def phase(session: ChatSession) -> Phase:
    """The session's phase now (a call: mypy keeps no narrowing across the pumps)."""
    return session.phase


def status(session: ChatSession) -> AnswerStatus:
    """The session's answer status now (a call, as :func:`phase`)."""
    return session.answer_status


def drained_until(
    background: ThreadBackground, session: ChatSession, seen: Seen, done: object
) -> None:
    """Pump the callbacks, draining the feed as a front end's timer does."""

    def check() -> bool:
        seen.updates.append(session.drain())
        return bool(done() if callable(done) else done)

    background.pump(check, WAIT_S)


def load(session: ChatSession, background: ThreadBackground, seen: Seen, path: Path) -> None:
    profile = load_profile("laptop-16gb-cpu")
    session.load(
        path,
        LoadSettings(n_ctx=1024),
        label="SmolLM2",
        target=FitTarget.from_gguf(read_gguf_split(path)),
        profile=profile,
        context=RunContext(machine=profile),
        params=GREEDY,
    )
    assert phase(session) is Phase.LOADING
    drained_until(background, session, seen, lambda: session.phase is not Phase.LOADING)
    assert phase(session) is Phase.READY, seen.failures


def test_a_chat_loads_answers_stops_and_regenerates(
    chat: tuple[ChatSession, ThreadBackground, Seen], smollm2_path: Path
) -> None:
    session, background, seen = chat
    assert not session.send("Too early.")  # nothing loaded
    load(session, background, seen, smollm2_path)
    assert seen.loaded
    assert seen.loaded[0].n_ctx == 1024
    assert session.threads == seen.loaded[0].n_threads  # the default threads, as loaded
    assert session.prediction is not None
    assert session.prediction.tokens_per_s is not None

    assert session.send("Name three colours.", params=GREEDY)
    assert phase(session) is Phase.GENERATING
    assert status(session) is AnswerStatus.WAITING
    assert not session.send("Twice at once?")
    drained_until(background, session, seen, lambda: seen.answers)
    answer = seen.answers[0]
    # The status line's word: waiting, then streaming once text came, then answered.
    assert seen.statuses == [AnswerStatus.WAITING, AnswerStatus.STREAMING, AnswerStatus.ANSWERED]
    assert answer.text.strip()
    assert phase(session) is Phase.READY
    assert session.streamed == answer.text  # what the feed carried is the answer
    # The bands in order, each ended by the session's own marks.
    assert seen.bands() == ["load", None, "prompt", "generation", None]
    points = [point for u in seen.updates for point in u.speed]
    assert points  # a point per batch of tokens (see test_timeline for the count)
    assert all(rate > 0 for _t, rate in points)
    # Stored, and it calibrates: run here, predicted for this machine, finished.
    record = seen.records[0]
    assert record.report is answer.report
    assert record.prompt == "Name three colours."
    assert record.error is None
    assert record.loaded is not None
    assert record.extra["template"] == seen.loaded[0].template_name

    # Stop: what came is kept, marked cancelled.
    assert session.send("Write a very long story about a lighthouse keeper.", params=LONG)
    drained_until(background, session, seen, lambda: len(session.streamed) > 20)
    session.stop()
    drained_until(background, session, seen, lambda: len(seen.answers) == 2)
    stopped = seen.answers[1]
    assert stopped.finish_reason == "cancelled"
    assert stopped.text
    assert session.conversation is not None
    assert session.conversation.turns[-1].finish_reason == "cancelled"

    # Regenerate: the last message again, its answer replaced.
    assert session.regenerate(params=GREEDY) == "Write a very long story about a lighthouse keeper."
    assert len(session.conversation.turns) == 1  # the one being answered again is out
    drained_until(background, session, seen, lambda: len(seen.answers) == 3)
    assert len(session.conversation.turns) == 2
    # A message that does not fit the context ends that answer only: the model stays ready.
    records = len(seen.records)
    assert session.send("word " * 3000, params=GREEDY)
    drained_until(background, session, seen, lambda: seen.failures)
    where, failure = seen.failures[0]
    assert (where, failure.kind, failure.fatal) == ("answer", "engine.context_overflow", False)
    assert phase(session) is Phase.READY
    assert len(seen.records) == records  # nothing came: nothing to store
    assert status(session) is AnswerStatus.FAILED
    assert session.clear()
    assert session.conversation.turns == []
    assert status(session) is AnswerStatus.NONE
    assert session.unload()
    assert phase(session) is Phase.EMPTY
    assert status(session) is AnswerStatus.UNLOADED
    assert session.threads is None


def test_a_worker_that_dies_ends_the_run_keeps_what_came_and_reloads(
    chat: tuple[ChatSession, ThreadBackground, Seen], smollm2_path: Path
) -> None:
    session, background, seen = chat
    load(session, background, seen, smollm2_path)
    assert session.send("Say hello.", params=GREEDY)
    drained_until(background, session, seen, lambda: seen.answers)
    assert session.send("Write a very long story about a lighthouse keeper.", params=LONG)
    drained_until(background, session, seen, lambda: len(session.streamed) > 10)
    engine = session.engine
    assert engine is not None
    engine.client.kill()  # the worker dies in the middle of an answer
    drained_until(background, session, seen, lambda: seen.failures)
    where, failure = seen.failures[0]
    assert where == "answer"
    assert failure.fatal
    assert failure.kind == "engine.crashed"
    assert "SIGKILL" in failure.message
    assert failure.detail.strip()  # llama.cpp's log
    assert failure.partial == session.streamed
    assert phase(session) is Phase.ERROR
    assert status(session) is AnswerStatus.ENGINE_GONE
    assert seen.statuses[-3:] == [
        AnswerStatus.WAITING,
        AnswerStatus.STREAMING,
        AnswerStatus.ENGINE_GONE,
    ]
    assert session.conversation is not None
    assert session.conversation.turns[-1].finish_reason == "crashed"
    # Stored as cut off, and it does not calibrate.
    cut = seen.records[-1]
    assert cut.error == failure.message
    assert cut.error_kind == "engine.crashed"
    assert cut.report.finish_reason == "crashed"
    assert cut.loaded is None

    # Reload: the same model and settings, the conversation kept.
    assert session.reload()
    drained_until(background, session, seen, lambda: session.phase is not Phase.LOADING)
    assert phase(session) is Phase.READY
    assert session.conversation.turns[0].user == "Say hello."

    # A worker that dies while the model waits is noticed at the next drain.
    engine = session.engine
    assert engine is not None
    engine.client.kill()
    died = False

    def noticed() -> bool:
        nonlocal died
        died = session.died(session.drain())
        return died

    background.pump(noticed, WAIT_S)
    assert phase(session) is Phase.ERROR
    assert status(session) is AnswerStatus.ENGINE_GONE
    where, failure = seen.failures[-1]
    assert where == "stopped"
    assert failure.fatal
    assert "SIGKILL" in failure.message


def test_an_answer_predicted_for_a_what_if_profile_does_not_calibrate(
    chat: tuple[ChatSession, ThreadBackground, Seen], smollm2_path: Path
) -> None:
    session, background, seen = chat
    tiny = load_profile("raspberry-pi-5-8gb")
    session.load(
        smollm2_path,
        LoadSettings(n_ctx=512),
        label="SmolLM2",
        target=FitTarget.from_gguf(read_gguf_split(smollm2_path)),
        profile=tiny,
        context=RunContext(machine=None, predicted_for="Raspberry Pi 5"),
    )
    drained_until(background, session, seen, lambda: session.phase is Phase.READY)
    assert session.send("Hi.", params=GREEDY)
    drained_until(background, session, seen, lambda: seen.records)
    record = seen.records[0]
    assert record.extra["predicted_for"] == "Raspberry Pi 5"
    assert record.loaded is None


def test_a_file_that_does_not_load_says_why(
    chat: tuple[ChatSession, ThreadBackground, Seen], smollm2_path: Path, tmp_path: Path
) -> None:
    session, background, seen = chat
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(smollm2_path.read_bytes()[:100_000])
    assert not session.load(damaged, LoadSettings(n_ctx=512), label="damaged")
    drained_until(background, session, seen, lambda: seen.failures)
    where, failure = seen.failures[0]
    assert where == "load"
    assert failure.loading
    assert failure.kind == "engine.truncated"
    assert phase(session) is Phase.ERROR
    assert seen.bands() == ["load", None]
