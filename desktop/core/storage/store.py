"""One SQLite database file, opened the same way by every store: WAL, migrated, checked, guarded.

A :class:`Store` is a handle; the handles of one file (and schema) in one process share a single
connection behind one lock, so the history can be used from the GUI thread and a comparison's
thread at once, and so that when the file must be set aside, no other connection of this process
is left holding it. Opening switches the file to WAL (the window, a CLI run and a comparison can
read and write at once; ``synchronous=NORMAL`` keeps every committed row through a crash or a
kill), applies the schema's migrations, checks that its tables are all there and, once per file
per process, runs SQLite's ``quick_check``.

Every statement runs under :meth:`Store.guard`. There, an SQLite error means one of:

- *busy*: another process holds the file; waited out (SQLite's busy handler, then retries);
- *damage* (a malformed page, not a database, text that is not UTF-8, a failed check), at
  opening or at any query: the file is set aside — moved, with its ``-wal`` and ``-shm``, to
  ``<name>.broken-<time>`` (never deleted) — a new file is made, the rows the schema wants
  carried over are recovered into it, the person is told once (:mod:`.notices`) and the
  details are logged; then the operation runs again, whole, on the new file;
- *the machine*: disk full, no permission, an I/O error: a one-sentence error, nothing moved;
- anything else is a programming error and is raised as it is.

Setting aside takes an exclusive lock (``<name>-lock``) that every opening takes shared, so no
process opens the file while it is being replaced, and refuses with a sentence while another
process still has the damaged file open (it would go on writing into the kept copy).
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, Literal, ParamSpec, Protocol, TypeVar

from desktop.core.errors import ScoutError, Sentence, os_error_name
from desktop.core.storage.aside import SQLITE_SIDECARS, file_lock, held_elsewhere, keep_aside
from desktop.core.storage.notices import StoreNotice, announce
from desktop.core.storage.salvage import salvage
from desktop.core.storage.schema import Damaged, Schema, migrate, missing_parts

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

BUSY_TIMEOUT_S = 10.0  # SQLite's own wait for a lock, per statement
BUSY_WAIT_S = 10.0  # then retries of locks SQLite does not wait for (the switch to WAL)
BUSY_RETRY_S = 0.05

Problem = Literal["busy", "damage", "machine", "other"]

# Primary result codes (https://sqlite.org/rescode.html).
_BUSY_CODES = {5, 6}  # BUSY, LOCKED
_DAMAGE_CODES = {11, 24, 26}  # CORRUPT, FORMAT, NOTADB
_MACHINE_CODES = {3, 7, 8, 10, 13, 14, 15, 22, 23}  # PERM NOMEM READONLY IOERR FULL CANTOPEN...


def classify(exc: BaseException) -> Problem:
    """What an error raised by SQLite (or by the checks here) means for the file."""
    if isinstance(exc, Damaged):
        return "damage"
    message = str(exc)
    if message.startswith("Could not decode to UTF-8"):
        return "damage"  # text SQLite stored, that is not the UTF-8 every writer here writes
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF
        if primary in _BUSY_CODES:
            return "busy"
        if primary in _DAMAGE_CODES:
            return "damage"
        if primary in _MACHINE_CODES:
            return "machine"
        return "other"
    lowered = message.lower()  # Python < 3.11 carries no result code
    if "locked" in lowered or "busy" in lowered:
        return "busy"
    if "malformed" in lowered or "not a database" in lowered:
        return "damage"
    if any(w in lowered for w in ("disk is full", "unable to open", "readonly", "i/o error")):
        return "machine"
    return "other"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


_checked_lock = threading.Lock()
_checked: set[tuple[int, int, int, int]] = set()  # file states that passed quick_check here


class _Shared:
    """The one connection of this process to one database file."""

    def __init__(self, path: Path, schema: Schema) -> None:
        self.path = path
        self.schema = schema
        self.lock = threading.RLock()
        self.conn: sqlite3.Connection | None = None
        self.identity: tuple[int, int] | None = None
        self.generation = 0  # counts the files this process has used at ``path``
        self.users = 0
        self.local = threading.local()  # each thread's depth of nested guards

    # -- opening -------------------------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """The open connection (made again after the file was set aside). Hold ``lock``."""
        if self.conn is None:
            self._open()
        assert self.conn is not None
        return self.conn

    def _open(self) -> None:
        deadline = time.monotonic() + BUSY_WAIT_S
        replaced = False
        while True:
            try:
                with file_lock(self.path, shared=True):
                    self.conn = self._connect()
                return
            except (sqlite3.Error, Damaged) as exc:
                problem = classify(exc)
                if problem == "busy" and time.monotonic() < deadline:
                    time.sleep(BUSY_RETRY_S)
                    continue
                if problem == "damage" and not replaced:
                    self._replace(exc)
                    replaced = True
                    if self.conn is not None:
                        return
                    continue
                if problem == "other":  # a file that is not this store's, or a bug in a script
                    log.warning("cannot open %s", self.path, exc_info=exc)
                    raise self.schema.error(
                        f"The {self.schema.name} database {self.path} cannot be opened: {exc}."
                    ) from exc
                raise self.failure(exc, problem) from exc

    def _connect(self) -> sqlite3.Connection:
        """Open, migrate and check the file at ``path``; records its identity first."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            self.identity = _identity(self.path)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            if self.schema.foreign_keys:
                conn.execute("PRAGMA foreign_keys=ON")
            migrate(conn, self.schema)
            lacking = missing_parts(conn, self.schema)
            if lacking is not None:
                raise Damaged(lacking)
            self._check_once(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _check_once(self, conn: sqlite3.Connection) -> None:
        """SQLite's ``quick_check``, once per state of the file in this process (the file's
        size and time change when a checkpoint writes to it, or someone replaces its bytes)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return
        state = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        with _checked_lock:
            if state in _checked:
                return
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(3)").fetchall()]
        if rows != ["ok"]:
            found = "; ".join(line for r in rows for line in r.splitlines() if "***" not in line)
            raise Damaged(f"the integrity check found: {found[:200]}")
        with _checked_lock:
            _checked.add(state)

    def close(self) -> None:
        """Close the connection. SQLite's checkpoint on closing changes the file's time: its
        new state is as checked as the one opened (the next opening here skips the check)."""
        if self.conn is None:
            return
        self.conn.close()
        self.conn = None
        try:
            st = os.stat(self.path)
        except OSError:
            return
        with _checked_lock:
            _checked.add((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))

    # -- damage --------------------------------------------------------------------------------

    def set_aside(self, cause: BaseException, generation: int) -> None:
        """The file this process used in ``generation`` is damaged: replace it (unless another
        thread already did), then go on with the new one."""
        with self.lock:
            if generation != self.generation:
                return  # another thread of this process replaced it meanwhile
            self._replace(cause)

    def _replace(self, cause: BaseException) -> None:
        """Close, move the damaged file aside, make a new one and recover into it. Hold
        ``lock``. Raises the schema's error (a sentence) when the file cannot be moved."""
        damaged = self.identity
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        schema, path = self.schema, self.path
        with file_lock(path, shared=False):
            if _identity(path) != damaged:
                log.info("%s was set aside by another process; opening the new file", path)
                self.generation += 1
                return
            if held_elsewhere(path):
                raise schema.error(
                    f"The {schema.name} database {path} is damaged ({_reason(cause)}), and "
                    "another LLM Scout process still has it open: close it, then try again.",
                    kind=f"{schema.name}.damaged",
                    sentence=Sentence(
                        "store.damaged_in_use", {"store": schema.name, "path": str(path)}
                    ),
                )
            try:
                kept = keep_aside(path, "broken", sidecars=SQLITE_SIDECARS)
            except OSError as exc:
                raise schema.error(
                    f"The {schema.name} database {path} is damaged ({_reason(cause)}) and "
                    f"cannot be moved aside: {exc.strerror or exc}.",
                    kind=f"{schema.name}.damaged",
                    sentence=Sentence(
                        "store.damaged_stuck",
                        {
                            "store": schema.name,
                            "path": str(path),
                            "reason": str(exc.strerror or exc),
                            "errno": os_error_name(exc),
                        },
                    ),
                ) from exc
            self.generation += 1
            try:
                self.conn = self._connect()
            except (sqlite3.Error, Damaged) as exc:
                raise self.failure(exc, classify(exc)) from exc
            recovered = 0
            if schema.salvage is not None:
                try:
                    recovered = salvage(kept, self.conn, schema.salvage)
                except sqlite3.Error as exc:
                    log.warning("recovering rows from %s into %s failed: %s", kept, path, exc)
        notice = StoreNotice(schema.name, path, kept, _reason(cause), recovered, schema.rebuilt)
        log.warning(
            "%s Details:",
            notice.sentence(),
            exc_info=(type(cause), cause, cause.__traceback__),
            extra={"told": True},
        )
        announce(notice)

    # -- errors --------------------------------------------------------------------------------

    def failure(self, exc: BaseException, problem: Problem) -> BaseException:
        """The sentence for an error that is not handled here (``other``: the error itself)."""
        schema, path = self.schema, self.path
        if isinstance(exc, ScoutError):
            return exc
        if problem == "busy":
            return schema.error(
                f"The {schema.name} database {path} is busy: another program holds it; try "
                "again in a moment.",
                kind=f"{schema.name}.busy",
                sentence=Sentence("store.busy", {"store": schema.name, "path": str(path)}),
            )
        if problem == "damage":
            return schema.error(
                f"The {schema.name} database {path} is still damaged after it was replaced "
                f"({_reason(exc)}).",
                kind=f"{schema.name}.damaged",
                sentence=Sentence("store.still_damaged", {"store": schema.name, "path": str(path)}),
            )
        if problem == "machine":
            return schema.error(f"The {schema.name} database {path} cannot be used: {exc}.")
        return exc


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".")
    return text[:200] or type(exc).__name__


_registry_lock = threading.Lock()
_registry: dict[tuple[str, Schema], _Shared] = {}


class Store:
    """A handle on one database file. Use as a context manager, or call :meth:`close`.

    Safe to use from several threads: statements and transactions take the file's lock.
    """

    def __init__(self, path: Path, schema: Schema) -> None:
        self.path = path
        self.schema = schema
        key = (os.path.abspath(path), schema)
        with _registry_lock:
            shared = _registry.get(key)
            if shared is None:
                shared = _Shared(Path(key[0]), schema)
            with shared.lock:
                if shared.conn is None:
                    shared.connection()  # a sentence (ScoutError) when it cannot be opened
            shared.users += 1
            _registry[key] = shared
        self._key = key
        self._shared: _Shared | None = shared

    def close(self) -> None:
        shared = self._shared
        if shared is None:
            return
        self._shared = None
        with _registry_lock:
            shared.users -= 1
            last = shared.users == 0
            if last:
                _registry.pop(self._key, None)
        if last:
            with shared.lock:
                shared.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _live(self) -> _Shared:
        if self._shared is None:
            raise sqlite3.ProgrammingError(f"the store {self.path} is closed")
        return self._shared

    # -- running -------------------------------------------------------------------------------

    def guard(self, work: Callable[[], T]) -> T:
        """Run ``work`` (any number of this store's statements) so that damage sets the file
        aside and runs it again, whole, on the new file, and a held lock is waited out.
        Nested calls leave that to the outermost."""
        shared = self._live()
        local = shared.local
        depth = getattr(local, "depth", 0)
        local.depth = depth + 1
        try:
            if depth:
                return work()
            return self._guarded(shared, work)
        finally:
            local.depth = depth

    def _guarded(self, shared: _Shared, work: Callable[[], T]) -> T:
        deadline: float | None = None
        again = True
        while True:
            generation = shared.generation
            try:
                return work()
            except (sqlite3.Error, Damaged) as exc:
                problem = classify(exc)
                if problem == "busy":
                    if deadline is None:
                        deadline = time.monotonic() + BUSY_WAIT_S
                    if time.monotonic() < deadline:
                        time.sleep(BUSY_RETRY_S)
                        continue
                elif problem == "damage" and again:
                    again = False
                    shared.set_aside(exc, generation)
                    continue
                elif problem == "other" and again and shared.generation != generation:
                    again = False  # another thread replaced the file under this operation
                    continue
                failure = shared.failure(exc, problem)
                if failure is exc:
                    raise
                raise failure from exc

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """The rows of one query."""

        def run() -> list[sqlite3.Row]:
            shared = self._live()
            with shared.lock:
                return list(shared.connection().execute(sql, tuple(args)).fetchall())

        return self.guard(run)

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        """One statement, committed on its own (or part of the :meth:`write` it runs in)."""

        def run() -> sqlite3.Cursor:
            shared = self._live()
            with shared.lock:
                return shared.connection().execute(sql, tuple(args))

        return self.guard(run)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]

        def run() -> None:
            shared = self._live()
            with shared.lock:
                shared.connection().executemany(sql, rows)

        self.guard(run)

    def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one :meth:`transaction` (again on a new file after damage)."""

        def run() -> T:
            with self.transaction() as conn:
                return work(conn)

        return self.guard(run)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction, committed when the block ends (rolled back when
        it raises); no other thread's statement comes in between, and one opened inside another
        is part of it. Only inside :meth:`guard` (a :func:`guarded` method, a :meth:`write`),
        which runs the block again after damage."""
        shared = self._live()
        local = shared.local
        if not getattr(local, "depth", 0):
            raise RuntimeError("Store.transaction() runs inside Store.guard()")
        with shared.lock:
            conn = shared.connection()
            if getattr(local, "in_transaction", False):
                yield conn  # part of the transaction this thread has open
                return
            conn.execute("BEGIN IMMEDIATE")
            local.in_transaction = True
            try:
                yield conn
            except BaseException:
                _rollback(conn)
                raise
            else:
                try:
                    conn.execute("COMMIT")
                except BaseException:
                    _rollback(conn)
                    raise
            finally:
                local.in_transaction = False


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # SQLite may have rolled back already (or the file is beyond it)


class HasStore(Protocol):
    @property
    def store(self) -> Store: ...


S = TypeVar("S", bound=HasStore)


def guarded(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """A method that runs whole under its object's ``store.guard`` (again, whole, on a new
    file when the old one turns out damaged)."""

    @functools.wraps(method)
    def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.store.guard(lambda: method(self, *args, **kwargs))

    return wrapper
