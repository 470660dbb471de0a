"""A download job as its caller sees it (state, progress, pause/resume/cancel, the result), the
retry policy and the result of a finished request. :class:`~desktop.core.download.DownloadManager`
runs the jobs; import everything from :mod:`desktop.core.download`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.download_fetch import StopTransfer
from desktop.core.download_files import FetchedFile
from desktop.core.download_progress import (
    DownloadProgress,
    DownloadState,
    ProgressCallback,
    ProgressTracker,
)
from desktop.core.download_request import DownloadRequest
from desktop.core.errors import DownloadError

if TYPE_CHECKING:
    from desktop.core.download import DownloadManager

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    """Transient failures (5xx, 429, dropped or stalled connections) are retried with
    exponential backoff; any progress resets the count."""

    attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0

    def delay(self, attempt: int) -> float:
        return float(min(self.max_delay_s, self.base_delay_s * 2 ** max(attempt - 1, 0)))


@dataclass(frozen=True)
class DownloadResult:
    repo: str
    revision: str
    commit: str | None
    files: tuple[FetchedFile, ...]
    seconds: float
    variant_id: str | None = None

    @property
    def path(self) -> Path:
        """The first file (what a GGUF loader opens)."""
        return self.files[0].path

    @property
    def fetched_bytes(self) -> int:
        return sum(f.fetched_bytes for f in self.files)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


DoneCallback = Callable[["DownloadJob"], None]


class DownloadJob:
    """One request in a :class:`DownloadManager`; control it from any thread.

    Like a future: :meth:`wait`, :meth:`result` (returns or raises the DownloadError).
    ``on_progress`` gets throttled :class:`DownloadProgress` values (<= 4/s, plus state
    changes and a final one) and ``on_done`` the job once, when it is DONE, FAILED or
    CANCELLED; both run on a worker thread (or the caller's, for a job that never started).
    """

    def __init__(
        self,
        manager: DownloadManager,
        job_id: int,
        request: DownloadRequest,
        on_progress: ProgressCallback | None,
        on_done: DoneCallback | None,
    ) -> None:
        self.id = job_id
        self.request = request
        self._manager = manager
        self._on_done = on_done
        self._tracker = ProgressTracker(request.repo, len(request.files), on_progress)
        self._tracker.set_total(request.size_hint)
        self._state = DownloadState.QUEUED
        self._stop: str | None = None  # "pause" or "cancel", read by the transfer thread
        self._wake = threading.Event()
        self._finished = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: DownloadError | None = None
        self._result: DownloadResult | None = None

    def __repr__(self) -> str:
        return f"<DownloadJob {self.id} {self.request.label} {self._state.value}>"

    @property
    def state(self) -> DownloadState:
        return self._state

    @property
    def progress(self) -> DownloadProgress:
        return self._tracker.snapshot()

    @property
    def error(self) -> DownloadError | None:
        return self._error

    def pause(self) -> None:
        """Stop soon and keep the partial data; :meth:`resume` continues where it stopped."""
        self._manager._pause(self)

    def resume(self) -> None:
        """Queue a PAUSED (or FAILED) job again; it continues from its partial files."""
        self._manager._resume(self)

    def cancel(self) -> None:
        """Stop soon and delete the partial data of files that were not finished."""
        self._manager._cancel(self)

    def wait(self, timeout: float | None = None) -> bool:
        """True once the job is DONE, FAILED or CANCELLED (PAUSED is not finished)."""
        return self._finished.wait(timeout)

    def result(self, timeout: float | None = None) -> DownloadResult:
        """The result of a DONE job; raises the job's DownloadError, or TimeoutError."""
        if not self._finished.wait(timeout):
            raise TimeoutError(f"The download of {self.request.label} is still {self.state}.")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    # --- used by the manager and the worker thread -----------------------------------------

    def _set_state(self, state: DownloadState, message: str = "") -> None:
        self._state = state
        if state.finished:
            self._tracker.finish(state, message)
        else:
            self._tracker.set_state(state, message)

    def _finish(
        self, state: DownloadState, result: DownloadResult | None, error: DownloadError | None
    ) -> None:
        self._result, self._error = result, error
        self._set_state(state, error.message if error is not None else "")
        self._finished.set()
        if self._on_done is not None:
            try:
                self._on_done(self)
            except Exception:
                log.exception("A download on_done callback failed.")

    def _sleep(self, seconds: float) -> None:
        """Wait before a retry; a pause or cancel ends the wait at once."""
        self._wake.wait(seconds)
        if self._stop is not None:
            raise StopTransfer
