"""Chat templates: choice, exact rendering, the sandbox, and parity with llama-cpp-python."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import gguf
import pytest
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from desktop.core.engine import template_names
from desktop.core.engine.chat_template_texts import NAMED_TEMPLATES
from desktop.core.engine.prompt import stop_strings
from desktop.core.engine.templates import (
    ChatTemplate,
    TemplateError,
    choose_template,
    family_template_name,
    merge_system_into_user,
    render_chat,
    special_token_texts,
    supports_system_role,
)
from desktop.core.errors import ScoutError
from desktop.core.gguf import read_gguf

THREE_TURNS = [
    {"role": "user", "content": "Hi there"},
    {"role": "assistant", "content": "Hello! How can I help?"},
    {"role": "user", "content": "What is 2 + 2?"},
]
WITH_SYSTEM = [{"role": "system", "content": "Be brief."}, *THREE_TURNS]


def named(name: str) -> ChatTemplate:
    return choose_template({}, "llama", override=name)


def read_metadata(path: Path, arrays: Iterable[str] = ()) -> dict[str, Any]:
    """Key/values of a real GGUF; long arrays only when asked for (reading them is slow)."""
    wanted = set(arrays)
    reader = gguf.GGUFReader(str(path))
    metadata: dict[str, Any] = {}
    for key, field in reader.fields.items():
        is_array = field.types and field.types[0] == gguf.GGUFValueType.ARRAY
        if is_array and len(field.data) > 64 and key not in wanted:
            continue
        metadata[key] = field.contents()
    return metadata


# -- exact renderings (3 turns; the format each model was trained on) ---------------------------


def test_chatml_renders_exactly() -> None:
    assert render_chat(named("chatml"), WITH_SYSTEM) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nHi there<|im_end|>\n"
        "<|im_start|>assistant\nHello! How can I help?<|im_end|>\n"
        "<|im_start|>user\nWhat is 2 + 2?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_gemma_renders_exactly() -> None:
    assert render_chat(named("gemma"), THREE_TURNS, bos_token="<bos>", eos_token="<eos>") == (
        "<bos><start_of_turn>user\nHi there<end_of_turn>\n"
        "<start_of_turn>model\nHello! How can I help?<end_of_turn>\n"
        "<start_of_turn>user\nWhat is 2 + 2?<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_gemma_folds_the_system_message_into_the_first_user_turn() -> None:
    assert render_chat(named("gemma"), WITH_SYSTEM, bos_token="<bos>") == (
        "<bos><start_of_turn>user\nBe brief.\n\nHi there<end_of_turn>\n"
        "<start_of_turn>model\nHello! How can I help?<end_of_turn>\n"
        "<start_of_turn>user\nWhat is 2 + 2?<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_llama3_renders_exactly() -> None:
    text = render_chat(
        named("llama3"), WITH_SYSTEM, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>"
    )
    assert text == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\nHello! How can I help?<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nWhat is 2 + 2?<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_llama2_renders_exactly() -> None:
    text = render_chat(named("llama2"), WITH_SYSTEM, bos_token="<s>", eos_token="</s>")
    assert text == (
        "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi there [/INST]"
        " Hello! How can I help? </s>"
        "<s>[INST] What is 2 + 2? [/INST]"
    )


def test_phi3_renders_exactly() -> None:
    assert render_chat(named("phi3"), WITH_SYSTEM, eos_token="<|endoftext|>") == (
        "<|system|>\nBe brief.<|end|>\n"
        "<|user|>\nHi there<|end|>\n"
        "<|assistant|>\nHello! How can I help?<|end|>\n"
        "<|user|>\nWhat is 2 + 2?<|end|>\n"
        "<|assistant|>\n"
    )


def test_deepseek_r1_distill_renders_exactly() -> None:
    text = render_chat(
        named("deepseek"),
        WITH_SYSTEM,
        bos_token="<｜begin▁of▁sentence｜>",
        eos_token="<｜end▁of▁sentence｜>",
    )
    assert text == (
        "<｜begin▁of▁sentence｜>Be brief."
        "<｜User｜>Hi there"
        "<｜Assistant｜>Hello! How can I help?<｜end▁of▁sentence｜>"
        "<｜User｜>What is 2 + 2?"
        "<｜Assistant｜><think>\n"
    )


def test_deepseek_drops_the_reasoning_of_earlier_answers() -> None:
    turns = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "<think>greet back</think>Hello!"},
        {"role": "user", "content": "Bye"},
    ]
    text = render_chat(named("deepseek"), turns)
    assert "greet back" not in text
    assert "<｜Assistant｜>Hello!<｜end▁of▁sentence｜>" in text


def test_mistral_has_no_system_role_so_it_is_merged() -> None:
    template = named("mistral")
    assert not supports_system_role(template)
    text = render_chat(template, WITH_SYSTEM, bos_token="<s>", eos_token="</s>")
    assert text == (
        "<s>[INST] Be brief.\n\nHi there [/INST]"
        "Hello! How can I help?</s> [INST] What is 2 + 2? [/INST]"
    )


def test_zephyr_renders_exactly() -> None:
    assert render_chat(named("zephyr"), WITH_SYSTEM, eos_token="</s>") == (
        "<|system|>\nBe brief.</s>\n"
        "<|user|>\nHi there</s>\n"
        "<|assistant|>\nHello! How can I help?</s>\n"
        "<|user|>\nWhat is 2 + 2?</s>\n"
        "<|assistant|>\n"
    )


def test_plain_renders_a_transcript() -> None:
    assert render_chat(named("plain"), WITH_SYSTEM) == (
        "Be brief.\n\nUser: Hi there\nAssistant: Hello! How can I help?\n"
        "User: What is 2 + 2?\nAssistant:"
    )


def test_add_generation_prompt_false_leaves_the_turn_closed() -> None:
    text = render_chat(named("chatml"), THREE_TURNS, add_generation_prompt=False)
    assert text.endswith("What is 2 + 2?<|im_end|>\n")
    assert not text.endswith("<|im_start|>assistant\n")


@pytest.mark.parametrize("name", sorted(NAMED_TEMPLATES))
@pytest.mark.parametrize("messages", [THREE_TURNS, [THREE_TURNS[0]]], ids=["3-turns", "1-turn"])
def test_named_templates_render_like_llama_cpp_python(
    name: str, messages: list[dict[str, str]]
) -> None:
    """Same environment as llama-cpp-python's Jinja2ChatFormatter, so the same prompt."""
    template = named(name)
    theirs = Jinja2ChatFormatter(template=template.text, eos_token="</s>", bos_token="<s>")
    expected = theirs(messages=cast(Any, messages)).prompt
    assert render_chat(template, messages, bos_token="<s>", eos_token="</s>") == expected
    assert expected  # a non-trivial render, not two empty strings


# -- choosing -------------------------------------------------------------------------------------


def test_template_names_cover_the_families() -> None:
    names = template_names()
    for required in ("chatml", "llama2", "llama3", "gemma", "phi3", "deepseek", "mistral"):
        assert required in names
    assert {"zephyr", "plain"} <= set(names)
    assert names == sorted(names)


def test_override_by_name_and_alias() -> None:
    embedded = {"tokenizer.chat_template": "{{ 'embedded' }}"}
    chosen = choose_template(embedded, "qwen2", override="llama3")
    assert chosen == ChatTemplate("llama3", "named", NAMED_TEMPLATES["llama3"])
    assert choose_template({}, "llama", override=" Qwen ").name == "chatml"
    assert choose_template({}, "llama", override="gemma3").name == "gemma"
    assert choose_template({}, "llama", override="SMOLLM").name == "chatml"


def test_override_by_jinja_string() -> None:
    text = "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
    chosen = choose_template({"tokenizer.chat_template": "x{{ 1 }}"}, "llama", override=text)
    assert chosen == ChatTemplate("custom", "jinja", text)
    assert (
        render_chat(chosen, THREE_TURNS[:2])
        == "[user] Hi there\n[assistant] Hello! How can I help?\n"
    )


def test_unknown_override_name_lists_the_choices() -> None:
    with pytest.raises(TemplateError) as caught:
        choose_template({}, "llama", override="vicuna")
    message = str(caught.value)
    assert "vicuna" in message
    assert "chatml" in message
    assert "llama3" in message
    assert isinstance(caught.value, ScoutError)


def test_invalid_jinja_override_fails_when_chosen() -> None:
    with pytest.raises(TemplateError, match=r"not valid Jinja.*line 1"):
        choose_template({}, "llama", override="{% for m in messages %}{{ m.content }}")


def test_embedded_template_wins_over_the_family() -> None:
    metadata = {"tokenizer.chat_template": "{{ messages[0]['content'] }}!"}
    chosen = choose_template(metadata, "gemma3")
    assert chosen == ChatTemplate("embedded", "embedded", "{{ messages[0]['content'] }}!")
    assert render_chat(chosen, THREE_TURNS) == "Hi there!"


@pytest.mark.parametrize("blank", ["", "   ", None])
def test_blank_embedded_template_falls_back_to_the_family(blank: str | None) -> None:
    chosen = choose_template({"tokenizer.chat_template": blank}, "gemma3")
    assert (chosen.name, chosen.source) == ("gemma", "family")


class _ArraySummary:
    """Shape of desktop.core.gguf.reader's stand-in for a long array (only ``length`` is read)."""

    def __init__(self, length: int) -> None:
        self.length = length


@pytest.mark.parametrize(
    ("architecture", "metadata", "expected"),
    [
        ("gemma3", {}, "gemma"),
        ("gemma2", {}, "gemma"),
        ("gemma", {}, "gemma"),
        ("llama", {"tokenizer.ggml.pre": "llama-bpe"}, "llama3"),
        ("llama", {"llama.vocab_size": 128256}, "llama3"),
        ("llama", {"tokenizer.ggml.tokens": _ArraySummary(128256)}, "llama3"),
        (
            "llama",
            {"tokenizer.ggml.tokens": ["a"] * 32000, "tokenizer.ggml.pre": "default"},
            "llama2",
        ),
        ("llama", {}, "llama2"),
        ("llama", {"tokenizer.ggml.pre": "smollm"}, "chatml"),
        ("llama", {"general.name": "Mistral 7B Instruct v0.2"}, "mistral"),
        ("llama", {"general.name": "TinyLlama 1.1B Chat v1.0"}, "zephyr"),
        (
            "llama",
            {"general.name": "DeepSeek R1 Distill Llama 8B", "tokenizer.ggml.pre": "llama-bpe"},
            "deepseek",
        ),
        ("qwen2", {}, "chatml"),
        ("qwen3", {}, "chatml"),
        ("qwen2", {"tokenizer.ggml.pre": "deepseek-r1-qwen"}, "deepseek"),
        ("phi3", {}, "phi3"),
        ("deepseek2", {}, "deepseek"),
        ("rwkv7", {}, "chatml"),
    ],
)
def test_family_choice(architecture: str, metadata: dict[str, Any], expected: str) -> None:
    assert family_template_name(metadata, architecture) == expected
    chosen = choose_template(metadata, architecture)
    assert chosen == ChatTemplate(expected, "family", NAMED_TEMPLATES[expected])


# -- the real demo files ---------------------------------------------------------------------


def test_gemma3_demo_file_gets_the_gemma_family_template(gemma3_path: Path) -> None:
    info = read_gguf(gemma3_path)
    assert "tokenizer.chat_template" not in info.metadata
    chosen = choose_template(info.metadata, info.arch.architecture)
    assert (chosen.name, chosen.source) == ("gemma", "family")
    assert stop_strings(chosen) == ("<end_of_turn>",)
    text = render_chat(chosen, [{"role": "user", "content": "Hi"}], bos_token="<bos>")
    assert text == "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"


def test_smollm2_embedded_template_renders_like_llama_cpp_python(smollm2_path: Path) -> None:
    import llama_cpp

    info = read_gguf(smollm2_path)
    chosen = choose_template(info.metadata, info.arch.architecture)
    assert chosen.source == "embedded"
    assert "<|im_start|>" in chosen.text
    bos, eos = special_token_texts(read_metadata(smollm2_path, arrays=["tokenizer.ggml.tokens"]))

    # llama-cpp-python's own view of the same file: its metadata and its vocabulary.
    llm = llama_cpp.Llama(str(smollm2_path), vocab_only=True, verbose=False)
    try:
        assert chosen.text == llm.metadata["tokenizer.chat_template"]
        assert bos == llm._model.token_get_text(llm.token_bos())
        assert eos == llm._model.token_get_text(llm.token_eos())
    finally:
        llm.close()
    formatter = Jinja2ChatFormatter(
        template=llm.metadata["tokenizer.chat_template"], eos_token=eos, bos_token=bos
    )
    for messages in (THREE_TURNS, WITH_SYSTEM):
        ours = render_chat(chosen, messages, bos_token=bos, eos_token=eos)
        assert ours == formatter(messages=cast(Any, messages)).prompt
    # Its template adds a default system prompt when none is given, and keeps ours when given.
    assert "You are a helpful AI assistant named SmolLM" in render_chat(chosen, THREE_TURNS)
    with_system = render_chat(chosen, WITH_SYSTEM)
    assert with_system.startswith("<|im_start|>system\nBe brief.<|im_end|>\n")
    assert stop_strings(chosen) == ("<|im_end|>",)


def test_special_token_texts_need_the_token_list() -> None:
    metadata = {
        "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>"],
        "tokenizer.ggml.bos_token_id": 1,
        "tokenizer.ggml.eos_token_id": 2,
    }
    assert special_token_texts(metadata) == ("<s>", "</s>")
    assert special_token_texts({"tokenizer.ggml.tokens": _ArraySummary(3)}) == ("", "")
    assert special_token_texts({**metadata, "tokenizer.ggml.eos_token_id": 7}) == ("<s>", "")


# -- the sandbox and errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "{{ ''.__class__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ ''|attr('__class__') }}",
        "{{ messages.__len__() }}",
        "{{ raise_exception.__globals__ }}",
        "{% set x = messages.append({'role': 'user', 'content': 'x'}) %}{{ x }}",
        "{% set x = messages[0].update({'role': 'system'}) %}{{ x }}",
    ],
)
def test_sandbox_blocks_unsafe_access(text: str) -> None:
    template = choose_template({}, "llama", override=text)
    with pytest.raises(TemplateError, match="sandbox stopped") as caught:
        render_chat(template, THREE_TURNS)
    assert "\n" not in str(caught.value)


def test_raise_exception_becomes_a_template_error() -> None:
    with pytest.raises(TemplateError, match="roles must alternate user/assistant/user/assistant/"):
        render_chat(named("llama2"), [{"role": "assistant", "content": "I start"}])


def test_any_render_failure_is_one_plain_sentence() -> None:
    template = choose_template({}, "llama", override="{{ 1 + messages[0]['content'] }}")
    with pytest.raises(TemplateError) as caught:
        render_chat(template, THREE_TURNS)
    message = str(caught.value)
    assert message.startswith("The chat template failed to render: TypeError")
    assert message.endswith(".")
    assert "\n" not in message
    assert "Traceback" not in message
    assert caught.value.kind == "engine.template"


def test_generation_tag_tojson_and_strftime_like_transformers() -> None:
    text = (
        "{% generation %}{{ messages | tojson }}{% endgeneration %}"
        "|{{ strftime_now('%Y') }}|{{ bos_token }}{{ eos_token }}"
        "{% for m in messages %}{% if loop.index > 1 %}{% break %}{% endif %}"
        "{{ m.role }}{% endfor %}"
    )
    template = choose_template({}, "llama", override=text)
    messages = [{"role": "user", "content": "你好"}, {"role": "assistant", "content": "hi"}]
    rendered = render_chat(template, messages, bos_token="B", eos_token="E")
    assert rendered == (
        '[{"role": "user", "content": "你好"}, {"role": "assistant", "content": "hi"}]'
        f"|{datetime.now():%Y}|BEuser"
    )


def test_extra_context_reaches_the_template() -> None:
    template = choose_template({}, "llama", override="{{ 'think' if enable_thinking else 'no' }}")
    assert render_chat(template, THREE_TURNS) == "no"
    assert render_chat(template, THREE_TURNS, extra_context={"enable_thinking": True}) == "think"


def test_render_does_not_modify_the_callers_messages() -> None:
    messages = [dict(m) for m in WITH_SYSTEM]
    render_chat(named("mistral"), messages)
    assert messages == WITH_SYSTEM


# -- system messages and stop strings ------------------------------------------------------------


def test_merge_system_into_user() -> None:
    assert merge_system_into_user(WITH_SYSTEM)[0] == {
        "role": "user",
        "content": "Be brief.\n\nHi there",
    }
    assert len(merge_system_into_user(WITH_SYSTEM)) == 3
    two_systems = [{"role": "system", "content": "A"}, {"role": "system", "content": "B"}]
    assert merge_system_into_user(two_systems) == [{"role": "user", "content": "A\n\nB"}]
    assert merge_system_into_user(THREE_TURNS) == THREE_TURNS


@pytest.mark.parametrize(
    ("name", "supported"),
    [("chatml", True), ("llama2", True), ("llama3", True), ("gemma", True), ("mistral", False)],
)
def test_system_role_probe(name: str, supported: bool) -> None:
    assert supports_system_role(named(name)) is supported


def test_template_that_ignores_system_gets_it_merged() -> None:
    template = choose_template(
        {},
        "llama",
        override="{% for m in messages if m.role != 'system' %}{{ m.content }}|{% endfor %}",
    )
    assert not supports_system_role(template)
    assert (
        render_chat(template, WITH_SYSTEM)
        == "Be brief.\n\nHi there|Hello! How can I help?|What is 2 + 2?|"
    )


@pytest.mark.parametrize(
    ("name", "stops"),
    [
        ("gemma", ("<end_of_turn>",)),
        ("chatml", ("<|im_end|>",)),
        ("llama3", ("<|eot_id|>",)),
        ("phi3", ("<|end|>", "<|endoftext|>", "<|user|>")),
        ("deepseek", ("<｜end▁of▁sentence｜>",)),
        ("mistral", ("[INST]",)),
        ("llama2", ("[INST]",)),
        ("zephyr", ("<|user|>",)),
        ("plain", ("\nUser:",)),
    ],
)
def test_stop_strings(name: str, stops: tuple[str, ...]) -> None:
    assert stop_strings(named(name)) == stops


def test_stop_strings_of_custom_templates_come_from_their_markers() -> None:
    custom = choose_template({}, "llama", override="{{ '<end_of_turn>' }}{{ '<|im_end|>' }}")
    assert stop_strings(custom) == ("<end_of_turn>", "<|im_end|>")
    assert stop_strings(choose_template({}, "llama", override="{{ 'x' }}")) == ()
