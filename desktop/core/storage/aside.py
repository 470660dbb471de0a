"""Files kept aside, and the locks around moving a database: never delete what a person had.

:func:`keep_aside` moves (or copies) a damaged file to a name beside it that says why and when
(``history.db.broken-20250314-101500``), with its SQLite companions (``-wal``, ``-shm``) moved
the same way. :func:`file_lock` serialises the processes that open a database with the one that
sets it aside; :func:`held_elsewhere` asks SQLite's own shared-memory lock whether another process
still has a database open (then moving it would leave that process writing to the kept copy).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

try:  # POSIX; on Windows a file that is open elsewhere cannot be renamed at all
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

#: SQLite's companions of a database in WAL mode, moved together with it.
SQLITE_SIDECARS = ("-wal", "-shm")
#: The byte of the ``-shm`` file every connection holds a shared lock on while it has the
#: database open in WAL mode (the "dead-man switch" of SQLite's unix VFS, walformat.html).
_SHM_DMS_BYTE = 128


def aside_name(path: Path, reason: str, *, now: float | None = None) -> Path:
    """A free name beside ``path``: ``<name>.<reason>-<YYYYmmdd-HHMMSS>`` (``-2``, ``-3``... when
    taken, companions included)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    base = f"{path.name}.{reason}-{stamp}"
    candidate = path.with_name(base)
    number = 1
    while any(Path(f"{candidate}{s}").exists() for s in ("", *SQLITE_SIDECARS)):
        number += 1
        candidate = path.with_name(f"{base}-{number}")
    return candidate


def keep_aside(
    path: Path, reason: str = "broken", *, copy: bool = False, sidecars: Sequence[str] = ()
) -> Path:
    """Move (or ``copy``) ``path`` and its existing ``sidecars`` (e.g. ``-wal``) to
    :func:`aside_name`; return the new name. Raises OSError when it cannot be done (nothing is
    deleted either way)."""
    target = aside_name(path, reason)
    # Companions first: a database must never be left beside the write-ahead log of another.
    for suffix in (*sidecars, ""):
        source = Path(f"{path}{suffix}")
        if not source.exists():
            continue
        dest = Path(f"{target}{suffix}")
        if copy:
            shutil.copy2(source, dest)
        else:
            os.replace(source, dest)
    return target


@contextmanager
def file_lock(path: Path, *, shared: bool) -> Iterator[None]:
    """Hold ``<path>-lock`` (an empty file beside ``path``): ``shared`` while opening a database,
    exclusive while setting it aside. Without ``fcntl`` (Windows), or where the lock file cannot
    be made (a read-only folder), nothing is locked."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    try:
        fd = os.open(f"{path}-lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        log.debug("no lock file beside %s: %s", path, exc)
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def held_elsewhere(path: Path) -> bool:
    """Whether another process has the WAL database ``path`` open (it holds SQLite's shared lock
    on its ``-shm`` file). Call only when this process has no connection to it: closing the
    probe's descriptor would drop this process's own SQLite locks on that file."""
    if fcntl is None:  # pragma: no cover - Windows: a rename of an open file fails instead
        return False
    try:
        fd = os.open(f"{path}-shm", os.O_RDWR)
    except OSError:
        return False  # no shared memory: nobody has it open in WAL mode
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _SHM_DMS_BYTE)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, _SHM_DMS_BYTE)
        return False
    finally:
        os.close(fd)
