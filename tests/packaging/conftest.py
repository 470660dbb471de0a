"""Packaging tests: the wheel without Qt, --smoke-test of the source tree, the installers' parts.

``packaging/build.py`` is loaded from its path: ``packaging/`` has no ``__init__.py`` on purpose
(an importable ``packaging`` package here would shadow the PyPI library of that name).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "packaging" / "build.py"


def load_build_script() -> ModuleType:
    name = "llm_scout_packaging_build"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BUILD_SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def build_script() -> ModuleType:
    return load_build_script()
