"""What a download leaves on disk: file plans, partials and their metadata, verification records.

Each file of a request has a :class:`FilePlan`: its final path and its partial (with a
``.part.json`` saying which version of the file it holds, a ``.lock`` held while a process
writes it, and after verification a ``.verified.json`` record that lets later runs trust the
installed file without hashing it again). Hashing what is already on disk reports to
:class:`HashHooks` (a job shows it as VERIFYING, and may pause or cancel it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from desktop.core.hashing import HASH_BLOCK, sha256_file

log = logging.getLogger(__name__)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_SHA1 = re.compile(r"[0-9a-f]{40}")


class HashHooks(Protocol):
    """Where a re-hash of bytes already on disk reports: :meth:`begin` before the first byte,
    :meth:`advance` after each block, :meth:`end` once all are hashed (not when it stopped).
    :meth:`should_stop` is asked after each block; True stops the hash (the hashing function
    raises :class:`~desktop.core.errors.Cancelled`, or the transfer's own stop)."""

    def begin(self, name: str, total: int) -> None: ...

    def advance(self, n: int) -> None: ...

    def should_stop(self) -> bool: ...

    def end(self) -> None: ...


def rehash(path: Path, name: str, hooks: HashHooks | None = None) -> str:
    """The sha256 of a whole file on disk, reported to ``hooks``; raises Cancelled when they
    say stop."""
    if hooks is None:
        return sha256_file(path)
    hooks.begin(name, path.stat().st_size)
    digest = sha256_file(path, on_bytes=hooks.advance, should_stop=hooks.should_stop)
    hooks.end()
    return digest


@dataclass(frozen=True)
class RemoteFile:
    """What the Hub said about one file (HEAD on its resolve URL)."""

    name: str
    url: str  # where the bytes are: the CDN location after the Hub's redirect
    size: int | None
    etag: str
    commit: str | None
    send_auth: bool  # False when the location is another host (a signed CDN URL)

    @property
    def sha256(self) -> str | None:
        """The LFS sha256 (the Hub's ``X-Linked-Etag``) when the etag is one."""
        return self.etag if _SHA256.fullmatch(self.etag) else None

    @property
    def git_sha1(self) -> str | None:
        return self.etag if _SHA1.fullmatch(self.etag) else None


@dataclass(frozen=True)
class FilePlan:
    """Where one file goes: its final path and its partial (same file system)."""

    name: str  # path inside the repo
    final: Path
    partial: Path
    expected_sha256: str | None = None  # from the catalog
    expected_size: int | None = None
    exact_size: int | None = None  # the catalog knows the file has exactly this many bytes

    @property
    def meta(self) -> Path:
        return self.partial.with_name(self.partial.name + ".json")

    @property
    def lock(self) -> Path:
        return self.partial.with_name(self.partial.name + ".lock")

    @property
    def record(self) -> Path:
        """Written after verification: lets a later run trust the file without rehashing."""
        return self.partial.with_name(self.partial.name.removesuffix(".part") + ".verified.json")


@dataclass(frozen=True)
class FetchedFile:
    name: str
    path: Path
    size: int
    sha256: str
    # "catalog sha256", "hub sha256", "hub git sha1"; for files already there: "record" (the
    # verification record of an earlier download) or "existing file" (hashed now)
    verified_against: str
    fetched_bytes: int  # bytes written by this run (a drop's unfinished chunk is not counted)
    resumed_from: int  # bytes that were already in the partial
    skipped: bool = False  # already installed: nothing fetched
    # Checked against a hash the catalog knew before (bundled, refreshed or recorded by an
    # earlier download), not only against what the server says the file's hash is.
    known_hash: bool = False


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

    def to_dict(self) -> dict[str, Any]:
        """The ``llm-scout download --json`` document."""
        return {
            "repo": self.repo,
            "revision": self.revision,
            "commit": self.commit,
            "variant_id": self.variant_id,
            "path": str(self.path),
            "seconds": self.seconds,
            "fetched_bytes": self.fetched_bytes,
            "total_bytes": self.total_bytes,
            "files": [
                {
                    "name": f.name,
                    "path": str(f.path),
                    "size_bytes": f.size,
                    "sha256": f.sha256,
                    "verified_against": f.verified_against,
                    "fetched_bytes": f.fetched_bytes,
                    "resumed_from": f.resumed_from,
                    "already_installed": f.skipped,
                    "known_hash": f.known_hash,
                }
                for f in self.files
            ],
        }


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def installed_record(plan: FilePlan) -> dict[str, Any] | None:
    """The verification record when the final file is still the one that was verified."""
    record = read_json(plan.record)
    if record is None:
        return None
    try:
        stat = plan.final.stat()
    except OSError:
        return None
    if record.get("size") != stat.st_size or record.get("mtime_ns") != stat.st_mtime_ns:
        return None
    if plan.expected_sha256 and record.get("sha256") != plan.expected_sha256:
        return None
    return record


def partial_bytes(plan: FilePlan, remote: RemoteFile) -> int | None:
    """Bytes of the partial that a transfer of ``remote`` can resume; None when there is a
    partial that cannot be resumed (another version of the file, or longer than the file)."""
    try:
        size = plan.partial.stat().st_size
    except OSError:
        return 0
    meta = read_json(plan.meta)
    if meta is None or meta.get("etag") != remote.etag:
        return None
    if remote.size is not None and size > remote.size:
        return None
    return size


def usable_partial(plan: FilePlan, remote: RemoteFile) -> int:
    """Like :func:`partial_bytes`, but a partial that cannot be resumed is deleted."""
    size = partial_bytes(plan, remote)
    if size is None:
        log.info("Discarding the partial %s (another version of the file).", plan.partial)
        discard_partial(plan)
        return 0
    return size


def discard_partial(plan: FilePlan, *, only_if_unlocked: bool = False) -> None:
    """Delete the partial and its metadata (unless another process holds its lock, when
    ``only_if_unlocked``: then the partial is that process's)."""
    if only_if_unlocked and plan.lock.exists():
        with partial_lock(plan) as held:
            if held:
                discard_partial(plan)
        return
    for path in (plan.partial, plan.meta):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


@contextlib.contextmanager
def partial_lock(plan: FilePlan) -> Iterator[bool]:
    """Hold the partial's file lock without waiting: yields True while it is held, False
    (holding nothing) when another process has it."""
    import filelock

    lock = filelock.FileLock(str(plan.lock), timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def write_record(plan: FilePlan, remote: RemoteFile, digest: str, against: str) -> os.stat_result:
    """Write the verification record of the installed file; returns the file's stat."""
    stat = plan.final.stat()
    plan.record.parent.mkdir(parents=True, exist_ok=True)  # absent for a file put in by hand
    write_json(
        plan.record,
        {
            "sha256": digest,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "etag": remote.etag,
            "commit": remote.commit,
            "verified_against": against,
        },
    )
    return stat


def git_blob_sha1(path: Path) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % path.stat().st_size)
    with path.open("rb") as f:
        while block := f.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def verify_existing(
    plan: FilePlan, remote: RemoteFile | None, hooks: HashHooks | None = None
) -> FetchedFile | None:
    """A final file already there: trusted through its record, or rehashed (reported to
    ``hooks``; Cancelled when they say stop) and recorded."""
    record = installed_record(plan)
    if record is not None:
        return FetchedFile(
            name=plan.name,
            path=plan.final,
            size=int(record["size"]),
            sha256=str(record["sha256"]),
            verified_against="record",
            fetched_bytes=0,
            resumed_from=0,
            skipped=True,
            known_hash=plan.expected_sha256 is not None,
        )
    if remote is None or not plan.final.is_file():
        return None
    expected = plan.expected_sha256 or remote.sha256
    if expected is None:
        return None
    if plan.exact_size is not None and plan.final.stat().st_size != plan.exact_size:
        return None  # not the catalog's file, whatever the server says its hash is
    digest = rehash(plan.final, plan.name, hooks)
    if digest != expected:
        return None
    stat = write_record(plan, remote, digest, "existing file")
    return FetchedFile(
        plan.name,
        plan.final,
        stat.st_size,
        digest,
        "existing file",
        0,
        0,
        True,
        known_hash=plan.expected_sha256 is not None,
    )
