"""Download progress: the value the UI and CLI draw, a smoothed speed, and a throttle.

A :class:`ProgressTracker` receives every chunk (hundreds per second on a fast link) and hands
at most one :class:`DownloadProgress` per ``min_interval`` (0.25 s: 4 per second) to its
callback, plus one at every state change and a final one, so a front end never drowns in
updates and never misses the end. Re-hashing a file already on disk (VERIFYING) is counted and
throttled the same way, in fields of its own.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class DownloadState(str, Enum):
    QUEUED = "queued"  # waiting for a free slot
    CHECKING = "checking"  # asking the Hub for sizes and hashes, checking disk space
    DOWNLOADING = "downloading"
    RETRYING = "retrying"  # waiting before the next attempt after a transient failure
    VERIFYING = "verifying"
    PAUSED = "paused"  # stopped by the user; partial data kept for resume
    DONE = "done"  # every file complete, verified and in place
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (DownloadState.DONE, DownloadState.FAILED, DownloadState.CANCELLED)


@dataclass(frozen=True)
class DownloadProgress:
    """One snapshot of a job. Bytes count every file of the request together.

    ``speed_bps`` is an exponentially smoothed rate of the bytes fetched in this session (time
    constant ``SPEED_TAU_S``); ``eta_s`` is None while the speed or the total is unknown.
    ``message`` explains RETRYING/FAILED states in one sentence.

    VERIFYING: a file already on disk is being hashed again (the kept part of a partial an
    earlier attempt or run left, before the transfer resumes; a final file found without its
    verification record; a transferred file whose hash could not be taken on the way). Only
    re-hashes of at least :data:`VERIFY_SHOWN_BYTES` are shown; smaller ones take milliseconds
    and keep the state they happen in. While VERIFYING, ``file`` is the file being hashed and
    ``verify_done`` of ``verify_total`` bytes of it have been hashed (``verify_fraction``);
    outside VERIFYING they are 0 and None. ``bytes_done``/``bytes_total`` keep their meaning in
    every state, the download's bytes (a resumed partial already counts in ``bytes_done``), so a
    bar drawn from ``fraction`` never jumps back while a partial is checked.
    """

    state: DownloadState
    repo: str
    file: str  # the file being worked on (path inside the repo), "" before the first one
    bytes_done: int
    bytes_total: int | None
    speed_bps: float
    eta_s: float | None
    files_done: int
    files_total: int
    message: str = ""
    verify_done: int = 0
    verify_total: int | None = None

    @property
    def fraction(self) -> float | None:
        if not self.bytes_total:
            return None
        return min(1.0, self.bytes_done / self.bytes_total)

    @property
    def verify_fraction(self) -> float | None:
        """How much of the file being verified has been hashed (None outside VERIFYING)."""
        if self.verify_total is None:
            return None
        if self.verify_total == 0:
            return 1.0
        return min(1.0, self.verify_done / self.verify_total)


ProgressCallback = Callable[[DownloadProgress], None]

MIN_INTERVAL_S = 0.25
SPEED_TAU_S = 3.0
#: Re-hashes of fewer bytes do not show as VERIFYING (16 MiB: a few ms on an SSD, ~0.15 s on a
#: hard disk; a state shown for less would only flicker).
VERIFY_SHOWN_BYTES = 16 << 20


class ProgressTracker:
    """Counts bytes for one job and emits throttled :class:`DownloadProgress` values.

    Thread-safe: ``advance`` runs on the transfer thread, ``snapshot`` anywhere.
    """

    def __init__(
        self,
        repo: str,
        files_total: int,
        callback: ProgressCallback | None,
        *,
        min_interval: float = MIN_INTERVAL_S,
        tau_s: float = SPEED_TAU_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._repo = repo
        self._callback = callback
        self._min_interval = min_interval
        self._tau = tau_s
        self._clock = clock
        self._lock = threading.Lock()
        self._state = DownloadState.QUEUED
        self._message = ""
        self._file = ""
        self._done_before = 0  # bytes of finished files and of the current file's start
        self._current = 0  # bytes of the current file fetched in this attempt
        self._total: int | None = None
        self._files_done = 0
        self._files_total = files_total
        self._speed = 0.0
        self._have_speed = False
        self._sample_t = clock()
        self._sample_bytes = 0
        self._fetched = 0  # bytes received in this session (speed counts only these)
        self._verify_done = 0
        self._verify_total: int | None = None
        self._last_emit = -math.inf

    # --- inputs ----------------------------------------------------------------------------

    def set_total(self, total: int | None) -> None:
        with self._lock:
            self._total = total

    def start_file(self, name: str, bytes_present: int) -> None:
        """A file begins; ``bytes_present`` is what earlier files and its partial already hold."""
        with self._lock:
            self._file = name
            self._done_before = bytes_present
            self._current = 0
        self._maybe_emit(force=False)

    def advance(self, n: int) -> None:
        """``n`` bytes arrived (negative when a server ignored a resume and data was dropped)."""
        with self._lock:
            self._current += n
            if n > 0:
                self._fetched += n
        self._maybe_emit(force=False)

    def file_done(self) -> None:
        """The current file is complete (or was already installed)."""
        with self._lock:
            self._files_done += 1
            self._done_before = max(self._done_before + self._current, 0)
            self._current = 0

    def start_verify(self, name: str, total: int) -> None:
        """A re-hash of ``total`` bytes of ``name`` begins (the state is set apart)."""
        with self._lock:
            self._file = name
            self._verify_done = 0
            self._verify_total = total

    def advance_verify(self, n: int) -> None:
        with self._lock:
            self._verify_done += n
        self._maybe_emit(force=False)

    def end_verify(self) -> None:
        """The re-hash is complete: its last count is emitted whatever the throttle says."""
        self._maybe_emit(force=True)

    def set_state(self, state: DownloadState, message: str = "") -> None:
        with self._lock:
            changed = state != self._state or message != self._message
            if state != self._state:
                # Idle time (queued, paused, retrying) must not drag the speed down later.
                self._reset_speed_locked()
            self._state = state
            self._message = message
            if state is not DownloadState.VERIFYING:
                self._clear_verify_locked()
        if changed:
            self._maybe_emit(force=True)

    def finish(self, state: DownloadState, message: str = "") -> DownloadProgress:
        """Final state: always emitted, whatever the throttle says."""
        with self._lock:
            self._state = state
            self._message = message
            self._clear_verify_locked()
            if state is not DownloadState.DONE:
                self._speed = 0.0
        return self._maybe_emit(force=True)

    # --- outputs ---------------------------------------------------------------------------

    @property
    def fetched_bytes(self) -> int:
        with self._lock:
            return self._fetched

    def snapshot(self) -> DownloadProgress:
        with self._lock:
            return self._snapshot_locked()

    def _snapshot_locked(self) -> DownloadProgress:
        done = max(self._done_before + self._current, 0)
        verifying = self._state is DownloadState.VERIFYING
        eta: float | None = None
        if self._total is not None and self._speed > 0 and self._state is DownloadState.DOWNLOADING:
            eta = max(self._total - done, 0) / self._speed
        return DownloadProgress(
            state=self._state,
            repo=self._repo,
            file=self._file,
            bytes_done=done,
            bytes_total=self._total,
            speed_bps=self._speed,
            eta_s=eta,
            files_done=self._files_done,
            files_total=self._files_total,
            message=self._message,
            verify_done=self._verify_done if verifying else 0,
            verify_total=self._verify_total if verifying else None,
        )

    def _clear_verify_locked(self) -> None:
        self._verify_done = 0
        self._verify_total = None

    def _reset_speed_locked(self) -> None:
        self._speed = 0.0
        self._have_speed = False
        self._sample_t = self._clock()
        self._sample_bytes = self._fetched

    def _update_speed_locked(self, now: float) -> None:
        dt = now - self._sample_t
        if dt <= 0:
            return
        rate = (self._fetched - self._sample_bytes) / dt
        if self._have_speed:
            alpha = 1.0 - math.exp(-dt / self._tau)
            self._speed += alpha * (rate - self._speed)
        else:
            self._speed = rate
            self._have_speed = True
        self._sample_t = now
        self._sample_bytes = self._fetched

    def _maybe_emit(self, *, force: bool) -> DownloadProgress:
        with self._lock:
            now = self._clock()
            due = now - self._last_emit >= self._min_interval
            if due and self._state is DownloadState.DOWNLOADING:
                self._update_speed_locked(now)
            snap = self._snapshot_locked()
            if not (force or due):
                return snap
            self._last_emit = now
        if self._callback is not None:
            self._callback(snap)
        return snap
