"""The bundled catalog's schema check runs once per file, not on every start."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop.core import paths
from desktop.core.catalog import load as catalog_load
from desktop.core.catalog.schema import schema_problem
from desktop.core.errors import CatalogError


def test_an_unchanged_file_skips_the_schema_and_a_changed_one_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundled = tmp_path / "models_catalog.json"
    shutil.copy(paths.bundled_catalog_path(), bundled)
    calls: list[int] = []
    real = schema_problem

    def counting(document: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(document, **kwargs)

    monkeypatch.setattr("desktop.core.catalog.load.schema_problem", counting)
    first = catalog_load.load_catalog(bundled=bundled)
    assert len(calls) == 1
    assert (paths.cache_dir() / catalog_load.CHECKED_STAMP).is_file()
    again = catalog_load.load_catalog(bundled=bundled)
    assert len(calls) == 1  # the same file: not checked again
    assert [m.id for m in again.models] == [m.id for m in first.models]

    document = json.loads(bundled.read_text(encoding="utf-8"))
    del document["models"][0]["family"]  # valid JSON, not a valid catalog
    bundled.write_text(json.dumps(document), encoding="utf-8")
    stat = bundled.stat()
    os.utime(bundled, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(CatalogError, match="family"):
        catalog_load.load_catalog(bundled=bundled)
    assert len(calls) == 2
