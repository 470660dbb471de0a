"""File hashing shared by the downloader and the library, with progress and cancel."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from desktop.core.errors import Cancelled

#: Bytes read per step: large enough that hashing runs at disk speed, small enough to stay
#: out of the way of the rest of the process's memory (and to notice a cancel within ~10 ms).
HASH_BLOCK = 4 << 20

#: ``on_bytes(n)``: ``n`` more bytes were read. ``should_stop()``: True to stop at the next block.
BytesCallback = Callable[[int], None]
StopCheck = Callable[[], bool]


def sha256_file(
    path: Path,
    *,
    on_bytes: BytesCallback | None = None,
    should_stop: StopCheck | None = None,
) -> str:
    """The sha256 of a file's bytes, as lowercase hex. Raises Cancelled when ``should_stop``
    says so between blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
            if on_bytes is not None:
                on_bytes(len(block))
            if should_stop is not None and should_stop():
                raise Cancelled(f"Hashing {path.name} was cancelled.")
    return digest.hexdigest()
