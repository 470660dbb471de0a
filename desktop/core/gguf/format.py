"""The GGUF binary format: limits, value types, errors, and the values a header parse yields.

The parser itself is :mod:`desktop.core.gguf.parse`; :mod:`desktop.core.gguf` is the public face.

Format reference: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from desktop.core.errors import GGUFError, Sentence

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_KEY_BYTES = 65535  # the GGUF spec limits keys to 2**16 - 1 bytes
MAX_TENSOR_NAME_BYTES = 63  # GGML_MAX_NAME (64) including the terminating zero

#: Arrays with more items than this are kept as a GGUFArraySummary instead of a tuple.
MAX_KEPT_ARRAY_ITEMS = 1024
#: Items kept in all arrays together; past this budget arrays are summarised too, which bounds
#: the memory a hostile file can make the parser spend on small objects.
MAX_KEPT_ITEMS_TOTAL = 16 * 1024
#: Nested arrays deeper than this are refused (real files use at most one level).
MAX_ARRAY_DEPTH = 3
#: A header (everything before the tensor data) larger than this is refused as implausible.
MAX_HEADER_BYTES = 512 * 1024 * 1024
#: Tensors and metadata entries a header may hold. Real models hold at most a few thousand
#: tensors (512 layers, llama.cpp's limit, of a dozen or so each; experts are merged into one
#: tensor per layer) and under a hundred keys. Each becomes a few Python objects (~400 bytes),
#: so these caps are what keeps a header of honest but huge counts (ten million 40-byte tensor
#: infos in a 400 MB file) from costing gigabytes: it is refused after reading its counts.
MAX_TENSORS = 64 * 1024
MAX_KV = 64 * 1024

INITIAL_CHUNK = 1024 * 1024
MAX_CHUNK = 32 * 1024 * 1024

# GGUF value types (gguf.GGUFValueType): struct code and size of the fixed-size ones.
VT_UINT8, VT_INT8, VT_UINT16, VT_INT16, VT_UINT32, VT_INT32 = 0, 1, 2, 3, 4, 5
VT_FLOAT32, VT_BOOL, VT_STRING, VT_ARRAY, VT_UINT64, VT_INT64, VT_FLOAT64 = 6, 7, 8, 9, 10, 11, 12
FIXED_SIZE_TYPES: dict[int, tuple[str, int]] = {
    VT_UINT8: ("B", 1),
    VT_INT8: ("b", 1),
    VT_UINT16: ("H", 2),
    VT_INT16: ("h", 2),
    VT_UINT32: ("I", 4),
    VT_INT32: ("i", 4),
    VT_FLOAT32: ("f", 4),
    VT_BOOL: ("?", 1),
    VT_UINT64: ("Q", 8),
    VT_INT64: ("q", 8),
    VT_FLOAT64: ("d", 8),
}
VALUE_TYPE_NAMES = {
    VT_UINT8: "uint8",
    VT_INT8: "int8",
    VT_UINT16: "uint16",
    VT_INT16: "int16",
    VT_UINT32: "uint32",
    VT_INT32: "int32",
    VT_FLOAT32: "float32",
    VT_BOOL: "bool",
    VT_STRING: "string",
    VT_ARRAY: "array",
    VT_UINT64: "uint64",
    VT_INT64: "int64",
    VT_FLOAT64: "float64",
}


class GGUFFileError(GGUFError):
    """The path is missing, a folder, or cannot be read."""

    kind = "gguf.file"


class GGUFTruncatedError(GGUFError):
    """The file ends before its header (or its tensor data) does."""

    kind = "gguf.truncated"


class GGUFFormatError(GGUFError):
    """The bytes are not a valid GGUF header (bad magic, bad type, absurd count, bad UTF-8...)."""

    kind = "gguf.format"


class GGUFVersionError(GGUFFormatError):
    """A GGUF version this reader does not know (only versions 2 and 3 exist in practice)."""

    kind = "gguf.version"


class GGUFNotAModelError(GGUFFormatError):
    """A valid GGUF file that lacks the metadata of a language model (e.g. a vision projector)."""

    kind = "gguf.not_a_model"


class GGUFSplitError(GGUFError):
    """The parts of a split model do not add up: a part is missing, numbered wrongly, or the
    tensor count differs from what the first part says; or a later part was given."""

    kind = "gguf.split"


class GGUFRemoteError(GGUFError):
    """A remote GGUF header could not be fetched (HTTP error, timeout, no connection)."""

    kind = "gguf.remote"

    def __init__(
        self,
        message: str,
        *,
        offset: int | None = None,
        kind: str | None = None,
        status: int | None = None,
        sentence: Sentence | None = None,
    ) -> None:
        super().__init__(message, offset=offset, kind=kind, sentence=sentence)
        self.status = status


@dataclass(frozen=True)
class GGUFArraySummary:
    """Stands in for an array longer than ``MAX_KEPT_ARRAY_ITEMS`` (token lists, merges, scores).

    ``length`` is the item count, ``item_type`` the GGUF value type of the items and ``offset``
    the byte position of the first item in the file. ``len(summary)`` is the item count, so
    ``len(metadata["tokenizer.ggml.tokens"])`` works whether the array was kept or not.
    """

    item_type: int
    length: int
    offset: int

    @property
    def item_type_name(self) -> str:
        return VALUE_TYPE_NAMES.get(self.item_type, str(self.item_type))

    def __len__(self) -> int:
        return self.length


@dataclass(frozen=True)
class GGUFStringSummary:
    """Stands in for a string value too long to decode within the reader's memory bound (the
    file size); only corrupt files have one. ``length`` in bytes, ``offset`` of its first byte."""

    length: int
    offset: int

    def __len__(self) -> int:
        return self.length


@dataclass(frozen=True)
class TensorInfo:
    """One tensor as the header describes it. ``offset`` is relative to the data section
    (``GGUFInfo.data_offset``); ``n_bytes`` is exact, from ``gguf.GGML_QUANT_SIZES``. ``part``
    is the index of the file that holds it in a split model (``GGUFInfo.parts``; 0 otherwise),
    whose own data section ``offset`` is relative to."""

    name: str
    shape: tuple[int, ...]
    ggml_type: int
    type_name: str
    offset: int
    n_bytes: int
    part: int = 0

    @property
    def n_elements(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count


class ByteSource(Protocol):
    """Where header bytes come from. ``size`` is the total file size once known (None before
    the first read of a remote file or when the server does not say)."""

    @property
    def size(self) -> int | None: ...

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes starting at ``offset``; fewer only at the end of the file."""
        ...


@dataclass(frozen=True)
class RawHeader:
    """What the parser found, before any interpretation."""

    version: int
    big_endian: bool
    metadata: dict[str, Any]
    tensors: tuple[TensorInfo, ...]
    alignment: int
    data_offset: int
    file_size: int | None
    special_tokens: dict[str, str]
    value_offsets: dict[str, int]  # key -> byte offset of its value type


@lru_cache(maxsize=1)
def ggml_type_table() -> dict[int, tuple[str, int, int]]:
    """``ggml_type -> (name, block size, bytes per block)`` from the gguf package."""
    import gguf

    return {
        int(qtype): (qtype.name, block, size)
        for qtype, (block, size) in gguf.GGML_QUANT_SIZES.items()
    }
