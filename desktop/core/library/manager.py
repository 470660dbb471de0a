"""The library of models on this machine: scan, import, remember.

:class:`Library` keeps one row per model file in ``<data dir>/library.db``
(:mod:`desktop.core.library.store`). A scan asks each source (:mod:`desktop.core.library.sources`)
for candidate files, reads the GGUF header of files that are new or changed (same size and mtime:
not opened again), matches them to the catalog (:mod:`desktop.core.library.match`) and marks rows
whose file has vanished as missing. Files that cannot be read are kept as problems with the
reader's sentence; a scan never stops on one bad file.

Import takes one file: referenced where it is (default) or copied into
``<models dir>/imported/`` through a temporary file and an atomic rename, so the final name never
holds half a copy. Import computes the file's sha256 (while copying, in the same pass).

Removing: :meth:`Library.forget` drops a row and leaves the file alone (a later scan of a folder
that still holds it finds it again); :meth:`Library.delete_download` deletes a model the
downloader installed in the models folder (its files and their verification records) and
refuses anything else.

Long work reports progress and can be stopped: a scan calls ``on_progress`` with a
:class:`ScanProgress` after each file and checks ``should_stop`` between files; imports and
hashing count bytes (``on_bytes``) and stop between 4 MiB blocks, raising
:class:`~desktop.core.errors.Cancelled`. A scan commits file by file (headers are read outside
any transaction), so an import from another thread never waits behind a scan.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from desktop.core.catalog import Catalog
from desktop.core.errors import GGUFError, LibraryError, Sentence, os_error_name
from desktop.core.gguf import GGUFInfo, read_gguf_split
from desktop.core.hashing import BytesCallback, StopCheck, sha256_file
from desktop.core.library.files import (
    SPLIT_RE,
    copy_parts,
    split_parts,
    stat_parts,
)
from desktop.core.library.match import FileFacts, Match, infer_family, match_file
from desktop.core.library.sources import (
    DOWNLOADS_SUBDIR,
    IMPORTED_SUBDIR,
    Candidate,
    ScanRoot,
    discover,
    downloaded_files,
)
from desktop.core.library.store import (
    FileState,
    LibraryEntry,
    LibraryProblem,
    LibraryStore,
)

log = logging.getLogger(__name__)

Reader = Callable[[Path], GGUFInfo]


@dataclass(frozen=True)
class RootReport:
    source: str
    path: Path
    exists: bool
    found: int

    def to_dict(self) -> dict[str, Any]:
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
    complete: bool = True  # False: stopped by ``should_stop`` (nothing was marked missing)

    def to_dict(self) -> dict[str, Any]:
        return {
            "roots": [r.to_dict() for r in self.roots],
            "found": self.found,
            "added": [str(p) for p in self.added],
            "updated": [str(p) for p in self.updated],
            "unchanged": self.unchanged,
            "reappeared": [str(p) for p in self.reappeared],
            "missing": [str(e.path) for e in self.missing],
            "problems": [p.to_dict() for p in self.problems],
            "headers_read": self.headers_read,
            "hashed": self.hashed,
            "seconds": self.seconds,
            "complete": self.complete,
        }


@dataclass(frozen=True)
class ScanProgress:
    """Where a scan is: folder ``root_index`` of ``roots_total`` (0-based), files looked at so
    far, headers read so far (the slow part), and the file just handled."""

    root_index: int
    roots_total: int
    root: Path
    files_seen: int
    headers_read: int
    current: Path | None = None


ScanProgressCallback = Callable[[ScanProgress], None]


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


class Library:
    """The model library. Use as a context manager, or call :meth:`close`.

    ``db_path`` is the database (:func:`desktop.core.paths.library_db_path` for the app's);
    ``catalog`` is what files are matched against (None: nothing is matched); ``models_dir`` is
    where ``import_file(copy=True)`` puts copies. ``reader`` reads the GGUF headers of one model,
    given its file or the first part of a split model (default
    :func:`desktop.core.gguf.read_gguf_split`, which reads every part).

    One instance belongs to the thread that made it (an SQLite connection); a window that scans
    on a worker thread opens its own instance there, and readers elsewhere see the result when
    the scan's transaction commits.
    """

    def __init__(
        self,
        db_path: Path,
        *,
        catalog: Catalog | None = None,
        models_dir: Path | None = None,
        reader: Reader | None = None,
    ) -> None:
        self.db_path = db_path
        self._store = LibraryStore(self.db_path)
        self._reader = reader or read_gguf_split
        self._catalog = catalog
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
            raise LibraryError(
                "This library was opened without a models folder to copy into.",
                kind="library.no_models_dir",
                sentence=Sentence("library.no_models_dir"),
            )
        return self._models_dir

    # -- scanning ------------------------------------------------------------------------------

    def scan(
        self,
        roots: Sequence[ScanRoot],
        *,
        on_progress: ScanProgressCallback | None = None,
        should_stop: StopCheck | None = None,
    ) -> ScanReport:
        """Look at every root, read what is new or changed, mark what vanished.

        Each file's row is committed on its own, so readers and importers on other threads
        see the scan advance and never wait for it. When ``should_stop`` turns True the scan
        ends after the current file with ``complete=False`` (nothing is marked missing then).
        """
        started = time.perf_counter()
        state = _ScanState(now=time.time())
        known = self._store.states()
        root_reports: list[RootReport] = []
        stopped = False
        for index, root in enumerate(roots):
            discovery = discover(root)
            root_reports.append(
                RootReport(root.source, root.path, root.path.is_dir(), len(discovery.candidates))
            )
            layout_problems = [
                LibraryProblem(
                    p.path, p.source, p.message, "library.layout", state.now, state.now, p.sentence
                )
                for p in discovery.problems
            ]
            for problem in layout_problems:
                state.seen.add(str(problem.path))
                state.problems.append(problem)
            self._store.atomic(functools.partial(self._put_layout_problems, layout_problems))
            for candidate in discovery.candidates:
                if should_stop is not None and should_stop():
                    stopped = True
                    break
                self._scan_candidate(candidate, known, state)
                if on_progress is not None:
                    on_progress(
                        ScanProgress(
                            index, len(roots), root.path, len(state.seen_real),
                            state.headers_read, candidate.path,
                        )
                    )  # fmt: skip
            if stopped:
                break
        scanned = [r.path for r in roots if r.path.is_dir()]

        def finish() -> list[LibraryEntry]:
            self._store.touch(state.unchanged, state.now)
            return [] if stopped else self._sweep(known, state, scanned)

        missing = self._store.atomic(finish)
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
            complete=not stopped,
        )

    def _put_layout_problems(self, problems: Sequence[LibraryProblem]) -> None:
        for problem in problems:
            self._store.put_problem(problem, real_path=problem.path, size_bytes=0, mtime_ns=0)

    def _scan_candidate(
        self, cand: Candidate, known: dict[str, FileState], state: _ScanState
    ) -> None:
        key = str(cand.path)
        if key in state.seen or cand.real_path in state.seen_real:
            return  # the same file reached through another folder or link
        state.seen.add(key)
        state.seen_real.add(cand.real_path)
        try:
            size, mtime_ns = stat_parts(cand.parts)
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
            info = self._reader(cand.parts[0])
        except GGUFError as exc:
            self._record_problem(
                cand, exc.message, stat, state=state, kind=exc.kind, sentence=exc.sentence
            )
            return None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            message = f"{cand.path} cannot be read: {reason}."
            sentence = Sentence(
                "library.unreadable",
                {"path": str(cand.path), "reason": reason, "errno": os_error_name(exc)},
            )
            self._record_problem(cand, message, stat, state=state, sentence=sentence)
            return None
        entry = self._build_entry(cand, info, stat, sha=cand.sha256, source=source, state=state)
        self._store.put_entry(entry, real_path=cand.real_path)
        return entry

    def _record_problem(
        self,
        cand: Candidate,
        message: str,
        stat: tuple[int, int],
        *,
        state: _ScanState | None,
        kind: str = "library.unreadable",
        sentence: Sentence | None = None,
    ) -> None:
        now = state.now if state is not None else time.time()
        problem = LibraryProblem(cand.path, cand.source, message, kind, now, now, sentence)
        if state is not None:
            state.problems.append(problem)
        self._store.put_problem(
            problem, real_path=cand.real_path, size_bytes=stat[0], mtime_ns=stat[1]
        )

    def _build_entry(
        self,
        cand: Candidate,
        info: GGUFInfo,
        stat: tuple[int, int],
        *,
        sha: str | None,
        source: str | None,
        state: _ScanState | None,
    ) -> LibraryEntry:
        size, mtime_ns = stat
        now = state.now if state is not None else time.time()
        names = tuple(n for n in (info.name, cand.name, cand.repo_id) if n)
        first_size = size if len(cand.parts) == 1 else os.stat(cand.parts[0]).st_size
        facts = FileFacts(
            file_name=cand.path.name,
            architecture=info.arch.architecture,
            n_params=info.arch.n_params,
            quant=info.quant,
            size_bytes=size,
            first_file_bytes=first_size,
            names=names,
            sha256=sha,
        )
        match = None
        catalog = self._catalog
        if catalog is not None:

            def hasher() -> str:
                if state is not None:
                    state.hashed += 1
                return sha256_file(cand.path)

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
            n_params=info.arch.n_params,
            quant=info.quant,
            file_type=info.file_type,
            n_ctx_train=info.arch.n_ctx_train,
            has_chat_template=info.has_chat_template,
            tensor_bytes=info.tensor_bytes,
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

    def import_file(
        self,
        path: Path | str,
        *,
        copy: bool = False,
        on_bytes: BytesCallback | None = None,
        should_stop: StopCheck | None = None,
    ) -> LibraryEntry:
        """Add one GGUF file: referenced in place, or copied into ``<models dir>/imported/``.

        For a split model give the first part; all parts are taken (and copied) together.
        ``on_bytes`` counts the bytes hashed (and copied); ``should_stop`` stops the work with
        :class:`~desktop.core.errors.Cancelled`, leaving no partial copy behind.
        """
        src = Path(path).expanduser().absolute()
        if not src.exists():
            raise LibraryError(
                f"There is no file at {src}.",
                kind="library.not_found",
                sentence=Sentence("library.not_found", {"path": str(src)}),
            )
        if src.is_dir():
            raise LibraryError(
                f"{src} is a folder; add folders with `llm-scout library --add`.",
                kind="library.is_dir",
                sentence=Sentence("library.is_dir", {"path": str(src)}),
            )
        parts = split_parts(src)
        try:
            info = self._reader(parts[0])  # a broken file raises the reader's GGUFError
            if copy:
                dest_parts, sha = copy_parts(
                    parts,
                    self.models_dir / IMPORTED_SUBDIR,
                    on_bytes=on_bytes,
                    should_stop=should_stop,
                )
            else:
                dest_parts = parts
                sha = sha256_file(src, on_bytes=on_bytes, should_stop=should_stop)
            size, mtime_ns = stat_parts(dest_parts)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise LibraryError(
                f"{src} cannot be read: {reason}.",
                kind="library.unreadable",
                sentence=Sentence(
                    "library.unreadable",
                    {"path": str(src), "reason": reason, "errno": os_error_name(exc)},
                ),
            ) from exc
        real = dest_parts[0].resolve()
        cand = Candidate(dest_parts[0], "imported", real, dest_parts)
        entry = self._build_entry(
            cand, info, (size, mtime_ns), sha=sha, source="imported", state=None
        )
        self._store.put_entry(entry, real_path=real)
        stored = self._store.entry(entry.path)
        return stored if stored is not None else entry

    # -- removing ------------------------------------------------------------------------------

    def forget(self, path: Path | str) -> bool:
        """Drop the row of ``path`` (a model or a problem file); the file is not touched.
        Returns whether there was a row. A scan of a folder that still holds the file adds it
        again."""
        key = Path(path).expanduser().absolute()
        known = self._store.entry(key) is not None or self._store.problem(key) is not None
        if known:
            self._store.delete([str(key)])
        return known

    def delete_download(self, path: Path | str, models_dir: Path | None = None) -> tuple[Path, ...]:
        """Delete a model the app downloaded: every file of it (all parts of a split model)
        and their ``.downloads/.../*.verified.json`` records, then its row; empty folders left
        behind go too. Returns the files deleted.

        Only files inside ``models_dir`` (default: this library's models folder) that carry the
        downloader's record are deleted; anything else raises LibraryError and nothing is
        deleted (see :func:`~desktop.core.library.sources.downloaded_files`).
        """
        root = (models_dir if models_dir is not None else self.models_dir).expanduser().absolute()
        pairs = downloaded_files(Path(path), root)
        deleted: list[Path] = []
        for file, record in pairs:
            try:
                file.unlink(missing_ok=True)
                record.unlink(missing_ok=True)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                raise LibraryError(
                    f"{file} cannot be deleted: {reason}.",
                    sentence=Sentence(
                        "library.delete_failed",
                        {"path": str(file), "reason": reason, "errno": os_error_name(exc)},
                    ),
                ) from exc
            deleted.append(file)
            _remove_empty_folders(file.parent, root)
            _remove_empty_folders(record.parent, root / DOWNLOADS_SUBDIR)
        self._store.delete([str(pairs[0][0]), *(str(f) for f in deleted)])
        log.info("Deleted the downloaded model %s (%d files).", pairs[0][0], len(deleted))
        return tuple(deleted)

    # -- hashing -------------------------------------------------------------------------------

    def ensure_sha256(
        self,
        path: Path | str,
        *,
        on_bytes: BytesCallback | None = None,
        should_stop: StopCheck | None = None,
    ) -> LibraryEntry:
        """The entry with its sha256 computed (once per size and mtime) and matched again.
        ``on_bytes``/``should_stop`` as for :meth:`import_file`."""
        entry = self.entry(path)
        if entry is None:
            raise LibraryError(
                f"{path} is not in the library.",
                kind="library.unknown",
                sentence=Sentence("library.unknown", {"path": str(path)}),
            )
        if entry.sha256 is not None:
            return entry
        try:
            size, mtime_ns = stat_parts(entry.parts)
        except OSError as exc:
            raise LibraryError(
                f"{entry.path} is missing: {exc.strerror}.",
                kind="library.missing",
                sentence=Sentence(
                    "library.missing",
                    {
                        "path": str(entry.path),
                        "reason": str(exc.strerror),
                        "errno": os_error_name(exc),
                    },
                ),
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
            read = self._read_entry(cand, (size, mtime_ns), state=None, source=entry.source)
            if read is None:
                raise LibraryError(
                    f"{entry.path} is no longer a usable GGUF model.",
                    sentence=Sentence("library.unusable", {"path": str(entry.path)}),
                )
            return self.ensure_sha256(path, on_bytes=on_bytes, should_stop=should_stop)
        sha = sha256_file(entry.path, on_bytes=on_bytes, should_stop=should_stop)
        catalog = self._catalog
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
        self._store.update_fields(str(entry.path), **changes)
        updated = self._store.entry(entry.path)
        assert updated is not None
        return updated


def _remove_empty_folders(folder: Path, stop: Path) -> None:
    """Remove ``folder`` and its parents while they are empty, up to (not including) ``stop``."""
    while folder != stop and stop in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (or not ours to remove): stop here
            return
        folder = folder.parent


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
        base = SPLIT_RE.sub(r"\g<stem>", cand.path.name).removesuffix(".gguf")
        return base
    if quant and quant.lower() not in base.lower():
        return f"{base} {quant}"
    return base
