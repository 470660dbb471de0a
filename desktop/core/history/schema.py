"""The history database's schema: its migration scripts, and how a damaged file is recovered.

The file is opened by :class:`desktop.core.storage.Store` (WAL, migrations by ``user_version``,
a damaged file moved aside with every row that can still be read carried into a new one). A file
written by a newer version is refused with a sentence, never changed.
"""

from __future__ import annotations

from desktop.core.history.records import HistoryError
from desktop.core.storage import Schema, keep_every_row

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

# A comparison's quality check, per contestant, when it gave no result (``failed``, ``cancelled``
# or ``skipped``) and the one sentence that says why; a result is a measurement (tagged with the
# comparison), so ``done`` keeps no sentence here.
_V3 = """
ALTER TABLE contestants ADD COLUMN quality_status TEXT;
ALTER TABLE contestants ADD COLUMN quality_reason TEXT;
"""

#: Schema scripts in order; the database's ``user_version`` counts those applied. Append a new
#: script to change the schema; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3)


def history_schema(migrations: tuple[str, ...] = MIGRATIONS) -> Schema:
    """The history's :class:`Schema`: every readable row of a damaged file is recovered."""
    return Schema(
        name="history",
        migrations=migrations,
        error=HistoryError,
        salvage=keep_every_row,
        foreign_keys=True,
    )
