"""Fixtures of the download tests: a fake Hub on 127.0.0.1 and a models folder.

A test module that needs a differently prepared hub (files added, HF_ENDPOINT set) defines its
own ``hub`` fixture, which takes precedence over this one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hubserver import FakeHub


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    """An empty fake Hub; the test adds its files."""
    with FakeHub() as server:
        yield server


@pytest.fixture
def models(tmp_path: Path) -> Path:
    """The models folder the test downloads into (not created yet)."""
    return tmp_path / "models"
