"""The remote engine against a real (fake) OpenAI-compatible server on 127.0.0.1: streaming,
usage, timings, memory, cancel, and every way a server can fail, with the partial answer kept."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from desktop.core.engine import LoadSettings, RemoteClient, RemoteEndpoint, Session, WorkerError
from desktop.core.engine import protocol as p
from tests.fixtures.sse_server import FakeOpenAI, closed_port

KEY = "sk-test-very-secret-4242"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _client(url: str, model: str = "smol", **kw: float) -> RemoteClient:
    client = RemoteClient(RemoteEndpoint(url, model, **kw))  # type: ignore[arg-type]
    client.start()
    return client


def _load_error(client: RemoteClient) -> p.Error:
    event = client.load("", n_ctx=512).wait(10.0)
    client.close()
    assert isinstance(event, p.Error)
    return event


def _answer(client: RemoteClient, **kw: object) -> tuple[object, p.Event]:
    request = client.generate(messages=[p.ChatMessage("user", "hi")], **kw)  # type: ignore[arg-type]
    event = request.wait(10.0)
    client.close()
    return request, event


# -- streaming ----------------------------------------------------------------------------


def test_a_streamed_answer_arrives_as_tokens_and_ends_with_the_servers_usage(
    server: FakeOpenAI,
) -> None:
    client = _client(server.url)
    loaded = client.load("", n_ctx=777).result(10.0)
    assert isinstance(loaded, p.Loaded)
    assert loaded.n_ctx == 777  # the server did not say: what was asked for
    assert loaded.architecture == "remote"
    params = p.SamplingParams(temperature=0.0, top_k=5, min_p=0.1, seed=3, max_tokens=9)
    request = client.generate(
        messages=[p.ChatMessage("user", "hi")], system="be brief", params=params
    )
    events = list(request.events(timeout=10.0))
    client.close()
    tokens = [e for e in events if isinstance(e, p.Tokens)]
    assert [t.text for t in tokens] == ["Hello", ",", " world", "!"]
    done = events[-1]
    assert isinstance(done, p.Done)
    assert (done.finish_reason, done.prompt_tokens, done.generated_tokens) == ("stop", 7, 4)
    assert request.text == "Hello, world!"
    assert request.meter.ttft_ms() is not None
    body = server.completions()[0].body
    assert server.completions()[0].path == "/v1/chat/completions"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["temperature"], body["top_k"], body["min_p"], body["seed"]) == (0.0, 5, 0.1, 3)
    assert body["max_tokens"] == 9
    assert "Authorization" not in server.completions()[0].headers


def test_a_session_on_a_server_reports_speed_from_the_client_and_memory_as_unknown(
    server: FakeOpenAI,
) -> None:
    server.usage = False  # llama-cpp-python's server: no usage in a stream
    endpoint = RemoteEndpoint(server.url, "smol")
    with Session(endpoint.base_url, LoadSettings(n_ctx=256), client=RemoteClient(endpoint)) as s:
        s.open(10.0)
        request = s.generate(messages=[p.ChatMessage("user", "hi")])
        done = s.stream(request)
        report = s.report(request)
    assert done.generated_tokens == 4  # counted here, one per delta
    assert report.metrics.generated_tokens == 4
    assert report.timing_source == "client"
    assert report.memory_source == "unknown"
    assert report.rss_peak_bytes is None
    assert report.vram_peak_bytes is None
    assert report.predicted_tokens_per_s is None
    assert report.to_dict()["memory_source"] == "unknown"


def test_server_timings_replace_the_client_speeds_and_say_so(server: FakeOpenAI) -> None:
    server.timings = {"prompt_n": 7, "prompt_ms": 70.0, "predicted_n": 4, "predicted_ms": 20.0}
    endpoint = RemoteEndpoint(server.url, "smol")
    with Session(endpoint.base_url, LoadSettings(n_ctx=256), client=RemoteClient(endpoint)) as s:
        s.open(10.0)
        request = s.generate(messages=[p.ChatMessage("user", "hi")])
        s.stream(request)
        report = s.report(request)
    assert report.timing_source == "server"
    assert report.metrics.tokens_per_s == pytest.approx(200.0)
    assert report.metrics.prompt_tokens_per_s == pytest.approx(100.0)


def test_the_server_context_is_taken_from_its_model_list(server: FakeOpenAI) -> None:
    server.models_extra = {"max_model_len": 8192}  # vLLM says it
    client = _client(server.url)
    loaded = client.load("", n_ctx=512).result(10.0)
    client.close()
    assert isinstance(loaded, p.Loaded)
    assert loaded.n_ctx == 8192


def test_a_raw_prompt_and_token_ids_go_to_completions(server: FakeOpenAI) -> None:
    client = _client(server.url)
    first = client.generate(prompt="Once upon")
    second = client.generate(prompt_tokens=[1, 2, 3])
    assert isinstance(first.wait(10.0), p.Done)
    assert isinstance(second.wait(10.0), p.Done)
    client.close()
    bodies = {tuple(r.body["prompt"]) if isinstance(r.body["prompt"], list) else r.body["prompt"]
              for r in server.completions()}  # fmt: skip
    assert bodies == {"Once upon", (1, 2, 3)}
    assert {r.path for r in server.completions()} == {"/v1/completions"}
    assert first.text == "Hello, world!"


def test_kv_cache_usage_comes_from_prometheus_metrics(server: FakeOpenAI) -> None:
    server.metrics = (
        "# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.\n"
        "# TYPE llamacpp:kv_cache_usage_ratio gauge\n"
        "llamacpp:kv_cache_usage_ratio 0.25\n"
    )
    endpoint = RemoteEndpoint(server.url, "smol")
    with Session(endpoint.base_url, LoadSettings(n_ctx=256), client=RemoteClient(endpoint)) as s:
        s.open(10.0)
        request = s.generate(messages=[p.ChatMessage("user", "hi")])
        s.stream(request)
        report = s.report(request)
    assert report.memory_source == "server"
    assert report.kv_cache_usage_pct == pytest.approx(25.0)
    assert report.rss_peak_bytes is None


def test_vram_comes_from_ollamas_running_models(server: FakeOpenAI) -> None:
    server.models = ["llama3:latest"]
    server.ollama_ps = {"models": [{"name": "llama3:latest", "size": 9, "size_vram": 5_000_000}]}
    endpoint = RemoteEndpoint(server.url, "llama3:latest")
    with Session(endpoint.base_url, LoadSettings(n_ctx=256), client=RemoteClient(endpoint)) as s:
        s.open(10.0)
        request = s.generate(messages=[p.ChatMessage("user", "hi")])
        s.stream(request)
        report = s.report(request)
    assert report.server_vram_bytes == 5_000_000
    assert report.memory_source == "server"


def test_cancel_closes_the_stream_and_keeps_the_partial_answer(server: FakeOpenAI) -> None:
    server.pieces = [f"w{i} " for i in range(40)]
    server.delay_s = 0.05
    client = _client(server.url)
    request = client.generate(messages=[p.ChatMessage("user", "hi")])
    for event in request.events(timeout=10.0):
        if isinstance(event, p.Tokens):
            client.cancel(request.id)
            break
    terminal = request.wait(10.0)
    client.close()
    assert isinstance(terminal, p.Done)
    assert terminal.finish_reason == "cancelled"
    assert request.text.startswith("w0 ")
    assert len(request.text.split()) < 40


# -- failures -----------------------------------------------------------------------------


def test_a_closed_port_is_a_refused_connection() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    error = _load_error(_client(url))
    assert error.kind == "refused"
    assert error.message == (
        f"Nothing answers at {url}: the connection was refused (is the server running?)."
    )
    with pytest.raises(WorkerError) as info:
        raise WorkerError(error)
    assert info.value.kind == "engine.refused"


def test_a_server_that_needs_a_key_says_which_variable_to_set(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.api_key = KEY
    monkeypatch.delenv("LLM_SCOUT_API_KEY", raising=False)
    error = _load_error(_client(server.url))
    assert error.kind == "unauthorized"
    assert error.message == (
        f"The server at {server.url} needs an API key (HTTP 401): set LLM_SCOUT_API_KEY."
    )


def test_a_wrong_key_is_refused_and_the_right_one_is_sent_as_a_bearer_token(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.api_key = KEY
    monkeypatch.setenv("MY_KEY", "wrong")
    error = _load_error(_client(RemoteEndpoint(server.url, "smol", key_env="MY_KEY").base_url))
    assert error.kind == "unauthorized"  # no key in LLM_SCOUT_API_KEY: asked for one
    client = RemoteClient(RemoteEndpoint(server.url, "smol", key_env="MY_KEY"))
    client.start()
    error = _load_error(client)
    assert error.message == f"The server at {server.url} refused the API key in MY_KEY (HTTP 401)."
    monkeypatch.setenv("MY_KEY", KEY)
    client = RemoteClient(RemoteEndpoint(server.url, "smol", key_env="MY_KEY"))
    client.start()
    assert isinstance(client.load("").result(10.0), p.Loaded)
    _request, done = _answer(client)
    client.close()
    assert isinstance(done, p.Done)
    assert server.completions()[-1].headers["Authorization"] == f"Bearer {KEY}"


def test_the_key_never_reaches_the_log(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    server.api_key = "another-key"
    monkeypatch.setenv("LLM_SCOUT_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    error = _load_error(_client(server.url))  # refused: logged at info
    server.api_key = KEY
    client = _client(server.url)
    client.load("").result(10.0)
    _answer(client)
    client.close()
    assert error.kind == "unauthorized"
    assert "refused" in caplog.text  # the failure was logged ...
    assert KEY not in caplog.text  # ... without the key
    assert KEY not in error.message + error.detail


def test_a_model_the_server_does_not_serve_is_named_with_what_it_serves(
    server: FakeOpenAI,
) -> None:
    server.models = ["qwen", "llama"]
    error = _load_error(_client(server.url, "smol"))
    assert error.kind == "model_not_found"
    assert error.message == (
        f"The server at {server.url} has no model named 'smol'; it serves: qwen, llama."
    )


def test_a_url_without_the_api_is_not_an_openai_endpoint(server: FakeOpenAI) -> None:
    root = server.url.removesuffix("/v1")
    error = _load_error(_client(root))
    assert error.kind == "endpoint_not_found"
    assert error.message == (
        f"{root}/models does not exist (HTTP 404): give the base URL of an OpenAI-compatible "
        "server (it usually ends in /v1)."
    )


def test_an_error_status_before_the_stream_is_a_server_error(server: FakeOpenAI) -> None:
    server.fault = "http_500"
    _request, event = _answer(_client(server.url))
    assert isinstance(event, p.Error)
    assert event.kind == "server_error"
    assert event.message == (
        f"The server at {server.url} answered HTTP 500: the model crashed while loading."
    )


def test_an_error_mid_stream_keeps_the_partial_answer(server: FakeOpenAI) -> None:
    server.fault = "error_event"
    request, event = _answer(_client(server.url))
    assert isinstance(event, p.Error)
    assert event.kind == "server_error"
    assert event.message == (
        "The server reported an error in the middle of the answer: CUDA error: out of memory "
        "(code 500). The partial answer (6 characters) is kept."
    )
    assert request.text == "Hello,"  # type: ignore[attr-defined]


def test_a_malformed_stream_keeps_the_partial_answer(server: FakeOpenAI) -> None:
    server.fault = "malformed"
    request, event = _answer(_client(server.url))
    assert isinstance(event, p.Error)
    assert event.kind == "malformed"
    assert event.message == (
        "The server sent an event that is not JSON: '{this is not json'. "
        "The partial answer (6 characters) is kept."
    )
    assert request.text == "Hello,"  # type: ignore[attr-defined]


def test_a_stalled_stream_times_out_and_keeps_the_partial_answer(server: FakeOpenAI) -> None:
    server.fault = "stall"
    client = _client(server.url, stall_timeout_s=0.5)
    started = time.monotonic()
    request, event = _answer(client)
    assert time.monotonic() - started < 5.0
    assert isinstance(event, p.Error)
    assert event.kind == "timeout"
    assert (
        event.message
        == "The server sent nothing for 0.5 s (the remote_timeout_s setting). The partial "
        "answer (6 characters) is kept."
    )
    assert request.text == "Hello,"  # type: ignore[attr-defined]
    with pytest.raises(WorkerError) as info:
        raise WorkerError(event)
    assert info.value.kind == "engine.timeout"


def test_a_server_that_dies_mid_answer_keeps_the_partial_answer(server: FakeOpenAI) -> None:
    server.fault = "die"
    request, event = _answer(_client(server.url))
    assert isinstance(event, p.Error)
    assert event.kind == "disconnected"
    assert event.message.startswith("The server closed the connection in the middle of the answer")
    assert event.message.endswith("The partial answer (6 characters) is kept.")
    assert request.text == "Hello,"  # type: ignore[attr-defined]


def test_a_session_raises_the_error_and_the_request_keeps_the_text(server: FakeOpenAI) -> None:
    server.fault = "die"
    endpoint = RemoteEndpoint(server.url, "smol")
    with Session(endpoint.base_url, LoadSettings(n_ctx=256), client=RemoteClient(endpoint)) as s:
        s.open(10.0)
        request = s.generate(messages=[p.ChatMessage("user", "hi")])
        seen: list[str] = []
        with pytest.raises(WorkerError) as info:
            s.stream(request, seen.append)
    assert info.value.kind == "engine.disconnected"
    assert "".join(seen) == request.text == "Hello,"
