"""Which model file ran: its size and mtime always, its sha256 when that is cheap.

Hashing a multi-gigabyte file on every run would cost more than the run, so the history keys a
model by (path, size, mtime) and finds its sha256 where it is already known: given by the caller
(a catalog or demo hash of a file of the same size), in the library database (computed there once
per size and mtime), or computed now for a small file. A large file is hashed later, on request
(:meth:`History.fill_hashes`), and only while its size and mtime still match the record.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from desktop.core.errors import ScoutError
from desktop.core.hashing import BytesCallback, StopCheck, sha256_file
from desktop.core.library import Library

log = logging.getLogger(__name__)

#: Files up to this size are hashed when first recorded (about a second on a slow disk).
HASH_NOW_MAX_BYTES = 256 << 20


@dataclass(frozen=True)
class FileStamp:
    path: Path
    size_bytes: int
    mtime_ns: int


def stamp(path: Path) -> FileStamp:
    """Size and mtime of ``path`` (0 and 0 for a file that is gone: the run still counts)."""
    absolute = path.expanduser().absolute()
    try:
        st = os.stat(absolute)
    except OSError:
        return FileStamp(absolute, 0, 0)
    return FileStamp(absolute, st.st_size, st.st_mtime_ns)


def library_sha256(library_db: Path | None, file: FileStamp) -> str | None:
    """The library's hash of this file at this size and mtime, if it has one (read only: a
    missing library database is not created)."""
    if library_db is None or not library_db.is_file():
        return None
    try:
        with Library(library_db) as library:
            entry = library.entry(file.path)
    except (ScoutError, OSError) as exc:
        log.info("the library cannot be read for a hash: %s", exc)
        return None
    if entry is None or entry.sha256 is None or len(entry.parts) != 1:
        return None
    if (entry.size_bytes, entry.mtime_ns) != (file.size_bytes, file.mtime_ns):
        return None
    return entry.sha256


def cheap_sha256(file: FileStamp, library_db: Path | None) -> str | None:
    """The hash from the library, else computed now for a small file, else None."""
    known = library_sha256(library_db, file)
    if known is not None or file.size_bytes == 0:
        return known
    if file.size_bytes <= HASH_NOW_MAX_BYTES:
        return hash_if_unchanged(file)
    return None


def hash_if_unchanged(
    file: FileStamp,
    *,
    on_bytes: BytesCallback | None = None,
    should_stop: StopCheck | None = None,
) -> str | None:
    """sha256 of the file while it is still the one recorded (None when it changed or is gone).
    Raises Cancelled when ``should_stop`` says so."""
    if stamp(file.path) != file:
        return None
    try:
        digest = sha256_file(file.path, on_bytes=on_bytes, should_stop=should_stop)
    except OSError as exc:
        log.info("cannot hash %s: %s", file.path, exc)
        return None
    return digest if stamp(file.path) == file else None
