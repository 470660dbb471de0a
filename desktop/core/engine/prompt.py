"""From chat messages to prompt tokens, the way llama-cpp-python's own chat path does it.

Used by the worker (which holds a loaded ``llama_cpp.Llama``) and by tests that check the
worker's output against bare llama-cpp-python on the same prompt. ``templates`` (and jinja2)
is imported on first use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def render_messages(
    llm: Any,
    template: Any,
    messages: Sequence[Mapping[str, str]],
    max_chars: int | None = None,
) -> str:
    """The prompt text for ``messages`` with the model's BOS/EOS token texts filled in
    (``PromptTooLong`` past ``max_chars`` characters)."""
    from desktop.core.engine.templates import render_chat

    bos, eos = llm.token_bos(), llm.token_eos()
    return str(
        render_chat(
            template,
            messages,
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            max_chars=max_chars,
        )
    )


def prompt_tokens(llm: Any, text: str) -> list[int]:
    """Tokenize a prompt as llama-cpp-python does: special tokens parsed, one BOS in front when
    the model wants one (not a second one when the rendered template already starts with it)."""
    tokens: list[int] = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
    bos = llm.token_bos()
    if llm._model.add_bos_token() and bos != -1 and tokens[:1] != [bos]:
        tokens.insert(0, bos)
    return tokens


def reusable_prefix(llm: Any, tokens: Sequence[int]) -> int:
    """Prompt tokens ``Llama.generate`` will take from the KV cache instead of evaluating
    (the common prefix with what the context holds; at least one token is always evaluated)."""
    held = int(llm.n_tokens)
    if held <= 0:
        return 0
    common = 0
    for cached, token in zip(llm._input_ids[:held].tolist(), tokens, strict=False):
        if cached != token:
            break
        common += 1
    return common - 1 if common == len(tokens) else common


def typed_metadata(llm: Any) -> dict[str, Any]:
    """llama.cpp's metadata strings, with integers as ints (the template chooser reads them)."""
    metadata: dict[str, Any] = {}
    for key, value in dict(llm.metadata).items():
        metadata[key] = int(value) if isinstance(value, str) and value.isdigit() else value
    arch = metadata.get("general.architecture")
    if isinstance(arch, str) and f"{arch}.vocab_size" not in metadata:
        metadata[f"{arch}.vocab_size"] = int(llm.n_vocab())
    return metadata


def stop_strings(template: Any) -> tuple[str, ...]:
    """The template's end-of-turn strings."""
    from desktop.core.engine.templates import stop_strings as template_stops

    return tuple(template_stops(template))
