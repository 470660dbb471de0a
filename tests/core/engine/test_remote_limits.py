"""Remote engines against servers that misbehave without failing (issue 22): a server that
ignores max_tokens, one that drips keep-alives forever, one that never ends a line, one that
answers bytes that are not text or not HTTP. Real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.cli import main
from desktop.core import paths
from desktop.core.engine import RemoteClient, RemoteEndpoint
from desktop.core.engine import protocol as p
from desktop.core.engine.remote_stream import MAX_LINE_BYTES
from tests.fixtures.sse_server import FakeOpenAI, GarbageServer


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _client(url: str, **kw: float) -> RemoteClient:
    client = RemoteClient(RemoteEndpoint(url, "smol", **kw))  # type: ignore[arg-type]
    client.start()
    return client


def _answer(client: RemoteClient, max_tokens: int = 256) -> tuple[object, p.Event | None]:
    request = client.generate(
        messages=[p.ChatMessage("user", "hi")], params=p.SamplingParams(max_tokens=max_tokens)
    )
    event = request.wait(60.0)
    client.close()
    return request, event


def test_max_tokens_holds_when_the_server_goes_on(server: FakeOpenAI) -> None:
    server.pieces = [f" w{i}" for i in range(200)]
    request, event = _answer(_client(server.url), max_tokens=5)
    assert isinstance(event, p.Done)
    assert event.finish_reason == "length"
    assert request.text == " w0 w1 w2 w3 w4"  # type: ignore[attr-defined]


def test_a_server_that_drips_keep_alives_meets_the_overall_deadline(server: FakeOpenAI) -> None:
    server.fault, server.after = "drip", 1
    started = time.monotonic()
    request, event = _answer(_client(server.url, stall_timeout_s=0.5), max_tokens=2)
    assert isinstance(event, p.Error), event
    assert event.kind == "timeout"
    assert "within 2.5 s" in event.message  # 0.5 s plus a second per token asked for
    assert "plus a second per token" in event.message
    assert "partial answer (5 characters) is kept" in event.message
    assert request.text == "Hello"  # type: ignore[attr-defined]
    assert time.monotonic() - started < 30.0  # not the keep-alives' "forever"


def test_a_line_that_never_ends_is_refused_without_holding_it(server: FakeOpenAI) -> None:
    server.fault, server.after = "long_line", 1
    server.line_bytes = 16 * MAX_LINE_BYTES
    tracemalloc.start()
    try:
        request, event = _answer(_client(server.url))
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(event, p.Error), event
    assert event.kind == "malformed"
    assert f"longer than {MAX_LINE_BYTES:,} bytes" in event.message
    assert request.text == "Hello"  # type: ignore[attr-defined]
    assert peak < 4 * MAX_LINE_BYTES  # the 64 MiB line was never held


def test_bytes_that_are_not_text_are_called_so(server: FakeOpenAI) -> None:
    server.fault, server.after = "binary", 1
    _request, event = _answer(_client(server.url))
    assert isinstance(event, p.Error), event
    assert event.kind == "malformed"
    assert "not text" in event.message


def test_a_server_that_answers_garbage_is_not_called_refused() -> None:
    with GarbageServer() as garbage:
        client = _client(garbage.url)
        load = client.load("", n_ctx=512).wait(30.0)
        _request, answer = _answer(client)
    for event in (load, answer):
        assert isinstance(event, p.Error), event
        assert event.kind == "malformed"
        assert "not HTTP" in event.message
        assert "refused" not in event.message


def test_the_silence_a_server_is_allowed_is_a_setting(
    server: FakeOpenAI, scout_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = paths.config_dir() / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"remote_timeout_s": 1}))
    server.fault = "stall"
    argv = ["run", "--endpoint", server.url, "--model", "smol", "--prompt", "hi"]
    started = time.monotonic()
    assert main(argv) == 1
    assert time.monotonic() - started < 30.0  # not the default minute
    err = capsys.readouterr().err
    assert "sent nothing for 1 s (the remote_timeout_s setting)" in err
    assert "Traceback" not in err
