"""The core and the CLI must import without PySide6 or pyqtgraph (DESIGN.md, "Layout")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import desktop

ROOT = Path(desktop.__file__).resolve().parent

PROBE = r"""
import importlib, json, pkgutil, sys
import desktop.core, desktop.commands
names = ["desktop.cli"]
for pkg in (desktop.core, desktop.commands):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        names.append(info.name)
for name in names:
    importlib.import_module(name)
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6"))
HEAVY = ("llama_cpp", "huggingface_hub", "pynvml")
heavy = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
print(json.dumps({"imported": names, "qt": bad, "heavy": heavy}))
"""


def _probe() -> dict[str, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], check=True, capture_output=True, text=True, timeout=120
    )
    result: dict[str, list[str]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_core_and_cli_import_without_qt() -> None:
    result = _probe()
    # The walk must have found the real modules, or the check proves nothing.
    assert "desktop.core.errors" in result["imported"]
    assert "desktop.core.hardware.profile" in result["imported"]
    assert len(result["imported"]) >= 8
    assert result["qt"] == []


def test_heavy_libraries_are_imported_lazily() -> None:
    """Importing the core must not pull llama_cpp, huggingface_hub or pynvml (fast start-up)."""
    assert _probe()["heavy"] == []


def test_no_source_file_in_core_mentions_qt_imports() -> None:
    offenders = [
        str(path)
        for path in (ROOT / "core").rglob("*.py")
        if any(
            line.lstrip().startswith(("import PySide6", "from PySide6", "import pyqtgraph"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert offenders == []
