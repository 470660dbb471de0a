"""Reference packs: what a reference model said about a text, small enough for an edge box.

A pack holds, for each scored position of each chunk of one text, the reference's log-probability
of the true next token, its ``top_k`` most likely tokens (ids and log-probabilities, most likely
first) and the log of the probability of every other token. With it a quantized model is scored
(KL divergence, ΔPPL, same top token) without the reference model: a Jetson needs the pack, not
the 16 GB F16 file. It also holds the chunks' token ids, so the text itself is not needed, and the
tokenizer's identity (a digest of the vocabulary): a pack made with another tokenizer is refused.

File layout (little-endian): the magic ``LLMSCOUT-REFPACK`` and a format byte, a uint32 header
length, a UTF-8 JSON header (:class:`PackHeader`), then the arrays one after the other in the
order of :data:`ARRAYS`: tokens int32 ``(chunks, ctx)``, target_lp float32 ``(chunks, n)``,
top_ids int32 ``(chunks, n, k)``, top_lp float32 ``(chunks, n, k)``, rest_lp float32
``(chunks, n)``. At ``top_k`` 32 a scored token takes 4 * (2k + 2) = 264 bytes plus 8 of chunk
tokens: about 0.27 MB per 1,000 tokens. Written to a temporary file and renamed into place.
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop.core.errors import QualityError

MAGIC = b"LLMSCOUT-REFPACK"
FORMAT = 1
SUFFIX = ".refpack"
MAX_HEADER_BYTES = 1 << 20
ARRAYS = ("tokens", "target_lp", "top_ids", "top_lp", "rest_lp")


@dataclass(frozen=True)
class PackHeader:
    """What a pack is about. ``tokenizer`` is the vocabulary digest; ``reference`` the model's
    label, ``reference_file`` its file name and ``reference_bytes`` its size."""

    tokenizer: str
    n_vocab: int
    reference: str
    reference_file: str
    reference_bytes: int
    text: str
    text_sha256: str
    ctx: int
    first_output: int
    n_outputs: int
    top_k: int
    chunks: int
    chunks_planned: int
    created: float = 0.0
    app_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, **dataclasses.asdict(self)}


@dataclass(frozen=True, eq=False)
class ReferencePack:
    header: PackHeader
    tokens: npt.NDArray[np.int32]
    target_lp: npt.NDArray[np.float32]
    top_ids: npt.NDArray[np.int32]
    top_lp: npt.NDArray[np.float32]
    rest_lp: npt.NDArray[np.float32]

    @property
    def complete(self) -> bool:
        return self.header.chunks == self.header.chunks_planned

    @property
    def scored_tokens(self) -> int:
        return self.header.chunks * self.header.n_outputs

    def perplexity(self) -> float:
        """The reference's perplexity on the scored tokens."""
        return float(np.exp(-np.mean(self.target_lp, dtype=np.float64)))

    def shapes(self) -> dict[str, tuple[int, ...]]:
        return _shapes(self.header)


def write_pack(pack: ReferencePack, path: Path) -> int:
    """Write ``pack`` atomically (temporary file, fsync, rename); returns its size in bytes."""
    path = Path(path)
    header = json.dumps(pack.header.to_dict(), ensure_ascii=False).encode("utf-8")
    dtypes = {"tokens": "<i4", "top_ids": "<i4"}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".part", dir=path.parent)
    except OSError as exc:
        raise QualityError(
            f"The reference pack cannot be written to {path}: {exc.strerror}.", kind="quality.pack"
        ) from exc
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + bytes([FORMAT]) + struct.pack("<I", len(header)) + header)
            for name, shape in pack.shapes().items():
                array = np.ascontiguousarray(getattr(pack, name), dtype=dtypes.get(name, "<f4"))
                if array.shape != shape:
                    raise ValueError(f"{name} has shape {array.shape}, not {shape}")
                out.write(array.tobytes())
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise QualityError(
            f"The reference pack cannot be written to {path}: {exc.strerror}.", kind="quality.pack"
        ) from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def read_pack(path: Path | str) -> ReferencePack:
    """Read and check a pack; QualityError (``quality.pack``) with one sentence otherwise."""
    path = Path(path).expanduser()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise _bad(f"There is no reference pack {path}.") from None
    except IsADirectoryError:
        raise _bad(f"{path} is a folder, not a reference pack.") from None
    except OSError as exc:
        raise _bad(f"{path} cannot be read: {exc.strerror}.") from exc
    head = len(MAGIC) + 1 + 4
    if len(data) < head or not data.startswith(MAGIC):
        raise _bad(
            f"{path} is not a reference pack (made by `llm-scout quality --save-reference`)."
        )
    if data[len(MAGIC)] != FORMAT:
        raise _bad(
            f"{path} is a reference pack of format {data[len(MAGIC)]}; this app reads {FORMAT}."
        )
    (size,) = struct.unpack_from("<I", data, len(MAGIC) + 1)
    if size > MAX_HEADER_BYTES or head + size > len(data):
        raise _bad(f"{path} is cut short or damaged.")
    try:
        fields = json.loads(data[head : head + size].decode("utf-8"))
        fields.pop("format", None)
        header = PackHeader(**fields)
        _check_header(header)
    except (ValueError, TypeError) as exc:
        raise _bad(f"{path} has a damaged header.") from exc
    offset = head + size
    arrays: dict[str, Any] = {}
    shapes = _shapes(header)
    for name in ARRAYS:
        shape = shapes[name]
        count = int(np.prod(shape))
        dtype = "<i4" if name in ("tokens", "top_ids") else "<f4"
        if offset + 4 * count > len(data):
            raise _bad(f"{path} is cut short or damaged.")
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(shape)
        arrays[name] = array.astype(np.int32 if dtype == "<i4" else np.float32)
        offset += 4 * count
    if offset != len(data):
        raise _bad(f"{path} has {len(data) - offset} bytes more than its header says.")
    tokens, top_ids = arrays["tokens"], arrays["top_ids"]
    if tokens.size and (tokens.min() < 0 or tokens.max() >= header.n_vocab):
        raise _bad(f"{path} holds token ids outside its vocabulary.")
    if top_ids.size and (top_ids.min() < 0 or top_ids.max() >= header.n_vocab):
        raise _bad(f"{path} holds token ids outside its vocabulary.")
    return ReferencePack(header=header, **arrays)


def _shapes(h: PackHeader) -> dict[str, tuple[int, ...]]:
    c, n, k = h.chunks, h.n_outputs, h.top_k
    return {
        "tokens": (c, h.ctx),
        "target_lp": (c, n),
        "top_ids": (c, n, k),
        "top_lp": (c, n, k),
        "rest_lp": (c, n),
    }


def _check_header(h: PackHeader) -> None:
    numbers = (h.n_vocab, h.ctx, h.top_k, h.chunks, h.chunks_planned, h.n_outputs)
    if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in numbers):
        raise ValueError("counts must be non-negative integers")
    if h.first_output + h.n_outputs > h.ctx or h.top_k < 1 or h.chunks < 1 or h.n_vocab < 1:
        raise ValueError("inconsistent sizes")
    if not isinstance(h.tokenizer, str) or len(h.tokenizer) != 64:
        raise ValueError("no tokenizer digest")


def _bad(message: str) -> QualityError:
    return QualityError(message, kind="quality.pack")


def new_header(**fields: Any) -> PackHeader:
    """A header stamped with the time and this app's version."""
    from desktop import __version__

    return PackHeader(created=time.time(), app_version=__version__, **fields)
