"""Why a model did not load: path checks, and llama.cpp's own log lines read back.

The log lines are what llama.cpp 0.3.36 really writes for each case (the end-to-end tests load
the same broken files through a worker).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.engine.loadcheck import LoadFailure, check_model_file, classify_load_failure

FAILED = ValueError("Failed to load model from file: m.gguf")


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (None, "not_found"),
        ("dir", "not_a_file"),
        (b"hello world, not a model", "not_gguf"),
        (b"GG", "truncated"),
        (b"", "truncated"),
    ],
)
def test_plainly_unloadable_paths_are_refused_before_llama_cpp(
    tmp_path: Path, content: bytes | str | None, kind: str
) -> None:
    path = tmp_path / "m.gguf"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    with pytest.raises(LoadFailure) as caught:
        check_model_file(path)
    assert caught.value.kind == kind
    assert str(path) in str(caught.value)
    assert str(caught.value).endswith(".")


def test_a_gguf_magic_passes_the_path_check(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF\x03\x00\x00\x00")
    check_model_file(path)  # no exception: llama.cpp decides the rest


@pytest.mark.parametrize(
    ("log", "kind", "words"),
    [
        (
            "llama_model_load: error loading model: unknown model architecture: 'notarealarch'\n"
            "llama_model_load_from_file_impl: failed to load model",
            "unknown_architecture",
            "notarealarch",
        ),
        (
            "llama_model_load: error loading model: tensor 'blk.15.attn_output.weight' data is "
            "not within the file bounds, model is corrupted or incomplete",
            "truncated",
            "incomplete",
        ),
        (
            "gguf_init_from_reader: failed to read key-value pairs\n"
            "llama_model_load: error loading model: llama_model_loader: failed to load model",
            "truncated",
            "download it again",
        ),
        (
            "gguf_init_from_reader: invalid magic characters: 'hell', expected 'GGUF'",
            "not_gguf",
            "not a GGUF",
        ),
        (
            "llama_model_load: error loading model: mmap failed: Cannot allocate memory",
            "out_of_memory",
            "not enough memory",
        ),
        (
            "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 1073741",
            "out_of_memory",
            "context of 4096 tokens",
        ),
        (
            "llama_model_load: error loading model: something new went wrong",
            "load_failed",
            "something new went wrong",
        ),
    ],
)
def test_llama_cpp_log_lines_become_one_clear_sentence(log: str, kind: str, words: str) -> None:
    failure = classify_load_failure(Path("/m/model.gguf"), 4096, FAILED, log)
    assert failure.kind == kind
    assert words in str(failure)
    assert "\n" not in str(failure)
    assert str(failure).endswith(".")


def test_a_memory_error_is_out_of_memory_whatever_the_log_says() -> None:
    failure = classify_load_failure(Path("m.gguf"), 512, MemoryError(), "")
    assert failure.kind == "out_of_memory"


def test_without_a_log_the_exception_text_is_used() -> None:
    failure = classify_load_failure(Path("m.gguf"), 512, RuntimeError("odd failure"), "")
    assert failure.kind == "load_failed"
    assert "odd failure" in str(failure)
