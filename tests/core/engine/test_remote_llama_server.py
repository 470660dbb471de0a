"""The remote engine against a real OpenAI-compatible server: llama-cpp-python's own
``llama_cpp.server`` serving the SmolLM2 demo model on 127.0.0.1. Streaming, cancel, usage,
and the same model local and served side by side in a fair comparison."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.compare import (
    CompareRunner,
    ComparisonPlan,
    Prompt,
    build_contestants,
    render,
)
from desktop.core.engine import LoadSettings, RemoteClient, RemoteEndpoint, Session, WorkerError
from desktop.core.engine import protocol as p
from desktop.core.history import History
from desktop.core.workspace import Workspace
from tests.fixtures.llama_server import LlamaServer

pytestmark = [pytest.mark.e2e]

GREEDY = p.SamplingParams(temperature=0.0, seed=1, max_tokens=16)


def _session(server: LlamaServer, model: str | None = None) -> Session:
    endpoint = RemoteEndpoint(server.url, model or server.model)
    return Session(endpoint.base_url, LoadSettings(n_ctx=512), client=RemoteClient(endpoint))


def test_a_served_model_streams_and_counts_its_tokens(llama_server: LlamaServer) -> None:
    with _session(llama_server) as session:
        loaded = session.open(30.0)
        request = session.generate(
            messages=[p.ChatMessage("user", "Name three fruits.")], params=GREEDY
        )
        pieces: list[str] = []
        done = session.stream(request, pieces.append)
        report = session.report(request)
    assert loaded.architecture == "remote"
    assert loaded.n_ctx == 512
    assert len(pieces) >= 2  # streamed, not one block at the end
    assert "".join(pieces) == request.text == report.text
    assert report.text.strip()
    # This server sends no usage in a stream: one token per delta, counted here.
    assert done.generated_tokens == len(pieces) == report.metrics.generated_tokens
    assert done.finish_reason in ("stop", "length")
    assert report.metrics.ttft_ms is not None
    assert report.metrics.ttft_ms > 0
    assert report.metrics.tokens_per_s is not None
    assert report.metrics.tokens_per_s > 0
    assert report.timing_source == "client"
    assert report.memory_source == "unknown"  # no /metrics, no /api/ps
    assert report.rss_peak_bytes is None


def test_cancel_stops_a_served_answer_and_keeps_what_came(llama_server: LlamaServer) -> None:
    with _session(llama_server) as session:
        session.open(30.0)
        long = p.SamplingParams(temperature=0.0, seed=1, max_tokens=400, ignore_eos=True)
        request = session.generate(
            messages=[p.ChatMessage("user", "Write a long story about a cat.")], params=long
        )
        n = 0
        for event in request.events(timeout=30.0):
            if isinstance(event, p.Tokens):
                n += 1
                if n == 3:
                    session.client.cancel(request.id)
        terminal = request.terminal
    assert isinstance(terminal, p.Done)
    assert terminal.finish_reason == "cancelled"
    assert request.text.strip()
    assert 3 <= terminal.generated_tokens < 400


def test_a_model_the_server_does_not_serve_is_refused_by_name(llama_server: LlamaServer) -> None:
    with _session(llama_server, "qwen") as session, pytest.raises(WorkerError) as info:
        session.open(30.0)
    assert info.value.kind == "engine.model_not_found"
    assert info.value.message == (
        f"The server at {llama_server.url} has no model named 'qwen'; it serves: smollm2."
    )


def test_the_same_model_local_and_served_compare_side_by_side(
    llama_server: LlamaServer, smollm2_path: Path, tmp_path: Path
) -> None:
    ws = Workspace.load()
    contestants = build_contestants(
        ws.resolver,
        ["smollm2", f"{llama_server.url}@model={llama_server.model}"],
        load=LoadSettings(n_ctx=512),
        sampling=GREEDY,
    )
    assert contestants[1].remote
    assert contestants[1].display_name == f"smollm2 @ {llama_server.url.split('/')[2]}"
    plan = ComparisonPlan(tuple(contestants), (Prompt("What is the capital of France?"),))
    assert plan.mode == "fair"
    with History(tmp_path / "history.db") as history:
        result = CompareRunner(plan, history=history, profile=ws.profile()[0]).run()
        stored = history.comparison(result.id or 0)
    assert [o.status for o in result.outcomes] == ["done", "done"]
    local, served = sorted(result.answers, key=lambda a: a.contestant)
    assert local.text.strip()
    assert served.text.strip()
    # The same file, the same llama.cpp, greedy: the same answer through either engine.
    assert served.text == local.text
    assert served.report is not None
    assert local.report is not None
    assert local.report.rss_peak_bytes is not None
    assert served.report.rss_peak_bytes is None
    assert served.report.predicted_ram_bytes is None
    assert served.report.memory_source == "unknown"
    rows = result.summary()
    assert (rows[0].remote, rows[1].remote) == (False, True)
    markdown = render(result, "md")
    assert "no prediction: remote" in markdown
    assert "unknown" in markdown
    # The history keeps the endpoint and the model name, and no file, for the served one.
    record = stored.contestants[1]
    assert record.model is None
    assert record.settings["remote"] == {"endpoint": llama_server.url, "model": "smollm2"}
    assert record.spec == f"{llama_server.url}@model=smollm2"
