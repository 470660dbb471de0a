"""The history's connection and its shared rows: the model files that ran and the machines.

:class:`Database` holds the history's :class:`~desktop.core.storage.Store` (one connection per
process behind a lock, so one instance may be shared by the GUI thread and a comparison running
on another thread) and writes in short transactions that are committed before a call returns.
Every public method runs under the store's guard: when the file turns out damaged it is set
aside and the method runs again, whole, on the new file. :class:`~desktop.core.history.store.
History` builds the runs, comparisons and votes on it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.core.hardware import HardwareProfile
from desktop.core.hashing import BytesCallback, StopCheck
from desktop.core.history.fingerprint import FileStamp, cheap_sha256, hash_if_unchanged, stamp
from desktop.core.history.records import ModelRef
from desktop.core.history.rows import model_ref
from desktop.core.history.schema import MIGRATIONS, history_schema
from desktop.core.storage import Store, guarded


class Database:
    """One connection to the history database, safe to share between threads.

    ``library_db``: where stored hashes of model files are looked up (the library's database;
    None: never).
    """

    def __init__(
        self,
        path: Path,
        *,
        library_db: Path | None = None,
        migrations: Sequence[str] = MIGRATIONS,
    ) -> None:
        self.path = path
        self.library_db = library_db
        self.store = Store(path, history_schema(tuple(migrations)))

    def close(self) -> None:
        self.store.close()

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return list(self.store.read(sql, args))

    # -- models and machines -------------------------------------------------------------------

    @guarded
    def model_ref(
        self,
        path: Path,
        *,
        label: str = "",
        variant_id: str | None = None,
        quant: str | None = None,
        sha256: str | None = None,
    ) -> ModelRef:
        """The record of this model file as it is now (found or added). ``sha256``: a hash the
        caller knows for a file of this size (catalog, demo); else the library's, else one
        computed now when the file is small."""
        file = stamp(path)
        found = self._model_row(file)
        if found is not None:
            if found["sha256"] is None and sha256 is not None:
                with self.store.transaction() as conn:
                    conn.execute("UPDATE models SET sha256 = ? WHERE id = ?", (sha256, found["id"]))
                found = self._model_row(file)
            assert found is not None
            return model_ref(found)
        digest = sha256 or cheap_sha256(file, self.library_db)
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO models "
                "(path, size_bytes, mtime_ns, sha256, label, variant_id, quant) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    str(file.path),
                    file.size_bytes,
                    file.mtime_ns,
                    digest,
                    label or file.path.name,
                    variant_id,
                    quant,
                ),
            )
        row = self._model_row(file)
        assert row is not None
        return model_ref(row)

    def _model_row(self, file: FileStamp) -> Any:
        rows = self._read(
            "SELECT * FROM models WHERE path = ? AND size_bytes = ? AND mtime_ns = ?",
            (str(file.path), file.size_bytes, file.mtime_ns),
        )
        return rows[0] if rows else None

    @guarded
    def models(self) -> list[ModelRef]:
        return [model_ref(r) for r in self._read("SELECT * FROM models ORDER BY label, id")]

    @guarded
    def fill_hashes(
        self,
        *,
        on_bytes: BytesCallback | None = None,
        should_stop: StopCheck | None = None,
    ) -> int:
        """Compute the sha256 of recorded model files that have none (large files skipped when
        they ran), while each file is unchanged; return how many were filled. A background
        job for an idle moment; Cancelled when ``should_stop`` says so."""
        filled = 0
        for row in self._read("SELECT * FROM models WHERE sha256 IS NULL AND size_bytes > 0"):
            file = FileStamp(Path(row["path"]), row["size_bytes"], row["mtime_ns"])
            digest = hash_if_unchanged(file, on_bytes=on_bytes, should_stop=should_stop)
            if digest is None:
                continue
            with self.store.transaction() as conn:
                conn.execute("UPDATE models SET sha256 = ? WHERE id = ?", (digest, row["id"]))
            filled += 1
        return filled

    @guarded
    def machine_id(self, profile: HardwareProfile | None, name: str) -> int | None:
        if profile is None:
            return None
        text = json.dumps(profile.to_dict(), sort_keys=True, default=str)
        digest = hashlib.sha256(f"{name}\n{text}".encode()).hexdigest()
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO machines (digest, name, profile) VALUES (?, ?, ?)",
                (digest, name or profile.name or "this machine", text),
            )
            row = conn.execute("SELECT id FROM machines WHERE digest = ?", (digest,)).fetchone()
        return int(row["id"])
