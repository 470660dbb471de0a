"""Recovery: the rows of a damaged database that SQLite can still read, copied into a new one.

Python's sqlite3 has no ``.recover``; this does what it can row by row. The damaged file (with
its write-ahead log) is first copied to a temporary folder, so the kept file stays exactly as it
was found. For each table both files have, the row ids are listed from the front and from the
back (a damaged page ends one listing and not the other), then each row is read on its own and
a row that cannot be read is skipped. Text that is not valid UTF-8 is kept with U+FFFD in its
place. Rows whose parent row was lost are dropped (a cascading reference) or unlinked (set to
NULL where the column allows it), so the new file keeps its foreign keys.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop.core.storage.schema import RowFilter, tables

log = logging.getLogger(__name__)

_FK_PASSES = 10  # dropping a row can orphan its own children: check again, a few times


def salvage(damaged: Path, target: sqlite3.Connection, keep: RowFilter) -> int:
    """Copy the readable rows of ``damaged`` that ``keep`` accepts into ``target`` (an
    autocommit connection to a new, migrated file); return how many were copied."""
    folder = Path(tempfile.mkdtemp(prefix=".salvage-", dir=damaged.parent))
    try:
        copy = folder / "damaged.db"
        try:
            shutil.copyfile(damaged, copy)
            wal = Path(f"{damaged}-wal")
            if wal.exists():
                shutil.copyfile(wal, Path(f"{copy}-wal"))
        except OSError as exc:
            log.warning("cannot copy %s to recover from it: %s", damaged, exc)
            return 0
        try:
            source = sqlite3.connect(copy, isolation_level=None)
        except sqlite3.Error as exc:
            log.info("nothing to recover from %s: %s", damaged, exc)
            return 0
        try:
            return _copy_tables(source, target, keep)
        finally:
            source.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _copy_tables(source: sqlite3.Connection, target: sqlite3.Connection, keep: RowFilter) -> int:
    try:
        theirs = tables(source)
    except sqlite3.Error as exc:
        log.info("the damaged file's tables cannot be listed: %s", exc)
        return 0
    source.text_factory = bytes  # text that is not UTF-8 is read, then mended
    ours = tables(target)
    copied = 0
    target.execute("PRAGMA foreign_keys = OFF")
    target.execute("BEGIN IMMEDIATE")
    try:
        for table, columns in ours.items():
            common = sorted(columns & theirs.get(table, set()))
            if not common:
                continue
            names = ", ".join(f'"{c}"' for c in common)
            insert = (
                f'INSERT OR IGNORE INTO "{table}" ({names}) '
                f"VALUES ({', '.join('?' for _ in common)})"
            )
            read = f'SELECT {names} FROM "{table}" WHERE rowid = ?'
            for rowid in _rowids(source, table):
                try:
                    values = source.execute(read, (rowid,)).fetchone()
                except sqlite3.Error:
                    continue
                if values is None:
                    continue
                row = dict(zip(common, (_text(v) for v in values), strict=True))
                if keep(table, row):
                    target.execute(insert, [row[c] for c in common])
                    copied += 1
        copied -= _drop_orphans(target)
    except BaseException:
        target.execute("ROLLBACK")
        target.execute("PRAGMA foreign_keys = ON")
        raise
    target.execute("COMMIT")
    target.execute("PRAGMA foreign_keys = ON")
    return copied


def _rowids(source: sqlite3.Connection, table: str) -> list[int]:
    """Every row id SQLite can reach from either end of the table."""
    found: set[int] = set()
    for order in ("ASC", "DESC"):
        for rowid in _walk(source, f'SELECT rowid FROM "{table}" ORDER BY rowid {order}'):
            found.add(rowid)
    return sorted(found)


def _walk(source: sqlite3.Connection, sql: str) -> Iterator[int]:
    try:
        for (rowid,) in source.execute(sql):
            if isinstance(rowid, int):
                yield rowid
    except sqlite3.Error as exc:
        log.info("a listing stopped at damage: %s", exc)


def _text(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def _drop_orphans(conn: sqlite3.Connection) -> int:
    """Resolve foreign keys whose parent row was lost; return how many rows were dropped."""
    dropped = 0
    for _ in range(_FK_PASSES):
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if not problems:
            break
        for table, rowid, _parent, fk_id in problems:
            keys = [k for k in conn.execute(f'PRAGMA foreign_key_list("{table}")') if k[0] == fk_id]
            nullable = {str(c[1]): not c[3] for c in conn.execute(f'PRAGMA table_info("{table}")')}
            columns = [str(k[3]) for k in keys]
            cascade = any(str(k[6]).upper() == "CASCADE" for k in keys)
            if cascade or not all(nullable.get(c, False) for c in columns):
                conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
                dropped += 1
            else:
                sets = ", ".join(f'"{c}" = NULL' for c in columns)
                conn.execute(f'UPDATE "{table}" SET {sets} WHERE rowid = ?', (rowid,))
    return dropped
