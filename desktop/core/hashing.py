"""File hashing shared by the downloader and the library."""

from __future__ import annotations

import hashlib
from pathlib import Path

#: Bytes read per step: large enough that hashing runs at disk speed, small enough to stay
#: out of the way of the rest of the process's memory.
HASH_BLOCK = 4 << 20


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes, as lowercase hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()
