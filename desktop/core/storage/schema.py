"""A store's schema: migration scripts counted by ``PRAGMA user_version``, and checks of a file.

``user_version`` holds how many of :attr:`Schema.migrations` a file has had. :func:`migrate`
applies the missing ones in order, each in its own ``BEGIN IMMEDIATE`` transaction that reads
``user_version`` again once it holds the write lock, so two processes creating the same new file
at once apply each script once (the second finds it done). A file written by a newer version
(more scripts than this one knows) is refused untouched. :func:`missing_parts` compares a file's
tables and columns with what the scripts make: a file that lacks some is damaged.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop.core.errors import ScoutError, Sentence

log = logging.getLogger(__name__)

#: Which rows of a damaged file to carry into the new one: (table, row) -> keep it.
RowFilter = Callable[[str, Mapping[str, Any]], bool]


def keep_every_row(table: str, row: Mapping[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class Schema:
    """What one kind of database file holds and how it is brought up to date.

    ``name`` names it in sentences and error kinds (``<name>.newer``, ``<name>.damaged``,
    ``<name>.busy``); ``error`` is the ScoutError class raised with those sentences.
    ``migrations``: the scripts, in order (append a new one to change the schema; never edit one
    that has shipped). ``legacy``: for a file with ``user_version`` 0, the version an older way
    of versioning recorded, after undoing that way (run inside the first migration's
    transaction; None: not such a file). ``salvage``: which rows of a damaged file are carried
    into the new one (None: none); ``rebuilt``: the store fills itself again after damage (a
    scan), which its notice says. ``foreign_keys``: enforce them on every connection.
    """

    name: str
    migrations: tuple[str, ...]
    error: type[ScoutError]
    legacy: Callable[[sqlite3.Connection], int | None] | None = field(default=None, compare=False)
    salvage: RowFilter | None = field(default=None, compare=False)
    rebuilt: bool = False
    foreign_keys: bool = False

    @property
    def version(self) -> int:
        return len(self.migrations)


class Damaged(Exception):
    """The file is not what its schema says (a missing table, a failed integrity check)."""


def migrate(conn: sqlite3.Connection, schema: Schema) -> int:
    """Apply the scripts ``conn``'s file has not had; return its version afterwards.

    ``conn`` must be in autocommit mode (``isolation_level=None``)."""
    for number in range(schema.version):
        if _user_version(conn) > number:
            continue  # cheap look first: an up-to-date file takes no write lock
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = _user_version(conn)  # again, now that no one else can write
            if version == 0 and number == 0 and schema.legacy is not None:
                adopted = schema.legacy(conn)
                if adopted is not None:
                    _refuse_newer(schema, adopted)
                    conn.execute(f"PRAGMA user_version = {int(adopted)}")
                    version = adopted
            if version <= number:
                # executescript would commit on its own: run the statements one by one.
                for statement in statements(schema.migrations[number]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
                log.info("%s database migrated to schema %d", schema.name, number + 1)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    version = _user_version(conn)
    _refuse_newer(schema, version)
    return version


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _refuse_newer(schema: Schema, version: int) -> None:
    if version > schema.version:
        raise schema.error(
            f"The {schema.name} database was written by a newer LLM Scout (schema {version}, "
            f"this version knows {schema.version}); update the app or move the file away.",
            kind=f"{schema.name}.newer",
            sentence=Sentence(
                "store.newer",
                {"store": schema.name, "version": version, "known": schema.version},
            ),
        )


def statements(script: str) -> list[str]:
    """The SQL statements of ``script``, one by one."""
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


_expected_lock = threading.Lock()
_expected: dict[tuple[str, ...], dict[str, set[str]]] = {}


def expected_tables(schema: Schema) -> dict[str, set[str]]:
    """Table -> column names that the scripts make (built once in memory)."""
    with _expected_lock:
        known = _expected.get(schema.migrations)
        if known is None:
            conn = sqlite3.connect(":memory:", isolation_level=None)
            try:
                for script in schema.migrations:
                    for statement in statements(script):
                        conn.execute(statement)
                known = tables(conn)
            finally:
                conn.close()
            _expected[schema.migrations] = known
        return known


def tables(conn: sqlite3.Connection) -> dict[str, set[str]]:
    """The file's own tables and their columns (SQLite's internal tables left out)."""
    names = [
        str(row[0])
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    return {
        name: {str(row[1]) for row in conn.execute(f'PRAGMA table_info("{name}")')}
        for name in names
    }


def missing_parts(conn: sqlite3.Connection, schema: Schema) -> str | None:
    """What the file lacks of its schema, in words (None: nothing)."""
    have = tables(conn)
    for table, columns in expected_tables(schema).items():
        if table not in have:
            return f"the table {table} is missing"
        lacking = sorted(columns - have[table])
        if lacking:
            return f"the table {table} lacks {', '.join(lacking)}"
    return None
