"""The engine end to end: real worker processes running llama.cpp on the two demo models.

One worker per demo model is shared by the module (loading takes a while on two cores); tests
that need their own settings start their own worker on the small model. Every test checks that
it leaves no child process behind.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.core.engine import EngineClient, Request, worker_command
from desktop.core.engine import protocol as p
from desktop.core.engine.prompt import prompt_tokens, render_messages, typed_metadata
from desktop.core.engine.templates import choose_template

pytestmark = [pytest.mark.e2e]

TIMEOUT = 180.0  # generous: two cores shared with other work
CHINESE_QUESTION = "请用中文介绍一下长城的历史。"


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    yield
    after = psutil.Process().children(recursive=True)
    left = [c for c in after if c.pid not in before]
    assert not left, f"processes left behind: {left}"
    zombies = [c for c in after if c.status() == psutil.STATUS_ZOMBIE]
    assert not zombies, f"zombie processes: {zombies}"


def _started(path: Path, **load: object) -> tuple[EngineClient, p.Loaded, Request]:
    client = EngineClient()
    client.start()
    request = client.load(path, **load)  # type: ignore[arg-type]
    loaded = request.result(TIMEOUT)
    assert isinstance(loaded, p.Loaded)
    return client, loaded, request


@pytest.fixture(scope="module")
def smol(smollm2_path: Path) -> Iterator[tuple[EngineClient, p.Loaded, Request]]:
    client, loaded, request = _started(smollm2_path, n_ctx=1024)
    yield client, loaded, request
    client.close()


@pytest.fixture(scope="module")
def gemma(gemma3_path: Path) -> Iterator[tuple[EngineClient, p.Loaded, Request]]:
    client, loaded, request = _started(gemma3_path, n_ctx=1024)
    yield client, loaded, request
    client.close()


def _done(request: Request) -> p.Done:
    event = request.wait(TIMEOUT)
    assert isinstance(event, p.Done), event
    return event


def _ask(client: EngineClient, text: str, **params: object) -> Request:
    sampling = p.SamplingParams(**params)  # type: ignore[arg-type]
    return client.generate(messages=[{"role": "user", "content": text}], params=sampling)


# --------------------------------------------------------------------------- side by side


def test_both_demo_models_load_side_by_side_and_answer_at_once(
    smol: tuple[EngineClient, p.Loaded, Request], gemma: tuple[EngineClient, p.Loaded, Request]
) -> None:
    (a, loaded_a, _), (b, loaded_b, _) = smol, gemma
    assert a.pid != b.pid
    assert a.alive
    assert b.alive
    assert (loaded_a.architecture, loaded_b.architecture) == ("llama", "gemma3")
    first = _ask(a, "Name a colour.", max_tokens=12, seed=1)
    second = _ask(b, "Name a colour.", max_tokens=12, seed=1)
    done = [_done(first), _done(second)]
    assert all(d.generated_tokens > 0 for d in done)
    assert first.text
    assert second.text
    # Both models stayed resident in their own process at the same time.
    rss = [psutil.Process(c.pid).memory_info().rss for c in (a, b)]
    assert rss[0] > loaded_a.model_size_bytes // 2
    assert rss[1] > loaded_b.model_size_bytes // 2


# --------------------------------------------------------------------------- UTF-8 streaming


@pytest.mark.parametrize("model", ["smol", "gemma"])
def test_a_streamed_chinese_answer_equals_the_non_streamed_one(
    model: str, request: pytest.FixtureRequest
) -> None:
    import llama_cpp

    client, loaded, _ = request.getfixturevalue(model)
    params = p.SamplingParams(seed=7, max_tokens=32, temperature=0.8)
    streamed = client.generate(
        messages=[{"role": "user", "content": CHINESE_QUESTION}], params=params
    )
    chunks = [e.text for e in streamed.events(TIMEOUT) if isinstance(e, p.Tokens)]
    assert isinstance(streamed.terminal, p.Done)

    # The same prompt through bare llama-cpp-python, not streamed, same seed and sampling.
    llm = llama_cpp.Llama(loaded.path, n_ctx=1024, n_threads=loaded.n_threads, verbose=False)
    try:
        template = choose_template(typed_metadata(llm), loaded.architecture)
        text = render_messages(llm, template, [{"role": "user", "content": CHINESE_QUESTION}])
        reference = llm.create_completion(
            prompt_tokens(llm, text),
            max_tokens=32,
            temperature=0.8,
            top_p=0.95,
            top_k=40,
            min_p=0.05,
            repeat_penalty=1.0,
            seed=7,
        )
        expected = reference["choices"][0]["text"]  # type: ignore[index]
        pieces = [
            llm._model.detokenize([t]) for t in llm.tokenize(expected.encode(), add_bos=False)
        ]
    finally:
        llm.close()

    assert "".join(chunks) == expected
    assert streamed.text == expected
    assert "\ufffd" not in streamed.text
    assert any("\u4e00" <= ch <= "\u9fff" for ch in streamed.text)
    assert all("\ufffd" not in chunk for chunk in chunks)
    if model == "smol":
        # SmolLM2 spells Chinese in byte tokens: most pieces are not valid UTF-8 alone, so a
        # per-token decode would have shown U+FFFD; the stream never does.
        broken = [piece for piece in pieces if not _valid_utf8(piece)]
        assert len(broken) > len(pieces) // 3


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# --------------------------------------------------------------------------- templates, threads


def test_chat_templates_embedded_or_by_family(
    smol: tuple[EngineClient, p.Loaded, Request], gemma: tuple[EngineClient, p.Loaded, Request]
) -> None:
    assert (smol[1].template_name, smol[1].template_source) == ("embedded", "embedded")
    # The Gemma 3 demo file has no template: without ours llama-cpp-python would fall back to
    # llama-2 and the model would answer nothing useful.
    assert (gemma[1].template_name, gemma[1].template_source) == ("gemma", "family")
    answer = _ask(gemma[0], "What is the capital of France?", temperature=0.0, max_tokens=16)
    assert _done(answer).generated_tokens > 0
    assert answer.text.strip()


def test_template_overrides_by_name_or_jinja_and_bad_ones_fail_first(smollm2_path: Path) -> None:
    client = EngineClient()
    client.start()
    try:
        named = client.load_model(smollm2_path, n_ctx=256, template="plain", timeout=TIMEOUT)
        assert (named.template_name, named.template_source) == ("plain", "named")
        answer = _ask(client, "Say hi.", temperature=0.0, max_tokens=6)
        assert _done(answer).prompt_tokens > 0
        jinja = "{% for m in messages %}{{ m['content'] }}\n{% endfor %}Answer:"
        custom = client.load_model(smollm2_path, n_ctx=256, template=jinja, timeout=TIMEOUT)
        assert (custom.template_name, custom.template_source) == ("custom", "jinja")
        bad = client.load(smollm2_path, n_ctx=256, template="no-such-template").wait(TIMEOUT)
        assert isinstance(bad, p.Error)
        assert bad.kind == "invalid_request"
        assert "no-such-template" in bad.message
        # The failed override did not leave a model behind.
        after = client.generate(prompt="x", params=p.SamplingParams(max_tokens=1)).wait(TIMEOUT)
        assert isinstance(after, p.Error)
        assert after.kind == "not_loaded"
    finally:
        client.close()


def test_threads_default_to_the_physical_core_count(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    # Physical cores (llama-cpp-python's own default is half the logical CPUs), capped by the
    # CPUs this process may use.
    cores = min(psutil.cpu_count(logical=False) or 1, len(os.sched_getaffinity(0)))
    client, loaded, _ = smol
    assert loaded.n_threads == cores
    assert loaded.n_threads_batch == cores
    assert client.ready is not None
    assert client.ready.physical_cores == cores


def test_explicit_threads_reach_llama_cpp(smollm2_path: Path) -> None:
    client, loaded, _ = _started(smollm2_path, n_ctx=256, n_threads=1, n_threads_batch=1)
    client.close()
    assert (loaded.n_threads, loaded.n_threads_batch) == (1, 1)


def test_a_worker_started_with_nice_runs_every_thread_at_that_priority(
    smollm2_path: Path,
) -> None:
    """``--nice``: the worker lowers its priority before llama.cpp starts threads, so the
    threads that decode inherit it (what the window asks for when models run side by side)."""
    client = EngineClient(worker_args=("--nice", "10"))
    client.start()
    try:
        client.load(smollm2_path, n_ctx=256, n_threads=2).result(120)
        request = client.generate(prompt="Once upon a time", params=p.SamplingParams(max_tokens=8))
        request.result(120)
        assert client.pid is not None
        worker = psutil.Process(client.pid)
        base = psutil.Process().nice()
        niceness = {}
        for task in Path(f"/proc/{client.pid}/task").iterdir():
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            niceness[task.name] = int(fields[16])  # field 19 of stat: nice
        assert worker.nice() == base + 10
        assert len(niceness) >= 2  # llama.cpp's threads as well as the main one
        assert set(niceness.values()) == {base + 10}
    finally:
        client.close()
    plain = EngineClient()
    plain.start()
    try:
        assert plain.pid is not None
        assert psutil.Process(plain.pid).nice() == psutil.Process().nice()
    finally:
        plain.close()


# --------------------------------------------------------------------------- sampling


def test_seed_and_temperature_decide_the_text(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client = smol[0]

    def text(**params: object) -> str:
        request = _ask(client, "Tell me a short story.", max_tokens=16, **params)
        _done(request)
        return request.text

    assert text(seed=11, temperature=1.0) == text(seed=11, temperature=1.0)
    varied = {text(seed=seed, temperature=1.2) for seed in (1, 2, 3)}
    assert len(varied) > 1
    assert text(seed=1, temperature=0.0) == text(seed=2, temperature=0.0)


def test_max_tokens_with_ignore_eos_gives_exactly_that_many(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    request = _ask(smol[0], "Hi", max_tokens=20, ignore_eos=True, seed=3)
    done = _done(request)
    assert done.finish_reason == "length"
    assert done.generated_tokens == 20
    assert request.meter.generated_tokens == 20
    assert done.eval_ms > 0
    assert done.prompt_eval_ms > 0


def test_a_stop_string_ends_the_answer_before_it(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client = smol[0]
    prompt = "List the days of the week, one per line."
    free = _ask(client, prompt, temperature=0.0, max_tokens=40)
    _done(free)
    words = [w for w in free.text.split() if len(w) > 3]
    assert words, free.text
    stop = words[min(2, len(words) - 1)]
    cut = _ask(client, prompt, temperature=0.0, max_tokens=40, stop=(stop,))
    done = _done(cut)
    assert done.finish_reason == "stop"
    assert cut.text == free.text[: free.text.index(stop)]
    assert stop not in cut.text


def test_a_system_prompt_reaches_the_template(
    smol: tuple[EngineClient, p.Loaded, Request], gemma: tuple[EngineClient, p.Loaded, Request]
) -> None:
    short = "You are a pirate."
    longer = short + " You answer every question in one short sentence about the sea."
    for client in (smol[0], gemma[0]):
        counts = []
        for system in (short, longer):
            request = client.generate(
                messages=[{"role": "user", "content": "Hello"}],
                system=system,
                params=p.SamplingParams(max_tokens=1, temperature=0.0),
            )
            counts.append(_done(request).prompt_tokens)
        # Gemma's template has no system role: the text is folded into the user turn.
        assert counts[1] >= counts[0] + 8


def test_a_repeated_prefix_is_taken_from_the_cache_unless_asked_not_to(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client = smol[0]
    prompt = "The quick brown fox jumps over the lazy dog. " * 8
    first = client.generate(prompt=prompt, params=p.SamplingParams(max_tokens=2, temperature=0))
    _done(first)
    again = client.generate(prompt=prompt + "Again", params=p.SamplingParams(max_tokens=2))
    assert _done(again).cached_prompt_tokens > 50
    fresh = client.generate(
        prompt=prompt + "Again", params=p.SamplingParams(max_tokens=2), cache_prompt=False
    )
    assert _done(fresh).cached_prompt_tokens == 0


# --------------------------------------------------------------------------- streaming, cancel


def test_tokens_come_in_batches_the_first_one_alone(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    request = _ask(smol[0], "Count to fifty.", max_tokens=80, ignore_eos=True, seed=5)
    arrivals: list[tuple[float, p.Tokens]] = []
    for event in request.events(TIMEOUT):
        if isinstance(event, p.Tokens):
            arrivals.append((time.perf_counter(), event))
    done = request.terminal
    assert isinstance(done, p.Done)
    assert arrivals[0][1].n_tokens == 1  # the first token goes out at once (TTFT)
    assert sum(e.n_tokens for _, e in arrivals) == done.generated_tokens == 80
    elapsed = arrivals[-1][0] - arrivals[0][0]
    # At most one batch per 40 ms (plus the first and the last): far fewer events than tokens
    # whenever tokens come faster than that.
    assert len(arrivals) <= elapsed / 0.035 + 3
    if done.generated_tokens / max(elapsed, 1e-9) > 60:
        assert len(arrivals) < done.generated_tokens / 2


def _cancel_latency(client: EngineClient, request: Request, after_tokens: int) -> float:
    deadline = time.perf_counter() + TIMEOUT
    while request.meter.generated_tokens < after_tokens and time.perf_counter() < deadline:
        time.sleep(0.005)
    started = time.perf_counter()
    client.cancel(request.id)
    done = _done(request)
    assert done.finish_reason == "cancelled"
    return request.t_terminal - started  # type: ignore[operator]


def test_cancel_stops_generation_within_100_ms(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client = smol[0]
    latencies = []
    for _ in range(3):
        request = _ask(client, "Write a long essay.", max_tokens=900, ignore_eos=True)
        latencies.append(_cancel_latency(client, request, after_tokens=3))
        assert 3 <= request.meter.generated_tokens < 900
        assert request.text  # the partial answer is kept
    assert statistics.median(latencies) < 0.1, latencies
    assert max(latencies) < 0.5, latencies


def test_cancel_stops_a_long_prompt_within_100_ms(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client = smol[0]
    latencies = []
    for _ in range(3):
        request = client.generate(
            prompt="word " * 900, params=p.SamplingParams(max_tokens=4), cache_prompt=False
        )
        time.sleep(0.15)  # inside the prompt evaluation (about a second here)
        latencies.append(_cancel_latency(client, request, after_tokens=0))
        assert request.meter.generated_tokens == 0
    assert statistics.median(latencies) < 0.1, latencies
    # The worker is fine afterwards.
    after = _ask(client, "Hi", max_tokens=3, ignore_eos=True)
    assert _done(after).generated_tokens == 3


# --------------------------------------------------------------------------- context


def test_a_prompt_longer_than_the_context_is_a_clear_error_not_a_hang(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client, loaded, _ = smol
    started = time.perf_counter()
    request = client.generate(prompt="word " * 1500, params=p.SamplingParams(max_tokens=8))
    error = request.wait(TIMEOUT)
    assert isinstance(error, p.Error)
    assert error.kind == "context_overflow"
    assert f"the context holds {loaded.n_ctx}" in error.message
    assert time.perf_counter() - started < 30
    # max_tokens is cut to what the context has left (documented in SamplingParams).
    near = client.generate(
        prompt="word " * 1000,
        params=p.SamplingParams(max_tokens=500, ignore_eos=True, temperature=0.0),
        cache_prompt=False,
    )
    done = _done(near)
    assert done.finish_reason == "context"  # the context ran out before max_tokens
    assert done.prompt_tokens + done.generated_tokens == loaded.n_ctx


# --------------------------------------------------------------------------- memory


def test_a_tiny_context_reports_overflow_instead_of_failing_inside_llama_cpp_python(
    smollm2_path: Path,
) -> None:
    """llama.cpp rounds n_ctx 16 up, llama-cpp-python's buffers do not: the smaller one counts."""
    client, loaded, _ = _started(smollm2_path, n_ctx=16)
    try:
        assert loaded.n_ctx == 16
        error = client.generate(prompt="word " * 20, params=p.SamplingParams(max_tokens=4)).wait(
            TIMEOUT
        )
        assert isinstance(error, p.Error)
        assert error.kind == "context_overflow"
        assert "the context holds 16" in error.message
        done = _done(client.generate(prompt="Hi", params=p.SamplingParams(max_tokens=64)))
        assert done.generated_tokens <= 16 - done.prompt_tokens
    finally:
        client.close()


def test_memory_is_sampled_and_attributed_to_the_worker(
    smol: tuple[EngineClient, p.Loaded, Request],
) -> None:
    client, loaded, load = smol
    start = time.perf_counter()
    request = _ask(client, "Describe the sea.", max_tokens=60, ignore_eos=True, seed=2)
    _done(request)
    window = list(client.memory_snapshot(since=start))
    assert window
    assert all(m.pid == client.pid for m in window)
    assert all(m.vram_bytes is None for m in window)  # no NVIDIA GPU here
    elapsed = request.t_terminal - start  # type: ignore[operator]
    periodic = len(window) - 2  # first token and done add one reading each
    assert periodic <= 10 * elapsed + 2
    if elapsed > 1.0:
        assert periodic >= 4 * elapsed * 0.5  # at least ~4 Hz (half of it on a busy machine)
    phases = client.memory_phases(load, request)
    assert phases.after_first_token is not None
    assert phases.peak is not None
    assert phases.after_first_token <= phases.peak
    assert phases.peak > loaded.model_size_bytes // 2
    assert phases.peak == pytest.approx(psutil.Process(client.pid).memory_info().rss, rel=0.3)


def test_unload_gives_the_memory_back(smollm2_path: Path) -> None:
    client, loaded, _ = _started(smollm2_path, n_ctx=512)
    try:
        _done(_ask(client, "Hi", max_tokens=4, ignore_eos=True))
        loaded_rss = client.sample_memory().rss_bytes  # type: ignore[union-attr]
        client.unload(TIMEOUT)
        unloaded_rss = client.sample_memory().rss_bytes  # type: ignore[union-attr]
        assert loaded_rss - unloaded_rss > loaded.model_size_bytes // 2
    finally:
        client.close()
    assert client.returncode == 0


# --------------------------------------------------------------------------- process plumbing


def test_stdout_carries_only_protocol_lines_and_stderr_the_llama_log(
    smollm2_path: Path, tmp_path: Path
) -> None:
    log_path = tmp_path / "worker.log"
    generate = p.Generate(id="g", prompt="Hi", params=p.SamplingParams(max_tokens=5))
    events: list[p.Event] = []
    # stderr goes to a file: a pipe nobody reads would fill up and block the worker.
    with (
        log_path.open("wb") as log,
        subprocess.Popen(
            worker_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
        ) as worker,
    ):
        assert worker.stdin is not None
        assert worker.stdout is not None
        worker.stdin.write(p.encode(p.Load(id="l", path=str(smollm2_path), n_ctx=256)))
        worker.stdin.write(p.encode(generate))
        worker.stdin.flush()
        for line in worker.stdout:
            event = p.decode(line)  # every line is a protocol message
            assert isinstance(event, p.EVENT_TYPES)
            events.append(event)
            if isinstance(event, p.Done | p.Error):
                break
        worker.stdin.write(p.encode(p.Shutdown(id="s")))
        worker.stdin.close()
        rest = worker.stdout.read()
        assert worker.wait(TIMEOUT) == 0
    assert rest == b""
    kinds = [type(e).__name__ for e in events if not isinstance(e, p.LoadProgress)]
    assert kinds[:2] == ["Ready", "Loaded"]
    assert [type(e).__name__ for e in events[:2]] == ["Ready", "LoadProgress"]
    assert isinstance(events[-1], p.Done)
    # llama.cpp's log (and llama-cpp-python's prints) went to stderr.
    stderr = log_path.read_bytes()
    assert b"llama_model_loader" in stderr
    assert b"Model metadata" in stderr


def test_shutdown_cancels_what_is_queued_and_exits_cleanly(smollm2_path: Path) -> None:
    commands = b"".join(
        p.encode(c)
        for c in (
            p.Load(id="l", path=str(smollm2_path), n_ctx=256),
            p.Generate(id="g", prompt="Hello", params=p.SamplingParams(max_tokens=5)),
            p.Shutdown(id="s"),
        )
    )
    result = subprocess.run(
        worker_command(), input=commands, capture_output=True, timeout=TIMEOUT, check=False
    )
    assert result.returncode == 0
    every = [p.decode(line) for line in result.stdout.splitlines()]
    events = [e for e in every if not isinstance(e, p.LoadProgress)]  # the load may report some
    assert isinstance(events[0], p.Ready)
    answers = {getattr(e, "id", None): e for e in events[1:]}
    load, generate = answers["l"], answers["g"]
    # The load either finished before the shutdown was read, or was cancelled; the queued
    # generation always ends as cancelled, with no tokens.
    assert isinstance(load, p.Loaded) or (isinstance(load, p.Error) and load.kind == "cancelled")
    assert isinstance(generate, p.Done)
    assert generate.finish_reason == "cancelled"
    assert len(events) == 3


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "desktop.core.engine.worker"],
        [sys.executable, "-m", "desktop", "--engine-worker"],  # what a frozen build runs
    ],
    ids=["python-m", "app-flag"],
)
def test_both_spawn_forms_run_a_worker(command: list[str], smollm2_path: Path) -> None:
    client = EngineClient(command=command)
    ready = client.start()
    try:
        assert ready.protocol_version == p.PROTOCOL_VERSION
        assert ready.pid == client.pid
        client.load_model(smollm2_path, n_ctx=256, timeout=TIMEOUT)
        request = client.generate(prompt="Hello", params=p.SamplingParams(max_tokens=3))
        assert _done(request).generated_tokens >= 1
    finally:
        client.close()
    assert client.returncode == 0


def test_a_frozen_app_spawns_itself_with_the_worker_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    assert worker_command() == [sys.executable, "-m", "desktop.core.engine.worker"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert worker_command() == [sys.executable, "--engine-worker"]


def test_gpu_offload_is_reported_unavailable_on_a_cpu_build(smollm2_path: Path) -> None:
    import llama_cpp

    assert not llama_cpp.llama_supports_gpu_offload()  # this machine's build is CPU-only
    logs: list[p.Log] = []
    client = EngineClient(on_event=lambda e: logs.append(e) if isinstance(e, p.Log) else None)
    ready = client.start()
    try:
        loaded = client.load_model(smollm2_path, n_ctx=256, n_gpu_layers=99, timeout=TIMEOUT)
    finally:
        client.close()
    assert ready.gpu_offload is False
    assert (loaded.gpu_offload, loaded.n_gpu_layers, loaded.n_gpu_layers_requested) == (
        False,
        0,
        99,
    )
    assert any("GPU offload is unavailable" in log.message for log in logs)


def test_events_reach_a_callback_from_the_reader_thread(smollm2_path: Path) -> None:
    seen: list[tuple[str, str]] = []
    client = EngineClient(
        on_event=lambda e: seen.append((type(e).__name__, threading.current_thread().name))
    )
    client.start()
    try:
        client.load_model(smollm2_path, n_ctx=256, timeout=TIMEOUT)
        _done(client.generate(prompt="Hi", params=p.SamplingParams(max_tokens=3)))
    finally:
        client.close()
    kinds = [kind for kind, _ in seen]
    assert kinds[0] == "Ready"
    assert "Loaded" in kinds
    assert "Tokens" in kinds
    assert kinds[-1] == "Done"
    assert all(name.startswith("engine-events") for _, name in seen)
