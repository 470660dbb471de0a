"""The history database file: opening it (WAL), and its schema migrations.

``PRAGMA user_version`` holds how many of :data:`MIGRATIONS` have been applied; opening a file
applies the missing ones in order, each in its own transaction, so a database written by any
earlier version is brought up to date and one written by a newer version is refused with a
sentence (never changed). A file that is not a database is moved aside (kept, never deleted)
and a new one started. WAL lets the window, a CLI run and a comparison in progress read and
write at once; ``synchronous=NORMAL`` in WAL mode keeps every committed answer through a crash
or a kill of the process (only a power cut may lose the last ones).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from desktop.core.history.records import HistoryError

log = logging.getLogger(__name__)

_V1 = """
CREATE TABLE models (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT,
    label TEXT NOT NULL,
    variant_id TEXT,
    quant TEXT,
    UNIQUE (path, size_bytes, mtime_ns)
);
CREATE TABLE machines (
    id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    profile TEXT NOT NULL
);
CREATE TABLE comparisons (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    mode TEXT NOT NULL,
    suite TEXT,
    status TEXT NOT NULL,
    machine_id INTEGER REFERENCES machines(id),
    blind_order TEXT NOT NULL DEFAULT '[]',
    options TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE contestants (
    comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    model_id INTEGER REFERENCES models(id),
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    error_kind TEXT,
    PRIMARY KEY (comparison_id, idx)
);
CREATE TABLE prompts (
    comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    prompt_key TEXT NOT NULL,
    text TEXT NOT NULL,
    system TEXT,
    checks TEXT NOT NULL DEFAULT '[]',
    category TEXT NOT NULL DEFAULT '',
    max_tokens INTEGER,
    PRIMARY KEY (comparison_id, idx)
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    created_at REAL NOT NULL,
    source TEXT NOT NULL,
    comparison_id INTEGER REFERENCES comparisons(id) ON DELETE CASCADE,
    contestant_idx INTEGER,
    prompt_idx INTEGER,
    model_id INTEGER REFERENCES models(id),
    machine_id INTEGER REFERENCES machines(id),
    settings TEXT NOT NULL DEFAULT '{}',
    system TEXT,
    prompt TEXT,
    output TEXT NOT NULL DEFAULT '',
    finish_reason TEXT,
    error TEXT,
    error_kind TEXT,
    ttft_ms REAL,
    prompt_tokens_per_s REAL,
    generation_tokens_per_s REAL,
    generated_tokens INTEGER,
    private_peak_bytes INTEGER,
    rss_peak_bytes INTEGER,
    vram_peak_bytes INTEGER,
    predicted_ram_bytes INTEGER,
    predicted_vram_bytes INTEGER,
    checks_passed INTEGER,
    checks_total INTEGER,
    checks TEXT NOT NULL DEFAULT '[]',
    metrics TEXT,
    UNIQUE (comparison_id, contestant_idx, prompt_idx)
);
CREATE INDEX runs_model ON runs(model_id);
CREATE INDEX runs_created ON runs(created_at);
CREATE TABLE votes (
    id INTEGER PRIMARY KEY,
    comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
    prompt_idx INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    winner_idx INTEGER,
    among TEXT NOT NULL DEFAULT '[]',
    created_at REAL NOT NULL
);
CREATE INDEX votes_comparison ON votes(comparison_id);
"""

# Results brought from other machines (desktop.core.bundle): measurements of any kind with a
# headline figure (quality: KL divergence, accuracy, ...; ``data`` holds the whole document),
# and the calibration entries of other machines (desktop.core.fit's CalibrationEntry as JSON,
# keyed by the measuring machine's fingerprint), so an imported machine's profile is calibrated
# by its own runs.
_V2 = """
CREATE TABLE measurements (
    id INTEGER PRIMARY KEY,
    created_at REAL NOT NULL,
    kind TEXT NOT NULL,
    model_id INTEGER REFERENCES models(id),
    machine_id INTEGER REFERENCES machines(id),
    settings TEXT NOT NULL DEFAULT '{}',
    metric TEXT NOT NULL,
    value REAL,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX measurements_model ON measurements(model_id);
CREATE INDEX measurements_created ON measurements(created_at);
CREATE TABLE machine_calibration (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    time REAL NOT NULL,
    source TEXT NOT NULL,
    model TEXT NOT NULL,
    entry TEXT NOT NULL,
    UNIQUE (fingerprint, time, source, model)
);
"""

#: Schema scripts in order; the database's ``user_version`` counts those applied. Append a new
#: script to change the schema; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (_V1, _V2)


def migrate(conn: sqlite3.Connection, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Apply the scripts the database has not seen yet; return its version afterwards."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > len(migrations):
        raise HistoryError(
            f"The history database was written by a newer LLM Scout (schema {version}, this "
            f"version knows {len(migrations)}); update the app or move the file away.",
            kind="history.newer",
        )
    for number in range(version, len(migrations)):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # executescript would commit on its own; run the statements one by one instead.
            for statement in _statements(migrations[number]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        log.info("history database migrated to schema %d", number + 1)
    return len(migrations)


def _statements(script: str) -> list[str]:
    out: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out


def open_database(path: Path, migrations: Sequence[str] = MIGRATIONS) -> sqlite3.Connection:
    """A connection to the history at ``path`` (created, migrated), usable from any thread
    (the caller serialises its use)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _connect(path, migrations)
    except sqlite3.DatabaseError as exc:
        if "not a database" not in str(exc) and "malformed" not in str(exc):
            raise HistoryError(f"The history database {path} cannot be opened: {exc}.") from exc
    aside = path.with_name(f"{path.name}.broken-{int(time.time())}")
    log.warning("The history database %s is damaged; moved to %s", path, aside)
    for suffix in ("", "-wal", "-shm"):
        old = Path(f"{path}{suffix}")
        if old.exists():
            os.replace(old, Path(f"{aside}{suffix}"))
    try:
        return _connect(path, migrations)
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"The history database {path} cannot be opened: {exc}.") from exc


def _connect(path: Path, migrations: Sequence[str]) -> sqlite3.Connection:
    # Two first opens of a new file at once: the switch to WAL needs the file to itself and
    # SQLite answers "locked" at once instead of waiting, so try again for a moment.
    deadline = time.monotonic() + 10.0
    while True:
        conn = sqlite3.connect(path, timeout=10.0, isolation_level=None, check_same_thread=False)
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            migrate(conn, migrations)
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise HistoryError(f"The history database {path} cannot be opened: {exc}.") from exc
            time.sleep(0.05)
        except BaseException:
            conn.close()
            raise
