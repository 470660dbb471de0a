"""The GGUF header parser: bounded, header-only.

This module reads the parts of a GGUF file that come before the tensor data: magic, version,
key/value metadata and tensor infos. It never reads tensor data. Bytes come from a
:class:`~desktop.core.gguf.format.ByteSource` (a local file or an HTTP range reader) in growing
chunks, so a remote file is fetched only as far as its header goes.

Every way a file can be broken ends in one :class:`~desktop.core.errors.GGUFError` subclass that
names the byte offset where reading failed. Memory stays bounded by the bytes actually present:
nothing is allocated from a count or length read from the file before the bytes behind it have
been checked against the file size, and long arrays (token lists, merges, scores) are not
materialised; they are kept as a :class:`~desktop.core.gguf.format.GGUFArraySummary`, their
strings stepped over by :func:`desktop.core.gguf.strings.skip_strings` and their nested arrays
by :meth:`HeaderParser._skip_arrays`, without building an object per item.

The bounds, for any input: a header is refused or read in at most a few times its own size of
Python memory (about 8 times at worst, for a header of nothing but tensor infos or keys; a
real model's header, mostly token lists, costs a fraction of its size) and never more than
about 20 MB of it, because counts past :data:`~desktop.core.gguf.format.MAX_TENSORS` and
:data:`~desktop.core.gguf.format.MAX_KV` are refused before anything is read; a local file's
bytes are mapped, not copied. Time is linear in the header's bytes, well under a second per MB
(every item is stepped over once). ``benchmarks/gguf_bombs.py`` measures both on hostile headers.

The tensor data is checked the way llama.cpp checks it before mapping it: each tensor right
after the one before it, padded to the alignment (no overlaps, no holes), and inside the file.

Format reference: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
"""

from __future__ import annotations

import mmap
import struct
import sys
from typing import Any

from desktop.core.errors import Sentence
from desktop.core.gguf.format import (
    DEFAULT_ALIGNMENT,
    FIXED_SIZE_TYPES,
    GGUF_MAGIC,
    INITIAL_CHUNK,
    MAX_ARRAY_DEPTH,
    MAX_CHUNK,
    MAX_DIMS,
    MAX_HEADER_BYTES,
    MAX_KEPT_ARRAY_ITEMS,
    MAX_KEPT_ITEMS_TOTAL,
    MAX_KEY_BYTES,
    MAX_KV,
    MAX_TENSOR_NAME_BYTES,
    MAX_TENSORS,
    SUPPORTED_VERSIONS,
    VT_ARRAY,
    VT_BOOL,
    VT_STRING,
    ByteSource,
    GGUFArraySummary,
    GGUFFormatError,
    GGUFStringSummary,
    GGUFTruncatedError,
    GGUFVersionError,
    RawHeader,
    TensorInfo,
    ggml_type_table,
)
from desktop.core.gguf.strings import skip_strings

# Counts and lengths beyond these are called absurd (a corrupt file) rather than truncated.
_ABSURD_STRING = 256 * 1024 * 1024
_ABSURD_ARRAY = 1 << 32
_INT64_MAX = (1 << 63) - 1
_MAX_SPECIAL_TOKEN_BYTES = 1024  # longer "special tokens" only occur in corrupt files

# Smallest possible encodings, used to check counts against the bytes left in the file.
_MIN_KV_BYTES = 8 + 4 + 1  # key length, value type, smallest value
_MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8  # name length, n_dims, type, offset

_SPECIAL_TOKEN_KEYS = {
    "bos": "tokenizer.ggml.bos_token_id",
    "eos": "tokenizer.ggml.eos_token_id",
    "eot": "tokenizer.ggml.eot_token_id",
    "eom": "tokenizer.ggml.eom_token_id",
    "unk": "tokenizer.ggml.unknown_token_id",
    "sep": "tokenizer.ggml.seperator_token_id",
    "pad": "tokenizer.ggml.padding_token_id",
    "mask": "tokenizer.ggml.mask_token_id",
}


class HeaderParser:
    """Parses one GGUF header from a :class:`ByteSource`; use :func:`parse_header`."""

    def __init__(self, source: ByteSource, name: str, whole: mmap.mmap | None = None) -> None:
        self._src = source
        self._name = name
        # A whole mapped file needs no copying; otherwise bytes arrive in growing chunks.
        self._buf: bytearray | mmap.mmap = bytearray() if whole is None else whole
        self._pos = 0
        self._chunk = INITIAL_CHUNK
        self._e = "<"
        self._kept_budget = MAX_KEPT_ITEMS_TOTAL
        self._text_budget: int | None = None

    # -- bytes -----------------------------------------------------------------------------

    def _truncated(self, what: str, at: int, end: int) -> GGUFTruncatedError:
        return GGUFTruncatedError(
            f"{self._name} is cut short: it ends at byte {end} in the middle of {what}",
            offset=at,
            sentence=Sentence("gguf.truncated", {"name": self._name, "end": end}),
        )

    def _corrupt(
        self, message: str, at: int | None, sentence: Sentence | None = None
    ) -> GGUFFormatError:
        """A header that breaks the format: the English sentence says how; the sentence (unless
        given) only that it is damaged (the specifics are byte-level facts for the log and the
        CLI)."""
        return GGUFFormatError(
            message, offset=at, sentence=sentence or Sentence("gguf.corrupt", {"name": self._name})
        )

    def _need(self, n: int, what: str, at: int | None = None) -> None:
        """Make sure ``n`` bytes from the current position are in the buffer."""
        end = self._pos + n
        if end <= len(self._buf):
            return
        at = self._pos if at is None else at
        if end > MAX_HEADER_BYTES:
            raise self._corrupt(
                f"{self._name} has an implausible header: {what} would end past "
                f"{MAX_HEADER_BYTES // (1024 * 1024)} MiB",
                at,
            )
        while len(self._buf) < end:
            have = len(self._buf)
            size = self._src.size
            if size is not None and end > size:
                raise self._truncated(what, at, size)
            want = max(end - have, self._chunk)
            if size is not None:
                want = min(want, size - have)
            data = self._src.read(have, want)
            if not data:
                raise self._truncated(what, at, len(self._buf))
            assert isinstance(self._buf, bytearray)  # a mapped file is complete
            self._buf += data
            self._chunk = min(self._chunk * 2, MAX_CHUNK)

    def _remaining(self) -> int | None:
        size = self._src.size
        return None if size is None else max(0, size - self._pos)

    def _check_count(
        self,
        count: int,
        min_item: int,
        what: str,
        absurd: int,
        at: int,
        *,
        inside: str | None = None,
    ) -> None:
        """Refuse a count whose items could not fit in the rest of the file.

        ``what`` names the counted things ("tensors"); ``inside`` the item being read when the
        file turns out to be cut short (defaults to ``what``)."""
        if count > absurd:
            raise self._corrupt(
                f"{self._name} is corrupt: it claims {count:,} {what}",
                at,
            )
        remaining = self._remaining()
        if remaining is not None and count * min_item > remaining:
            if count * min_item > remaining + MAX_HEADER_BYTES:
                raise self._corrupt(
                    f"{self._name} is corrupt: it claims {count:,} {what}, more than the "
                    f"{remaining:,} bytes left in the file could hold",
                    at,
                )
            raise self._truncated(inside or what, at, self._src.size or 0)

    def _check_cap(self, count: int, cap: int, what: str, real: str, at: int) -> None:
        """Refuse a count the rest of the file could hold but no real model has (see
        :data:`~desktop.core.gguf.format.MAX_TENSORS`)."""
        if count > cap:
            raise self._corrupt(
                f"{self._name} claims {count:,} {what}; real models have at most {real} "
                f"(this reader takes up to {cap:,})",
                at,
            )

    def _unpack(self, code: str, size: int, what: str) -> Any:
        self._need(size, what)
        value = struct.unpack_from(self._e + code, self._buf, self._pos)[0]
        self._pos += size
        return value

    def _u32(self, what: str) -> int:
        return int(self._unpack("I", 4, what))

    def _u64(self, what: str) -> int:
        return int(self._unpack("Q", 8, what))

    def _string_span(self, what: str, limit: int = _ABSURD_STRING) -> tuple[int, int]:
        """Step over one string; returns where its bytes start and end."""
        at = self._pos
        length = self._u64(f"the length of {what}")
        if length > limit:
            raise self._corrupt(
                f"{self._name} is corrupt: {what} claims to be {length:,} bytes long"
                + ("" if limit == _ABSURD_STRING else f" (at most {limit:,})"),
                at,
            )
        self._check_count(length, 1, f"bytes in {what}", _ABSURD_STRING, at, inside=what)
        self._need(length, what, at)
        start = self._pos
        self._pos += length
        return start, self._pos

    def _text(self, what: str) -> str | GGUFStringSummary:
        """A string value, decoded straight from the buffer (bad UTF-8 becomes U+FFFD).

        Decoded text is held to a budget of the file size: Python may store a string in up to
        4 bytes per character, so a long non-ASCII string that could break the budget is kept
        as a :class:`GGUFStringSummary` (only corrupt files get there)."""
        start, end = self._string_span(what)
        budget = self._text_budget
        if budget is None:
            budget = self._src.size if self._src.size is not None else MAX_HEADER_BYTES
        with memoryview(self._buf) as view, view[start:end] as part:
            try:
                text = str(part, "ascii")  # exactly one byte per byte
            except UnicodeDecodeError:
                if 6 * (end - start) > budget:  # 4 per character, plus widening on the way
                    return GGUFStringSummary(end - start, start)
                text = str(part, "utf-8", "replace")
        self._text_budget = budget - sys.getsizeof(text)
        return text

    def _name_text(self, what: str, limit: int) -> str:
        """A key or tensor name: short, and strictly UTF-8."""
        at = self._pos
        start, end = self._string_span(what, limit)
        try:
            return bytes(self._buf[start:end]).decode("utf-8")
        except UnicodeDecodeError:
            raise self._corrupt(
                f"{self._name} is corrupt: {what} is not valid UTF-8 text",
                at,
            ) from None

    # -- values ----------------------------------------------------------------------------

    def _value(self, vtype: int, what: str, at: int) -> Any:
        fixed = FIXED_SIZE_TYPES.get(vtype)
        if fixed is not None:
            value = self._unpack(fixed[0], fixed[1], what)
            return bool(value) if vtype == VT_BOOL else value
        if vtype == VT_STRING:
            return self._text(what)
        if vtype == VT_ARRAY:
            return self._array(what, 0, materialize=True)
        raise self._corrupt(
            f"{self._name} is corrupt: {what} has unknown type {vtype}",
            at,
        )

    def _array(self, what: str, depth: int, *, materialize: bool) -> Any:
        """Read (or, with ``materialize=False``, skip) one array; long ones become summaries."""
        at = self._pos
        if depth >= MAX_ARRAY_DEPTH:
            raise self._corrupt(
                f"{self._name} is corrupt: {what} nests arrays more than {MAX_ARRAY_DEPTH} deep",
                at,
            )
        item_type = self._u32(f"the item type of {what}")
        length = self._u64(f"the length of {what}")
        fixed = FIXED_SIZE_TYPES.get(item_type)
        if fixed is not None:
            min_item = fixed[1]
        elif item_type == VT_STRING:
            min_item = 8
        elif item_type == VT_ARRAY:
            min_item = 12
        else:
            raise self._corrupt(
                f"{self._name} is corrupt: {what} holds items of unknown type {item_type}",
                at,
            )
        self._check_count(length, min_item, f"items in {what}", _ABSURD_ARRAY, at, inside=what)
        first = self._pos
        keep = materialize and length <= MAX_KEPT_ARRAY_ITEMS and length <= self._kept_budget
        if keep:
            self._kept_budget -= length
        if fixed is not None:
            self._need(length * min_item, what, at)
            if keep:
                values = struct.unpack_from(f"{self._e}{length}{fixed[0]}", self._buf, self._pos)
                self._pos += length * min_item
                return tuple(bool(v) for v in values) if item_type == VT_BOOL else values
            self._pos += length * min_item
        elif item_type == VT_STRING:
            if keep:
                return tuple(self._text(f"item {i} of {what}") for i in range(length))
            self._skip_strings(length, what)
        elif keep:
            return tuple(
                self._array(f"item {i} of {what}", depth + 1, materialize=True)
                for i in range(length)
            )
        else:
            self._skip_arrays(length, what, depth + 1)
        return GGUFArraySummary(item_type, length, first)

    def _skip_arrays(self, count: int, what: str, depth: int) -> None:
        """Step over ``count`` arrays (the items of an array) without building anything.

        The common case, an array of fixed-size items lying whole in the buffer, costs one
        unpack and an addition; anything else goes through :meth:`_array`, which checks it
        and says what is wrong (a deeper level is skipped the same way)."""
        if count and depth >= MAX_ARRAY_DEPTH:
            raise self._corrupt(
                f"{self._name} is corrupt: {what} nests arrays more than {MAX_ARRAY_DEPTH} deep",
                self._pos,
            )
        head = struct.Struct(self._e + "IQ").unpack_from
        sizes = {vtype: size for vtype, (_code, size) in FIXED_SIZE_TYPES.items()}
        buf = self._buf
        buflen = len(buf)
        pos = self._pos
        index = 0
        while index < count:
            if pos + 12 <= buflen:
                item_type, length = head(buf, pos)
                size = sizes.get(item_type)
                if size is not None:
                    end = pos + 12 + length * size
                    if end <= buflen:
                        pos = end
                        index += 1
                        continue
            self._pos = pos
            self._array(f"item {index} of {what}", depth, materialize=False)
            buf = self._buf
            buflen = len(buf)
            pos = self._pos
            index += 1
        self._pos = pos

    def _skip_strings(self, count: int, what: str) -> None:
        """Walk over ``count`` strings without decoding them (token lists and merges: the hot
        loop of a header read, done by :func:`desktop.core.gguf.strings.skip_strings`)."""
        big_endian = self._e == ">"
        code = self._e + "Q"
        index = 0
        while True:
            self._pos, done = skip_strings(self._buf, self._pos, count - index, big_endian)
            index += done
            if index >= count:
                return
            # The next item is not whole in the buffer: fetch more bytes, or say what is wrong.
            pos = self._pos
            self._need(8, f"the length of item {index} of {what}")
            length = struct.unpack_from(code, self._buf, pos)[0]
            if pos + 8 + length > len(self._buf):
                if length > _ABSURD_STRING:
                    raise self._corrupt(
                        f"{self._name} is corrupt: item {index} of {what} claims to be "
                        f"{length:,} bytes long",
                        pos,
                    )
                item = f"item {index} of {what}"
                self._check_count(length, 1, f"bytes in {item}", _ABSURD_STRING, pos, inside=item)
                self._need(8 + length, item)
            self._pos = pos + 8 + length
            index += 1

    def string_at(self, summary: GGUFArraySummary, indices: set[int]) -> dict[int, str]:
        """Decode a few items of a summarised string array (already in the buffer)."""
        found: dict[int, str] = {}
        wanted = sorted({i for i in indices if 0 <= i < summary.length})
        if summary.item_type != VT_STRING or not wanted:
            return found
        code = self._e + "Q"
        pos = summary.offset
        index = 0
        for want in wanted:
            pos, done = skip_strings(self._buf, pos, want - index, self._e == ">")
            assert done == want - index  # the whole array was walked while parsing
            index = want
            length = struct.unpack_from(code, self._buf, pos)[0]
            if length <= _MAX_SPECIAL_TOKEN_BYTES:
                raw = bytes(self._buf[pos + 8 : pos + 8 + length])
                found[index] = raw.decode("utf-8", errors="replace")
        return found

    # -- sections --------------------------------------------------------------------------

    def parse(self) -> RawHeader:
        size = self._src.size
        if size == 0:
            raise GGUFTruncatedError(
                f"{self._name} is empty (0 bytes)",
                offset=0,
                sentence=Sentence("gguf.empty", {"name": self._name}),
            )
        self._need(4, "the GGUF magic number")
        magic = bytes(self._buf[0:4])
        if magic != GGUF_MAGIC:
            raise self._corrupt(
                f"{self._name} is not a GGUF file: it starts with {_first_bytes(magic)} instead "
                "of GGUF",
                0,
                _bad_magic(self._name, magic),
            )
        self._pos = 4
        version = self._u32("the format version")
        big_endian = False
        if version & 0xFFFF == 0 and version != 0:
            # A big-endian file: the version reads byte-swapped (gguf-py does the same check).
            big_endian = True
            self._e = ">"
            version = struct.unpack(">I", struct.pack("<I", version))[0]
        if version == 1:
            raise GGUFVersionError(
                f"{self._name} uses GGUF version 1, which llama.cpp no longer reads",
                offset=4,
                sentence=Sentence("gguf.version_1", {"name": self._name}),
            )
        if version not in SUPPORTED_VERSIONS:
            raise GGUFVersionError(
                f"{self._name} uses unknown GGUF version {version} (known: 2 and 3)",
                offset=4,
                sentence=Sentence("gguf.version", {"name": self._name, "version": version}),
            )

        at = self._pos
        n_tensors = self._u64("the tensor count")
        self._check_count(n_tensors, _MIN_TENSOR_INFO_BYTES, "tensors", _INT64_MAX, at)
        self._check_cap(n_tensors, MAX_TENSORS, "tensors", "a few thousand", at)
        at = self._pos
        n_kv = self._u64("the metadata count")
        self._check_count(n_kv, _MIN_KV_BYTES, "metadata entries", _INT64_MAX, at)
        self._check_cap(n_kv, MAX_KV, "metadata entries", "a hundred", at)

        metadata: dict[str, Any] = {}
        value_offsets: dict[str, int] = {}
        for index in range(n_kv):
            at = self._pos
            key = self._name_text(f"the key of metadata entry {index}", MAX_KEY_BYTES)
            if key in metadata:
                raise self._corrupt(
                    f"{self._name} is corrupt: the metadata key {key!r} appears twice",
                    at,
                )
            type_at = self._pos
            vtype = self._u32(f"the type of {key!r}")
            metadata[key] = self._value(vtype, f"the value of {key!r}", type_at)
            value_offsets[key] = type_at

        alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
        if (
            not isinstance(alignment, int)
            or isinstance(alignment, bool)
            or alignment <= 0
            or alignment & (alignment - 1)
        ):
            raise self._corrupt(
                f"{self._name} is corrupt: general.alignment is {alignment!r}, not a power of two",
                value_offsets["general.alignment"],
            )

        tensors = self._tensor_infos(n_tensors, alignment)
        data_offset = -(-self._pos // alignment) * alignment
        self._check_tensor_bounds(tensors, data_offset, alignment)
        return RawHeader(
            version=version,
            big_endian=big_endian,
            metadata=metadata,
            tensors=tensors,
            alignment=alignment,
            data_offset=data_offset,
            file_size=self._src.size,
            special_tokens=self._special_tokens(metadata),
            value_offsets=value_offsets,
        )

    def _tensor_infos(self, count: int, alignment: int) -> tuple[TensorInfo, ...]:
        table = ggml_type_table()
        tensors: list[TensorInfo] = []
        seen: set[str] = set()
        for index in range(count):
            tensor = self._tensor_info_fast(table, seen, alignment)
            if tensor is None:  # not plainly valid, or not whole in the buffer yet
                tensor = self._tensor_info(index, table, seen, alignment)
            seen.add(tensor.name)
            tensors.append(tensor)
        return tuple(tensors)

    def _tensor_info_fast(
        self, table: dict[int, tuple[str, int, int]], seen: set[str], alignment: int
    ) -> TensorInfo | None:
        """One tensor info read without the checks' messages, or None where anything is off
        (then :meth:`_tensor_info` reads it again and says what). Most of a header's tensor
        infos take this path: it skips building a dozen message strings per tensor."""
        buf, pos, e = self._buf, self._pos, self._e
        buflen = len(buf)
        if pos + 8 > buflen:
            return None
        name_len = struct.unpack_from(e + "Q", buf, pos)[0]
        at = pos + 8 + name_len
        if name_len > MAX_TENSOR_NAME_BYTES or at + 4 > buflen:
            return None
        try:
            name = bytes(buf[pos + 8 : at]).decode("utf-8")
        except UnicodeDecodeError:
            return None
        n_dims = struct.unpack_from(e + "I", buf, at)[0]
        end = at + 4 + 8 * n_dims + 12
        if n_dims > MAX_DIMS or end > buflen or name in seen:
            return None
        fields = struct.unpack_from(f"{e}{n_dims}QIQ", buf, at + 4)
        shape, ggml_type, offset = fields[:n_dims], fields[n_dims], fields[n_dims + 1]
        n_elements = 1
        for dim in shape:
            n_elements *= dim
            if dim > _INT64_MAX or n_elements > _INT64_MAX:
                return None
        known = table.get(ggml_type)
        if known is None or (shape and shape[0] % known[1]) or offset % alignment:
            return None
        type_name, block, block_bytes = known
        self._pos = end
        return TensorInfo(
            name, shape, ggml_type, type_name, offset, n_elements // block * block_bytes
        )

    def _tensor_info(
        self,
        index: int,
        table: dict[int, tuple[str, int, int]],
        seen: set[str],
        alignment: int,
    ) -> TensorInfo:
        """One tensor info, checked step by step: fetches bytes as needed, and names the
        problem and its offset when there is one."""
        at = self._pos
        what = f"tensor info {index}"
        name = self._name_text(f"the name of {what}", MAX_TENSOR_NAME_BYTES)
        if name in seen:
            raise self._corrupt(
                f"{self._name} is corrupt: the tensor {name!r} appears twice",
                at,
            )
        dims_at = self._pos
        n_dims = self._u32(f"the dimension count of tensor {name!r}")
        if n_dims > MAX_DIMS:
            raise self._corrupt(
                f"{self._name} is corrupt: tensor {name!r} has {n_dims} dimensions "
                f"(at most {MAX_DIMS})",
                dims_at,
            )
        shape: list[int] = []
        n_elements = 1
        for _ in range(n_dims):
            dim_at = self._pos
            dim = self._u64(f"the shape of tensor {name!r}")
            n_elements *= dim
            if dim > _INT64_MAX or n_elements > _INT64_MAX:
                raise self._corrupt(
                    f"{self._name} is corrupt: tensor {name!r} has an absurd shape",
                    dim_at,
                )
            shape.append(dim)
        type_at = self._pos
        ggml_type = self._u32(f"the type of tensor {name!r}")
        known = table.get(ggml_type)
        if known is None:
            raise self._corrupt(
                f"{self._name} uses tensor type {ggml_type} for {name!r}, "
                "which this version of the gguf package does not know",
                type_at,
                Sentence(
                    "gguf.unknown_tensor_type",
                    {"name": self._name, "tensor": name, "type": ggml_type},
                ),
            )
        type_name, block, block_bytes = known
        if shape and shape[0] % block:
            raise self._corrupt(
                f"{self._name} is corrupt: tensor {name!r} has a first dimension of "
                f"{shape[0]}, not a multiple of the {type_name} block size {block}",
                dims_at,
            )
        offset_at = self._pos
        offset = self._u64(f"the data offset of tensor {name!r}")
        if offset % alignment:
            raise self._corrupt(
                f"{self._name} is corrupt: tensor {name!r} starts at data offset {offset}, "
                f"not a multiple of the alignment {alignment}",
                offset_at,
            )
        n_bytes = n_elements // block * block_bytes
        return TensorInfo(name, tuple(shape), ggml_type, type_name, offset, n_bytes)

    def _check_tensor_bounds(
        self, tensors: tuple[TensorInfo, ...], data_offset: int, alignment: int
    ) -> None:
        """Check the tensor data the way llama.cpp does before it maps any of it.

        llama.cpp (gguf.cpp) wants each tensor's data right after the one before it, in header
        order, padded to the alignment: a tensor whose offset is anything else is refused there
        ("has offset X, expected Y"), which also rules out overlapping tensors and holes. Its
        model loader then wants every tensor's bytes inside the file. The first rule needs no
        file size, so a remote header is checked too."""
        expected = 0
        for tensor in tensors:
            if tensor.offset != expected:
                relation = (
                    "overlaps the one before it"
                    if tensor.offset < expected
                    else "leaves a gap after the one before it"
                )
                raise self._corrupt(
                    f"{self._name} is corrupt: the data of tensor {tensor.name!r} starts at "
                    f"offset {tensor.offset:,} of the data section, where llama.cpp expects "
                    f"{expected:,} (it {relation})",
                    data_offset,
                    Sentence("gguf.tensor_overlap", {"name": self._name, "tensor": tensor.name})
                    if tensor.offset < expected
                    else Sentence("gguf.tensor_gap", {"name": self._name, "tensor": tensor.name}),
                )
            expected += -(-tensor.n_bytes // alignment) * alignment
        size = self._src.size
        if size is None:
            return
        if data_offset > size and tensors:
            raise self._truncated("the padding before the tensor data", self._pos, size)
        for tensor in tensors:
            end = data_offset + tensor.offset + tensor.n_bytes
            if end > size:
                raise GGUFTruncatedError(
                    f"{self._name} is cut short: the data of tensor {tensor.name!r} would end "
                    f"at byte {end:,} but the file has only {size:,} bytes",
                    offset=size,
                    sentence=Sentence(
                        "gguf.truncated_data",
                        {"name": self._name, "tensor": tensor.name, "end": end, "size": size},
                    ),
                )

    def _special_tokens(self, metadata: dict[str, Any]) -> dict[str, str]:
        tokens = metadata.get("tokenizer.ggml.tokens")
        ids: dict[str, int] = {}
        for role, key in _SPECIAL_TOKEN_KEYS.items():
            value = metadata.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                ids[role] = value
        if isinstance(tokens, GGUFArraySummary):
            texts = self.string_at(tokens, set(ids.values()))
        elif isinstance(tokens, tuple):
            texts = {i: t for i, t in enumerate(tokens) if i in ids.values() and isinstance(t, str)}
        else:
            return {}
        return {role: texts[i] for role, i in ids.items() if i in texts}


def parse_header(source: ByteSource, name: str, whole: mmap.mmap | None = None) -> RawHeader:
    """Parse the header behind ``source``; ``name`` is how messages refer to the file.

    ``whole``: the complete file mapped in memory (then ``source`` is only asked for its size)."""
    return HeaderParser(source, name, whole).parse()


def _bad_magic(name: str, magic: bytes) -> Sentence:
    """The sentence of a file that does not start with GGUF: its first bytes as text, or in hex."""
    if magic and all(32 <= b < 127 for b in magic):
        return Sentence("gguf.bad_magic", {"name": name, "found": magic.decode("ascii")})
    return Sentence("gguf.bad_magic_bytes", {"name": name, "found": magic.hex(" ")})


def _first_bytes(magic: bytes) -> str:
    """A file's first bytes as a person reads them: quoted text when they are printable ASCII
    ("# LL"), else hexadecimal (the bytes 1f 8b 08 00)."""
    if magic and all(32 <= b < 127 for b in magic):
        return '"' + magic.decode("ascii") + '"'
    return "the bytes " + " ".join(f"{b:02x}" for b in magic)
