"""Broken GGUF input: every failure is one GGUFError subclass with an offset and one sentence."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pytest

from desktop.core.errors import GGUFError, ScoutError
from desktop.core.gguf import (
    GGUFFileError,
    GGUFFormatError,
    GGUFNotAModelError,
    GGUFStringSummary,
    GGUFTruncatedError,
    GGUFVersionError,
    read_gguf,
)
from tests.fixtures.tiny_models import write_broken_files, write_custom_gguf, write_tiny_model

# case -> (error class, offset where reading failed; None where no single byte is to blame)
EXPECTED: dict[str, tuple[type[GGUFError], int | None]] = {
    "empty": (GGUFTruncatedError, 0),
    "bad_magic": (GGUFFormatError, 0),
    "version_99": (GGUFVersionError, 4),
    "version_1": (GGUFVersionError, 4),
    "absurd_tensor_count": (GGUFFormatError, 8),
    "absurd_kv_count": (GGUFFormatError, 16),
    "absurd_string_length": (GGUFFormatError, 24),
    "absurd_array_length": (GGUFFormatError, 57),
    "non_utf8_key": (GGUFFormatError, 24),
    "unknown_value_type": (GGUFFormatError, 44),
    "unknown_tensor_type": (GGUFFormatError, 107),
    "too_many_dims": (GGUFFormatError, 78),
    "bad_alignment": (GGUFFormatError, 94),
    "duplicate_key": (GGUFFormatError, 69),
    "truncated_magic": (GGUFTruncatedError, 0),
    "truncated_version": (GGUFTruncatedError, 4),
    "truncated_counts": (GGUFTruncatedError, 8),
    "truncated_kv": (GGUFTruncatedError, 56),
    "truncated_tensor_info": (GGUFTruncatedError, 99),
    "truncated_tensor_data": (GGUFTruncatedError, -1),  # -1: the file size
    "not_a_model": (GGUFNotAModelError, None),
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_broken_files(tmp_path_factory.mktemp("broken"))


def _assert_one_sentence(error: ScoutError) -> None:
    text = str(error)
    assert text
    assert "\n" not in text
    assert "Traceback" not in text


def test_every_broken_case_is_covered(broken: dict[str, Path]) -> None:
    assert set(broken) == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_broken_file(broken: dict[str, Path], case: str) -> None:
    cls, offset = EXPECTED[case]
    path = broken[case]
    with pytest.raises(GGUFError) as caught:
        read_gguf(path)
    error = caught.value
    assert type(error) is cls
    if offset == -1:
        offset = path.stat().st_size
    assert error.offset == offset
    if offset is not None:
        assert str(error).endswith(f"(at byte {offset})")
    assert path.name in str(error)
    assert error.kind.startswith("gguf.")
    _assert_one_sentence(error)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(GGUFFileError) as caught:
        read_gguf(tmp_path / "nope.gguf")
    assert caught.value.kind == "gguf.missing"
    _assert_one_sentence(caught.value)


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(GGUFFileError, match="folder") as caught:
        read_gguf(tmp_path)
    _assert_one_sentence(caught.value)


def test_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    with pytest.raises(GGUFFileError, match="not a regular file"):
        read_gguf(fifo)


def test_text_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_text("hello, this is not a model\n")
    with pytest.raises(GGUFFormatError, match="not a GGUF file") as text:
        read_gguf(path)
    # The first bytes as a person reads them, not as a Python byte literal.
    assert 'starts with "hell" instead of GGUF' in text.value.message
    assert "b'" not in text.value.message
    gzip = tmp_path / "packed.gguf"
    gzip.write_bytes(b"\x1f\x8b\x08\x00" + bytes(60))
    with pytest.raises(GGUFFormatError) as packed:
        read_gguf(gzip)
    assert "starts with the bytes 1f 8b 08 00 instead of GGUF" in packed.value.message


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny") / "tiny.gguf"
    return write_tiny_model(path, arch="gemma3", n_vocab=600, ftype="Q8_0")


def test_truncated_anywhere(tiny: Path, tmp_path: Path) -> None:
    whole = tiny.read_bytes()
    header_end = read_gguf(tiny).data_offset
    cuts = [*range(0, header_end, 61), header_end, header_end + 1, len(whole) // 2, len(whole) - 1]
    cut_file = tmp_path / "cut.gguf"
    for cut in cuts:
        cut_file.write_bytes(whole[:cut])
        with pytest.raises(GGUFTruncatedError) as caught:
            read_gguf(cut_file)
        offset = caught.value.offset
        assert offset is not None
        assert offset <= cut, cut
        _assert_one_sentence(caught.value)


def test_truncated_real_headers(smollm2_path: Path, gemma3_path: Path, tmp_path: Path) -> None:
    for source in (smollm2_path, gemma3_path):
        header_end = read_gguf(source).data_offset
        with source.open("rb") as handle:
            header = handle.read(header_end + 4096)
        for cut in (3, 8, 23, 24, 1000, 100_000, 1_000_000, header_end - 1, header_end + 4096):
            cut_file = tmp_path / f"{cut}-{source.name}"
            cut_file.write_bytes(header[:cut])
            with pytest.raises(GGUFTruncatedError) as caught:
                read_gguf(cut_file)
            assert caught.value.offset is not None
            assert caught.value.offset <= cut
            cut_file.unlink()


def test_key_longer_than_the_spec_allows(tmp_path: Path) -> None:
    key = b"general." + b"k" * 70_000
    path = tmp_path / "long-key.gguf"
    path.write_bytes(
        b"GGUF" + struct.pack("<IQQQ", 3, 0, 1, len(key)) + key + struct.pack("<I", 4) + b"\0" * 4
    )
    with pytest.raises(GGUFFormatError, match="at most 65,535") as caught:
        read_gguf(path)
    assert caught.value.offset == 24


def test_tensor_name_longer_than_ggml_allows(tmp_path: Path) -> None:
    name = "blk.0." + "x" * 60 + ".weight"
    tensors = {name: np.zeros((4,), dtype=np.float32)}
    metadata = {"llama.block_count": 1, "llama.embedding_length": 4, "llama.context_length": 8}
    path = write_custom_gguf(tmp_path / "long-name.gguf", "llama", metadata, tensors)
    with pytest.raises(GGUFFormatError, match="at most 63"):
        read_gguf(path)


def test_overlong_text_is_summarised_only_when_it_would_outgrow_the_file(tmp_path: Path) -> None:
    text = "é" * 50_000  # 100,000 bytes of UTF-8
    metadata = {
        "llama.block_count": 1,
        "llama.embedding_length": 4,
        "llama.context_length": 8,
        "general.description": text,
    }
    small = write_custom_gguf(tmp_path / "small.gguf", "llama", metadata, {})
    summary = read_gguf(small).metadata["general.description"]
    assert isinstance(summary, GGUFStringSummary)
    assert len(summary) == 100_000
    assert small.read_bytes()[summary.offset : summary.offset + 2] == "é".encode()
    big = write_custom_gguf(
        tmp_path / "big.gguf",
        "llama",
        metadata,
        {"token_embd.weight": np.zeros((1000, 256), dtype=np.float32)},
    )
    assert read_gguf(big).metadata["general.description"] == text


def _tensor_info(name: bytes, shape: tuple[int, ...], ggml_type: int, offset: int) -> bytes:
    return (
        struct.pack("<Q", len(name))
        + name
        + struct.pack(f"<I{len(shape)}QIQ", len(shape), *shape, ggml_type, offset)
    )


F32, Q4_0 = 0, 2
_ARCH_KV = struct.pack("<Q", 20) + b"general.architecture" + struct.pack("<IQ", 8, 5) + b"llama"
# (second tensor info, error message pattern, offset of the blamed bytes inside that info)
_BAD_SECOND_TENSOR: dict[str, tuple[bytes, str, int]] = {
    "duplicate name": (_tensor_info(b"a", (8,), F32, 32), "'a' appears twice", 0),
    "five dimensions": (_tensor_info(b"b", (1, 1, 1, 1, 1), F32, 32), "5 dimensions", 9),
    "first dimension not a whole block": (_tensor_info(b"b", (33,), Q4_0, 32), "block size", 9),
    "data offset off the alignment": (_tensor_info(b"b", (8,), F32, 40), "alignment 32", 25),
    "unknown type": (_tensor_info(b"b", (8,), 999, 32), "tensor type 999", 21),
    "elements past int64": (_tensor_info(b"b", (2**40, 2**40, 0), F32, 32), "absurd shape", 21),
    "dimension past int64": (_tensor_info(b"b", (0, 2**63), F32, 32), "absurd shape", 21),
    "name not UTF-8": (_tensor_info(b"\xff\xfe", (8,), F32, 32), "not valid UTF-8", 0),
    "name too long": (_tensor_info(b"n" * 64, (8,), F32, 32), "at most 63", 0),
}


@pytest.mark.parametrize("case", sorted(_BAD_SECOND_TENSOR))
def test_bad_tensor_info_in_a_complete_header(tmp_path: Path, case: str) -> None:
    """The whole header is there (the reader's quick path sees it first); the error is still the
    one sentence with the offset of the bad field, as for a header cut short."""
    second, pattern, blamed = _BAD_SECOND_TENSOR[case]
    head = b"GGUF" + struct.pack("<IQQ", 3, 2, 1) + _ARCH_KV + _tensor_info(b"a", (8,), F32, 0)
    data = head + second
    data += b"\0" * (-len(data) % 32 + 4096)  # padding and room for any tensor data
    path = tmp_path / "bad-tensor.gguf"
    path.write_bytes(data)
    with pytest.raises(GGUFFormatError, match=pattern) as caught:
        read_gguf(path)
    assert caught.value.offset == len(head) + blamed
    _assert_one_sentence(caught.value)
