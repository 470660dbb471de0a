"""Downloads from the Hugging Face Hub: a job queue with pause, resume and cancel, and a
blocking call for the CLI.

A request (:mod:`desktop.core.download_request`) names every file of a catalog variant (one
GGUF, split ``-0000k-of-0000N`` parts, or an AWQ file set) or any ``REPO FILE...`` pairs. A
:class:`DownloadJob` goes QUEUED -> CHECKING (HEAD each file: size, hash, location; disk space)
-> DOWNLOADING (with RETRYING waits, exponential backoff) -> DONE, or FAILED / CANCELLED; PAUSED
keeps the partials so the transfer resumes later, in this process or the next one. Each file is
fetched, verified and moved in place by :mod:`desktop.core.download_fetch`; the job, its result
and the retry policy are defined in :mod:`desktop.core.download_job` (import them from here).

Endpoint: the setting (``hub_endpoint``, e.g. ``hf-mirror``), else ``HF_ENDPOINT``, else
huggingface.co. Token: ``HF_TOKEN``, else the huggingface_hub login store; it goes only to the
Hub, never to a CDN, a log or an error. Proxies: ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY`` from
the environment (huggingface_hub's client honours them).

Nothing here touches the network at import or before a job runs; ``HF_HUB_OFFLINE=1`` fails a
job at once with ``download.offline`` (files already installed still succeed). Threads only (no
Qt): callbacks run on worker threads and a UI must hand them to its own thread.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from desktop.core.download_errors import (
    DiskFullError,
    DownloadCancelledError,
    DownloadNetworkError,
    DownloadOfflineError,
    TransientError,
    UnsafeNameError,
    VerifyFailedError,
    offline_reason,
)
from desktop.core.download_fetch import HubAccess, StopTransfer, fetch, probe, resolve_token
from desktop.core.download_files import (
    FetchedFile,
    FilePlan,
    RemoteFile,
    discard_partial,
    partial_bytes,
    verify_existing,
)
from desktop.core.download_job import DoneCallback, DownloadJob, DownloadResult, RetryPolicy
from desktop.core.download_progress import (
    DownloadProgress,
    DownloadState,
    ProgressCallback,
)
from desktop.core.download_request import (
    DiskUsage,
    DiskUsageFn,
    DownloadRequest,
    FileSpec,
    check_disk_space,
    default_disk_usage,
    installed_path,
    request_for_files,
    request_for_variant,
    required_margin,
)
from desktop.core.errors import DownloadError

__all__ = [
    "DiskFullError",
    "DiskUsage",
    "DownloadCancelledError",
    "DownloadError",
    "DownloadJob",
    "DownloadManager",
    "DownloadNetworkError",
    "DownloadOfflineError",
    "DownloadProgress",
    "DownloadRequest",
    "DownloadResult",
    "DownloadState",
    "FetchedFile",
    "FileSpec",
    "RetryPolicy",
    "UnsafeNameError",
    "VerifyFailedError",
    "check_disk_space",
    "download",
    "downloads_unavailable_reason",
    "installed_path",
    "request_for_files",
    "request_for_variant",
    "required_margin",
    "resolve_token",
]

log = logging.getLogger(__name__)

_T = TypeVar("_T")


# --- environment ------------------------------------------------------------------------------


def downloads_unavailable_reason() -> str | None:
    """A sentence when downloads are switched off (offline mode); None otherwise. No network."""
    return offline_reason()


class DownloadManager:
    """A queue of download jobs with at most ``max_parallel`` transfers at once.

    Arguments left as None come from the settings (models folder, Hub endpoint or mirror,
    parallel downloads) and from ``HF_TOKEN`` / the huggingface_hub login store (token).
    ``disk_usage`` is injectable so tests can simulate a small disk.
    """

    def __init__(
        self,
        models_dir: Path | None = None,
        endpoint: str | None = None,
        token: str | None = None,
        max_parallel: int | None = None,
        *,
        disk_usage: DiskUsageFn = default_disk_usage,
        retry: RetryPolicy | None = None,
    ) -> None:
        from desktop.core.settings import KNOWN_MIRRORS, load_settings

        if models_dir is None or endpoint is None or max_parallel is None:
            settings = load_settings()
            models_dir = models_dir if models_dir is not None else settings.resolved_models_dir()
            endpoint = endpoint if endpoint is not None else settings.resolved_endpoint()
            max_parallel = max_parallel or settings.max_parallel_downloads
        self.models_dir = models_dir
        self.endpoint = KNOWN_MIRRORS.get(endpoint, endpoint).rstrip("/")
        self.max_parallel = max(1, max_parallel)
        self._token = token
        self._disk_usage = disk_usage
        self._retry = retry or RetryPolicy()
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
            job = DownloadJob(self, next(self._ids), request, on_progress, on_done)
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
            job._thread.start()

    # --- the worker thread -----------------------------------------------------------------

    def _run(self, job: DownloadJob) -> None:
        began = time.monotonic()
        try:
            result = self._execute(job, began)
        except StopTransfer:
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
        reason = offline_reason()
        if reason and len(done) < len(plans):
            raise DownloadOfflineError(reason)
        access = HubAccess(self.endpoint, resolve_token(self._token))
        remotes: dict[str, RemoteFile] = {}
        for plan in plans:
            if plan.name in done:
                continue
            remote = self._retrying(
                job, partial(probe, access, request.repo, request.revision, plan.name)
            )
            _check_catalog_hash(plan, remote, request)
            existing = verify_existing(plan, remote)
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
                fetched = self._transfer(job, access, plan, remote, done_bytes)
            finished.append(fetched)
            done_bytes += fetched.size
            job._tracker.start_file(plan.name, done_bytes)
            job._tracker.file_done()
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
        access: HubAccess,
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
                    access,
                    request.repo,
                    request.revision,
                    remote,
                    plan,
                    on_bytes=tracker.advance,
                    should_stop=lambda: job._stop is not None,
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
                job, partial(probe, access, request.repo, request.revision, plan.name)
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


def _check_catalog_hash(plan: FilePlan, remote: RemoteFile, request: DownloadRequest) -> None:
    """Before fetching gigabytes: the Hub's file must be the one the catalog describes."""
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
    models_dir: Path | None = None,
    endpoint: str | None = None,
    token: str | None = None,
    on_progress: ProgressCallback | None = None,
    disk_usage: DiskUsageFn = default_disk_usage,
    retry: RetryPolicy | None = None,
) -> DownloadResult:
    """Download one request and return when every file is verified and in place.

    Raises the job's DownloadError. Ctrl-C pauses the transfer (partials are kept, so the next
    call resumes) and re-raises KeyboardInterrupt.
    """
    manager = DownloadManager(
        models_dir, endpoint, token, max_parallel=1, disk_usage=disk_usage, retry=retry
    )
    try:
        job = manager.submit(request, on_progress=on_progress)
        while not job.wait(0.2):  # short waits keep Ctrl-C responsive
            pass
        return job.result()
    finally:
        manager.close()
