"""A measured run and a bench in the engine package, as the CLI and the window use them."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.engine import (
    BenchSettings,
    LoadSettings,
    Prediction,
    Session,
    WorkerError,
    run_bench,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import UsageError
from desktop.core.fit import FitTarget
from desktop.core.gguf import read_gguf_split
from desktop.core.hardware import load_profile, probe


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"n_ctx": 8}, "at least 16"),
        ({"n_gpu_layers": -2}, r"-1 \(all\) or more"),
        ({"n_threads": 0}, "at least 1"),
    ],
)
def test_load_settings_refuse_impossible_values(kwargs: dict[str, int], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        LoadSettings(**kwargs)  # type: ignore[arg-type]


def test_bench_settings_check_the_context() -> None:
    settings = BenchSettings(pp=64, tg=8, repetitions=1)
    assert settings.context(None) == 64 + 8 + 8
    assert settings.context(512) == 512
    with pytest.raises(UsageError, match="cannot hold"):
        settings.context(32)
    with pytest.raises(UsageError, match="--tg at least 2"):
        BenchSettings(tg=1)


def test_prediction_is_empty_without_a_target_or_a_profile(smollm2_path: Path) -> None:
    target = FitTarget.from_gguf(read_gguf_split(smollm2_path))
    assert Prediction.for_run(None, None, n_ctx=512, n_gpu_layers=0, prompt_tokens=8) == (
        Prediction()
    )
    predicted = Prediction.for_run(
        target, load_profile("rtx-3060-12gb"), n_ctx=512, n_gpu_layers=-1, prompt_tokens=8
    )
    assert predicted.vram_bytes is not None
    assert predicted.vram_bytes > target.weights_bytes  # all layers on the what-if GPU
    assert predicted.tokens_per_s is not None


@pytest.mark.e2e
def test_a_session_streams_and_reports_predicted_next_to_measured(smollm2_path: Path) -> None:
    target = FitTarget.from_gguf(read_gguf_split(smollm2_path))
    pieces: list[str] = []
    with Session(smollm2_path, LoadSettings(n_ctx=512), target=target, profile=probe()) as s:
        loaded = s.open()
        assert loaded.n_ctx >= 512
        request = s.generate(
            messages=[p.ChatMessage("user", "Say hello.")],
            params=p.SamplingParams(temperature=0.0, max_tokens=12, seed=1),
        )
        done = s.stream(request, pieces.append)
        report = s.report(request)
    assert done.finish_reason in ("stop", "length")
    assert "".join(pieces) == report.text == request.text
    assert report.metrics.generated_tokens == done.generated_tokens
    assert report.load_ms == loaded.load_ms
    assert report.rss_peak_bytes is not None
    assert report.predicted_ram_bytes is not None
    assert report.ram_error_pct is not None
    assert abs(report.ram_error_pct) < 15


@pytest.mark.e2e
def test_a_session_reports_a_refused_load_as_a_worker_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf")
    with Session(bad, LoadSettings(n_ctx=512)) as session, pytest.raises(WorkerError) as caught:
        session.open()
    assert caught.value.kind == "engine.not_gguf"


@pytest.mark.e2e
def test_run_bench_returns_typed_results(smollm2_path: Path) -> None:
    settings = BenchSettings(pp=32, tg=4, repetitions=2)
    result = run_bench(
        smollm2_path,
        LoadSettings(n_ctx=settings.context(None)),
        settings,
        label="SmolLM2",
        target=FitTarget.from_gguf(read_gguf_split(smollm2_path)),
        profile=probe(),
    )
    assert len(result.runs) == 2
    assert all(run.pp_tokens_per_s > 0 and run.tg_tokens_per_s > 0 for run in result.runs)
    mean, sd = result.stat("tg_tokens_per_s")
    doc = result.to_dict()
    assert (doc["tg_tokens_per_s"], doc["tg_tokens_per_s_sd"]) == (mean, sd)
    assert doc["model_label"] == "SmolLM2"
    assert result.rss_peak_bytes is not None
    assert result.prediction.ram_bytes is not None


@pytest.mark.e2e
def test_an_answer_cut_by_the_full_context_says_so(smollm2_path: Path) -> None:
    with Session(smollm2_path, LoadSettings(n_ctx=64)) as session:
        session.open()
        params = p.SamplingParams(temperature=0.0, max_tokens=1000, ignore_eos=True)
        request = session.generate(messages=[p.ChatMessage("user", "Hi.")], params=params)
        done = session.stream(request)
        assert done.finish_reason == "context"
        assert session.report(request).finish_reason == "context"
        short = p.SamplingParams(temperature=0.0, max_tokens=3, ignore_eos=True)
        request = session.generate(messages=[p.ChatMessage("user", "Hi.")], params=short)
        assert session.stream(request).finish_reason == "length"


def test_a_new_conversation_answers_as_a_fresh_worker_would(smollm2_path: Path) -> None:
    """The first turn of a conversation does not reuse the prompt an earlier answer left in
    the worker's cache: greedy answers are then the same as a one-shot run's, however often
    the question is asked in one session (the Playground's Clear then Regenerate, the CLI)."""
    from desktop.core.engine import Conversation

    question = (
        "Write a short story about a lighthouse keeper who finds a message in a bottle. "
        "Describe the sea, the weather and what the message says."
    )
    params = p.SamplingParams(temperature=0.0, seed=7, max_tokens=60)
    with Session(smollm2_path, LoadSettings(n_ctx=1024, n_threads=2)) as session:
        session.open()
        answers = [Conversation(session, params=params).ask(question).text for _ in range(2)]
        # What the cache would have done: the same prompt again, its prefix reused.
        reused = session.generate(messages=(p.ChatMessage("user", question),), params=params)
        session.stream(reused)
        follow_up = Conversation(session, params=params)
        follow_up.ask(question)
        second = session.generate(
            messages=(*follow_up.messages(0), p.ChatMessage("user", "And then?")),
            params=params,
        )
        session.stream(second)
    assert answers[0] == answers[1]
    assert len(answers[0]) > 100
    # The reused prefix really changes greedy text on this model: the reason the first
    # turn is evaluated afresh (if llama.cpp ever makes both paths agree, this may go).
    assert reused.text != answers[0]
    assert second.done
    assert isinstance(second.terminal, p.Done)
    assert second.terminal.cached_prompt_tokens > 0  # a continuation still reuses the cache
