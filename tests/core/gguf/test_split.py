"""Split models: read_gguf_split reads every part of a real split model written here the way
llama.cpp's gguf-split writes one (the first part holds the metadata, every part holds
``split.no``, ``split.count`` and ``split.tensors.count``), and llama.cpp loads the same parts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import gguf
import pytest

from desktop.core.gguf import (
    GGUFFileError,
    GGUFInfo,
    GGUFSplitError,
    GGUFTruncatedError,
    read_gguf,
    read_gguf_split,
    split_part_path,
)
from tests.fixtures.tiny_models import write_tiny_model

SPLIT_KEYS = ("split.no", "split.count", "split.tensors.count")


def write_split(
    whole: Path,
    first: Path,
    n_parts: int,
    *,
    numbers: Sequence[int] | None = None,
    count: int | None = None,
    tensors_count: int | None = None,
    repeat_first_tensor: bool = False,
) -> list[Path]:
    """Split the model ``whole`` into ``n_parts`` files named after ``first`` (which should end
    in ``-00001-of-0000N.gguf``), as gguf-split does: the first part keeps every key, later
    parts hold only the split keys, tensors keep their order. ``numbers``, ``count`` and
    ``tensors_count`` override what the parts say, and ``repeat_first_tensor`` puts the first
    tensor in the last part too (to write broken splits)."""
    reader = gguf.GGUFReader(whole)
    tensors = list(reader.tensors)
    per_part = -(-len(tensors) // n_parts)
    count = n_parts if count is None else count
    numbers = list(range(n_parts)) if numbers is None else list(numbers)
    suffix = f"-00001-of-{n_parts:05d}.gguf"
    assert first.name.endswith(suffix)
    stem = first.name[: -len(suffix)]
    paths: list[Path] = []
    for index in range(n_parts):
        path = first.with_name(f"{stem}-{index + 1:05d}-of-{n_parts:05d}.gguf")
        arch = str(reader.fields["general.architecture"].contents())
        writer = gguf.GGUFWriter(path, arch, endianess=reader.endianess)
        if index == 0:
            for field in reader.fields.values():
                if field.name == "general.architecture" or field.name.startswith("GGUF."):
                    continue
                value_type = field.types[0]
                sub_type = field.types[-1] if value_type == gguf.GGUFValueType.ARRAY else None
                writer.add_key_value(field.name, field.contents(), value_type, sub_type=sub_type)
        else:
            writer.kv_data[0].clear()  # gguf-split gives later parts the split keys only
        writer.add_uint16("split.no", numbers[index])
        writer.add_uint16("split.count", count)
        writer.add_int32(
            "split.tensors.count", len(tensors) if tensors_count is None else tensors_count
        )
        mine = tensors[index * per_part : (index + 1) * per_part]
        if repeat_first_tensor and index == n_parts - 1:
            mine.append(tensors[0])
        for tensor in mine:
            writer.add_tensor_info(
                tensor.name,
                tensor.data.shape,
                tensor.data.dtype,
                tensor.data.nbytes,
                tensor.tensor_type,
            )
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        for tensor in mine:
            writer.write_tensor_data(tensor.data, tensor_endianess=reader.endianess)
        writer.close()
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("whole")
    return write_tiny_model(folder / "tiny.gguf", "llama", n_layers=3, n_vocab=512)


def test_every_part_is_read_and_adds_up_to_the_whole_model(whole: Path, tmp_path: Path) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00003.gguf", 3)
    one = read_gguf(whole)
    split = read_gguf_split(parts[0])

    # What the parts say about themselves (read by the gguf package), as gguf-split writes it.
    theirs = [gguf.GGUFReader(part) for part in parts]
    for number, header in enumerate(theirs):
        assert header.fields["split.no"].contents() == number
        assert header.fields["split.count"].contents() == 3
        assert header.fields["split.tensors.count"].contents() == len(one.tensors)
        assert ("general.name" in header.fields) == (number == 0)
    first_only = read_gguf(parts[0])
    assert 0 < len(first_only.tensors) < len(one.tensors)

    assert split.part_paths == tuple(str(p) for p in parts)
    assert [p.file_size for p in split.parts] == [p.stat().st_size for p in parts]
    assert [p.n_tensors for p in split.parts] == [len(h.tensors) for h in theirs]
    assert [p.data_offset for p in split.parts] == [h.data_offset for h in theirs]
    assert split.file_size == sum(p.stat().st_size for p in parts)
    assert split.header_bytes == sum(h.data_offset for h in theirs)
    assert split.source == str(parts[0])

    def shapes(info: GGUFInfo) -> list[tuple[str, tuple[int, ...], str, int]]:
        return [(t.name, t.shape, t.type_name, t.n_bytes) for t in info.tensors]

    assert shapes(split) == shapes(one)
    assert split.tensor_bytes == one.tensor_bytes
    assert split.layer_tensor_bytes == one.layer_tensor_bytes
    assert split.non_layer_tensor_bytes == one.non_layer_tensor_bytes
    assert split.arch == one.arch  # n_params counts every part's tensors
    assert split.arch.n_params > first_only.arch.n_params
    assert split.quant == one.quant
    assert split.chat_template == one.chat_template
    assert split.special_tokens == one.special_tokens
    for key, value in one.metadata.items():
        assert split.metadata[key] == value
    assert set(split.metadata) - set(one.metadata) == set(SPLIT_KEYS)

    # Each tensor names the part holding it, at the offset that part's header gives it.
    for tensor in split.tensors:
        (same,) = [t for t in theirs[tensor.part].tensors if t.name == tensor.name]
        assert split.parts[tensor.part].data_offset + tensor.offset == same.data_offset
    assert {t.part for t in split.tensors} == {0, 1, 2}


def test_a_single_file_reads_as_with_read_gguf(whole: Path) -> None:
    alone = read_gguf_split(whole)
    assert alone == read_gguf(whole)
    assert alone.parts == ()
    assert alone.part_paths == (str(whole),)


def test_a_split_of_one_part_reads_as_one_file(whole: Path, tmp_path: Path) -> None:
    (part,) = write_split(whole, tmp_path / "tiny-00001-of-00001.gguf", 1)
    info = read_gguf_split(part)
    assert info.parts == ()
    assert info.tensor_bytes == read_gguf(whole).tensor_bytes


@pytest.mark.parametrize("read", [read_gguf, read_gguf_split])
def test_later_part_is_refused(
    whole: Path, tmp_path: Path, read: Callable[[Path], GGUFInfo]
) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00003.gguf", 3)
    with pytest.raises(GGUFSplitError, match=r"part 2 of 3 of a split model") as caught:
        read(parts[1])
    assert caught.value.kind == "gguf.split_part"


def test_missing_part_is_named(whole: Path, tmp_path: Path) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00003.gguf", 3)
    parts[2].unlink()
    with pytest.raises(GGUFSplitError, match=r"tiny-00003-of-00003\.gguf is missing") as caught:
        read_gguf_split(parts[0])
    assert caught.value.kind == "gguf.split_missing"


def test_parts_numbered_wrongly(whole: Path, tmp_path: Path) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00003.gguf", 3, numbers=[0, 2, 1])
    with pytest.raises(GGUFSplitError, match=r"should be part 2 of 3 .* says part 3 of 3"):
        read_gguf_split(parts[0])


def test_tensor_count_must_match_the_first_part(whole: Path, tmp_path: Path) -> None:
    n = len(read_gguf(whole).tensors)
    parts = write_split(whole, tmp_path / "tiny-00001-of-00002.gguf", 2, tensors_count=n + 1)
    with pytest.raises(GGUFSplitError, match=f"should hold {n + 1} tensors in all"):
        read_gguf_split(parts[0])


def test_a_tensor_in_two_parts_is_refused(whole: Path, tmp_path: Path) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00002.gguf", 2, repeat_first_tensor=True)
    first_tensor = gguf.GGUFReader(whole).tensors[0].name
    with pytest.raises(GGUFSplitError, match=f"holds the tensor '{first_tensor}' twice"):
        read_gguf_split(parts[0])


def test_the_name_must_carry_the_part_number(whole: Path, tmp_path: Path) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00002.gguf", 2)
    renamed = parts[0].rename(tmp_path / "tiny.gguf")
    with pytest.raises(GGUFSplitError, match=r"does not end in -00001-of-00002\.gguf"):
        read_gguf_split(renamed)
    # A first part whose name says another part count than its header.
    parts = write_split(whole, tmp_path / "b-00001-of-00002.gguf", 2, count=3)
    with pytest.raises(GGUFSplitError, match=r"does not end in -00001-of-00003\.gguf"):
        read_gguf_split(parts[0])


def test_broken_later_part_names_that_part(whole: Path, tmp_path: Path) -> None:
    parts = write_split(whole, tmp_path / "tiny-00001-of-00002.gguf", 2)
    data = parts[1].read_bytes()
    parts[1].write_bytes(data[: len(data) // 2])
    with pytest.raises(GGUFTruncatedError, match=r"tiny-00002-of-00002\.gguf is cut short"):
        read_gguf_split(parts[0])
    parts[1].unlink()
    parts[1].mkdir()
    with pytest.raises(GGUFFileError, match="is a folder"):
        read_gguf_split(parts[0])


def test_split_part_path_follows_llama_cpp_names(tmp_path: Path) -> None:
    first = tmp_path / "Model-Q8_0-00001-of-00012.gguf"
    assert split_part_path(first, 12, 12).name == "Model-Q8_0-00012-of-00012.gguf"
    with pytest.raises(GGUFSplitError):
        split_part_path(tmp_path / "-00001-of-00002.gguf", 2, 2)


@pytest.mark.e2e
def test_llama_cpp_loads_the_split_model_and_agrees(whole: Path, tmp_path: Path) -> None:
    import llama_cpp

    parts = write_split(whole, tmp_path / "tiny-00001-of-00003.gguf", 3)
    info = read_gguf_split(parts[0])
    produced: dict[str, list[int]] = {}
    for label, path in (("whole", whole), ("split", parts[0])):
        llm = llama_cpp.Llama(str(path), n_ctx=64, n_threads=1, verbose=False)
        try:
            assert llm._model.n_params() == info.arch.n_params
            assert llm._model.size() == info.tensor_bytes
            tokens = llm.tokenize(b"Hello there", add_bos=True)
            out: list[int] = []
            for token in llm.generate(tokens, temp=0.0):
                out.append(token)
                if len(out) == 8:
                    break
            produced[label] = out
        finally:
            llm.close()
    assert produced["split"] == produced["whole"]
    assert len(produced["whole"]) == 8
