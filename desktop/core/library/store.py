"""The library's SQLite database: one row per model file (or per file that could not be read).

A row is keyed by the file's absolute path (for a split model, its first part). ``size`` and
``mtime_ns`` are the file's when its header was last read; a scan that finds the same pair does
not open the file again, and ``sha256``, when set, describes the file at that same pair (a
changed file is read again and keeps a hash only where its layout names it). A vanished file
keeps its row with ``missing = 1`` until it comes back.

The file is opened by :class:`desktop.core.storage.Store` (WAL, so the window and a CLI run can
read it at once; writes in short transactions; migrations counted by ``user_version``: a file
from before, versioned by a ``schema_version`` table, is adopted as version 1). A file from a
newer version is refused with a sentence; a damaged one is moved aside and a new one started:
the next scan rebuilds it, and imported files, which no scan finds again, are recovered into it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

from desktop.core.errors import LibraryError, Sentence
from desktop.core.storage import Schema, Store

log = logging.getLogger(__name__)

T = TypeVar("T")

DB_FILE = "library.db"

_V1 = """
CREATE TABLE files (
    path TEXT PRIMARY KEY,
    real_path TEXT NOT NULL,
    parts TEXT NOT NULL,
    source TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT,
    repo_id TEXT,
    layout_name TEXT,
    display_name TEXT NOT NULL,
    general_name TEXT,
    architecture TEXT,
    family TEXT,
    n_params INTEGER,
    quant TEXT,
    file_type INTEGER,
    n_ctx_train INTEGER,
    has_chat_template INTEGER,
    tensor_bytes INTEGER,
    model_id TEXT,
    variant_id TEXT,
    match_method TEXT,
    problem TEXT,
    problem_kind TEXT,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    missing INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX files_real_path ON files(real_path);
"""

#: A problem's sentence as an id and values (JSON, see :func:`_sentence_json`), so that the
#: window can say it in its own language.
_V2 = """
ALTER TABLE files ADD COLUMN problem_sentence TEXT;
"""

#: Schema scripts in order; the database's ``user_version`` counts those applied. Append a new
#: script to change the schema; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (_V1, _V2)


def _legacy_version(conn: sqlite3.Connection) -> int | None:
    """A file from before ``user_version``: its ``schema_version`` table said 1 for the same
    ``files`` table as :data:`_V1` (a newer number is refused). The table goes."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if found is None:
        return None
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    version = int(row[0]) if row is not None and row[0] is not None else 1
    if version > 1:  # that scheme only ever wrote 1: a later number is a newer app's file
        raise LibraryError(
            f"The library database was written by a newer LLM Scout (its schema_version table "
            f"says {version}, this version knows 1 there); update the app or move the file away.",
            kind="library.newer",
            sentence=Sentence("store.newer", {"store": "library", "version": version, "known": 1}),
        )
    conn.execute("DROP TABLE schema_version")
    return version


def _recover_row(table: str, row: Mapping[str, Any]) -> bool:
    """From a damaged file, only imported models come back: a scan finds every other file."""
    return table == "files" and row.get("source") == "imported" and row.get("problem") is None


def library_schema(migrations: tuple[str, ...] = MIGRATIONS) -> Schema:
    return Schema(
        name="library",
        migrations=migrations,
        error=LibraryError,
        legacy=_legacy_version,
        salvage=_recover_row,
        rebuilt=True,
    )


@dataclass(frozen=True)
class LibraryEntry:
    """A model file in the library, as of its last scan.

    ``size_bytes`` counts every part of a split model; ``sha256`` is the hash of ``path`` (the
    first part) when known. ``variant_id``/``model_id`` name the matched catalog variant and
    ``match_method`` says how it was matched (``sha256``, ``file_name``, ``metadata``).
    """

    path: Path
    source: str
    display_name: str
    parts: tuple[Path, ...]
    size_bytes: int
    mtime_ns: int
    architecture: str
    family: str
    n_params: int
    quant: str | None
    file_type: int | None
    n_ctx_train: int
    has_chat_template: bool
    tensor_bytes: int
    general_name: str | None = None
    repo_id: str | None = None
    layout_name: str | None = None
    sha256: str | None = None
    model_id: str | None = None
    variant_id: str | None = None
    match_method: str | None = None
    first_seen: float = 0.0
    last_seen: float = 0.0
    missing: bool = False

    @property
    def file_name(self) -> str:
        return self.path.name

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        data["parts"] = [str(p) for p in self.parts]
        data["file_name"] = self.file_name
        return data


@dataclass(frozen=True)
class LibraryProblem:
    """A file that looked like a model but is not usable, with the reader's sentence (and that
    sentence as a :class:`~desktop.core.errors.Sentence` for a front end to translate, where
    the reader gave one)."""

    path: Path
    source: str
    message: str
    kind: str
    first_seen: float = 0.0
    last_seen: float = 0.0
    sentence: Sentence | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        del data["sentence"]  # the English message is what --json says
        return data


@dataclass(frozen=True)
class FileState:
    """What a scan needs to decide whether a known file changed (no model fields)."""

    path: str
    source: str
    size_bytes: int
    mtime_ns: int
    sha256: str | None
    layout_name: str | None
    is_problem: bool
    missing: bool


_ENTRY_FIELDS = {f.name for f in fields(LibraryEntry)}


class LibraryStore:
    """Rows of the library database. Safe to use from several threads (one connection per
    process, behind the store's lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = Store(path, library_schema())

    def close(self) -> None:
        self._store.close()

    def atomic(self, work: Callable[[], T]) -> T:
        """Run ``work`` (calls of this store) as one transaction, again on a new file if the
        old one turns out damaged."""
        return self._store.write(lambda conn: work())

    # -- reading ---------------------------------------------------------------------------

    def states(self) -> dict[str, FileState]:
        rows = self._store.read(
            "SELECT path, source, size_bytes, mtime_ns, sha256, layout_name, problem, missing "
            "FROM files"
        )
        return {
            r["path"]: FileState(
                r["path"],
                r["source"],
                r["size_bytes"],
                r["mtime_ns"],
                r["sha256"],
                r["layout_name"],
                r["problem"] is not None,
                bool(r["missing"]),
            )
            for r in rows
        }

    def entries(self, include_missing: bool = True) -> list[LibraryEntry]:
        sql = "SELECT * FROM files WHERE problem IS NULL"
        if not include_missing:
            sql += " AND missing = 0"
        rows = self._store.read(sql + " ORDER BY display_name COLLATE NOCASE, path")
        return [_entry(r) for r in rows]

    def entry(self, path: Path | str) -> LibraryEntry | None:
        rows = self._store.read(
            "SELECT * FROM files WHERE path = ? AND problem IS NULL", (str(path),)
        )
        return _entry(rows[0]) if rows else None

    def problem(self, path: Path | str) -> LibraryProblem | None:
        rows = self._store.read(
            "SELECT * FROM files WHERE path = ? AND problem IS NOT NULL", (str(path),)
        )
        return _problem(rows[0]) if rows else None

    def problems(self) -> list[LibraryProblem]:
        rows = self._store.read("SELECT * FROM files WHERE problem IS NOT NULL ORDER BY path")
        return [_problem(r) for r in rows]

    # -- writing ---------------------------------------------------------------------------

    def put_entry(self, entry: LibraryEntry, *, real_path: Path) -> None:
        """Insert or replace an entry, keeping the first time it was seen."""
        values = entry.to_dict()
        values.pop("file_name")
        values["parts"] = json.dumps(values["parts"])
        values["has_chat_template"] = int(entry.has_chat_template)
        values["missing"] = int(entry.missing)
        values.update(
            real_path=str(real_path), problem=None, problem_kind=None, problem_sentence=None
        )
        self._upsert(values)

    def put_problem(
        self, problem: LibraryProblem, *, real_path: Path, size_bytes: int, mtime_ns: int
    ) -> None:
        values: dict[str, Any] = {
            "path": str(problem.path),
            "real_path": str(real_path),
            "parts": json.dumps([str(problem.path)]),
            "source": problem.source,
            "size_bytes": size_bytes,
            "mtime_ns": mtime_ns,
            "display_name": problem.path.name,
            "problem": problem.message,
            "problem_kind": problem.kind,
            "problem_sentence": _sentence_json(problem.sentence),
            "first_seen": problem.first_seen,
            "last_seen": problem.last_seen,
            "missing": 0,
        }
        self._upsert(values)

    def _upsert(self, values: dict[str, Any]) -> None:
        columns = list(values)
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in ("first_seen",))

        def write(conn: sqlite3.Connection) -> None:
            conn.execute(
                f"INSERT INTO files ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' * len(columns))}) "
                f"ON CONFLICT(path) DO UPDATE SET {updates}",
                [values[c] for c in columns],
            )
            # A row that changes kind (problem <-> entry) must not keep the other kind's fields.
            if values.get("problem") is not None:
                conn.execute(
                    "UPDATE files SET architecture = NULL, family = NULL, n_params = NULL, "
                    "quant = NULL, model_id = NULL, variant_id = NULL, match_method = NULL, "
                    "sha256 = NULL WHERE path = ?",
                    (values["path"],),
                )

        self._store.write(write)

    def touch(self, paths: Sequence[str], now: float) -> None:
        """Seen again, unchanged: update ``last_seen`` and clear ``missing``."""
        self._store.executemany(
            "UPDATE files SET last_seen = ?, missing = 0 WHERE path = ?", [(now, p) for p in paths]
        )

    def update_fields(self, path: str, **values: Any) -> None:
        unknown = set(values) - _ENTRY_FIELDS
        if unknown:
            raise ValueError(f"unknown library fields {sorted(unknown)}")
        sets = ", ".join(f"{k} = ?" for k in values)
        self._store.execute(f"UPDATE files SET {sets} WHERE path = ?", [*values.values(), path])

    def mark_missing(self, paths: Sequence[str]) -> None:
        self._store.executemany(
            "UPDATE files SET missing = 1 WHERE path = ?", [(p,) for p in paths]
        )

    def delete(self, paths: Sequence[str]) -> None:
        self._store.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in paths])


def _entry(row: sqlite3.Row) -> LibraryEntry:
    return LibraryEntry(
        path=Path(row["path"]),
        source=row["source"],
        display_name=row["display_name"],
        parts=tuple(Path(p) for p in json.loads(row["parts"])),
        size_bytes=row["size_bytes"],
        mtime_ns=row["mtime_ns"],
        architecture=row["architecture"] or "",
        family=row["family"] or "other",
        n_params=row["n_params"] or 0,
        quant=row["quant"],
        file_type=row["file_type"],
        n_ctx_train=row["n_ctx_train"] or 0,
        has_chat_template=bool(row["has_chat_template"]),
        tensor_bytes=row["tensor_bytes"] or 0,
        general_name=row["general_name"],
        repo_id=row["repo_id"],
        layout_name=row["layout_name"],
        sha256=row["sha256"],
        model_id=row["model_id"],
        variant_id=row["variant_id"],
        match_method=row["match_method"],
        first_seen=row["first_seen"],
        last_seen=row["last_seen"],
        missing=bool(row["missing"]),
    )


def _problem(row: sqlite3.Row) -> LibraryProblem:
    return LibraryProblem(
        path=Path(row["path"]),
        source=row["source"],
        message=row["problem"],
        kind=row["problem_kind"] or "library",
        first_seen=row["first_seen"],
        last_seen=row["last_seen"],
        sentence=_sentence(row["problem_sentence"]),
    )


def _sentence_json(sentence: Sentence | None) -> str | None:
    if sentence is None:
        return None
    return json.dumps({"id": sentence.id, "params": dict(sentence.params)})


def _sentence(text: str | None) -> Sentence | None:
    """The stored sentence, or None where there is none or it is not what this version wrote
    (then the English message is shown)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return None
    params = data.get("params")
    if not isinstance(params, dict):
        return None
    kept = {
        str(k): v for k, v in params.items() if isinstance(v, str | int) and not isinstance(v, bool)
    }
    return Sentence(data["id"], kept)
