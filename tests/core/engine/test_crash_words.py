"""A worker that dies says why (issue 22): the crash message carries the last line in which
llama.cpp (or the C++ runtime) said what went wrong, and llama.cpp's debug chatter never fills
the tail that is kept for it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p
from desktop.core.engine.client import last_words

# As llama.cpp and libstdc++ write them on the way to abort().
ASSERT_TAIL = [
    "llama_context: n_ctx = 256",
    "llama_graph_n_input_tensors: input tensor 'inp_pos' [i32, ne = {256, 1, 1, 1}] is used",
    "/llama.cpp/ggml/src/ggml-cpu/ops.cpp:3184: GGML_ASSERT(src1->type == GGML_TYPE_F32) failed",
    "/usr/lib/libggml-base.so(+0x1e4b5) [0x7f2d5a61e4b5]",
    "/usr/lib/libggml-base.so(ggml_abort+0x11f) [0x7f2d5a61e86f]",
]
TERMINATE_TAIL = [
    "load_tensors: CPU_Mapped model buffer size = 93.80 MiB",
    "terminate called after throwing an instance of 'std::out_of_range'",
    "  what():  vector::_M_range_check: __n (which is 1000000) >= this->size() (which is 49152)",
]


def test_the_last_line_that_says_what_went_wrong_is_found() -> None:
    words = last_words(ASSERT_TAIL)
    assert words is not None
    assert "GGML_ASSERT(src1->type == GGML_TYPE_F32) failed" in words
    said = last_words(TERMINATE_TAIL)
    assert said is not None
    assert said.startswith("what(): vector::_M_range_check")


def test_debug_chatter_alone_says_nothing() -> None:
    noise = [
        "llama_graph_n_input_tensors: input tensor 'inp_tokens' is used by node 'embd'",
        "sched_reserve: reserve took 9.73 ms, sched copies = 1",
    ]
    assert last_words(noise) is None


def test_a_long_line_is_cut_to_one_readable_sentence() -> None:
    words = last_words(["error: " + "x" * 5000])
    assert words is not None
    assert len(words) <= 300
    assert "\n" not in words


@pytest.mark.e2e
def test_a_worker_killed_by_sigabrt_keeps_no_debug_lines_in_its_tail(smollm2_path: Path) -> None:
    client = EngineClient()
    client.start()
    try:
        client.load_model(smollm2_path, timeout=120, n_ctx=256)
        request = client.generate(
            prompt="Once upon a time", params=p.SamplingParams(max_tokens=400)
        )
        deadline = time.monotonic() + 120
        while not request.text:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert client.pid is not None
        os.kill(client.pid, signal.SIGABRT)
        error = request.wait(60)
        assert isinstance(error, p.Error)
        assert error.kind == "crashed"
        assert error.message.startswith("The engine worker was killed by SIGABRT")
        assert "llama_graph_n_input_tensors" not in error.detail
        assert "load_tensors" in client.stderr_tail(400)  # the INFO lines are still there
    finally:
        client.close()
