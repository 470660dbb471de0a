"""Chat templates: which one a model gets, and rendering it safely.

Choice, in order: a user override (a name from :data:`NAMED_TEMPLATES` or a Jinja string), the
template embedded in the GGUF (``tokenizer.chat_template``), a template picked by architecture and
family (real files ship without one: the Gemma 3 270M demo file has none, and llama-cpp-python
then falls back to a llama-2 prompt the model does not understand), else ChatML.

Rendering mirrors llama-cpp-python's ``Jinja2ChatFormatter`` (itself aligned with transformers):
an immutable sandbox with ``trim_blocks``/``lstrip_blocks``, the ``loopcontrols`` extension, a
pass-through ``{% generation %}`` tag, ``tojson`` without ASCII escaping, and the ``messages``,
``bos_token``, ``eos_token``, ``add_generation_prompt``, ``raise_exception`` and ``strftime_now``
variables. One difference on purpose: touching an unsafe attribute (``''.__class__``) is an
error here, where plain jinja2 would quietly print nothing.

The sandbox itself is :mod:`desktop.core.engine.template_sandbox` (size limits on ``*``, ``+``
and ``**``); a render here also stops once its output passes ``max_chars``. Time and memory are
limited by whoever renders (:mod:`desktop.core.engine.render_limits`, in the worker).

The named templates (:data:`NAMED_TEMPLATES`) are copies of the real ones, kept verbatim in
:mod:`desktop.core.engine.chat_template_texts`; ``plain`` is ours, for base models without any
chat format.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import jinja2
from jinja2.exceptions import SecurityError

from desktop.core.engine.chat_template_texts import NAMED_TEMPLATES
from desktop.core.engine.template_sandbox import (
    MAX_POWER_BITS,
    MAX_VALUE_ITEMS,
    RaisedByTemplate,
    TooLarge,
    environment,
    raise_exception,
    strftime_now,
)
from desktop.core.errors import EngineError

__all__ = [
    "MAX_POWER_BITS",
    "MAX_VALUE_ITEMS",
    "NAMED_TEMPLATES",
    "TEMPLATE_ALIASES",
    "ChatTemplate",
    "PromptTooLong",
    "TemplateError",
    "check_template",
    "choose_template",
    "family_template_name",
    "merge_system_into_user",
    "render_chat",
    "special_token_texts",
    "stop_strings",
    "supports_system_role",
    "template_names",
]

log = logging.getLogger(__name__)

TemplateSource = Literal["embedded", "family", "named", "jinja"]


class TemplateError(EngineError):
    """A chat template could not be chosen, compiled or rendered."""

    kind = "engine.template"


class PromptTooLong(TemplateError):
    """The rendered prompt passed the ``max_chars`` it was given (``chars``)."""

    def __init__(self, max_chars: int) -> None:
        super().__init__(f"The prompt would be longer than {max_chars:,} characters.")
        self.max_chars = max_chars


@dataclass(frozen=True)
class ChatTemplate:
    """A Jinja chat template and where it came from (``name`` is ``embedded``/``custom`` or a
    key of :data:`NAMED_TEMPLATES`)."""

    name: str
    source: TemplateSource
    text: str


# Other spellings accepted for an override (case-insensitive).
TEMPLATE_ALIASES: Mapping[str, str] = {
    "qwen": "chatml",
    "qwen2": "chatml",
    "qwen3": "chatml",
    "smollm": "chatml",
    "gemma2": "gemma",
    "gemma3": "gemma",
    "llama-2": "llama2",
    "llama-3": "llama3",
    "phi": "phi3",
    "phi-3": "phi3",
    "deepseek-r1": "deepseek",
    "tinyllama": "zephyr",
    "raw": "plain",
}

# Stop strings by marker found in a template's text: a safety net next to the model's own
# end-of-generation tokens (llama.cpp stops on those by itself).
_STOP_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("<end_of_turn>", ("<end_of_turn>",)),
    ("<|im_end|>", ("<|im_end|>",)),
    ("<|eot_id|>", ("<|eot_id|>",)),
    ("<|end|>", ("<|end|>", "<|endoftext|>")),
    ("<｜end▁of▁sentence｜>", ("<｜end▁of▁sentence｜>",)),
    ("[INST]", ("[INST]",)),
    ("<|user|>", ("<|user|>",)),
)
_NAMED_STOPS: Mapping[str, tuple[str, ...]] = {"plain": ("\nUser:",)}

_GEMMA_ARCHS = frozenset({"gemma", "gemma2", "gemma3", "gemma3n", "gemma-embedding"})
_CHATML_ARCHS = frozenset(
    {"qwen", "qwen2", "qwen2moe", "qwen2vl", "qwen3", "qwen3moe", "smollm3", "starcoder2"}
)
_DEEPSEEK_ARCHS = frozenset({"deepseek", "deepseek2"})
_LLAMA3_MIN_VOCAB = 128_000


def template_names() -> list[str]:
    """Names accepted as an override, sorted (aliases not included)."""
    return sorted(NAMED_TEMPLATES)


def _vocab_size(metadata: Mapping[str, Any], architecture: str) -> int | None:
    declared = metadata.get(f"{architecture}.vocab_size")
    if isinstance(declared, int):
        return declared
    tokens = metadata.get("tokenizer.ggml.tokens")
    if isinstance(tokens, int):
        return tokens
    if isinstance(tokens, Sequence) and not isinstance(tokens, str):
        return len(tokens)
    length = getattr(tokens, "length", None)  # a summary of a long array (desktop.core.gguf)
    return length if isinstance(length, int) else None


def _name_hint(metadata: Mapping[str, Any]) -> str | None:
    words = " ".join(
        str(metadata.get(key) or "")
        for key in ("general.name", "general.basename", "general.finetune")
    ).lower()
    if "deepseek" in words and ("r1" in words or "distill" in words):
        return "deepseek"
    if "mistral" in words or "mixtral" in words:
        return "mistral"
    if "zephyr" in words or "tinyllama" in words:
        return "zephyr"
    if "smollm" in words or "qwen" in words:
        return "chatml"
    return None


def family_template_name(metadata: Mapping[str, Any], architecture: str) -> str:
    """The named template for a file without an embedded one, from its architecture and family.

    The architecture decides where it is unambiguous (gemma*, phi3, qwen*, deepseek*); names
    (``general.name``/``basename``/``finetune``) and the tokenizer refine it: a ``llama`` file is
    Llama 3 when its pre-tokenizer is ``llama-bpe`` or its vocabulary has >= 128,000 entries,
    else Llama 2, unless its name says Mistral, Zephyr/TinyLlama, SmolLM or a DeepSeek R1
    distill. Anything else gets ChatML.
    """
    arch = architecture.lower()
    pre = str(metadata.get("tokenizer.ggml.pre") or "").lower()
    if arch in _GEMMA_ARCHS:
        return "gemma"
    if arch == "phi3":
        return "phi3"
    if pre.startswith("deepseek-r1") or arch in _DEEPSEEK_ARCHS:
        return "deepseek"
    if arch.startswith("mistral"):
        return "mistral"
    hint = _name_hint(metadata)
    if hint is not None:
        return hint
    if pre == "smollm":
        return "chatml"
    if arch in _CHATML_ARCHS:
        return "chatml"
    if arch == "llama":
        vocab = _vocab_size(metadata, arch)
        if pre == "llama-bpe" or (vocab is not None and vocab >= _LLAMA3_MIN_VOCAB):
            return "llama3"
        return "llama2"
    return "chatml"


def _looks_like_jinja(text: str) -> bool:
    return "{%" in text or "{{" in text


def choose_template(
    metadata: Mapping[str, Any], architecture: str, override: str | None = None
) -> ChatTemplate:
    """The template a model gets: override, else embedded, else by family (see module doc).

    ``override`` is a key of :data:`NAMED_TEMPLATES` (or an alias) or a Jinja string; a Jinja
    string is compiled here so a syntax error surfaces before the model loads.
    """
    if override is not None and override.strip():
        if _looks_like_jinja(override):
            _compile(override)
            return ChatTemplate("custom", "jinja", override)
        key = override.strip().lower()
        key = TEMPLATE_ALIASES.get(key, key)
        if key not in NAMED_TEMPLATES:
            raise TemplateError(
                f"There is no chat template named '{override.strip()}'; "
                f"choose one of {', '.join(template_names())} or give a Jinja template."
            )
        return ChatTemplate(key, "named", NAMED_TEMPLATES[key])
    embedded = metadata.get("tokenizer.chat_template")
    if isinstance(embedded, bytes):
        embedded = embedded.decode("utf-8", errors="replace")
    if isinstance(embedded, str) and embedded.strip():
        return ChatTemplate("embedded", "embedded", embedded)
    name = family_template_name(metadata, architecture)
    log.info("no embedded chat template; using the %s template for %s", name, architecture)
    return ChatTemplate(name, "family", NAMED_TEMPLATES[name])


def special_token_texts(metadata: Mapping[str, Any]) -> tuple[str, str]:
    """The BOS and EOS token texts from GGUF metadata (``""`` where the file does not say).

    The worker can ask llama.cpp instead (``token_get_text``); this is for callers that only
    have the header, and needs the full ``tokenizer.ggml.tokens`` list.
    """
    tokens = metadata.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, Sequence) or isinstance(tokens, str):
        return "", ""

    def text(key: str) -> str:
        index = metadata.get(key)
        if isinstance(index, int) and 0 <= index < len(tokens):
            value = tokens[index]
            return value if isinstance(value, str) else str(value)
        return ""

    return text("tokenizer.ggml.bos_token_id"), text("tokenizer.ggml.eos_token_id")


def _sentence(prefix: str, detail: str) -> str:
    """One plain sentence: ``prefix: detail.`` on a single line, ending in one full stop."""
    text = f"{prefix}: {' '.join(str(detail).split()) or 'unknown error'}"
    return text if text.endswith((".", "!", "?")) else f"{text}."


@lru_cache(maxsize=64)
def _compile(text: str) -> jinja2.Template:
    try:
        return environment().from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        detail = f"{exc.message or 'syntax error'} (line {exc.lineno})"
        raise TemplateError(_sentence("The chat template is not valid Jinja", detail)) from None
    except (RecursionError, MemoryError) as exc:  # nested past what the parser can hold
        detail = f"{type(exc).__name__}: it nests too deeply or is too large"
        raise TemplateError(_sentence("The chat template cannot be compiled", detail)) from None


def _compile_for(template: ChatTemplate) -> jinja2.Template:
    """The compiled template; for a model's own template, the error says what to do instead."""
    try:
        return _compile(template.text)
    except TemplateError as exc:
        if template.source != "embedded":
            raise
        raise TemplateError(
            f"The model file's own chat template cannot be used: {exc.message} "
            f"Choose another template instead ({', '.join(template_names())})."
        ) from None


def check_template(template: ChatTemplate) -> None:
    """Compile ``template`` now: TemplateError if it is not valid Jinja."""
    _compile_for(template)


def _render(
    compiled: jinja2.Template,
    messages: list[dict[str, Any]],
    *,
    bos_token: str,
    eos_token: str,
    add_generation_prompt: bool,
    extra: Mapping[str, Any],
    max_chars: int | None = None,
) -> str:
    context = dict(extra)
    context.update(
        messages=messages,
        bos_token=bos_token,
        eos_token=eos_token,
        add_generation_prompt=add_generation_prompt,
        raise_exception=raise_exception,
        strftime_now=strftime_now,
    )
    if max_chars is None:
        return compiled.render(**context)
    parts: list[str] = []
    length = 0
    for part in compiled.generate(**context):
        length += len(part)
        if length > max_chars:
            raise PromptTooLong(max_chars)
        parts.append(part)
    return "".join(parts)


_SYSTEM_PROBE = "scout-system-probe-7f3a"


@lru_cache(maxsize=64)
def _supports_system_role(text: str) -> bool:
    probe = [{"role": "system", "content": _SYSTEM_PROBE}, {"role": "user", "content": "hi"}]
    try:
        rendered = _render(
            _compile(text),
            probe,
            bos_token="",
            eos_token="",
            add_generation_prompt=True,
            extra={},
            max_chars=MAX_VALUE_ITEMS,
        )
    except MemoryError:
        raise  # the render's memory cap, not a verdict on system roles
    except Exception:
        return False
    return _SYSTEM_PROBE in rendered


def supports_system_role(template: ChatTemplate) -> bool:
    """Whether the template renders a system message (probed once per template text)."""
    return _supports_system_role(template.text)


def merge_system_into_user(messages: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """Fold system messages into the first user turn, as Gemma 3's own template does.

    System texts are joined with a blank line and put before the first user message, separated
    by a blank line; without a user message they become one.
    """
    system = [m.get("content", "") for m in messages if m.get("role") == "system"]
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    prefix = "\n\n".join(system)
    for message in rest:
        if message.get("role") == "user":
            message["content"] = f"{prefix}\n\n{message.get('content', '')}"
            return rest
    return [{"role": "user", "content": prefix}, *rest]


def render_chat(
    template: ChatTemplate,
    messages: Sequence[Mapping[str, str]],
    *,
    bos_token: str = "",
    eos_token: str = "",
    add_generation_prompt: bool = True,
    extra_context: Mapping[str, Any] | None = None,
    max_chars: int | None = None,
) -> str:
    """Render ``messages`` (``role``/``content`` mappings) to the prompt text.

    A system message on a template without a system role is merged into the first user turn
    (see :func:`merge_system_into_user`). The text holds ``bos_token`` wherever the template
    writes it, as llama-cpp-python's formatter does: tokenize it with ``special=True`` and
    without adding another BOS when it already starts with one. Any failure, including
    ``raise_exception`` in the template and blocked unsafe access, raises :class:`TemplateError`;
    an output past ``max_chars`` characters stops the render with :class:`PromptTooLong`.
    """
    compiled = _compile_for(template)
    prepared: list[dict[str, Any]] = [dict(m) for m in messages]
    if any(m.get("role") == "system" for m in prepared) and not supports_system_role(template):
        prepared = [dict(m) for m in merge_system_into_user(messages)]
    try:
        return _render(
            compiled,
            prepared,
            bos_token=bos_token,
            eos_token=eos_token,
            add_generation_prompt=add_generation_prompt,
            extra=extra_context or {},
            max_chars=max_chars,
        )
    except PromptTooLong:
        raise
    except RaisedByTemplate as exc:
        raise TemplateError(_sentence("The chat template refused the messages", str(exc))) from None
    except SecurityError as exc:
        raise TemplateError(_sentence("The sandbox stopped the chat template", str(exc))) from None
    except TooLarge as exc:
        raise TemplateError(
            _sentence("The chat template tried to build too much", str(exc))
        ) from None
    except MemoryError:
        raise TemplateError(
            "The chat template needed more memory than a template may use; choose another template."
        ) from None
    except Exception as exc:  # a user's template can fail in any way; none may escape raw
        log.debug("chat template %s failed", template.name, exc_info=True)
        detail = f"{type(exc).__name__}: {exc}"
        raise TemplateError(_sentence("The chat template failed to render", detail)) from None


def stop_strings(template: ChatTemplate) -> tuple[str, ...]:
    """Strings that end the assistant's turn for this template (e.g. ``<end_of_turn>``)."""
    found: list[str] = []
    for marker, stops in _STOP_MARKERS:
        if marker in template.text:
            found.extend(s for s in stops if s not in found)
    if template.source in ("named", "family"):
        found.extend(s for s in _NAMED_STOPS.get(template.name, ()) if s not in found)
    return tuple(found)
