"""The house rules of ``desktop/``: one subpackage per domain, faces, no cycles, Qt-free core.

The checker (tests/fixtures/import_graph.py) is first shown to catch what it must on small
trees written here, then run on the real package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.fixtures.import_graph import cycles, edges, privacy_problems, read_tree

ROOT = Path(__file__).resolve().parents[1]
CORE = "desktop.core"
FORBIDDEN_FROM_CORE = ("desktop.commands", "desktop.cli", "desktop.ui", "desktop.entry")
DOMAINS = (
    "hardware", "gguf", "catalog", "fit", "engine", "download", "library", "storage",
    "playground", "compare", "history", "recommend", "bundle", "quality",
)  # fmt: skip
# errors, paths, settings, hub, workspace, logs, hashing, demo, threads, kv_cache (the cache
# types the fit, the engine worker and the settings share): cross-cutting only.
MAX_TOP_LEVEL_CORE_MODULES = 10


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# -- the checker catches what it must ----------------------------------------------------------


def test_checker_finds_a_cycle_hidden_in_a_function_and_under_type_checking(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/core/__init__.py": "",
            "app/core/a.py": "def f():\n    from app.core import b\n",
            "app/core/b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from app.core.c import X\n"
            ),
            "app/core/c.py": "import importlib\nimportlib.import_module('app.core.a')\nX = 1\n",
            "app/core/d.py": "from app.core import a\n",
        },
    )
    found = cycles(edges(read_tree(tmp_path, "app")))
    assert found == [["app.core.a", "app.core.b", "app.core.c"]]


def test_checker_sees_a_module_importing_its_own_face_as_a_cycle(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/core/__init__.py": "",
            "app/core/fit/__init__.py": "from app.core.fit.est import estimate\n",
            "app/core/fit/est.py": "from app.core.fit import helper\ndef estimate(): ...\n",
            "app/core/fit/helper.py": "from app.core.fit import estimate\n",
        },
    )
    assert cycles(edges(read_tree(tmp_path, "app"))) == [
        ["app.core.fit", "app.core.fit.est", "app.core.fit.helper"]
    ]


def test_checker_finds_private_imports(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/cli.py": "from app.core.fit import estimate, _secret\n",
            "app/core/__init__.py": "",
            "app/core/fit/__init__.py": (
                "from app.core.fit.est import estimate, hidden\n__all__ = ['estimate']\n"
            ),
            "app/core/fit/est.py": "def estimate(): ...\ndef hidden(): ...\n_secret = 1\n",
            "app/core/lib/__init__.py": "__all__ = []\n",
            "app/core/lib/use.py": (
                "from app.core.fit.est import estimate\nfrom app.core.fit import hidden\n"
                "from app import cli\n"
            ),
        },
    )
    problems = privacy_problems(read_tree(tmp_path, "app"), "app.core", ("app.cli",))
    assert len(problems) == 5, problems
    joined = "\n".join(problems)
    assert "imports private _secret from app.core.fit" in joined
    assert "imports _secret from app.core.fit, which does not list" in joined
    assert "app.core.fit.est, a private module of app.core.fit" in joined
    assert "imports hidden from app.core.fit, which does not list" in joined
    assert "app.core.lib.use (line 3) imports app.cli: the core must not depend on it" in joined


# -- the real package ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tree():  # type: ignore[no-untyped-def]
    return read_tree(ROOT, "desktop")


def test_no_import_cycles_anywhere(tree) -> None:  # type: ignore[no-untyped-def]
    assert cycles(edges(tree)) == []


def test_packages_import_each_other_through_their_faces_only(tree) -> None:  # type: ignore[no-untyped-def]
    assert privacy_problems(tree, CORE, FORBIDDEN_FROM_CORE) == []


def test_one_subpackage_per_domain_with_a_face(tree) -> None:  # type: ignore[no-untyped-def]
    for domain in DOMAINS:
        package = f"{CORE}.{domain}"
        assert package in tree.packages, package
        exported = tree.exports[package]
        assert exported, f"{package} has no __all__"
        face = ast.parse(tree.modules[package].read_text())
        doc = ast.get_docstring(face)
        assert doc, f"{package} needs a docstring on what it owns"
        assert len(doc.split()) >= 20, f"{package}'s docstring is too short to say what it owns"
        bound = {
            alias.asname or alias.name
            for node in ast.walk(face)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        } | {n.id for n in ast.walk(face) if isinstance(n, ast.Name)}
        missing = [
            n
            for n in exported
            if n not in bound and f'"{n}"' not in tree.modules[package].read_text()
        ]
        assert not missing, f"{package}.__all__ names {missing}, which it does not define"


def test_domain_prefixed_modules_are_gone(tree) -> None:  # type: ignore[no-untyped-def]
    top_level = [m for m in tree.modules if m.count(".") == 2 and m.startswith(CORE + ".")]
    modules = [m for m in top_level if m not in tree.packages]
    assert len(modules) <= MAX_TOP_LEVEL_CORE_MODULES, modules
    prefixed = [m for m in modules if m.split(".")[-1].split("_")[0] in DOMAINS]
    assert prefixed == []


def test_every_face_name_resolves_at_run_time() -> None:
    import importlib

    for domain in DOMAINS:
        package = importlib.import_module(f"{CORE}.{domain}")
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{domain}.{name}"
