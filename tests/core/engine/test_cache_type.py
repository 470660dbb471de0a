"""The KV cache type (protocol 4): chosen in the load settings, sent to llama.cpp, predicted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.engine import (
    Conversation,
    EngineClient,
    LoadSettings,
    Prediction,
    Session,
    WorkerError,
)
from desktop.core.engine import protocol as p
from desktop.core.errors import UsageError
from desktop.core.fit import FitTarget
from desktop.core.gguf import read_gguf_split
from desktop.core.hardware import load_profile
from desktop.core.kv_cache import CacheType, auto_flash_attn


def test_load_carries_the_cache_type_since_version_4() -> None:
    assert p.PROTOCOL_VERSION >= 4
    load = p.Load(id="l1", path="m.gguf", flash_attn=True, cache_type="q4_0")
    assert json.loads(p.encode(load))["cache_type"] == "q4_0"
    assert p.decode(p.encode(load)) == load
    assert p.decode(b'{"type":"load","id":"l","path":"m"}') == p.Load(id="l", path="m")
    with pytest.raises(p.ProtocolError, match="cache_type must be one of"):
        p.decode(b'{"type":"load","id":"l","path":"m","cache_type":"q2_k"}')


def test_auto_flash_attention_is_on_only_for_a_quantized_cache() -> None:
    assert not auto_flash_attn("f16")
    assert auto_flash_attn("q8_0")
    assert auto_flash_attn("q4_0")


def test_load_settings_refuse_a_quantized_cache_without_flash_attention() -> None:
    assert LoadSettings(cache_type="q8_0", flash_attn=True).cache_type == "q8_0"
    with pytest.raises(UsageError, match="needs flash attention"):
        LoadSettings(cache_type="q8_0")
    with pytest.raises(UsageError, match="must be one of f16, q8_0, q4_0"):
        LoadSettings(cache_type="q3", flash_attn=True)  # type: ignore[arg-type]


def test_saved_transcripts_carry_the_load_and_sampling_settings() -> None:
    settings = LoadSettings(n_ctx=512, cache_type="q8_0", flash_attn=True)
    params = p.SamplingParams(temperature=0.2, seed=3, max_tokens=64)
    chat = Conversation(Session(Path("model.gguf"), settings), params=params)  # no worker
    load = chat.to_dict()["load"]
    assert load["cache_type"] == "q8_0"
    assert load["flash_attn"] is True
    markdown = chat.to_markdown("Chat")
    for words in ("context 512", "KV cache q8_0", "flash attention on", "seed 3", "max tokens 64"):
        assert words in markdown


def test_the_prediction_follows_the_cache_type(smollm2_path: Path) -> None:
    target = FitTarget.from_gguf(read_gguf_split(smollm2_path))
    profile = load_profile("rtx-3060-12gb")

    def predicted(cache_type: CacheType) -> int:
        value = Prediction.for_run(
            target, profile, n_ctx=8192, n_gpu_layers=0, prompt_tokens=8192,
            cache_type=cache_type, flash_attn=auto_flash_attn(cache_type),
        ).ram_bytes  # fmt: skip
        assert value is not None
        return value

    f16, q8, q4 = predicted("f16"), predicted("q8_0"), predicted("q4_0")
    assert f16 > q8 > q4


@pytest.mark.e2e
def test_llama_cpp_gets_the_cache_type_and_refuses_it_without_flash_attention(
    smollm2_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # llama.cpp's log says which types the KV cache got; keep all of it, not only the tail.
    monkeypatch.setattr("desktop.core.engine.client.STDERR_LINES", 100_000)
    with EngineClient() as client:
        with pytest.raises(WorkerError, match="needs flash attention") as refused:
            client.load_model(smollm2_path, n_ctx=256, cache_type="q8_0", timeout=60)
        assert refused.value.kind == "engine.invalid_request"
    settings = LoadSettings(n_ctx=512, cache_type="q8_0", flash_attn=True)
    with Session(smollm2_path, settings) as session:
        session.open(timeout=60)
        request = session.generate(
            messages=[p.ChatMessage("user", "Hi.")],
            params=p.SamplingParams(temperature=0.0, max_tokens=4, seed=1),
        )
        session.stream(request)
        log = session.client.stderr_tail(100_000, 10_000_000)
    assert "K (q8_0)" in log
    assert "V (q8_0)" in log
    assert "flash_attn            = enabled" in log
