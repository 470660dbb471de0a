"""The worker's quality commands on the real SmolLM2 demo: tokenize with the vocabulary's
digest, evaluate with a reused prefix, and refusals of requests that cannot run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p
from desktop.core.engine.logits import decode_ints, encode_ints, unpack_scores


@pytest.fixture(scope="module")
def client(smollm2_path: Path) -> Iterator[EngineClient]:
    engine = EngineClient()
    engine.start()
    engine.load_model(smollm2_path, n_ctx=128, n_batch=128, n_threads=2)
    yield engine
    engine.close()


def test_tokenize_and_the_vocabulary_digest(client: EngineClient) -> None:
    event = client.tokenize("Hello world", vocab_digest=True).result(120)
    assert isinstance(event, p.Tokenized)
    assert event.n_vocab == 49152
    assert len(event.vocab_digest) == 64
    ids = decode_ints(event.tokens)
    assert ids.size == event.n_tokens == 2  # SmolLM2 adds no BOS
    again = client.tokenize("Hello world", vocab_digest=True).result(120)
    assert isinstance(again, p.Tokenized)
    assert again.vocab_digest == event.vocab_digest
    special = client.tokenize("<|im_start|>", add_bos=False).result(120)
    assert isinstance(special, p.Tokenized)
    assert special.n_tokens > 1  # text is text: special tokens are not parsed


def test_a_reused_prefix_gives_the_same_scores(client: EngineClient) -> None:
    tokens = np.arange(100, 160, dtype=np.int32)
    first = client.evaluate(encode_ints(tokens), 40, 19).result(300)
    assert isinstance(first, p.Evaluated)
    assert first.n_evaluated == 59
    longer = np.concatenate([tokens, np.arange(500, 510, dtype=np.int32)])
    second = client.evaluate(encode_ints(longer), 40, 29, keep_prefix=True).result(300)
    assert isinstance(second, p.Evaluated)
    assert second.n_evaluated == 69 - 40  # positions 0..39 came from the KV cache
    a = unpack_scores(first.data, 19, 0, 0)
    b = unpack_scores(second.data, 29, 0, 0)
    np.testing.assert_allclose(a.target_lp, b.target_lp[:19], atol=1e-4)
    np.testing.assert_array_equal(a.argmax, b.argmax[:19])


def test_a_generate_after_an_evaluation_starts_afresh(client: EngineClient) -> None:
    client.evaluate(encode_ints(np.arange(1, 50, dtype=np.int32)), 10, 5).result(300)
    params = p.SamplingParams(temperature=0.0, max_tokens=4, seed=1)
    done = client.generate(prompt="The sky is", params=params, cache_prompt=True).result(300)
    assert isinstance(done, p.Done)
    assert done.cached_prompt_tokens == 0
    assert done.generated_tokens > 0


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"tokens": encode_ints([1, 2, 3]), "first_output": 2, "n_outputs": 2}, "not all among"),
        ({"tokens": encode_ints([1, 99999]), "first_output": 0, "n_outputs": 1}, "vocabulary"),
        ({"tokens": encode_ints(list(range(200))), "first_output": 0, "n_outputs": 1}, "context"),
        ({"tokens": "@@@", "first_output": 0, "n_outputs": 1}, "base64"),
        ({"tokens": encode_ints([1, 2]), "first_output": 0, "n_outputs": 1, "top_k": 999}, "top_k"),
        (
            {
                "tokens": encode_ints([1, 2]),
                "first_output": 0,
                "n_outputs": 1,
                "gather": encode_ints([1, 2, 3]),
                "gather_width": 2,
            },
            "gather",
        ),
    ],
)
def test_requests_that_cannot_run_are_refused(
    client: EngineClient, kwargs: dict[str, object], words: str
) -> None:
    tokens = kwargs.pop("tokens")
    first = kwargs.pop("first_output")
    n = kwargs.pop("n_outputs")
    event = client.evaluate(tokens, first, n, **kwargs).wait(120)  # type: ignore[arg-type]
    assert isinstance(event, p.Error)
    assert event.kind == "invalid_request"
    assert words in event.message


def test_evaluate_needs_a_model() -> None:
    engine = EngineClient()
    engine.start()
    try:
        event = engine.evaluate(encode_ints([1, 2]), 0, 1).wait(120)
        assert isinstance(event, p.Error)
        assert event.kind == "not_loaded"
        bad = engine.quantize("/nowhere/model.gguf", "/tmp/x.gguf", 7).wait(120)
        assert isinstance(bad, p.Error)
        assert bad.kind == "not_found"
    finally:
        engine.close()
