"""Rules every front end asks the core for: each has one home, and here is what it says.

(``tests/test_one_home.py`` fails if a second copy of one comes back somewhere else.)
"""

from __future__ import annotations

import os

import pytest

from desktop.core import kv_cache
from desktop.core.compare import (
    CTX_STEP,
    context_for,
    default_load,
    default_sampling,
    single_prompt,
)
from desktop.core.engine import LoadSettings, WorkerError, default_threads
from desktop.core.engine import protocol as p
from desktop.core.errors import ERROR_KINDS, FATAL_KINDS, EngineError, UsageError, is_fatal
from desktop.core.fit import calibrates

# -- which errors end a run ---------------------------------------------------------------------


def test_the_kinds_that_end_a_run_are_registered_and_read_in_both_spellings() -> None:
    assert set(FATAL_KINDS) <= set(ERROR_KINDS)
    for kind in FATAL_KINDS:
        assert is_fatal(kind)
        assert is_fatal(kind.removeprefix("engine."))  # a worker's or server's error event
    for kind in ("engine.context_overflow", "engine.out_of_memory", "engine.busy", "usage"):
        assert not is_fatal(kind)


def test_a_worker_that_dies_stops_answering_or_breaks_the_protocol_ends_the_run() -> None:
    for kind in ("crashed", "protocol", "timeout"):  # a timeout too (a comparison ended there)
        assert WorkerError(p.Error("r1", kind, "gone")).fatal
    # A server that is gone, or not answering as it should.
    for kind in ("refused", "disconnected", "server_error", "malformed", "unauthorized"):
        assert WorkerError(p.Error("r1", kind, "gone")).fatal
    # One answer that did not fit, or a request the worker refused: the model is still there.
    for kind in ("context_overflow", "invalid_request", "generation_failed", "busy"):
        assert not WorkerError(p.Error("r1", kind, "no")).fatal
    assert not EngineError("A template problem.", kind="engine.template").fatal


# -- the KV cache and flash attention -----------------------------------------------------------


def test_the_cache_types_are_one_list_the_protocol_refuses_others() -> None:
    assert kv_cache.CACHE_TYPES == ("f16", "q8_0", "q4_0")
    assert set(kv_cache.GGML_TYPE_IDS) == set(kv_cache.CACHE_TYPES)
    assert set(kv_cache.BLOCK_BYTES) == set(kv_cache.CACHE_TYPES)
    for cache_type in kv_cache.CACHE_TYPES:
        load = p.Load(id="l", path="m.gguf", cache_type=cache_type, flash_attn=True)
        assert p.decode(p.encode(load)) == load
    with pytest.raises(p.ProtocolError):
        p.decode(b'{"type":"load","id":"l","path":"m","cache_type":"q5_1"}')
    assert kv_cache.cache_type_of("q4_0") == "q4_0"
    for stored in ("", None, "q5_1", 8):
        assert kv_cache.cache_type_of(stored) == "f16"


def test_auto_flash_attention_is_on_exactly_where_the_cache_needs_it() -> None:
    for cache_type in kv_cache.CACHE_TYPES:
        needed = kv_cache.needs_flash_attn(cache_type)
        assert needed is (cache_type != "f16")
        assert kv_cache.flash_attn_for("auto", cache_type) is needed
        assert kv_cache.flash_attn_for(None, cache_type) is needed
        assert kv_cache.flash_attn_for("on", cache_type)
        assert kv_cache.flash_attn_for(True, cache_type)
        assert not kv_cache.flash_attn_for("off", cache_type)


def test_a_quantized_cache_without_flash_attention_is_one_sentence_everywhere() -> None:
    with pytest.raises(UsageError) as raised:
        kv_cache.check_flash_attn("q8_0", False)
    with pytest.raises(UsageError) as from_settings:
        LoadSettings(cache_type="q8_0", flash_attn=False)
    assert from_settings.value.message == raised.value.message
    assert raised.value.message.startswith("A q8_0 KV cache needs flash attention")
    kv_cache.check_flash_attn("f16", False)  # nothing to say


# -- threads ------------------------------------------------------------------------------------


def test_the_default_threads_are_the_physical_cores_this_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert default_threads(3) == 3
    # As `taskset -c 0` says (set where the OS has no affinity call too: the rule reads it when
    # it exists, so the same path runs everywhere).
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert default_threads() == 1
    assert default_threads(0) == 1  # a setting of 0 means "the default"
    assert default_threads(None) == 1


# -- calibration --------------------------------------------------------------------------------


def test_only_a_finished_answer_run_here_and_predicted_for_here_calibrates() -> None:
    assert calibrates(remote=False, what_if=False, failed=False)
    assert not calibrates(remote=True, what_if=False, failed=False)
    assert not calibrates(remote=False, what_if=True, failed=False)
    assert not calibrates(remote=False, what_if=False, failed=True)


# -- a comparison's defaults --------------------------------------------------------------------


def test_a_comparison_starts_from_the_settings_context_or_what_its_longest_prompt_needs() -> None:
    short = single_prompt("Name three colours.")
    assert context_for(short, 256, 4096) == 4096
    long = single_prompt("word " * 6000)
    needed = long.context_needed(256)
    chosen = context_for(long, 256, 4096)
    assert chosen >= needed > 4096
    assert chosen % CTX_STEP == 0
    assert chosen - needed < CTX_STEP
    load = default_load(chosen, n_threads=0, cache_type="q4_0")
    assert load.n_threads is None  # the engine's default
    assert load.flash_attn  # the auto rule
    sampling = default_sampling(64)
    assert sampling.seed is not None  # fixed: a re-run compares like with like
    assert sampling.max_tokens == 64
