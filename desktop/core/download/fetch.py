"""One file from the Hub: its metadata, a resumable partial, verification, the atomic move.

Built on huggingface_hub: ``get_hf_file_metadata`` (HEAD on the resolve URL: size, sha256/etag,
commit and the CDN location) and ``http_get`` (the streaming GET with ``Range`` resume and its
own reconnects). Around them, this module adds what the app needs and the library does not do:

- the partial lives in ``<root>/.downloads/...<file>.part`` with a small ``.part.json`` beside
  it (etag, size, commit), so a transfer resumes after the app was closed or killed, and is
  thrown away when the file changed on the Hub;
- a file lock, so two processes never write the same partial;
- the bytes are hashed while they are written (in a helper thread), then checked against the
  catalog's sha256, else the Hub's LFS sha256 (or git blob sha1 for small plain files); a
  mismatch deletes the partial and raises :class:`VerifyFailedError`. What a resumed partial
  already holds is hashed first, and a file whose hash could not be taken on the way is hashed
  again at the end: both report to the caller's :class:`~desktop.core.download.files.HashHooks`
  (a job shows VERIFYING) and stop when it says so;
- only a verified file is moved in place, with ``os.replace`` after an ``fsync``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from desktop import __version__
from desktop.core import threads
from desktop.core.download.errors import (
    DiskFullError,
    DownloadBusyError,
    DownloadGatedError,
    DownloadNetworkError,
    TransientError,
    VerifyFailedError,
    hub_error,
)
from desktop.core.download.files import (
    FetchedFile,
    FilePlan,
    HashHooks,
    RemoteFile,
    discard_partial,
    git_blob_sha1,
    partial_lock,
    rehash,
    usable_partial,
    write_json,
    write_record,
)
from desktop.core.errors import DownloadError
from desktop.core.hashing import HASH_BLOCK
from desktop.core.hub import Hub, same_origin

log = logging.getLogger(__name__)

# huggingface_hub streams in 10 MiB chunks by default; progress, pause and cancel can only act
# between chunks, which would mean one update per 50 s on a 200 kB/s line. 64 KiB keeps them
# prompt at no measurable cost (benchmarks/download_throughput.py).
CHUNK_SIZE = 64 * 1024


def configure_transfers() -> None:
    """Make huggingface_hub stream in :data:`CHUNK_SIZE` chunks.

    ``http_get`` reads the chunk size from a module constant at each call and takes no
    argument for it, so it is set here once, by whoever creates a download manager (before any
    transfer thread runs), never from a transfer thread.
    """
    from huggingface_hub import constants

    if constants.DOWNLOAD_CHUNK_SIZE != CHUNK_SIZE:
        constants.DOWNLOAD_CHUNK_SIZE = CHUNK_SIZE


class StopTransfer(Exception):
    """Internal: raised from the progress hook to stop a transfer (pause or cancel)."""


def hub_headers(hub: Hub) -> dict[str, str]:
    """The headers huggingface_hub sends (user agent, the token when there is one)."""
    from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]

    return build_hf_headers(
        token=hub.token or False, library_name="llm-scout", library_version=__version__
    )


def probe(hub: Hub, repo: str, revision: str, name: str) -> RemoteFile:
    """HEAD the file's resolve URL; raises a DownloadError or a TransientError."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(repo, name, revision=revision, endpoint=hub.endpoint)
    try:
        meta = get_hf_file_metadata(
            url,
            token=hub.token or False,
            endpoint=hub.endpoint,
            library_name="llm-scout",
            library_version=__version__,
        )
    except Exception as exc:
        raise hub_error(exc, hub=hub, repo=repo, filename=name, revision=revision) from exc
    if meta.commit_hash is None or meta.etag is None:
        raise DownloadNetworkError(
            f"{hub.endpoint} does not answer like a Hugging Face Hub (no commit or etag for "
            f"{name}); check HF_ENDPOINT or the mirror setting."
        )
    return RemoteFile(
        name=name,
        url=meta.location,
        size=meta.size,
        etag=meta.etag,
        commit=meta.commit_hash,
        send_auth=same_origin(meta.location, hub.endpoint),
    )


# --- the transfer -----------------------------------------------------------------------------

_RESET = object()  # queue marker: the file was truncated to 0, start the hash again


def _hash_kept(f: BinaryIO, size: int, name: str, hooks: HashHooks | None) -> tuple[Any, bool]:
    """The sha256 state over the ``size`` bytes a partial already holds (read through ``f``,
    under the partial's lock), and whether they could all be read; ``f`` is left at its end.

    Raises StopTransfer when ``hooks`` say stop (the partial is kept as it is)."""
    sha = hashlib.sha256()
    if size <= 0:
        return sha, True
    if hooks is not None:
        hooks.begin(name, size)
    complete = True
    try:
        f.seek(0)
        remaining = size
        while remaining > 0:
            block = f.read(min(HASH_BLOCK, remaining))
            if not block:
                complete = False
                break
            sha.update(block)
            remaining -= len(block)
            if hooks is not None:
                hooks.advance(len(block))
                if hooks.should_stop():
                    raise StopTransfer
    except OSError:
        complete = False
    finally:
        f.seek(0, os.SEEK_END)
    if hooks is not None:
        hooks.end()
    return sha, complete


class _HashingWriter:
    """The partial file as ``http_get`` sees it (write/tell/seek/truncate).

    Every written chunk also goes, through a bounded queue, to a thread that feeds sha256
    (hashlib releases the GIL), so verifying costs no second pass over the file. ``sha`` holds
    the bytes already in the partial (:func:`_hash_kept`); ``complete`` False says they could
    not all be read. Anything but appending (a seek elsewhere and a truncate not to 0), or an
    incomplete start, makes :meth:`finish` return None: the caller rehashes the file.
    """

    def __init__(self, f: BinaryIO, sha: Any, complete: bool = True) -> None:
        self._f = f
        self._queue: queue.Queue[object] = queue.Queue(maxsize=64)
        self._sha = sha
        self._unsure = False
        self._failed = not complete
        self._thread = threading.Thread(target=self._run, name="download-hash", daemon=True)
        threads.start(self._thread)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, bytes):
                self._sha.update(item)
            elif item is _RESET:
                self._sha = hashlib.sha256()
                self._failed = False

    def write(self, data: bytes) -> int:
        written = self._f.write(data)
        self._queue.put(bytes(data))
        return written

    def tell(self) -> int:
        return self._f.tell()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        before = self._f.tell()
        position = self._f.seek(offset, whence)
        if position != before:
            self._unsure = True
        return position

    def truncate(self, size: int | None = None) -> int:
        position = self._f.truncate(size)
        if position == 0:
            self._queue.put(_RESET)
            self._unsure = False
        else:
            self._unsure = True
        return position

    def flush(self) -> None:
        self._f.flush()

    def finish(self) -> str | None:
        """The sha256 of the whole file, or None when it must be computed from disk."""
        self._queue.put(None)
        self._thread.join()
        return None if (self._unsure or self._failed) else self._sha.hexdigest()

    def abort(self) -> None:
        self._queue.put(None)
        self._thread.join()


class _Hook:
    """The ``tqdm_class`` given to ``http_get``: counts bytes and stops the transfer on request."""

    def __init__(
        self,
        on_bytes: Callable[[int], None],
        should_stop: Callable[[], bool],
        on_start: Callable[[int], None],
        **kwargs: Any,
    ) -> None:
        self._on_bytes = on_bytes
        self._should_stop = should_stop
        on_start(int(kwargs.get("initial") or 0))

    def __enter__(self) -> _Hook:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int | float | None = 1) -> None:
        if self._should_stop():
            raise StopTransfer
        self._on_bytes(int(n or 0))


def fetch(
    hub: Hub,
    repo: str,
    revision: str,
    remote: RemoteFile,
    plan: FilePlan,
    *,
    on_bytes: Callable[[int], None],
    should_stop: Callable[[], bool],
    verifying: HashHooks | None = None,
) -> FetchedFile:
    """Download ``remote`` into the plan's partial (resuming it), verify, move in place.

    ``verifying`` hears of the re-hashes of bytes already on disk (the kept partial before the
    transfer; the whole file after it when its hash could not be taken on the way).

    Raises StopTransfer (partial kept), Cancelled (stopped while re-hashing the finished
    partial: kept), DiskFullError (partial kept), VerifyFailedError (partial removed),
    TransientError (retry: partial kept) or another DownloadError.
    """
    from huggingface_hub.file_download import http_get

    plan.partial.parent.mkdir(parents=True, exist_ok=True)
    with partial_lock(plan) as held:
        if not held:
            raise DownloadBusyError(
                f"{plan.name} is being downloaded by another LLM Scout window or command; "
                "wait for it to finish."
            )
        resumed_from = usable_partial(plan, remote)  # drops a partial of another version
        write_json(
            plan.meta,
            {"repo": repo, "file": plan.name, "etag": remote.etag, "size": remote.size,
             "commit": remote.commit},
        )  # fmt: skip
        headers = hub_headers(hub)
        if not remote.send_auth:
            headers.pop("authorization", None)  # a signed CDN URL: the token stays with the Hub
        fetched = 0

        def count(n: int) -> None:
            nonlocal fetched
            fetched += max(n, 0)
            on_bytes(n)

        def start(initial: int) -> None:
            # http_get restarts at 0 when a server ignores the Range header: the partial's bytes
            # were dropped, so progress goes back by as much.
            if initial != resumed_from:
                on_bytes(initial - resumed_from)

        hook = _hook_factory(count, should_stop, start)
        fd = os.open(plan.partial, os.O_RDWR | os.O_CREAT, 0o644)
        with os.fdopen(fd, "r+b") as f:
            resumed_from = f.seek(0, os.SEEK_END)
            sha, complete = _hash_kept(f, resumed_from, plan.name, verifying)
            writer = _HashingWriter(f, sha, complete)
            try:
                http_get(
                    remote.url,
                    writer,  # type: ignore[arg-type]  # duck-typed: write/tell/seek/truncate
                    resume_size=resumed_from,
                    headers=headers,
                    expected_size=remote.size,
                    displayed_filename=plan.name,
                    tqdm_class=hook,
                )
                f.flush()
                os.fsync(f.fileno())
            except StopTransfer:
                writer.abort()
                raise
            except Exception as exc:
                writer.abort()
                if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise DiskFullError(
                        f"The disk holding {plan.partial.parent} is full; {plan.name} stopped "
                        f"at {f.tell()} bytes and will resume from there once space is freed."
                    ) from exc
                raise _transfer_error(
                    exc, hub=hub, repo=repo, name=plan.name, revision=revision, remote=remote
                ) from exc
            digest = writer.finish()
        return _verify_and_install(remote, plan, digest, fetched, resumed_from, verifying=verifying)


def _transfer_error(
    exc: BaseException,
    *,
    hub: Hub,
    repo: str,
    name: str,
    revision: str,
    remote: RemoteFile,
) -> DownloadError | TransientError:
    error = hub_error(exc, hub=hub, repo=repo, filename=name, revision=revision)
    if isinstance(error, DownloadGatedError) and not remote.send_auth:
        # A CDN refusing its own signed link: it expired (long transfers, long pauses). A new
        # HEAD on the Hub gives a fresh one.
        return TransientError("the download link expired")
    return error


def _hook_factory(
    count: Callable[[int], None], should_stop: Callable[[], bool], start: Callable[[int], None]
) -> Any:
    def make(**kwargs: Any) -> _Hook:
        return _Hook(count, should_stop, start, **kwargs)

    return make


def _verify_and_install(
    remote: RemoteFile,
    plan: FilePlan,
    digest: str | None,
    fetched: int,
    resumed_from: int,
    *,
    verifying: HashHooks | None = None,
) -> FetchedFile:
    size = plan.partial.stat().st_size
    if digest is None:
        digest = rehash(plan.partial, plan.name, verifying)
    if plan.expected_sha256:
        expected, got, against = plan.expected_sha256, digest, "catalog sha256"
    elif remote.sha256:
        expected, got, against = remote.sha256, digest, "hub sha256"
    elif remote.git_sha1:
        expected, got, against = remote.git_sha1, git_blob_sha1(plan.partial), "hub git sha1"
    else:
        discard_partial(plan)
        raise VerifyFailedError(
            f"{plan.name} cannot be verified: neither the catalog nor the Hub gives its hash; "
            "it was not installed."
        )
    exact = plan.exact_size
    if exact is not None and size != exact:
        discard_partial(plan)
        raise VerifyFailedError(
            f"{plan.name} is not the file the catalog describes: it arrived with {size:,} "
            f"bytes where the catalog knows it has exactly {exact:,}. The file was removed; "
            "the server or mirror is sending a different file under this name."
        )
    if got != expected or (remote.size is not None and size != remote.size):
        discard_partial(plan)
        whose = {
            "catalog sha256": "the catalog's sha256",
            "hub sha256": "the sha256 the Hub publishes",
            "hub git sha1": "the git blob sha1 the Hub publishes",
        }[against]
        sizes = ""
        if remote.size is not None and size != remote.size:
            sizes = f"; it has {size:,} bytes where the Hub lists {remote.size:,}"
        raise VerifyFailedError(
            f"{plan.name} arrived corrupted: its bytes do not match {whose} (got "
            f"{got[:12]}…, expected {expected[:12]}…){sizes}. The file was removed; try again, "
            "and if it happens again the server or mirror is sending a different file."
        )
    plan.final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(plan.partial, plan.final)
    write_record(plan, remote, digest, against)
    with contextlib.suppress(FileNotFoundError):
        plan.meta.unlink()
    log.info("Installed %s (%s verified against the %s).", plan.final, digest[:12], against)
    return FetchedFile(
        name=plan.name,
        path=plan.final,
        size=size,
        sha256=digest,
        verified_against=against,
        fetched_bytes=fetched,
        resumed_from=resumed_from,
        known_hash=against == "catalog sha256",
    )
