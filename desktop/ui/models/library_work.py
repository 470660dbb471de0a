"""The Library page's work off the GUI thread: scans, imports, removals, one at a time.

Each operation is a function that runs on a worker thread with its own
:class:`~desktop.core.library.Library` (one instance per thread) and returns an
:class:`Outcome`: plain values, including the library as it is afterwards, so the GUI thread
never opens the database. :class:`LibraryOperations` runs them in order, forwards throttled
progress (:class:`~desktop.core.library.ScanProgress`, :class:`ImportProgress`) and stops the
running one on request (a scan ends after its current file, hashing between 4 MiB blocks).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from desktop.core.catalog import Catalog
from desktop.core.errors import Cancelled, ScoutError
from desktop.core.library import Library, LibraryEntry, ScanReport, ScanRoot, downloaded_files
from desktop.ui.models.library_model import LibraryListing
from desktop.ui.workers import TaskControl, TaskHandle, run_task

PROGRESS_INTERVAL_S = 0.1  # a worker reports progress at most this often (plus the first time)

StopCheck = Callable[[], bool]


@dataclass(frozen=True)
class ImportProgress:
    """Bytes hashed (and copied) of the files being imported: file ``index`` of ``count``."""

    done: int
    total: int
    name: str
    index: int
    count: int
    copy: bool


@dataclass(frozen=True)
class Outcome:
    """What one operation did, with the library as it is afterwards."""

    listing: LibraryListing
    report: ScanReport | None = None
    imported: tuple[LibraryEntry, ...] = ()
    failed: tuple[tuple[Path, ScoutError], ...] = ()
    forgotten: tuple[Path, ...] = ()
    deleted: tuple[Path, ...] = ()
    error: ScoutError | None = None
    cancelled: bool = False


@dataclass(frozen=True)
class LibraryContext:
    """Where the library is, taken on the GUI thread before the work starts."""

    db: Path
    catalog: Catalog
    models_dir: Path

    def open(self) -> Library:
        """The library for this (worker) thread (the core waits out a database held by
        another process, and sets a damaged one aside)."""
        return Library(self.db, catalog=self.catalog, models_dir=self.models_dir)


Work = Callable[[Library, TaskControl, StopCheck], Outcome]


def read_listing(library: Library, models_dir: Path) -> LibraryListing:
    """Entries, problems and which entries the app downloaded (on a worker thread)."""
    entries = tuple(library.entries())
    downloaded = set()
    for entry in entries:
        if entry.source == "downloaded" and not entry.missing:
            try:
                downloaded_files(entry.path, models_dir)
            except ScoutError:
                continue
            downloaded.add(entry.path)
    return LibraryListing(entries, tuple(library.problems()), frozenset(downloaded))


class Throttle:
    """Passes the first value on to ``control.progress``, then at most one per interval."""

    def __init__(self, control: TaskControl, interval_s: float = PROGRESS_INTERVAL_S) -> None:
        self._control = control
        self._interval = interval_s
        self._last: float | None = None

    def __call__(self, value: object) -> None:
        now = time.monotonic()
        if self._last is None or now - self._last >= self._interval:
            self._last = now
            self._control.progress(value)


# -- the operations -----------------------------------------------------------------------------


def scan_work(roots: Sequence[ScanRoot], models_dir: Path) -> Work:
    """Scan ``roots``; stopping ends the scan after the current file."""
    roots = list(roots)

    def work(library: Library, control: TaskControl, should_stop: StopCheck) -> Outcome:
        report = library.scan(roots, on_progress=Throttle(control), should_stop=should_stop)
        listing = read_listing(library, models_dir)
        return Outcome(listing, report=report, cancelled=not report.complete)

    return work


def import_work(files: Sequence[Path], copy: bool, models_dir: Path) -> Work:
    """Import each file (in place, or copied into the models folder); a file that fails is
    reported with its error and the others go on."""
    files = list(files)

    def work(library: Library, control: TaskControl, should_stop: StopCheck) -> Outcome:
        throttle = Throttle(control)
        sizes = []
        for path in files:
            try:
                sizes.append(path.stat().st_size)
            except OSError:
                sizes.append(0)
        total = max(sum(sizes), 1)
        done = 0
        imported: list[LibraryEntry] = []
        failed: list[tuple[Path, ScoutError]] = []
        cancelled = False
        for index, path in enumerate(files):
            if should_stop():
                cancelled = True
                break

            def on_bytes(n: int, index: int = index, name: str = path.name) -> None:
                nonlocal done
                done += n
                throttle(ImportProgress(done, total, name, index, len(files), copy))

            throttle(ImportProgress(done, total, path.name, index, len(files), copy))
            try:
                entry = library.import_file(
                    path, copy=copy, on_bytes=on_bytes, should_stop=should_stop
                )
            except Cancelled:
                cancelled = True
                break
            except ScoutError as exc:
                failed.append((path, exc))
            else:
                imported.append(entry)
            done = sum(sizes[: index + 1])
        return Outcome(
            read_listing(library, models_dir),
            imported=tuple(imported),
            failed=tuple(failed),
            cancelled=cancelled,
        )

    return work


def remove_work(path: Path, delete: bool, models_dir: Path) -> Work:
    """Delete a model the app downloaded (``delete``), or forget the row of any other file."""

    def work(library: Library, control: TaskControl, should_stop: StopCheck) -> Outcome:
        try:
            if delete:
                deleted = library.delete_download(path, models_dir)
                return Outcome(read_listing(library, models_dir), deleted=deleted)
            library.forget(path)
        except ScoutError as exc:
            return Outcome(read_listing(library, models_dir), error=exc)
        return Outcome(read_listing(library, models_dir), forgotten=(path,))

    return work


def listing_work(models_dir: Path) -> Work:
    """Only read the library (someone else changed it)."""

    def work(library: Library, control: TaskControl, should_stop: StopCheck) -> Outcome:
        return Outcome(read_listing(library, models_dir))

    return work


# -- one at a time ------------------------------------------------------------------------------


@dataclass
class Operation:
    kind: str  # "scan", "import", "remove"
    label: str  # what the progress row says while it waits for its first progress
    work: Work
    quiet: bool = False  # no message when it ends (the scan at start-up)
    stop: threading.Event = field(default_factory=threading.Event)


class LibraryOperations(QObject):
    """Runs operations one after the other on the thread pool; lives on the GUI thread.

    Signals:
        started(object): the :class:`Operation` now running.
        progressed(object): a :class:`~desktop.core.library.ScanProgress` or
            :class:`ImportProgress` of the running operation.
        finished(object, object): the :class:`Operation` and its :class:`Outcome`.
        failed(object, object): the :class:`Operation` and the exception it raised.
        idle(): nothing runs or waits any more.
    """

    started = Signal(object)
    progressed = Signal(object)
    finished = Signal(object, object)
    failed = Signal(object, object)
    idle = Signal()

    def __init__(self, context: Callable[[], LibraryContext], parent: QObject | None = None):
        super().__init__(parent)
        self._context = context
        self._waiting: deque[Operation] = deque()
        self._current: Operation | None = None
        self._handle: TaskHandle | None = None

    @property
    def current(self) -> Operation | None:
        return self._current

    @property
    def busy(self) -> bool:
        return self._current is not None

    def busy_with(self, kind: str) -> bool:
        running = [self._current] if self._current is not None else []
        return any(op.kind == kind for op in [*running, *self._waiting])

    def submit(self, op: Operation) -> None:
        self._waiting.append(op)
        self._start_next()

    def cancel(self) -> bool:
        """Ask the running operation to stop; it still reports what it did."""
        if self._current is None:
            return False
        self._current.stop.set()
        return True

    def shutdown(self) -> None:
        """Drop what waits, stop what runs and forget its result."""
        self._waiting.clear()
        if self._current is not None:
            self._current.stop.set()
        if self._handle is not None:
            self._handle.stop()
        self._current = None
        self._handle = None

    def _start_next(self) -> None:
        if self._current is not None or not self._waiting:
            return
        op = self._waiting.popleft()
        self._current = op
        context = self._context()

        def work(control: TaskControl) -> Outcome:
            def should_stop() -> bool:
                return op.stop.is_set() or control.should_stop()

            with context.open() as library:
                return op.work(library, control, should_stop)

        self.started.emit(op)
        self._handle = run_task(
            work,
            on_done=lambda outcome: self._done(op, outcome, None),
            on_failed=lambda error: self._done(op, None, error),
            on_progress=self._progress,
        )

    def _progress(self, value: object) -> None:
        if isValid(self):
            self.progressed.emit(value)

    def _done(self, op: Operation, outcome: Outcome | None, error: Exception | None) -> None:
        if not isValid(self) or op is not self._current:
            return  # the page is gone, or was shut down meanwhile
        self._current = None
        self._handle = None
        if outcome is not None:
            self.finished.emit(op, outcome)
        else:
            self.failed.emit(op, error)
        if self._waiting:
            self._start_next()
        else:
            self.idle.emit()
