"""Import refuses a file whose header reads but whose tensor data llama.cpp would refuse
(issue 22): tensors that overlap, leave a hole, or run past the end of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.errors import GGUFError
from desktop.core.library import Library
from tests.fixtures.gguf_bombs import tensor_infos
from tests.fixtures.library_files import write_tiny


def _refused(tmp_path: Path, path: Path) -> str:
    with Library(tmp_path / "library.db", models_dir=tmp_path / "models") as library:
        with pytest.raises(GGUFError) as caught:
            library.import_file(path)
        assert library.entries() == []
    return caught.value.message


def test_tensors_sharing_their_data_are_refused_at_import(tmp_path: Path) -> None:
    message = _refused(tmp_path, tensor_infos(tmp_path / "shared.gguf", 4))
    assert "overlaps the one before it" in message


def test_tensor_data_past_the_end_of_the_file_is_refused_at_import(tmp_path: Path) -> None:
    whole = write_tiny(tmp_path / "whole.gguf")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[:-64])  # the header is whole, the last tensor is not
    message = _refused(tmp_path, cut)
    assert "would end at byte" in message
