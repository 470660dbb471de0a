"""Storage: how every SQLite database of the app is opened, migrated, guarded and recovered.

Owns the one way the history and the library open their files (:class:`Store`): WAL, schema
migrations counted by ``user_version`` (:class:`Schema`; creating or migrating a file is safe
with several processes at once), a file that is damaged — found at opening or at any later
query — moved aside and kept (never deleted), a new one made with the rows that can still be
read, the person told once through :func:`add_notice_listener` (a :class:`StoreNotice`), and a
lock held by another process waited out. Also :func:`keep_aside`, which the settings use for a
file they cannot read. Depends on nothing but the errors.
"""

from desktop.core.storage.aside import keep_aside
from desktop.core.storage.notices import StoreNotice, add_notice_listener
from desktop.core.storage.schema import RowFilter, Schema, keep_every_row
from desktop.core.storage.store import Store, guarded

__all__ = [
    "RowFilter",
    "Schema",
    "Store",
    "StoreNotice",
    "add_notice_listener",
    "guarded",
    "keep_aside",
    "keep_every_row",
]
