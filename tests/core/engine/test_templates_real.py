"""Chosen chat templates on real llama.cpp with the demo models (greedy, 24 tokens).

The Gemma 3 270M demo file is the base model (google/gemma-3-270m, not -it) and carries no chat
template: llama-cpp-python then formats with llama-2 and the model answers nothing. With the
gemma family template it answers. Being a base model, it never produces ``<end_of_turn>`` (its
logit ranks in the thousands after the answer), so stopping at the end of the turn is shown on
SmolLM2-Instruct, whose embedded template ends turns with ``<|im_end|>``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from desktop.core.engine.prompt import stop_strings
from desktop.core.engine.templates import ChatTemplate, choose_template, render_chat

if TYPE_CHECKING:
    from llama_cpp import Llama

pytestmark = pytest.mark.e2e

QUESTION = {"role": "user", "content": "What is the capital of France?"}
ONE_SHOT = [
    {"role": "user", "content": "What is the capital of Italy?"},
    {"role": "assistant", "content": "Rome."},
    QUESTION,
]
MAX_TOKENS = 24


@dataclass(frozen=True)
class Completion:
    prompt_tokens: list[int]
    text: str
    finish_reason: str | None
    n_tokens: int


def load(path: Path) -> Llama:
    from llama_cpp import Llama

    return Llama(str(path), n_ctx=256, n_threads=2, n_batch=64, seed=0, verbose=False)


@pytest.fixture(scope="module")
def gemma(gemma3_path: Path) -> Iterator[Llama]:
    llm = load(gemma3_path)
    yield llm
    llm.close()


@pytest.fixture(scope="module")
def smollm(smollm2_path: Path) -> Iterator[Llama]:
    llm = load(smollm2_path)
    yield llm
    llm.close()


def chosen_template(llm: Llama) -> ChatTemplate:
    """What the worker does: the model's own metadata, as llama-cpp-python reads it."""
    return choose_template(llm.metadata, llm.metadata["general.architecture"])


def complete(llm: Llama, template: ChatTemplate, messages: list[dict[str, str]]) -> Completion:
    bos = llm._model.token_get_text(llm.token_bos())
    eos = llm._model.token_get_text(llm.token_eos())
    prompt = render_chat(template, messages, bos_token=bos, eos_token=eos)
    tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
    llm.reset()  # type: ignore[no-untyped-call]
    out: Any = llm.create_completion(
        tokens, max_tokens=MAX_TOKENS, temperature=0.0, stop=list(stop_strings(template))
    )
    choice = out["choices"][0]
    return Completion(
        tokens, choice["text"], choice["finish_reason"], out["usage"]["completion_tokens"]
    )


def test_gemma3_answers_with_the_family_template_where_llama2_fallback_is_silent(
    gemma: Llama,
) -> None:
    # llama-cpp-python's own behaviour on this file: no template -> llama-2 -> nothing.
    assert gemma.chat_format == "llama-2"
    fallback: Any = gemma.create_chat_completion(
        [cast(Any, QUESTION)], max_tokens=MAX_TOKENS, temperature=0.0
    )
    assert fallback["choices"][0]["message"]["content"] == ""

    template = chosen_template(gemma)
    assert (template.name, template.source) == ("gemma", "family")
    ours = complete(gemma, template, [QUESTION])
    # The template writes <bos> itself, once; tokenized without adding another.
    assert ours.prompt_tokens[0] == gemma.token_bos()
    assert ours.prompt_tokens.count(gemma.token_bos()) == 1
    assert ours.text.strip()
    assert ours.n_tokens > 0
    assert "<end_of_turn>" not in ours.text


def test_gemma3_understands_the_turns_of_the_family_template(gemma: Llama) -> None:
    ours = complete(gemma, chosen_template(gemma), ONE_SHOT)
    assert ours.text.startswith("Paris")


def test_smollm2_embedded_template_stops_at_the_end_of_its_turn(smollm: Llama) -> None:
    template = chosen_template(smollm)
    assert template.source == "embedded"
    assert "<|im_end|>" in stop_strings(template)
    ours = complete(smollm, template, ONE_SHOT)
    assert ours.text.strip().startswith("Paris")
    assert ours.finish_reason == "stop"
    assert ours.n_tokens < MAX_TOKENS
    assert "<|im_end|>" not in ours.text
