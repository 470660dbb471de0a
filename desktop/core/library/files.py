"""File-level helpers of the library: copying, split parts.

Split models are published as ``<stem>-00001-of-0000N.gguf`` parts; the first part's header
holds the metadata and the later parts' headers only ``split.*`` keys and their tensor infos
(:func:`desktop.core.gguf.read_gguf_split` reads them all).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
from collections.abc import Sequence
from pathlib import Path

from desktop.core.errors import Cancelled, LibraryError, Sentence, os_error_name
from desktop.core.hashing import HASH_BLOCK, BytesCallback, StopCheck, sha256_file

SPLIT_RE = re.compile(r"^(?P<stem>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$", re.IGNORECASE)


def stat_parts(parts: Sequence[Path]) -> tuple[int, int]:
    """(total size, newest mtime in ns) of a model's files; OSError when one is gone."""
    size = 0
    mtime = 0
    for part in parts:
        st = os.stat(part)
        size += st.st_size
        mtime = max(mtime, st.st_mtime_ns)
    return size, mtime


def copy_file(
    src: Path,
    dest: Path,
    *,
    on_bytes: BytesCallback | None = None,
    should_stop: StopCheck | None = None,
) -> str:
    """Copy ``src`` to a new file ``dest`` (flushed to disk); returns the sha256 of the bytes.
    Raises Cancelled (``dest`` left for the caller to remove) when ``should_stop`` says so."""
    digest = hashlib.sha256()
    with src.open("rb") as fin, dest.open("xb") as fout:
        while chunk := fin.read(HASH_BLOCK):
            digest.update(chunk)
            fout.write(chunk)
            if on_bytes is not None:
                on_bytes(len(chunk))
            if should_stop is not None and should_stop():
                raise Cancelled(f"Copying {src.name} was cancelled.")
        fout.flush()
        os.fsync(fout.fileno())
    return digest.hexdigest()


def split_parts(path: Path) -> tuple[Path, ...]:
    """All parts of the model whose (first) file is ``path``; errors for a later or lost part."""
    match = SPLIT_RE.match(path.name)
    if match is None:
        return (path,)
    index, count = int(match["index"]), int(match["count"])
    if index != 1:
        raise LibraryError(
            f"{path.name} is part {index} of a split model; import its first part.",
            kind="library.split_part",
            sentence=Sentence("library.split_part", {"name": path.name, "number": index}),
        )
    parts = tuple(
        path.with_name(f"{match['stem']}-{i:05d}-of-{count:05d}.gguf") for i in range(1, count + 1)
    )
    absent = [p.name for p in parts if not p.is_file()]
    if absent:
        raise LibraryError(
            f"The split model {match['stem']} is incomplete: {absent[0]} is missing.",
            kind="library.split_incomplete",
            sentence=Sentence(
                "library.split_incomplete", {"name": match["stem"], "part": absent[0]}
            ),
        )
    return parts


def copy_parts(
    parts: tuple[Path, ...],
    dest_dir: Path,
    *,
    on_bytes: BytesCallback | None = None,
    should_stop: StopCheck | None = None,
) -> tuple[tuple[Path, ...], str]:
    """Copy a model's files into ``dest_dir``; returns the copies and the first one's sha256.

    Each file goes to a hidden temporary name first and is renamed once every part is copied,
    so a final name never holds half a file; on failure the temporaries are removed. A file
    already there with the same bytes is kept; one with other bytes is an error.
    """
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LibraryError(
            f"Cannot create the folder {dest_dir}: {exc.strerror}.",
            kind="library.copy_failed",
            sentence=Sentence(
                "library.mkdir_failed",
                {"folder": str(dest_dir), "reason": str(exc.strerror), "errno": os_error_name(exc)},
            ),
        ) from exc
    dests = tuple(dest_dir / p.name for p in parts)
    first_sha: str | None = None
    todo: list[tuple[Path, Path]] = []
    for src, dest in zip(parts, dests, strict=True):
        if not dest.exists():
            todo.append((src, dest))
            continue
        if not src.samefile(dest):
            same = dest.stat().st_size == src.stat().st_size and (
                sha256_file(dest) == sha256_file(src)
            )
            if not same:
                raise LibraryError(
                    f"A different file named {dest.name} is already in {dest_dir}.",
                    kind="library.exists",
                    sentence=Sentence(
                        "library.exists", {"name": dest.name, "folder": str(dest_dir)}
                    ),
                )
    temps: list[tuple[Path, Path]] = []
    try:
        for src, dest in todo:
            tmp = dest_dir / f".{dest.name}.{secrets.token_hex(4)}.partial"
            temps.append((tmp, dest))
            sha = copy_file(src, tmp, on_bytes=on_bytes, should_stop=should_stop)
            if src == parts[0]:
                first_sha = sha
        for tmp, dest in temps:
            os.replace(tmp, dest)
    except Cancelled:
        for tmp, _dest in temps:
            tmp.unlink(missing_ok=True)
        raise
    except OSError as exc:
        for tmp, _dest in temps:
            tmp.unlink(missing_ok=True)
        disk_full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        reason = "there is not enough disk space" if disk_full else exc.strerror or str(exc)
        where = {"name": parts[0].name, "folder": str(dest_dir)}
        raise LibraryError(
            f"Copying {parts[0].name} to {dest_dir} failed: {reason}.",
            kind="library.copy_failed",
            sentence=Sentence("library.copy_disk_full", where)
            if disk_full
            else Sentence(
                "library.copy_failed", {**where, "reason": reason, "errno": os_error_name(exc)}
            ),
        ) from exc
    if first_sha is None:
        first_sha = sha256_file(dests[0], on_bytes=on_bytes, should_stop=should_stop)
    return dests, first_sha
