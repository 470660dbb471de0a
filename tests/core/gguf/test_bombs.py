"""Hostile headers (issue 22): honest counts that would cost gigabytes if built, and tensor data
laid out the way llama.cpp refuses. The reader refuses them or reads them in memory bounded by
the header's size; nothing is built for an array it does not keep."""

from __future__ import annotations

import struct
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.errors import GGUFError
from desktop.core.gguf import MAX_KV, MAX_TENSORS, GGUFArraySummary, GGUFFormatError, read_gguf
from tests.fixtures import gguf_bombs as bombs

# What skipping an array may allocate whatever its length (numpy's windows over string arrays
# take a few hundred KiB); building one object per item would be tens of MB in these files.
SKIPPED_PEAK = 1024 * 1024


@pytest.fixture(autouse=True)
def _warm(tmp_path: Path) -> None:
    """One read first: imports and cached tables are not what a header costs."""
    read_gguf(bombs.nested_empty_arrays(tmp_path / "warm.gguf", 2))


def _peak(read: Callable[[], object]) -> tuple[int, object]:
    """Peak bytes Python allocated while ``read`` ran, and what it returned or raised."""
    tracemalloc.start()
    try:
        try:
            outcome: object = read()
        except GGUFError as exc:
            outcome = exc
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, outcome


def test_more_tensors_than_any_model_are_refused_after_the_counts(tmp_path: Path) -> None:
    path = bombs.tensor_infos(tmp_path / "tensors.gguf", MAX_TENSORS + 1)
    peak, outcome = _peak(lambda: read_gguf(path))
    assert isinstance(outcome, GGUFFormatError)
    assert f"claims {MAX_TENSORS + 1:,} tensors" in str(outcome)
    assert outcome.offset == 8  # refused at the count, before any tensor info is read
    assert peak < 256 * 1024


def test_more_metadata_keys_than_any_model_are_refused(tmp_path: Path) -> None:
    path = bombs.many_keys(tmp_path / "keys.gguf", MAX_KV)
    peak, outcome = _peak(lambda: read_gguf(path))
    assert isinstance(outcome, GGUFFormatError)
    assert "metadata entries" in str(outcome)
    assert peak < 256 * 1024


def test_an_array_of_a_million_empty_arrays_is_skipped_without_building_it(
    tmp_path: Path,
) -> None:
    path = bombs.nested_empty_arrays(tmp_path / "arrays.gguf", 1_000_000)
    peak, info = _peak(lambda: read_gguf(path))
    assert not isinstance(info, GGUFError), info
    summary = info.metadata["bomb.arrays"]  # type: ignore[attr-defined]
    assert isinstance(summary, GGUFArraySummary)
    assert len(summary) == 1_000_000
    # One summary object per item (what the reader built before) would be ~100 MB here.
    assert peak < SKIPPED_PEAK


def test_arrays_of_string_arrays_are_skipped_without_building_them(tmp_path: Path) -> None:
    path = bombs.nested_string_arrays(tmp_path / "nested.gguf", 20_000, 50)
    peak, info = _peak(lambda: read_gguf(path))
    assert not isinstance(info, GGUFError), info
    assert len(info.metadata["bomb.nested"]) == 20_000  # type: ignore[attr-defined]
    assert peak < SKIPPED_PEAK


def test_a_kept_array_of_arrays_still_reads_as_values(tmp_path: Path) -> None:
    path = bombs.nested_string_arrays(tmp_path / "small.gguf", 3, 2)
    info = read_gguf(path)
    assert info.metadata["bomb.nested"] == (("a", "a"), ("a", "a"), ("a", "a"))


def test_empty_strings_are_walked_in_bounded_memory(tmp_path: Path) -> None:
    path = bombs.empty_strings(tmp_path / "strings.gguf", 1_000_000)
    peak, info = _peak(lambda: read_gguf(path))
    assert not isinstance(info, GGUFError), info
    assert len(info.metadata["bomb.strings"]) == 1_000_000  # type: ignore[attr-defined]
    assert peak < SKIPPED_PEAK


def test_a_header_just_under_the_caps_is_read_within_a_few_times_its_size(
    tmp_path: Path,
) -> None:
    path = bombs.many_keys(tmp_path / "keys.gguf", MAX_KV - len(bombs.llama_kvs()))
    peak, info = _peak(lambda: read_gguf(path))
    assert not isinstance(info, GGUFError), info
    assert len(info.metadata) == MAX_KV  # type: ignore[attr-defined]
    assert peak < 8 * path.stat().st_size


# --------------------------------------------------------------------------- tensor data


def _header_copy(src: Path, dest: Path) -> tuple[Path, bytes]:
    """``src``'s header, then a sparse hole up to its size (the reader never reads the rest)."""
    info = read_gguf(src)
    with src.open("rb") as fin:
        header = fin.read(info.data_offset)
    with dest.open("wb") as fout:
        fout.write(header)
        fout.truncate(src.stat().st_size)
    return dest, header


def _set_offset(path: Path, header: bytes, name: str, offset: int) -> None:
    """Rewrite the data offset of tensor ``name`` in the header of ``path``."""
    encoded = name.encode()
    at = header.index(struct.pack("<Q", len(encoded)) + encoded) + 8 + len(encoded)
    n_dims = struct.unpack_from("<I", header, at)[0]
    with path.open("r+b") as handle:
        handle.seek(at + 4 + 8 * n_dims + 4)
        handle.write(struct.pack("<Q", offset))


@pytest.mark.parametrize(
    ("shift", "words"),
    [(32, "leaves a gap"), (-32, "overlaps the one before it")],
)
def test_tensor_data_laid_out_as_llama_cpp_refuses_is_refused(
    tmp_path: Path, smollm2_path: Path, shift: int, words: str
) -> None:
    path, header = _header_copy(smollm2_path, tmp_path / "moved.gguf")
    second = read_gguf(path).tensors[1]
    _set_offset(path, header, second.name, second.offset + shift)
    with pytest.raises(GGUFFormatError) as caught:
        read_gguf(path)
    message = str(caught.value)
    assert second.name in message
    assert words in message
    assert "\n" not in message


def test_tensors_sharing_one_offset_are_refused(tmp_path: Path) -> None:
    path = bombs.tensor_infos(tmp_path / "shared.gguf", 3)
    with pytest.raises(GGUFFormatError, match="overlaps"):
        read_gguf(path)


def test_a_real_file_passes_the_layout_check(smollm2_path: Path, gemma3_path: Path) -> None:
    for path in (smollm2_path, gemma3_path):
        assert read_gguf(path).tensors
