"""The library of models on this machine: scan, import, remember.

:class:`Library` keeps one row per model file in ``<data dir>/library.db``
(:mod:`desktop.core.library_store`). A scan asks each source (:mod:`desktop.core.library_sources`)
for candidate files, reads the GGUF header of files that are new or changed (same size and mtime:
not opened again), matches them to the catalog (:mod:`desktop.core.library_match`) and marks rows
whose file has vanished as missing. Files that cannot be read are kept as problems with the
reader's sentence; a scan never stops on one bad file.

Import takes one file: referenced where it is (default) or copied into
``<models dir>/imported/`` through a temporary file and an atomic rename, so the final name never
holds half a copy. Import computes the file's sha256 (while copying, in the same pass).
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

from desktop.core import paths
from desktop.core.errors import CatalogError, GGUFError, LibraryError
from desktop.core.library_match import FileFacts, Match, infer_family, match_file
from desktop.core.library_sources import (
    IMPORTED_SUBDIR,
    Candidate,
    ScanRoot,
    discover,
)
from desktop.core.library_store import (
    DB_FILE,
    FileState,
    LibraryEntry,
    LibraryProblem,
    LibraryStore,
)

if TYPE_CHECKING:
    from desktop.core.catalog import Catalog
    from desktop.core.gguf import GGUFInfo

log = logging.getLogger(__name__)

Reader = Callable[[Path], "GGUFInfo"]

_SPLIT_RE = re.compile(r"^(?P<stem>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$", re.IGNORECASE)
_HASH_CHUNK = 4 * 1024 * 1024

__all__ = [
    "Library",
    "LibraryEntry",
    "LibraryProblem",
    "RootReport",
    "ScanReport",
    "default_db_path",
    "file_sha256",
]


def default_db_path() -> Path:
    return paths.data_dir(ensure=True) / DB_FILE


@dataclass(frozen=True)
class RootReport:
    source: str
    path: Path
    exists: bool
    found: int

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": str(self.path),
            "exists": self.exists,
            "found": self.found,
        }


@dataclass(frozen=True)
class ScanReport:
    """What one scan did. ``missing`` lists entries found missing by this scan (newly or still);
    ``problems`` every unusable file seen by this scan."""

    roots: tuple[RootReport, ...]
    found: int
    added: tuple[Path, ...]
    updated: tuple[Path, ...]
    unchanged: int
    reappeared: tuple[Path, ...]
    missing: tuple[LibraryEntry, ...]
    problems: tuple[LibraryProblem, ...]
    headers_read: int
    hashed: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "roots": [r.to_json() for r in self.roots],
            "found": self.found,
            "added": [str(p) for p in self.added],
            "updated": [str(p) for p in self.updated],
            "unchanged": self.unchanged,
            "reappeared": [str(p) for p in self.reappeared],
            "missing": [str(e.path) for e in self.missing],
            "problems": [p.to_json() for p in self.problems],
            "headers_read": self.headers_read,
            "hashed": self.hashed,
            "seconds": round(self.seconds, 4),
        }


@dataclass
class _ScanState:
    now: float
    seen: set[str] = field(default_factory=set)
    seen_real: set[Path] = field(default_factory=set)
    added: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    reappeared: list[Path] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    problems: list[LibraryProblem] = field(default_factory=list)
    headers_read: int = 0
    hashed: int = 0


@dataclass(frozen=True)
class _ModelHeader:
    info: GGUFInfo
    n_params: int  # all parts together
    tensor_bytes: int  # all parts together


class _PartSource:
    """A local file as a :class:`desktop.core.gguf_format.ByteSource`."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self._handle = handle
        self._size = size

    @property
    def size(self) -> int | None:
        return self._size

    def read(self, offset: int, length: int) -> bytes:
        self._handle.seek(offset)
        return self._handle.read(length)


def _part_tensors(part: Path) -> tuple[int, int]:
    """(parameters, tensor bytes) in one later part of a split model, from its header."""
    from desktop.core.gguf_format import parse_header

    with part.open("rb") as handle:
        raw = parse_header(_PartSource(handle, os.fstat(handle.fileno()).st_size), part.name)
    return sum(t.n_elements for t in raw.tensors), sum(t.n_bytes for t in raw.tensors)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _default_reader(path: Path) -> GGUFInfo:
    from desktop.core.gguf import read_gguf

    return read_gguf(path)


def _stat_parts(parts: Sequence[Path]) -> tuple[int, int]:
    """(total size, newest mtime in ns) of a model's files; OSError when one is gone."""
    size = 0
    mtime = 0
    for part in parts:
        st = os.stat(part)
        size += st.st_size
        mtime = max(mtime, st.st_mtime_ns)
    return size, mtime


class Library:
    """The model library. Use as a context manager, or call :meth:`close`.

    ``reader`` reads one GGUF header (default :func:`desktop.core.gguf.read_gguf`);
    ``catalog`` is what files are matched against (default: the bundled catalog with the user's
    overlay, loaded when first needed); ``models_dir`` is where ``import --copy`` puts copies
    (default: the setting, else :func:`desktop.core.paths.models_dir`).

    One instance belongs to the thread that made it (an SQLite connection); a window that scans
    on a worker thread opens its own instance there, and readers elsewhere see the result when
    the scan's transaction commits.
    """

    def __init__(
        self,
        db_path: Path | None = None,
        *,
        reader: Reader | None = None,
        catalog: Catalog | None = None,
        models_dir: Path | None = None,
    ) -> None:
        self.db_path = db_path or default_db_path()
        self._store = LibraryStore(self.db_path)
        self._reader = reader or _default_reader
        self._catalog = catalog
        self._catalog_loaded = catalog is not None
        self._models_dir = models_dir

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------------

    def entries(self, include_missing: bool = True) -> list[LibraryEntry]:
        return self._store.entries(include_missing)

    def entry(self, path: Path | str) -> LibraryEntry | None:
        return self._store.entry(Path(path).expanduser().absolute())

    def problems(self) -> list[LibraryProblem]:
        return self._store.problems()

    @property
    def models_dir(self) -> Path:
        if self._models_dir is None:
            from desktop.core.settings import load_settings

            self._models_dir = load_settings().resolved_models_dir()
        return self._models_dir

    # -- scanning ------------------------------------------------------------------------------

    def scan(self, roots: Sequence[ScanRoot]) -> ScanReport:
        """Look at every root, read what is new or changed, mark what vanished."""
        started = time.perf_counter()
        state = _ScanState(now=time.time())
        known = self._store.states()
        root_reports: list[RootReport] = []
        with self._store.transaction():
            for root in roots:
                discovery = discover(root)
                root_reports.append(
                    RootReport(
                        root.source, root.path, root.path.is_dir(), len(discovery.candidates)
                    )
                )
                for source_problem in discovery.problems:
                    problem = LibraryProblem(
                        source_problem.path,
                        source_problem.source,
                        source_problem.message,
                        "library.layout",
                        state.now,
                        state.now,
                    )
                    state.seen.add(str(problem.path))
                    state.problems.append(problem)
                    self._store.put_problem(
                        problem, real_path=problem.path, size_bytes=0, mtime_ns=0
                    )
                for candidate in discovery.candidates:
                    self._scan_candidate(candidate, known, state)
            self._store.touch(state.unchanged, state.now)
            missing = self._sweep(known, state, [r.path for r in roots if r.path.is_dir()])
        return ScanReport(
            roots=tuple(root_reports),
            found=len(state.seen_real),
            added=tuple(state.added),
            updated=tuple(state.updated),
            unchanged=len(state.unchanged),
            reappeared=tuple(state.reappeared),
            missing=tuple(missing),
            problems=tuple(state.problems),
            headers_read=state.headers_read,
            hashed=state.hashed,
            seconds=time.perf_counter() - started,
        )

    def _scan_candidate(
        self, cand: Candidate, known: dict[str, FileState], state: _ScanState
    ) -> None:
        key = str(cand.path)
        if key in state.seen or cand.real_path in state.seen_real:
            return  # the same file reached through another folder or link
        state.seen.add(key)
        state.seen_real.add(cand.real_path)
        try:
            size, mtime_ns = _stat_parts(cand.parts)
        except OSError as exc:
            message = f"{cand.path} cannot be read: {exc.strerror}."
            self._record_problem(cand, message, (0, 0), state=state)
            return
        old = known.get(key)
        if old is not None and old.size_bytes == size and old.mtime_ns == mtime_ns:
            state.unchanged.append(key)
            if old.missing:
                state.reappeared.append(cand.path)
            if old.is_problem:
                known_problem = self._store.problem(key)
                if known_problem is not None:
                    state.problems.append(known_problem)
                return
            self._refresh_layout_facts(cand, old)
            return
        source = old.source if old is not None else None  # an import stays an import
        entry = self._read_entry(cand, (size, mtime_ns), state=state, source=source)
        if entry is None:
            return
        if old is None:
            state.added.append(cand.path)
        else:
            state.updated.append(cand.path)
            if old.missing:
                state.reappeared.append(cand.path)

    def _refresh_layout_facts(self, cand: Candidate, old: FileState) -> None:
        """A known, unchanged file: keep what its layout says now (a new Ollama tag, say)."""
        changes: dict[str, Any] = {}
        if cand.name is not None and cand.name != old.layout_name:
            changes["layout_name"] = cand.name
            changes["display_name"] = cand.name
        if cand.sha256 is not None and old.sha256 is None:
            changes["sha256"] = cand.sha256
        if changes:
            self._store.update_fields(str(cand.path), **changes)

    def _read_entry(
        self,
        cand: Candidate,
        stat: tuple[int, int],
        *,
        state: _ScanState | None,
        source: str | None = None,
    ) -> LibraryEntry | None:
        """Read the header and store the entry (or the problem); None for a problem."""
        if state is not None:
            state.headers_read += 1
        try:
            model = self._read_model(cand.parts)
        except GGUFError as exc:
            self._record_problem(cand, exc.message, stat, state=state, kind=exc.kind)
            return None
        except OSError as exc:
            message = f"{cand.path} cannot be read: {exc.strerror or exc}."
            self._record_problem(cand, message, stat, state=state)
            return None
        entry = self._build_entry(cand, model, stat, sha=cand.sha256, source=source, state=state)
        self._store.put_entry(entry, real_path=cand.real_path)
        return entry

    def _read_model(self, parts: tuple[Path, ...]) -> _ModelHeader:
        """The first part's header; for a split model, plus the tensors of the other parts
        (their headers hold only ``split.*`` keys and tensor infos)."""
        info = self._reader(parts[0])
        n_params, tensor_bytes = info.arch.n_params, info.tensor_bytes
        for part in parts[1:]:
            more_params, more_bytes = _part_tensors(part)
            n_params += more_params
            tensor_bytes += more_bytes
        return _ModelHeader(info, n_params, tensor_bytes)

    def _record_problem(
        self,
        cand: Candidate,
        message: str,
        stat: tuple[int, int],
        *,
        state: _ScanState | None,
        kind: str = "library.unreadable",
    ) -> None:
        now = state.now if state is not None else time.time()
        problem = LibraryProblem(cand.path, cand.source, message, kind, now, now)
        if state is not None:
            state.problems.append(problem)
        self._store.put_problem(
            problem, real_path=cand.real_path, size_bytes=stat[0], mtime_ns=stat[1]
        )

    def _build_entry(
        self,
        cand: Candidate,
        model: _ModelHeader,
        stat: tuple[int, int],
        *,
        sha: str | None,
        source: str | None,
        state: _ScanState | None,
    ) -> LibraryEntry:
        size, mtime_ns = stat
        now = state.now if state is not None else time.time()
        info = model.info
        names = tuple(n for n in (info.name, cand.name, cand.repo_id) if n)
        first_size = size if len(cand.parts) == 1 else os.stat(cand.parts[0]).st_size
        facts = FileFacts(
            file_name=cand.path.name,
            architecture=info.arch.architecture,
            n_params=model.n_params,
            quant=info.quant,
            size_bytes=size,
            first_file_bytes=first_size,
            names=names,
            sha256=sha,
        )
        match = None
        catalog = self._get_catalog()
        if catalog is not None:

            def hasher() -> str:
                if state is not None:
                    state.hashed += 1
                return file_sha256(cand.path)

            match, sha = match_file(catalog, facts, hasher)
        family = (
            match.model.family
            if match is not None
            else infer_family(info.arch.architecture, (*names, cand.path.name))
        )
        return LibraryEntry(
            path=cand.path,
            source=source or cand.source,
            display_name=_display_name(cand, info.name, info.quant, match),
            parts=cand.parts,
            size_bytes=size,
            mtime_ns=mtime_ns,
            architecture=info.arch.architecture,
            family=family,
            n_params=model.n_params,
            quant=info.quant,
            file_type=info.file_type,
            n_ctx_train=info.arch.n_ctx_train,
            has_chat_template=info.has_chat_template,
            tensor_bytes=model.tensor_bytes,
            general_name=info.name,
            repo_id=cand.repo_id,
            layout_name=cand.name,
            sha256=sha,
            model_id=match.model.id if match else None,
            variant_id=match.variant.id if match else None,
            match_method=match.method if match else None,
            first_seen=now,
            last_seen=now,
        )

    def _sweep(
        self, known: dict[str, FileState], state: _ScanState, scanned: Sequence[Path]
    ) -> list[LibraryEntry]:
        """Rows this scan did not see: vanished files become missing; stale problems go."""
        newly_missing: list[str] = []
        still_missing: list[str] = []
        drop: list[str] = []
        prefixes = tuple(str(p).rstrip(os.sep) + os.sep for p in scanned)
        for key, old in known.items():
            if key in state.seen:
                continue
            exists = os.path.exists(key)
            if old.is_problem:
                if not exists or key.startswith(prefixes):
                    drop.append(key)
            elif not exists:
                (still_missing if old.missing else newly_missing).append(key)
        self._store.mark_missing(newly_missing)
        self._store.delete(drop)
        missing = set(newly_missing) | set(still_missing)
        return [e for e in self._store.entries() if str(e.path) in missing]

    # -- import --------------------------------------------------------------------------------

    def import_file(self, path: Path | str, *, copy: bool = False) -> LibraryEntry:
        """Add one GGUF file: referenced in place, or copied into ``<models dir>/imported/``.

        For a split model give the first part; all parts are taken (and copied) together.
        """
        src = Path(path).expanduser().absolute()
        if not src.exists():
            raise LibraryError(f"There is no file at {src}.", kind="library.not_found")
        if src.is_dir():
            raise LibraryError(
                f"{src} is a folder; add folders with `llm-scout library --add`.",
                kind="library.is_dir",
            )
        parts = _split_parts(src)
        try:
            model = self._read_model(parts)  # a broken file raises the reader's GGUFError
            if copy:
                dest_parts, sha = self._copy_parts(parts)
            else:
                dest_parts, sha = parts, file_sha256(src)
            size, mtime_ns = _stat_parts(dest_parts)
        except OSError as exc:
            raise LibraryError(
                f"{src} cannot be read: {exc.strerror or exc}.", kind="library.unreadable"
            ) from exc
        real = dest_parts[0].resolve()
        cand = Candidate(dest_parts[0], "imported", real, dest_parts)
        entry = self._build_entry(
            cand, model, (size, mtime_ns), sha=sha, source="imported", state=None
        )
        with self._store.transaction():
            self._store.put_entry(entry, real_path=real)
        stored = self._store.entry(entry.path)
        return stored if stored is not None else entry

    def _copy_parts(self, parts: tuple[Path, ...]) -> tuple[tuple[Path, ...], str]:
        dest_dir = self.models_dir / IMPORTED_SUBDIR
        try:
            dest_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LibraryError(
                f"Cannot create the folder {dest_dir}: {exc.strerror}.", kind="library.copy_failed"
            ) from exc
        dests = tuple(dest_dir / p.name for p in parts)
        first_sha: str | None = None
        todo: list[tuple[Path, Path]] = []
        for src, dest in zip(parts, dests, strict=True):
            if not dest.exists():
                todo.append((src, dest))
                continue
            if not src.samefile(dest):
                same = dest.stat().st_size == src.stat().st_size and (
                    file_sha256(dest) == file_sha256(src)
                )
                if not same:
                    raise LibraryError(
                        f"A different file named {dest.name} is already in {dest_dir}.",
                        kind="library.exists",
                    )
        temps: list[tuple[Path, Path]] = []
        try:
            for src, dest in todo:
                tmp = dest_dir / f".{dest.name}.{secrets.token_hex(4)}.partial"
                temps.append((tmp, dest))
                sha = _copy_file(src, tmp)
                if src == parts[0]:
                    first_sha = sha
            for tmp, dest in temps:
                os.replace(tmp, dest)
        except OSError as exc:
            for tmp, _dest in temps:
                tmp.unlink(missing_ok=True)
            reason = (
                "there is not enough disk space"
                if exc.errno in (errno.ENOSPC, errno.EDQUOT)
                else exc.strerror or str(exc)
            )
            raise LibraryError(
                f"Copying {parts[0].name} to {dest_dir} failed: {reason}.",
                kind="library.copy_failed",
            ) from exc
        if first_sha is None:
            first_sha = file_sha256(dests[0])
        return dests, first_sha

    # -- hashing -------------------------------------------------------------------------------

    def ensure_sha256(self, path: Path | str) -> LibraryEntry:
        """The entry with its sha256 computed (once per size and mtime) and matched again."""
        entry = self.entry(path)
        if entry is None:
            raise LibraryError(f"{path} is not in the library.", kind="library.unknown")
        if entry.sha256 is not None:
            return entry
        try:
            size, mtime_ns = _stat_parts(entry.parts)
        except OSError as exc:
            raise LibraryError(
                f"{entry.path} is missing: {exc.strerror}.", kind="library.missing"
            ) from exc
        if (size, mtime_ns) != (entry.size_bytes, entry.mtime_ns):
            cand = Candidate(
                path=entry.path,
                source="folder",
                real_path=entry.path.resolve(),
                parts=entry.parts,
                repo_id=entry.repo_id,
                name=entry.layout_name,
            )
            with self._store.transaction():
                read = self._read_entry(cand, (size, mtime_ns), state=None, source=entry.source)
                if read is None:
                    raise LibraryError(f"{entry.path} is no longer a usable GGUF model.")
            return self.ensure_sha256(path)
        sha = file_sha256(entry.path)
        catalog = self._get_catalog()
        match = None
        if catalog is not None:
            facts = FileFacts(
                file_name=entry.file_name,
                architecture=entry.architecture,
                n_params=entry.n_params,
                quant=entry.quant,
                size_bytes=entry.size_bytes,
                first_file_bytes=os.stat(entry.path).st_size,
                names=tuple(n for n in (entry.general_name, entry.layout_name, entry.repo_id) if n),
                sha256=sha,
            )
            match, _ = match_file(catalog, facts, None)
        changes: dict[str, Any] = {"sha256": sha}
        if match is not None:
            changes.update(
                model_id=match.model.id,
                variant_id=match.variant.id,
                match_method=match.method,
                family=match.model.family,
            )
        with self._store.transaction():
            self._store.update_fields(str(entry.path), **changes)
        updated = self._store.entry(entry.path)
        assert updated is not None
        return updated

    # -- catalog -------------------------------------------------------------------------------

    def _get_catalog(self) -> Catalog | None:
        if not self._catalog_loaded:
            self._catalog_loaded = True
            try:
                from desktop.core.catalog import load_catalog_safe

                catalog, errors = load_catalog_safe()
            except CatalogError as exc:
                log.warning("Library matching without a catalog: %s", exc)
            else:
                for error in errors:
                    log.warning("%s", error)
                self._catalog = catalog
        return self._catalog


def _copy_file(src: Path, dest: Path) -> str:
    """Copy ``src`` to a new file ``dest`` (flushed to disk); returns the sha256 of the bytes."""
    digest = hashlib.sha256()
    with src.open("rb") as fin, dest.open("xb") as fout:
        while chunk := fin.read(_HASH_CHUNK):
            digest.update(chunk)
            fout.write(chunk)
        fout.flush()
        os.fsync(fout.fileno())
    return digest.hexdigest()


def _split_parts(path: Path) -> tuple[Path, ...]:
    match = _SPLIT_RE.match(path.name)
    if match is None:
        return (path,)
    index, count = int(match["index"]), int(match["count"])
    if index != 1:
        raise LibraryError(
            f"{path.name} is part {index} of a split model; import its first part.",
            kind="library.split_part",
        )
    parts = tuple(
        path.with_name(f"{match['stem']}-{i:05d}-of-{count:05d}.gguf") for i in range(1, count + 1)
    )
    absent = [p.name for p in parts if not p.is_file()]
    if absent:
        raise LibraryError(
            f"The split model {match['stem']} is incomplete: {absent[0]} is missing.",
            kind="library.split_incomplete",
        )
    return parts


def _display_name(
    cand: Candidate, general_name: str | None, quant: str | None, match: Match | None
) -> str:
    if cand.name:
        return cand.name
    if match is not None and match.method in ("sha256", "file_name"):
        base = match.model.name
        quant = match.variant.quant
    elif general_name:
        base = general_name
    else:
        base = _SPLIT_RE.sub(r"\g<stem>", cand.path.name).removesuffix(".gguf")
        return base
    if quant and quant.lower() not in base.lower():
        return f"{base} {quant}"
    return base
