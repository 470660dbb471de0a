"""GGUF metadata reader: local files and remote files (HTTP range requests), header only.

``read_gguf(path)`` and ``read_gguf_url(url)`` / ``read_remote_gguf(repo, filename)`` return a
:class:`GGUFInfo`: every metadata key/value, every tensor's name, shape, type, offset and exact
byte size, and the architecture facts the fit estimator needs as a
:class:`~desktop.core.gguf.arch.ModelArch`. Tensor data is never read; a remote file is fetched
only as far as its header goes.

A split model (``<name>-00001-of-00003.gguf`` and its other parts, as llama.cpp's gguf-split
writes them) is read whole by ``read_gguf_split(first_part)``: the metadata of the first part,
the tensors of every part (:attr:`TensorInfo.part` says which), and sizes and parameter counts
of the whole model. ``read_gguf`` reads the one file it is given.

Metadata values are Python values (int, float, bool, str, tuples for arrays). Arrays longer than
``MAX_KEPT_ARRAY_ITEMS`` (1,024: token lists, merges, scores, token types) are kept as a
:class:`GGUFArraySummary` (item type, length, file offset) to bound memory and time;
``len(summary)`` is the item count. The texts of the special tokens (bos, eos, eot, ...) are
resolved into :attr:`GGUFInfo.special_tokens` so that template code needs no token list.

Broken input raises a subclass of :class:`~desktop.core.errors.GGUFError` whose message is one
plain sentence ending with the byte offset where reading failed: :class:`GGUFFileError`,
:class:`GGUFTruncatedError`, :class:`GGUFFormatError` (with :class:`GGUFVersionError` and
:class:`GGUFNotAModelError`), :class:`GGUFRemoteError`, :class:`GGUFSplitError`.
"""

from __future__ import annotations

import logging
import mmap
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

from desktop.core.errors import Sentence, os_error_name
from desktop.core.gguf.arch import ModelArch
from desktop.core.gguf.derive import derive_arch
from desktop.core.gguf.format import (
    GGUFFileError,
    GGUFSplitError,
    RawHeader,
    TensorInfo,
)
from desktop.core.gguf.parse import parse_header
from desktop.core.gguf.quants import quant_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GGUFPart:
    """One file of a split model: its path, size, where its tensor data starts, its tensors."""

    path: str
    file_size: int
    data_offset: int
    n_tensors: int


@dataclass(frozen=True)
class GGUFInfo:
    """Everything a GGUF header says about a model (see the module docstring).

    From :func:`read_gguf_split` on a split model, ``parts`` lists every file, first part
    first, and ``file_size``, ``tensors``, ``tensor_bytes`` and ``arch.n_params`` cover all of
    them; ``source``, ``version``, ``data_offset`` and the metadata are the first part's.
    ``parts`` is empty for a model in one file.
    """

    source: str  # path or URL
    version: int
    file_size: int | None  # all parts together for a split model
    metadata: Mapping[str, Any] = field(repr=False)
    tensors: tuple[TensorInfo, ...] = field(repr=False)
    data_offset: int  # where tensor data starts (aligned)
    arch: ModelArch
    name: str | None  # general.name
    file_type: int | None  # general.file_type
    quant: str | None  # "Q4_K_M", "Q4_1", "F16"...
    chat_template: str | None
    tensor_bytes: int  # sum of all tensors
    layer_tensor_bytes: tuple[int, ...]  # per block index (blk.N.*), len == n_layers
    non_layer_tensor_bytes: int  # token_embd, output, output_norm, rope freqs...
    alignment: int = 32
    big_endian: bool = False
    special_tokens: Mapping[str, str] = field(default_factory=dict)  # role -> token text
    parts: tuple[GGUFPart, ...] = ()

    @property
    def has_chat_template(self) -> bool:
        return bool(self.chat_template)

    @property
    def header_bytes(self) -> int:
        """Bytes before the tensor data (of every part): what a remote read has to fetch at
        least, and what a loaded model does not keep."""
        if self.parts:
            return sum(part.data_offset for part in self.parts)
        return self.data_offset

    @property
    def part_paths(self) -> tuple[str, ...]:
        """The files that make up the model (``source`` alone unless it is split)."""
        return tuple(part.path for part in self.parts) if self.parts else (self.source,)


def _dominant_type(tensors: tuple[TensorInfo, ...]) -> str | None:
    """The tensor type holding most bytes among matrices (fallback quant label)."""
    totals: dict[str, int] = {}
    for tensor in tensors:
        if len(tensor.shape) >= 2:
            totals[tensor.type_name] = totals.get(tensor.type_name, 0) + tensor.n_bytes
    return max(totals, key=lambda k: totals[k]) if totals else None


def _layer_index(name: str) -> int | None:
    if not name.startswith("blk."):
        return None
    head, _, _ = name[4:].partition(".")
    return int(head) if head.isdigit() else None


def build_info(
    raw: RawHeader, source: str, display_name: str, parts: tuple[GGUFPart, ...] = ()
) -> GGUFInfo:
    """Interpret a parsed header: derived architecture, quant, byte totals."""
    metadata = raw.metadata
    arch = derive_arch(metadata, raw.tensors, display_name, raw.value_offsets)
    layer_bytes = [0] * arch.n_layers
    non_layer = 0
    for tensor in raw.tensors:
        index = _layer_index(tensor.name)
        if index is not None and index < arch.n_layers:
            layer_bytes[index] += tensor.n_bytes
        else:
            non_layer += tensor.n_bytes
    file_type = metadata.get("general.file_type")
    if not isinstance(file_type, int) or isinstance(file_type, bool):
        file_type = None
    quant = quant_name(file_type) or _dominant_type(raw.tensors)
    template = metadata.get("tokenizer.chat_template")
    name = metadata.get("general.name")
    return GGUFInfo(
        source=source,
        version=raw.version,
        file_size=raw.file_size,
        metadata=MappingProxyType(metadata),
        tensors=raw.tensors,
        data_offset=raw.data_offset,
        arch=arch,
        name=name if isinstance(name, str) else None,
        file_type=file_type,
        quant=quant,
        chat_template=template if isinstance(template, str) and template else None,
        tensor_bytes=sum(layer_bytes) + non_layer,
        layer_tensor_bytes=tuple(layer_bytes),
        non_layer_tensor_bytes=non_layer,
        alignment=raw.alignment,
        big_endian=raw.big_endian,
        special_tokens=MappingProxyType(raw.special_tokens),
        parts=parts,
    )


class _FileSource:
    """A local file: mapped whole (no copy; pages are read only where the header is) or, where
    mapping is not possible, read in growing chunks."""

    def __init__(self, handle: IO[bytes], size: int) -> None:
        self._handle = handle
        self._size = size

    @property
    def size(self) -> int | None:
        return self._size

    def read(self, offset: int, length: int) -> bytes:
        self._handle.seek(offset)
        return self._handle.read(length)


def _map(handle: IO[bytes], size: int) -> mmap.mmap | None:
    if size == 0:
        return None
    try:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # pipes, some network and FUSE file systems
        return None


def read_gguf(path: str | os.PathLike[str]) -> GGUFInfo:
    """Read the header of a local GGUF file (tensor data is never read)."""
    file_path = Path(path)
    raw, display = _read_raw(file_path)
    return _one_file(raw, file_path, display)


def _one_file(raw: RawHeader, path: Path, display: str) -> GGUFInfo:
    _refuse_later_part(raw, display)
    info = build_info(raw, str(path), display)
    log.debug("read GGUF header of %s: %d tensors", path, len(info.tensors))
    return info


def _read_raw(file_path: Path) -> tuple[RawHeader, str]:
    """The parsed header of a local file, and the name messages call it by."""
    display = file_path.name or str(file_path)
    where = {"path": str(file_path)}
    try:
        mode = file_path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise _is_folder(file_path)
        if not stat.S_ISREG(mode):  # a pipe or device would block or never end
            raise GGUFFileError(
                f"{file_path} is not a regular file", sentence=Sentence("gguf.not_regular", where)
            )
        handle = file_path.open("rb")
    except FileNotFoundError:
        raise GGUFFileError(
            f"There is no file at {file_path}",
            kind="gguf.missing",
            sentence=Sentence("gguf.missing", where),
        ) from None
    except IsADirectoryError:
        raise _is_folder(file_path) from None
    except PermissionError:
        raise GGUFFileError(
            f"{file_path} cannot be read: permission denied",
            sentence=Sentence("gguf.permission", where),
        ) from None
    except OSError as exc:
        raise _unreadable(file_path, exc) from None
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            source = _FileSource(handle, size)
            mapped = _map(handle, size)
            if mapped is None:
                return parse_header(source, display), display
            with mapped:
                return parse_header(source, display, mapped), display
        except IsADirectoryError:
            raise _is_folder(file_path) from None
        except OSError as exc:
            raise _unreadable(file_path, exc) from None


def _is_folder(path: Path) -> GGUFFileError:
    return GGUFFileError(
        f"{path} is a folder, not a GGUF file",
        sentence=Sentence("gguf.is_dir", {"path": str(path)}),
    )


def _unreadable(path: Path, exc: OSError) -> GGUFFileError:
    reason = exc.strerror or str(exc)
    return GGUFFileError(
        f"{path} cannot be read: {reason}",
        sentence=Sentence(
            "gguf.unreadable", {"path": str(path), "reason": reason, "errno": os_error_name(exc)}
        ),
    )


def _split_key(raw: RawHeader, key: str) -> int | None:
    value = raw.metadata.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _refuse_later_part(raw: RawHeader, display: str) -> None:
    """A later part of a split model has no model metadata: say so, rather than that it is
    not a model."""
    number = _split_key(raw, "split.no")
    count = _split_key(raw, "split.count")
    if number and count:
        raise GGUFSplitError(
            f"{display} is part {number + 1} of {count} of a split model; read its first part",
            kind="gguf.split_part",
            sentence=Sentence(
                "gguf.split_part", {"name": display, "number": number + 1, "count": count}
            ),
        )


def split_part_path(first: Path, index: int, count: int) -> Path:
    """Part ``index`` (1-based) of the split model whose first part is ``first``, named as
    llama.cpp names and looks for them: ``<prefix>-00002-of-00003.gguf``."""
    suffix = f"-{1:05d}-of-{count:05d}.gguf"
    if not first.name.endswith(suffix) or len(first.name) == len(suffix):
        raise GGUFSplitError(
            f"{first.name} is the first of {count} parts of a split model, but its name does "
            f"not end in {suffix}, so its other parts cannot be found",
            sentence=Sentence(
                "gguf.split_name", {"name": first.name, "count": count, "suffix": suffix}
            ),
        )
    return first.with_name(f"{first.name[: -len(suffix)]}-{index:05d}-of-{count:05d}.gguf")


def read_gguf_split(path: str | os.PathLike[str]) -> GGUFInfo:
    """Read a whole model: a file on its own, or every part of a split model given its first.

    The parts are found the way llama.cpp finds them (from ``split.count`` in the first part's
    header and the ``-00001-of-0000N.gguf`` name) and checked the way it checks them: each part
    says which it is (``split.no``), and all parts together hold ``split.tensors.count``
    tensors, each name once. Only headers are read.
    """
    first = Path(path)
    raw, display = _read_raw(first)
    count = _split_key(raw, "split.count")
    if count is None or count <= 1:
        return _one_file(raw, first, display)
    _refuse_later_part(raw, display)
    tensors = list(raw.tensors)
    names = {t.name for t in tensors}
    parts = [GGUFPart(str(first), raw.file_size or 0, raw.data_offset, len(raw.tensors))]
    for index in range(2, count + 1):
        part_path = split_part_path(first, index, count)
        if not part_path.exists():
            raise GGUFSplitError(
                f"The split model {display} has {count} parts but {part_path.name} is missing",
                kind="gguf.split_missing",
                sentence=Sentence(
                    "gguf.split_missing", {"name": display, "count": count, "part": part_path.name}
                ),
            )
        part, part_display = _read_raw(part_path)
        said = (_split_key(part, "split.no"), _split_key(part, "split.count"))
        if said != (index - 1, count):
            raise GGUFSplitError(
                f"{part_display} should be part {index} of {count} of {display}, but its header "
                f"says {_part_words(said)}",
                sentence=_wrong_part(part_display, index, count, display, said),
            )
        for tensor in part.tensors:
            if tensor.name in names:
                raise GGUFSplitError(
                    f"The split model {display} holds the tensor {tensor.name!r} twice "
                    f"(again in {part_display})",
                    sentence=Sentence(
                        "gguf.split_tensor_twice",
                        {"name": display, "tensor": tensor.name, "part": part_display},
                    ),
                )
            names.add(tensor.name)
            tensors.append(replace(tensor, part=index - 1))
        parts.append(
            GGUFPart(str(part_path), part.file_size or 0, part.data_offset, len(part.tensors))
        )
    expected = _split_key(raw, "split.tensors.count")
    if expected is not None and expected != len(tensors):
        raise GGUFSplitError(
            f"The split model {display} should hold {expected:,} tensors in all, "
            f"but its {count} parts hold {len(tensors):,}",
            sentence=Sentence(
                "gguf.split_tensor_count",
                {"name": display, "expected": expected, "count": count, "found": len(tensors)},
            ),
        )
    whole = replace(raw, tensors=tuple(tensors), file_size=sum(part.file_size for part in parts))
    info = build_info(whole, str(first), display, tuple(parts))
    log.debug("read the %d GGUF headers of %s: %d tensors", count, first, len(tensors))
    return info


def _wrong_part(
    part: str, index: int, count: int, name: str, said: tuple[int | None, int | None]
) -> Sentence:
    params: dict[str, str | int] = {"part": part, "index": index, "count": count, "name": name}
    number, said_count = said
    if number is None or said_count is None:
        return Sentence("gguf.split_not_a_part", params)
    return Sentence(
        "gguf.split_wrong_part", {**params, "said_number": number + 1, "said_count": said_count}
    )


def _part_words(said: tuple[int | None, int | None]) -> str:
    number, count = said
    if number is None or count is None:
        return "nothing about being a part"
    return f"part {number + 1} of {count}"


def describe(info: GGUFInfo) -> dict[str, Any]:
    """A JSON-ready summary of a header (for CLI output and logs)."""
    arch = info.arch
    return {
        "source": info.source,
        "name": info.name,
        "architecture": arch.architecture,
        "quant": info.quant,
        "file_size": info.file_size,
        "n_params": arch.n_params,
        "n_layers": arch.n_layers,
        "n_embd": arch.n_embd,
        "n_head": arch.n_head,
        "n_head_kv": list(arch.n_head_kv),
        "head_dim_k": arch.head_dim_k,
        "head_dim_v": arch.head_dim_v,
        "n_ctx_train": arch.n_ctx_train,
        "n_vocab": arch.n_vocab,
        "sliding_window": arch.sliding_window,
        "swa_layers": [i for i, swa in enumerate(arch.swa_layers) if swa],
        "n_expert": arch.n_expert,
        "kv_lora_rank": arch.kv_lora_rank,
        "tensor_bytes": info.tensor_bytes,
        "has_chat_template": info.has_chat_template,
    }
