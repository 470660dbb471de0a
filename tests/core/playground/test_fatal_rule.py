"""The Playground and Compare end a run at the same failures: one rule, seen from both.

A server on 127.0.0.1 fails in the middle of an answer on cue (a stall past the stall timeout,
an error event, a malformed event, a cut connection). The Playground's session goes to the error
state, the partial answer kept; a comparison marks the same contestant failed with the same kind
and runs nothing more on it, while a healthy contestant answers every prompt. (Before, a
worker's or server's timeout ended a comparison's contestant but not a Playground answer.)
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop.core.compare import (
    CompareRunner,
    ComparisonPlan,
    Prompt,
    PromptSuite,
    remote_contestant,
)
from desktop.core.engine import LoadSettings, RemoteEndpoint
from desktop.core.engine import protocol as p
from desktop.core.errors import is_fatal
from desktop.core.playground import ChatSession, Failure, Phase, SessionEvents
from tests.fixtures.background import ThreadBackground
from tests.fixtures.sse_server import FakeOpenAI

STALL_S = 0.5
FAULTS = {  # the server's fault -> the kind the client reports
    "stall": "engine.timeout",
    "error_event": "engine.server_error",
    "malformed": "engine.malformed",
    "die": "engine.disconnected",
}


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    with FakeOpenAI() as failing, FakeOpenAI() as healthy:
        yield failing, healthy


def endpoint(server: FakeOpenAI) -> RemoteEndpoint:
    return RemoteEndpoint(server.url, "smol", stall_timeout_s=STALL_S)


def playground_failure(server: FakeOpenAI) -> tuple[Failure, ChatSession]:
    background = ThreadBackground()
    failures: list[Failure] = []
    session = ChatSession(background, SessionEvents(answer_failed=failures.append))
    session.connect(endpoint(server), LoadSettings(n_ctx=512))
    background.pump(lambda: session.phase is not Phase.LOADING, 30.0)
    assert session.phase is Phase.READY
    assert session.send("Hello?")
    background.pump(lambda: bool(failures), 30.0)
    session.close()
    assert background.join(10.0)
    return failures[0], session


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_server_failing_mid_answer_ends_the_run_in_the_playground_and_in_compare(
    servers: tuple[FakeOpenAI, FakeOpenAI], fault: str
) -> None:
    failing, healthy = servers
    failing.fault = fault
    kind = FAULTS[fault]
    assert is_fatal(kind)

    failure, session = playground_failure(failing)
    assert failure.kind == kind
    assert failure.fatal
    assert session.phase is Phase.ERROR
    assert failure.partial == "Hello,"  # what came before the failure is kept
    assert session.conversation is not None
    assert session.conversation.turns[-1].finish_reason == "crashed"

    asked_before = len(failing.completions())
    suite = PromptSuite("two", (Prompt("First?", "p1"), Prompt("Second?", "p2")))
    sampling = p.SamplingParams(max_tokens=16)
    plan = ComparisonPlan.for_suite(
        [
            remote_contestant(endpoint(failing), sampling=sampling),
            remote_contestant(endpoint(healthy), sampling=sampling),
        ],
        suite,
    )
    result = CompareRunner(plan).run()
    failed, fine = result.outcomes
    assert failed.status == "failed"
    assert failed.error_kind == kind
    assert len(failing.completions()) - asked_before == 1  # nothing more asked of it
    assert fine.status == "done"
    assert sorted(a.prompt for a in result.answers if a.contestant == 1) == [0, 1]
