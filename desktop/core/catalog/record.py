"""What a first verified download learned about a catalog file, kept for the next ones.

A download verified against the hash the server publishes (no hash in the catalog yet) records
the file's exact size and sha256 in the refresh overlay (``paths.cache_dir()/
catalog_verified.json``, the user's, never the bundled catalog), next to what ``catalog
refresh`` reads from the Hub. The catalog then carries them: later downloads are checked
against a known hash and size, from whichever mirror they come. Facts already there (from a
refresh or an earlier download) are kept, not overwritten.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop.core.catalog.load import read_json, refresh_overlay_path, write_json_atomically
from desktop.core.catalog.overlay import REFRESH_FORMAT, refresh_facts
from desktop.core.errors import CatalogError

log = logging.getLogger(__name__)


def record_verified_download(
    repo: str,
    files: Mapping[str, tuple[int, str]],
    endpoint: str,
    path: Path | None = None,
) -> int:
    """Record ``files`` (name -> (size, sha256)) of ``repo`` as verified by a download from
    ``endpoint``; returns how many were new. CatalogError when the overlay cannot be written."""
    path = path if path is not None else refresh_overlay_path()
    document: dict[str, Any] = {"schema_version": REFRESH_FORMAT, "repos": {}}
    if path.is_file():
        try:
            old = read_json(path)
            refresh_facts(old, path)
            document = old
        except CatalogError as exc:
            log.warning("Replacing a broken refresh overlay: %s", exc)
    known = document["repos"].setdefault(repo, {"files": {}})["files"]
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    added = 0
    for name, (size, sha256) in files.items():
        if name in known:
            continue
        known[name] = {
            "size_bytes": int(size),
            "sha256": sha256.lower(),
            "source": "download",
            "endpoint": endpoint,
            "checked_at": now,
        }
        added += 1
    if not added:
        return 0
    write_json_atomically(path, document, f"Cannot record the verified download in {path}")
    log.info("Recorded %d verified file(s) of %s in %s.", added, repo, path)
    return added
