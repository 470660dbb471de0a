"""What to download and where it goes: requests, name checks, the folder layout, disk space.

Layout (like LM Studio, so a person finds the files)::

    <models dir>/<owner>/<repo>/<file path in the repo>          installed, verified files only
    <models dir>/.downloads/<owner>/<repo>/<file>.part           data still arriving
    <models dir>/.downloads/<owner>/<repo>/<file>.part.json      what the partial belongs to
    <models dir>/.downloads/<owner>/<repo>/<file>.verified.json  how the installed file was checked

File names come from the catalog, the Hub or the command line; any that could leave its folder
(``..``, absolute, backslashes, drive letters, control characters, a linked folder pointing
elsewhere) is refused with :class:`UnsafeNameError` before anything is written.

Disk space: before a transfer the folder must have room for what is left to fetch plus a margin
of ``max(1 GiB, 5 % of the request's size)``; otherwise the job fails with the numbers.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from desktop.core.catalog import Variant, VariantFile
from desktop.core.download.errors import DiskFullError, UnsafeNameError
from desktop.core.download.files import FilePlan, installed_record
from desktop.core.errors import DownloadError
from desktop.core.hub import file_name_problem, repo_problem, revision_problem

PARTIAL_DIR = ".downloads"
MARGIN_MIN_BYTES = 1 << 30
MARGIN_FRACTION = 0.05

_SHA256 = re.compile(r"[0-9a-f]{64}")


class DiskUsage(NamedTuple):
    total: int
    used: int
    free: int


DiskUsageFn = Callable[[Path], DiskUsage]


def default_disk_usage(path: Path) -> DiskUsage:
    usage = shutil.disk_usage(path)
    return DiskUsage(usage.total, usage.used, usage.free)


# --- requests -------------------------------------------------------------------------------


def unsafe_name_reason(name: str) -> str | None:
    """Why ``name`` (a path inside a repo) could escape its folder, or None when it is safe."""
    reason = file_name_problem(name)
    if reason is None and name.split("/", maxsplit=1)[0] == PARTIAL_DIR:
        return f"file names must not start with {PARTIAL_DIR}/"
    return reason


@dataclass(frozen=True)
class FileSpec:
    """One file to fetch: its path in the repo and, when the catalog knows them, its sha256
    (then verification is against it) and size; ``size_exact``: the size is the file's real
    byte count (a file of any other size is refused), not an estimate."""

    name: str
    sha256: str | None = None
    size_bytes: int | None = None
    size_exact: bool = False


@dataclass(frozen=True)
class DownloadRequest:
    """What to download. Creating one checks every name: an unsafe one raises UnsafeNameError.

    ``dest``: put the files in this folder (``dest/<file path>``) instead of
    ``<models dir>/<owner>/<repo>/``.
    """

    repo: str
    files: tuple[FileSpec, ...]
    revision: str = "main"
    dest: Path | None = None
    variant_id: str | None = None

    def __post_init__(self) -> None:
        reason = repo_problem(self.repo)
        if reason:
            raise UnsafeNameError(f"Refusing to download from {self.repo!r}: {reason}.")
        if not self.files:
            raise DownloadError(f"Nothing to download from {self.repo}: no file was named.")
        seen: set[str] = set()
        for spec in self.files:
            reason = unsafe_name_reason(spec.name)
            if reason:
                raise UnsafeNameError(
                    f"Refusing the file name {spec.name!r} from {self.repo}: {reason}."
                )
            if spec.name in seen:
                raise DownloadError(f"The file {spec.name} is named twice.")
            if spec.sha256 is not None and not _SHA256.fullmatch(spec.sha256.lower()):
                raise DownloadError(f"The sha256 given for {spec.name} is not a sha256.")
            seen.add(spec.name)
        if revision_problem(self.revision):
            raise UnsafeNameError(f"Refusing the revision {self.revision!r}.")

    @property
    def label(self) -> str:
        return self.variant_id or self.repo

    @property
    def size_hint(self) -> int | None:
        sizes = [f.size_bytes for f in self.files]
        return None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)

    def folder(self, models_dir: Path) -> Path:
        return self.dest if self.dest is not None else models_dir.joinpath(*self.repo.split("/"))

    def partial_folder(self, models_dir: Path) -> Path:
        if self.dest is not None:
            return self.dest / PARTIAL_DIR
        return models_dir.joinpath(PARTIAL_DIR, *self.repo.split("/"))

    def plans(self, models_dir: Path) -> list[FilePlan]:
        """Final and partial paths of every file, each checked to stay in its folder."""
        for place in (models_dir, self.dest):
            blocked = _file_in_the_way(place)
            if blocked is not None:
                raise DownloadError(
                    f"{blocked} is a file, not a folder; give a folder to download into.",
                    kind="download.not_a_folder",
                )
        folder = self.folder(models_dir)
        partials = self.partial_folder(models_dir)
        out: list[FilePlan] = []
        for spec in self.files:
            final = _inside(folder, spec.name, self.repo)
            partial = _inside(partials, spec.name + ".part", self.repo)
            sha256 = spec.sha256.lower() if spec.sha256 else None
            exact = spec.size_bytes if spec.size_exact else None
            out.append(FilePlan(spec.name, final, partial, sha256, spec.size_bytes, exact))
        return out


def _file_in_the_way(folder: Path | None) -> Path | None:
    """The file (not folder) at ``folder`` or at one of its parents, if there is one."""
    while folder is not None and folder != folder.parent:
        if folder.exists():
            return None if folder.is_dir() else folder
        folder = folder.parent
    return None


def _inside(folder: Path, name: str, repo: str) -> Path:
    """``folder/name``, refused when a linked folder on the way would lead elsewhere."""
    path = folder.joinpath(*name.split("/"))
    try:
        path.parent.resolve().relative_to(folder.resolve())
    except ValueError:
        raise UnsafeNameError(
            f"Refusing the file name {name!r} from {repo}: it would land outside {folder}."
        ) from None
    return path


def request_for_files(
    repo: str, names: Sequence[str], *, revision: str = "main", dest: Path | None = None
) -> DownloadRequest:
    """Arbitrary ``REPO FILE...``: verified against the Hub's hashes."""
    return DownloadRequest(repo, tuple(FileSpec(n) for n in names), revision=revision, dest=dest)


def request_for_variant(variant: Variant, *, dest: Path | None = None) -> DownloadRequest:
    """Every file of a catalog variant, with the catalog's sha256 where it has one, and its
    size, exact where the catalog knows it (:func:`exact_size`)."""
    return DownloadRequest(
        variant.repo,
        tuple(
            FileSpec(f.name, f.sha256, f.size_bytes, exact_size(variant, f) is not None)
            for f in variant.files
        ),
        dest=dest,
        variant_id=variant.id,
    )


def exact_size(variant: Variant, file: VariantFile) -> int | None:
    """The file's real byte count when the catalog knows it, else None (an estimate): a size
    verified against the Hub (a refresh, or an earlier verified download), or the size of the
    demo package's copy of a one-file variant when the catalog gives the same number."""
    if file.size_bytes is None:
        return None
    if file.verified:
        return file.size_bytes
    demo = variant.local_demo
    if demo is not None and len(variant.files) == 1 and demo.size_bytes == file.size_bytes:
        return file.size_bytes
    return None


def installed_path(variant: Variant, models_dir: Path) -> Path | None:
    """The first file (GGUF; llama.cpp finds further split parts) or the folder (AWQ) of a
    variant when every file of it is installed in ``models_dir``; None otherwise. No network,
    no hashing."""
    root = models_dir
    try:
        plans = request_for_variant(variant).plans(root)
    except DownloadError:
        return None
    for plan, spec in zip(plans, variant.files, strict=True):
        if installed_record(plan) is not None:
            continue
        # No record (copied in by hand, or the records were deleted): a file whose size the
        # catalog verified against the Hub is trusted when it has exactly that size.
        try:
            size = plan.final.stat().st_size
        except OSError:
            return None
        if not (plan.final.is_file() and spec.verified and size == spec.size_bytes):
            return None
    if variant.format == "awq":
        return request_for_variant(variant).folder(root)
    return plans[0].final


# --- disk space ---------------------------------------------------------------------------


def required_margin(total_bytes: int) -> int:
    """Free space to leave on top of a download: max(1 GiB, 5 % of its size)."""
    return max(MARGIN_MIN_BYTES, int(total_bytes * MARGIN_FRACTION))


def check_disk_space(
    folder: Path,
    need_bytes: int,
    total_bytes: int,
    disk_usage: DiskUsageFn = default_disk_usage,
) -> None:
    """Raise DiskFullError unless ``folder``'s disk has ``need_bytes`` plus the margin free."""
    where = folder
    while not where.exists() and where.parent != where:
        where = where.parent
    free = disk_usage(where).free
    margin = required_margin(total_bytes)
    if free < need_bytes + margin:
        raise DiskFullError(
            f"Not enough free disk space in {where}: the download needs "
            f"{_gib(need_bytes + margin)} ({_gib(need_bytes)} of files plus a {_gib(margin)} "
            f"safety margin) but only {_gib(free)} are free."
        )


def _gib(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    return f"{n / (1 << 20):.1f} MiB"
