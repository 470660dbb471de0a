"""Real llama.cpp agrees with the reader, and runs every tiny random-weight model."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from desktop.core.gguf import GGUFInfo, read_gguf
from tests.fixtures.tiny_models import ARCHES, FTYPES, write_tiny_model

pytestmark = pytest.mark.e2e


@contextmanager
def _loaded(path: Path) -> Iterator[Any]:
    import llama_cpp

    llm = llama_cpp.Llama(str(path), n_ctx=64, n_threads=1, verbose=False)
    try:
        yield llm
    finally:
        llm.close()


def _assert_llama_cpp_agrees(llm: Any, info: GGUFInfo) -> None:
    model = llm._model
    assert model.n_params() == info.arch.n_params
    assert model.size() == info.tensor_bytes
    assert model.n_ctx_train() == info.arch.n_ctx_train
    assert model.n_embd() == info.arch.n_embd
    assert model.n_vocab() == info.arch.n_vocab
    assert llm.metadata["general.architecture"] == info.arch.architecture


def _generate(llm: Any, n: int) -> list[int]:
    tokens = llm.tokenize(b"Hello there", add_bos=True)
    produced: list[int] = []
    for token in llm.generate(tokens, temp=0.0):
        produced.append(token)
        if len(produced) == n:
            break
    return produced


def test_llama_cpp_agrees_on_the_demo_models(smollm2_path: Path, gemma3_path: Path) -> None:
    for path in (smollm2_path, gemma3_path):
        info = read_gguf(path)
        with _loaded(path) as llm:
            _assert_llama_cpp_agrees(llm, info)


@pytest.mark.parametrize("arch", ARCHES)
def test_tiny_model_loads_and_generates(tmp_path: Path, arch: str) -> None:
    path = write_tiny_model(tmp_path / f"{arch}.gguf", arch=arch, n_layers=3, n_vocab=512)
    info = read_gguf(path)
    with _loaded(path) as llm:
        _assert_llama_cpp_agrees(llm, info)
        produced = _generate(llm, 4)
    assert len(produced) == 4
    assert all(0 <= token < 512 for token in produced)


def test_tiny_moe_model(tmp_path: Path) -> None:
    path = write_tiny_model(tmp_path / "moe.gguf", n_vocab=512, n_expert=4, n_expert_used=2)
    info = read_gguf(path)
    assert (info.arch.n_expert, info.arch.n_expert_used) == (4, 2)
    with _loaded(path) as llm:
        _assert_llama_cpp_agrees(llm, info)
        assert len(_generate(llm, 4)) == 4


@pytest.mark.parametrize("ftype", sorted(FTYPES))
def test_every_ftype_runs(tmp_path: Path, ftype: str) -> None:
    path = write_tiny_model(tmp_path / f"{ftype}.gguf", arch="qwen2", n_vocab=512, ftype=ftype)
    info = read_gguf(path)
    assert info.quant == ftype
    with _loaded(path) as llm:
        _assert_llama_cpp_agrees(llm, info)
        assert len(_generate(llm, 2)) == 2


def test_full_vocabularies(tmp_path: Path) -> None:
    bpe = write_tiny_model(tmp_path / "bpe.gguf", arch="qwen3")
    spm = write_tiny_model(
        tmp_path / "spm.gguf", arch="gemma3", tokenizer="gemma3", with_chat_template=False
    )
    for path, n_vocab in ((bpe, 49152), (spm, 262144)):
        info = read_gguf(path)
        assert info.arch.n_vocab == n_vocab
        with _loaded(path) as llm:
            _assert_llama_cpp_agrees(llm, info)
            text = llm.detokenize(llm.tokenize("你好, world".encode(), add_bos=False))
            assert text.decode().strip() == "你好, world"
            assert len(_generate(llm, 2)) == 2


def test_embedded_chat_template_is_used(tmp_path: Path) -> None:
    path = write_tiny_model(tmp_path / "chat.gguf", arch="llama", n_vocab=512)
    info = read_gguf(path)
    assert info.chat_template is not None
    with _loaded(path) as llm:
        assert llm.metadata["tokenizer.chat_template"] == info.chat_template
        reply = llm.create_chat_completion(
            messages=[{"role": "user", "content": "hi"}], max_tokens=3, temperature=0.0
        )
    assert reply["usage"]["prompt_tokens"] > 3  # the template wrapped the message
