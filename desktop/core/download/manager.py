"""Downloads from the Hugging Face Hub: a job queue with pause, resume and cancel, and a
blocking call for the CLI. A job and its manager are one unit, so they live together here.

A request (:mod:`desktop.core.download.request`) names every file of a catalog variant (one
GGUF, split ``-0000k-of-0000N`` parts, or an AWQ file set) or any ``REPO FILE...`` pairs. A
:class:`DownloadJob` goes QUEUED -> CHECKING (HEAD each file: size, hash, location; disk space;
VERIFYING while a file already in place without its record is re-hashed) -> DOWNLOADING (with
RETRYING waits, exponential backoff; VERIFYING first while a resumed partial's kept bytes are
hashed, and after the transfer when the file must be hashed again) -> DONE, or FAILED /
CANCELLED; PAUSED keeps the partials so the transfer resumes later, in this process or the next
one. Pause and cancel act within one 4 MiB block while VERIFYING too. Each file is fetched,
verified and moved in place by :mod:`desktop.core.download.fetch`.

Where from and as whom come from a :class:`~desktop.core.hub.Hub` (endpoint or mirror, token,
offline mode); where to, from the models folder the caller passes. Proxies:
``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY`` from the environment (huggingface_hub's client
honours them). Nothing here touches the network at import or before a job runs; offline mode
fails a job at once with ``download.offline`` (files already installed still succeed). Threads
only (no Qt): callbacks run on worker threads and a UI must hand them to its own thread.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from desktop.core import threads
from desktop.core.catalog import record_verified_download
from desktop.core.download.errors import (
    DownloadCancelledError,
    DownloadNetworkError,
    DownloadOfflineError,
    RetryPolicy,
    TransientError,
    VerifyFailedError,
    offline_message,
)
from desktop.core.download.fetch import StopTransfer, configure_transfers, fetch, probe
from desktop.core.download.files import (
    DownloadResult,
    FetchedFile,
    FilePlan,
    RemoteFile,
    discard_partial,
    partial_bytes,
    verify_existing,
)
from desktop.core.download.progress import (
    MIN_INTERVAL_S,
    VERIFY_SHOWN_BYTES,
    DownloadProgress,
    DownloadState,
    ProgressCallback,
    ProgressTracker,
)
from desktop.core.download.request import (
    DiskUsageFn,
    DownloadRequest,
    check_disk_space,
    default_disk_usage,
)
from desktop.core.errors import Cancelled, CatalogError, DownloadError
from desktop.core.hub import Hub

log = logging.getLogger(__name__)

_T = TypeVar("_T")


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
        *,
        progress_interval: float = MIN_INTERVAL_S,
    ) -> None:
        self.id = job_id
        self.request = request
        self._manager = manager
        self._on_done = on_done
        self._tracker = ProgressTracker(
            request.repo, len(request.files), on_progress, min_interval=progress_interval
        )
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


class _Verifying:
    """A job's :class:`~desktop.core.download.files.HashHooks`: a re-hash of at least
    :data:`VERIFY_SHOWN_BYTES` shows as VERIFYING with its byte count, then the job returns to
    the state it was in; pause and cancel stop it."""

    def __init__(self, job: DownloadJob) -> None:
        self._job = job
        self._shown = False
        self._previous = job.state

    def begin(self, name: str, total: int) -> None:
        job = self._job
        self._shown = total >= VERIFY_SHOWN_BYTES
        if self._shown:
            self._previous = job.state
            job._tracker.start_verify(name, total)
            job._set_state(DownloadState.VERIFYING)

    def advance(self, n: int) -> None:
        if self._shown:
            self._job._tracker.advance_verify(n)

    def should_stop(self) -> bool:
        return self._job._stop is not None

    def end(self) -> None:
        if self._shown:
            self._shown = False
            self._job._tracker.end_verify()
            self._job._set_state(self._previous)


class DownloadManager:
    """A queue of download jobs with at most ``max_parallel`` transfers at once.

    ``hub`` says where from and as whom (endpoint or mirror, token, offline mode);
    ``models_dir`` where to. ``disk_usage`` is injectable so tests can simulate a small disk.
    ``progress_interval``: the least time between two throttled progress values of a job.
    """

    def __init__(
        self,
        models_dir: Path,
        hub: Hub,
        max_parallel: int = 2,
        *,
        disk_usage: DiskUsageFn = default_disk_usage,
        retry: RetryPolicy | None = None,
        progress_interval: float = MIN_INTERVAL_S,
    ) -> None:
        configure_transfers()
        self.models_dir = models_dir
        self.hub = hub
        self.max_parallel = max(1, max_parallel)
        self._disk_usage = disk_usage
        self._retry = retry or RetryPolicy()
        self._progress_interval = progress_interval
        self._lock = threading.Lock()
        self._queue: deque[DownloadJob] = deque()
        self._running: set[DownloadJob] = set()
        self._jobs: list[DownloadJob] = []
        self._ids = itertools.count(1)
        self._closed = False

    def __enter__(self) -> DownloadManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def jobs(self) -> tuple[DownloadJob, ...]:
        with self._lock:
            return tuple(self._jobs)

    def submit(
        self,
        request: DownloadRequest,
        on_progress: ProgressCallback | None = None,
        on_done: DoneCallback | None = None,
    ) -> DownloadJob:
        with self._lock:
            if self._closed:
                raise DownloadError("The download manager is closed.")
            job = DownloadJob(
                self,
                next(self._ids),
                request,
                on_progress,
                on_done,
                progress_interval=self._progress_interval,
            )
            self._jobs.append(job)
            self._queue.append(job)
        self._pump()
        return job

    def close(self, timeout: float = 30.0) -> None:
        """Pause every job (partials are kept for the next run) and wait for the threads."""
        with self._lock:
            self._closed = True
            queued = list(self._queue)
            self._queue.clear()
            running = list(self._running)
        for job in queued:
            job._set_state(DownloadState.PAUSED)
        for job in running:
            job._stop = "pause"
            job._wake.set()
        deadline = time.monotonic() + timeout
        for job in running:
            if job._thread is not None:
                job._thread.join(max(0.0, deadline - time.monotonic()))

    # --- control (through DownloadJob) -----------------------------------------------------

    def _pause(self, job: DownloadJob) -> None:
        with self._lock:
            if job in self._running:
                job._stop = "pause"
                job._wake.set()
                return
            if job.state is not DownloadState.QUEUED:
                return
            with contextlib.suppress(ValueError):
                self._queue.remove(job)
        job._set_state(DownloadState.PAUSED)

    def _resume(self, job: DownloadJob) -> None:
        with self._lock:
            if self._closed or job in self._running:
                return
            if job.state not in (DownloadState.PAUSED, DownloadState.FAILED):
                return
            job._stop = None
            job._wake.clear()
            job._finished.clear()
            job._error = None
            self._queue.append(job)
        job._set_state(DownloadState.QUEUED)
        self._pump()

    def _cancel(self, job: DownloadJob) -> None:
        with self._lock:
            if job in self._running:
                job._stop = "cancel"
                job._wake.set()
                return
            if job.state.finished and job.state is not DownloadState.FAILED:
                return
            with contextlib.suppress(ValueError):
                self._queue.remove(job)
        self._discard_partials(job)
        job._finish(DownloadState.CANCELLED, None, _cancelled(job))

    def _pump(self) -> None:
        start: list[DownloadJob] = []
        with self._lock:
            while self._queue and len(self._running) < self.max_parallel and not self._closed:
                job = self._queue.popleft()
                self._running.add(job)
                start.append(job)
        for job in start:
            job._thread = threading.Thread(
                target=self._run, args=(job,), name=f"download-{job.id}", daemon=True
            )
            threads.start(job._thread)

    # --- the worker thread -----------------------------------------------------------------

    def _run(self, job: DownloadJob) -> None:
        began = time.monotonic()
        try:
            result = self._execute(job, began)
        except (StopTransfer, Cancelled):  # Cancelled: stopped while re-hashing a file
            if job._stop == "cancel":
                self._discard_partials(job)
                job._finish(DownloadState.CANCELLED, None, _cancelled(job))
            else:
                job._set_state(DownloadState.PAUSED)
        except DownloadError as exc:
            log.info("Download of %s failed: %s", job.request.label, exc.message)
            job._finish(DownloadState.FAILED, None, exc)
        except Exception as exc:  # a bug must not kill the thread silently
            log.exception("Download of %s failed unexpectedly.", job.request.label)
            error = DownloadError(
                f"The download of {job.request.label} failed unexpectedly "
                f"({type(exc).__name__}); see the log for details."
            )
            job._finish(DownloadState.FAILED, None, error)
        else:
            job._finish(DownloadState.DONE, result, None)
        finally:
            with self._lock:
                self._running.discard(job)
            self._pump()

    def _execute(self, job: DownloadJob, began: float) -> DownloadResult:
        request = job.request
        plans = request.plans(self.models_dir)
        job._set_state(DownloadState.CHECKING)
        done: dict[str, FetchedFile] = {}
        for plan in plans:
            existing = verify_existing(plan, None)
            if existing is not None:
                done[plan.name] = existing
        reason = offline_message(self.hub)
        if reason and len(done) < len(plans):
            raise DownloadOfflineError(reason)
        hub = self.hub
        remotes: dict[str, RemoteFile] = {}
        for plan in plans:
            if plan.name in done:
                continue
            remote = self._retrying(
                job, partial(probe, hub, request.repo, request.revision, plan.name)
            )
            _check_catalog_hash(plan, remote, request)
            existing = verify_existing(plan, remote, _Verifying(job))
            if existing is not None:
                done[plan.name] = existing
            else:
                remotes[plan.name] = remote
        sizes = [done[p.name].size if p.name in done else remotes[p.name].size for p in plans]
        total = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
        job._tracker.set_total(total)
        need = sum(
            max((r.size or 0) - (partial_bytes(p, r) or 0), 0)
            for p in plans
            if (r := remotes.get(p.name)) is not None
        )
        if need:
            check_disk_space(request.folder(self.models_dir), need, total or need, self._disk_usage)
        finished: list[FetchedFile] = []
        done_bytes = 0
        commit: str | None = None
        for plan in plans:
            if plan.name in done:
                fetched = done[plan.name]
            else:
                remote = remotes[plan.name]
                commit = commit or remote.commit
                fetched = self._transfer(job, hub, plan, remote, done_bytes)
            finished.append(fetched)
            done_bytes += fetched.size
            job._tracker.start_file(plan.name, done_bytes)
            job._tracker.file_done()
        if request.variant_id is not None:
            _record_first_verification(request, finished, hub.endpoint)
        return DownloadResult(
            repo=request.repo,
            revision=request.revision,
            commit=commit,
            files=tuple(finished),
            seconds=time.monotonic() - began,
            variant_id=request.variant_id,
        )

    def _transfer(
        self,
        job: DownloadJob,
        hub: Hub,
        plan: FilePlan,
        remote: RemoteFile,
        done_bytes: int,
    ) -> FetchedFile:
        """Fetch one file, retrying transient failures; the result counts the whole run:
        ``resumed_from`` is what an earlier run left, ``fetched_bytes`` all bytes written now."""
        request = job.request
        tracker = job._tracker
        attempt = 0
        resumed_from = partial_bytes(plan, remote) or 0
        start = tracker.fetched_bytes
        while True:
            if job._stop is not None:
                raise StopTransfer
            tracker.start_file(plan.name, done_bytes + (partial_bytes(plan, remote) or 0))
            job._set_state(DownloadState.DOWNLOADING)
            before = tracker.fetched_bytes
            try:
                fetched = fetch(
                    hub,
                    request.repo,
                    request.revision,
                    remote,
                    plan,
                    on_bytes=tracker.advance,
                    should_stop=lambda: job._stop is not None,
                    verifying=_Verifying(job),
                )
                return replace(
                    fetched,
                    fetched_bytes=tracker.fetched_bytes - start,
                    resumed_from=min(resumed_from, fetched.size),
                )
            except TransientError as exc:
                if tracker.fetched_bytes > before:
                    attempt = 0  # it was moving: start counting again
                attempt += 1
                self._backoff(job, attempt, f"{plan.name}: {exc.reason}")
            remote = self._retrying(
                job, partial(probe, hub, request.repo, request.revision, plan.name)
            )

    def _retrying(self, job: DownloadJob, call: Callable[[], _T]) -> _T:
        """``call`` until it stops raising TransientError (or the attempts run out)."""
        attempt = 0
        while True:
            if job._stop is not None:
                raise StopTransfer
            try:
                return call()
            except TransientError as exc:
                attempt += 1
                self._backoff(job, attempt, exc.reason)

    def _backoff(self, job: DownloadJob, attempt: int, reason: str) -> None:
        if attempt >= self._retry.attempts:
            raise DownloadNetworkError(
                f"The download of {job.request.label} failed after {attempt} attempts "
                f"({reason}); what arrived is kept and the next try resumes it."
            )
        delay = self._retry.delay(attempt)
        log.info("Download of %s: %s; retrying in %.1f s.", job.request.label, reason, delay)
        shown = f"{delay:.0f}" if delay >= 10 else f"{delay:.1f}"
        job._set_state(DownloadState.RETRYING, f"{reason}; retrying in {shown} s.")
        job._sleep(delay)

    def _discard_partials(self, job: DownloadJob) -> None:
        try:
            plans = job.request.plans(self.models_dir)
        except DownloadError:
            return
        for plan in plans:
            discard_partial(plan, only_if_unlocked=True)


def _cancelled(job: DownloadJob) -> DownloadCancelledError:
    return DownloadCancelledError(f"The download of {job.request.label} was cancelled.")


def _record_first_verification(
    request: DownloadRequest, files: Sequence[FetchedFile], endpoint: str
) -> None:
    """A catalog variant's files verified against the server's own hashes (the catalog had
    none): keep their sizes and sha256 for the next downloads. Never fails the download."""
    learned = {
        f.name: (f.size, f.sha256)
        for f in files
        if f.verified_against in ("hub sha256", "hub git sha1")
    }
    if not learned:
        return
    try:
        record_verified_download(request.repo, learned, endpoint)
    except CatalogError as exc:
        log.warning("%s", exc.message)


def _check_catalog_hash(plan: FilePlan, remote: RemoteFile, request: DownloadRequest) -> None:
    """Before fetching gigabytes: the Hub's file must be the one the catalog describes (its
    sha256, and its exact size where the catalog knows it)."""
    exact = plan.exact_size
    if exact is not None and remote.size is not None and remote.size != exact:
        raise VerifyFailedError(
            f"{plan.name} on {request.repo} is not the file the catalog describes: the server "
            f"lists {remote.size:,} bytes where the catalog knows it has exactly {exact:,}; "
            "nothing was downloaded. A mirror may be serving another file under this name; "
            "`llm-scout catalog refresh` updates the catalog if the file really changed."
        )
    if plan.expected_sha256 and remote.sha256 and plan.expected_sha256 != remote.sha256:
        raise VerifyFailedError(
            f"{plan.name} on {request.repo} is not the file the catalog describes (the Hub says "
            f"sha256 {remote.sha256[:12]}…, the catalog {plan.expected_sha256[:12]}…); nothing "
            "was downloaded. Run `llm-scout catalog refresh` to update the catalog."
        )


# --- the blocking call (CLI) ------------------------------------------------------------------


def download(
    request: DownloadRequest,
    *,
    models_dir: Path,
    hub: Hub,
    on_progress: ProgressCallback | None = None,
    disk_usage: DiskUsageFn = default_disk_usage,
    retry: RetryPolicy | None = None,
) -> DownloadResult:
    """Download one request and return when every file is verified and in place.

    Raises the job's DownloadError. Ctrl-C pauses the transfer (partials are kept, so the next
    call resumes) and re-raises KeyboardInterrupt.
    """
    manager = DownloadManager(models_dir, hub, max_parallel=1, disk_usage=disk_usage, retry=retry)
    try:
        job = manager.submit(request, on_progress=on_progress)
        while not job.wait(0.2):  # short waits keep Ctrl-C responsive
            pass
        return job.result()
    finally:
        manager.close()
