"""The worker protocol: every message round-trips through one JSON line; bad lines are refused."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.core.engine import protocol as p

EXAMPLES: list[p.Message] = [
    p.Load(
        id="l1",
        path="/models/a b/模型.gguf",
        n_ctx=4096,
        n_gpu_layers=-1,
        n_threads=6,
        n_threads_batch=12,
        n_batch=256,
        flash_attn=True,
        template="chatml",
    ),
    p.Load(id="l2", path="x.gguf"),
    p.Generate(
        id="g1",
        messages=(p.ChatMessage("user", "你好\n世界"), p.ChatMessage("assistant", "嗨")),
        system="Be brief.",
        params=p.SamplingParams(
            temperature=0.0,
            top_p=0.5,
            top_k=7,
            min_p=0.0,
            repeat_penalty=1.1,
            seed=42,
            max_tokens=9,
            stop=("</s>", "\n\n"),
            ignore_eos=True,
        ),
        cache_prompt=False,
    ),
    p.Generate(id="g2", prompt="raw text"),
    p.Generate(id="g3", prompt_tokens=(1, 2, 3)),
    p.Cancel(id="g1"),
    p.Unload(id="u1"),
    p.Shutdown(id="s1"),
    p.Ready(
        protocol_version=p.PROTOCOL_VERSION,
        pid=123,
        llama_cpp_version="0.3.36",
        gpu_offload=False,
        physical_cores=2,
        system_info="AVX2 = 1",
    ),
    p.Loaded(
        id="l1",
        load_ms=12.5,
        path="/m.gguf",
        architecture="gemma3",
        description="d",
        n_params=1,
        model_size_bytes=2,
        n_layer=3,
        n_ctx=4,
        n_ctx_train=5,
        n_vocab=6,
        n_threads=2,
        n_threads_batch=2,
        n_gpu_layers=0,
        n_gpu_layers_requested=10,
        gpu_offload=False,
        template_name=None,
        template_source=None,
        has_bos=False,
    ),
    p.LoadProgress(id="l1", fraction=0.25),
    p.LoadProgress(id="l1", fraction=1.0),
    p.Tokens(id="g1", text="长", n_tokens=2),
    p.Tokens(id="g1", text="", n_tokens=1),
    p.Done(
        id="g1",
        finish_reason="cancelled",
        prompt_tokens=5,
        generated_tokens=3,
        prompt_eval_ms=1.5,
        eval_ms=2.5,
        first_token_ms=None,
        total_ms=9.0,
        cached_prompt_tokens=4,
    ),
    p.Error(id=None, kind="crashed", message="The worker died.", detail="tail\nof log"),
    p.Log(level="warning", message="careful"),
    p.Tokenize(id="t1", text="你好 world", add_bos=False, vocab_digest=True),
    p.Evaluate(
        id="e1",
        tokens="AQAAAAIAAAA=",
        first_output=0,
        n_outputs=1,
        top_k=32,
        gather="AwAAAA==",
        gather_width=1,
        keep_prefix=True,
    ),
    p.Quantize(id="q1", source="/m/a.gguf", output="/m/b.gguf", ftype=15, n_threads=2),
    p.Tokenized(id="t1", tokens="AQAAAA==", n_tokens=1, n_vocab=9, vocab_digest="ab" * 32),
    p.Evaluated(
        id="e1",
        n_tokens=2,
        n_evaluated=2,
        n_outputs=1,
        top_k=0,
        gather_width=1,
        data="AAAAAA==",
        decode_ms=1.5,
        total_ms=2.0,
    ),
    p.QuantizeProgress(id="q1", fraction=0.5, tensor="blk.0.attn_k.weight"),
    p.Quantized(
        id="q1",
        output="/m/b.gguf",
        source_bytes=10,
        output_bytes=8,
        elapsed_ms=3.0,
        n_tensors=272,
        fallback_tensors=180,
    ),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_as_one_line(message: p.Message) -> None:
    line = p.encode(message)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    data = json.loads(line)
    assert data["type"] == message.type
    assert p.decode(line) == message
    assert p.decode(line.decode("utf-8")) == message


def test_all_commands_and_events_have_distinct_types() -> None:
    names = [cls.type for cls in p.COMMAND_TYPES + p.EVENT_TYPES]
    assert sorted(names) == sorted(
        [
            *("load", "generate", "cancel", "unload", "shutdown"),
            *("ready", "load_progress", "loaded", "tokens", "done", "error", "log"),
            *("tokenize", "evaluate", "quantize"),
            *("tokenized", "evaluated", "quantize_progress", "quantized"),
        ]
    )
    assert {type(m) for m in EXAMPLES} == set(p.COMMAND_TYPES + p.EVENT_TYPES)


def test_text_is_sent_as_utf8_not_escaped() -> None:
    line = p.encode(p.Tokens(id="g", text="长城", n_tokens=1))
    assert "长城".encode() in line
    assert b"\\u" not in line


def test_defaults_fill_missing_optional_fields() -> None:
    message = p.decode(b'{"type":"generate","id":"g","prompt":"hi"}')
    assert message == p.Generate(id="g", prompt="hi")
    assert isinstance(message, p.Generate)
    assert message.params == p.SamplingParams()
    assert message.params.max_tokens == 256


def test_numbers_given_as_integers_become_floats() -> None:
    message = p.decode(b'{"type":"generate","id":"g","params":{"temperature":1}}')
    assert isinstance(message, p.Generate)
    assert message.params.temperature == 1.0
    assert isinstance(message.params.temperature, float)


def _line(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"garbage", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (_line(type="teleport", id="x"), "Unknown protocol message type 'teleport'"),
        (_line(id="x"), "Unknown protocol message type None"),
        (_line(type="load", path="m.gguf"), "lacks the field 'id'"),
        (_line(type="load", id="l", path="m", colour="red"), "unknown fields: colour"),
        (_line(type="load", id=1, path="m"), "load.id must be a string"),
        (_line(type="load", id="l", path="m", n_ctx="2048"), "load.n_ctx must be an integer"),
        (_line(type="load", id="l", path="m", n_ctx=True), "load.n_ctx must be an integer"),
        (_line(type="load", id="l", path="m", n_ctx=20.5), "load.n_ctx must be an integer"),
        (_line(type="load", id="l", path="m", flash_attn=1), "load.flash_attn must be true"),
        (_line(type="load", id="l", path=None), "load.path must be a string"),
        (_line(type="load", id="l", path="m", n_threads="4"), "load.n_threads has the wrong"),
        (_line(type="generate", id="g", prompt_tokens=[1, "2"]), "prompt_tokens[1]"),
        (_line(type="generate", id="g", prompt_tokens=7), "must be a list"),
        (_line(type="generate", id="g", messages=[{"role": "user"}]), "lacks the field 'content'"),
        (_line(type="generate", id="g", params=[]), "generate.params must be a JSON object"),
        (
            _line(type="generate", id="g", params={"temperature": "hot"}),
            "generate.params.temperature must be a number",
        ),
        (_line(type="done", id="d", finish_reason="bored"), "must be one of"),
        (_line(type="log", level="loud", message="m"), "must be one of"),
        (_line(type="load_progress", id="l"), "lacks the field 'fraction'"),
        (_line(type="load_progress", id="l", fraction="half"), "fraction must be a number"),
        (_line(type="load_progress", id="l", fraction=1.5), "must be 0 to 1, not 1.5"),
        (_line(type="load_progress", id="l", fraction=-0.1), "must be 0 to 1, not -0.1"),
        (_line(type="load_progress", id="l", fraction=float("nan")), "must be 0 to 1, not nan"),
    ],
)
def test_bad_lines_are_refused_with_a_reason(line: bytes, reason: str) -> None:
    with pytest.raises(p.ProtocolError) as caught:
        p.decode(line)
    assert reason in str(caught.value)
    assert caught.value.kind == "protocol"


def test_version_3_says_when_the_context_ended_an_answer() -> None:
    assert p.PROTOCOL_VERSION >= 3
    done = p.Done(id="g1", finish_reason="context", generated_tokens=5)
    assert p.decode(p.encode(done)) == done


def test_version_2_adds_load_progress_which_does_not_end_a_request() -> None:
    assert p.PROTOCOL_VERSION >= 2
    assert p.LoadProgress in p.EVENT_TYPES
    assert p.LoadProgress not in p.TERMINAL_EVENTS
    line = p.encode(p.LoadProgress(id="l7", fraction=0.5))
    assert json.loads(line) == {"type": "load_progress", "id": "l7", "fraction": 0.5}
    whole = p.decode(b'{"type":"load_progress","id":"l7","fraction":1}')
    assert whole == p.LoadProgress(id="l7", fraction=1.0)
    assert isinstance(whole, p.LoadProgress)
    assert isinstance(whole.fraction, float)


def test_an_overlong_line_is_refused_before_parsing() -> None:
    with pytest.raises(p.ProtocolError, match="too long"):
        p.decode(b'"' + b"x" * (p.MAX_LINE_BYTES + 1) + b'"')


def test_messages_are_frozen() -> None:
    message = p.Cancel(id="g")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.id = "h"  # type: ignore[misc]


@given(
    text=st.text(),
    n=st.integers(min_value=0, max_value=2**31),
    role=st.text(min_size=1),
    stop=st.lists(st.text(), max_size=3),
)
def test_any_text_round_trips(text: str, n: int, role: str, stop: list[str]) -> None:
    messages: list[p.Message] = [
        p.Tokens(id=text, text=text, n_tokens=n),
        p.Generate(
            id="g",
            messages=(p.ChatMessage(role, text),),
            params=p.SamplingParams(stop=tuple(stop), seed=n),
        ),
        p.Error(id=None, kind="protocol", message=text, detail=text),
    ]
    for message in messages:
        line = p.encode(message)
        assert line.count(b"\n") == 1  # newlines inside strings are escaped
        assert p.decode(line) == message
