"""One home per rule: a second copy of a rule that front ends share fails here.

The rules themselves are tested where they live (``tests/core/test_rules.py`` and the packages'
tests); this reads ``desktop/`` with ``ast`` and fails when one is written out again elsewhere:
the KV cache types, the errors that end a run, the live tokens/s window, a comparison's
defaults, the default threads, and the memory that must fit.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

from desktop.core.errors import FATAL_KINDS

ROOT = Path(__file__).resolve().parents[1]
DESKTOP = ROOT / "desktop"

CACHE_TYPES = {"f16", "q8_0", "q4_0"}
#: Names of a rule's constants and the one module allowed to assign them.
CONSTANTS = {
    "LIVE_WINDOW_S": "desktop/core/engine/metrics.py",
    "CTX_STEP": "desktop/core/compare/defaults.py",
    "DEFAULT_SEED": "desktop/core/compare/defaults.py",
    "DEFAULT_TEMPERATURE": "desktop/core/compare/defaults.py",
    "FATAL_KINDS": "desktop/core/errors.py",
    "CACHE_TYPES": "desktop/core/kv_cache.py",
    "CacheType": "desktop/core/kv_cache.py",
}


def modules(root: Path = DESKTOP) -> Iterator[tuple[str, ast.Module]]:
    yield from _parsed(root)


@functools.cache
def _parsed(root: Path) -> tuple[tuple[str, ast.Module], ...]:
    """Every module under ``root``, parsed once per session (the trees are only read)."""
    return tuple(
        (path.relative_to(root.parent).as_posix(), ast.parse(path.read_text("utf-8"), str(path)))
        for path in sorted(root.rglob("*.py"))
    )


def _constants(nodes: list[ast.expr | None]) -> set[str]:
    return {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def strings(node: ast.AST, *, keys: bool = True) -> set[str]:
    """The string constants of a tuple, list or set literal, and with ``keys`` of a dict's."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return _constants(list(node.elts))
    if keys and isinstance(node, ast.Dict):
        return _constants(list(node.keys))
    return set()


def collections(tree: ast.Module, *, keys: bool = True) -> Iterator[tuple[int, set[str]]]:
    for node in ast.walk(tree):
        found = strings(node, keys=keys)
        if found:
            yield getattr(node, "lineno", 0), found


def copies_of_the_cache_types(root: Path = DESKTOP) -> list[str]:
    """Literals that list every cache type outside their home (a choice list, a lookup)."""
    return [
        f"{name}:{line}"
        for name, tree in modules(root)
        if not name.endswith("core/kv_cache.py")
        for line, found in collections(tree)
        if found >= CACHE_TYPES
    ]


def copies_of_the_fatal_kinds(root: Path = DESKTOP) -> list[str]:
    """Named lists or sets of two or more of the kinds that end a run, outside errors.py (the
    registries of every kind, dozens of entries, are not such lists)."""
    fatal = set(FATAL_KINDS) | {kind.removeprefix("engine.") for kind in FATAL_KINDS}
    found = []
    for name, tree in modules(root):
        if name.endswith("core/errors.py"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                for _line, kinds in collections(ast.Module([ast.Expr(node.value)], []), keys=False):
                    if len(kinds & fatal) >= 2 and len(kinds) < 15:
                        found.append(f"{name}:{node.lineno}")
    return found


def assignments(root: Path = DESKTOP) -> list[tuple[str, str, int]]:
    """(module, name, line) of every module-level assignment to one of :data:`CONSTANTS`."""
    found = []
    for name, tree in modules(root):
        for node in tree.body:
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in CONSTANTS:
                    found.append((name, target.id, node.lineno))
    return found


def halved_cpu_counts(root: Path = DESKTOP) -> list[str]:
    """``os.cpu_count() // 2`` and the like: a thread rule of its own."""
    return [
        f"{name}:{node.lineno}"
        for name, tree in modules(root)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.FloorDiv)
        and "cpu_count" in ast.unparse(node.left)
    ]


def page_cache_arithmetic(root: Path = DESKTOP) -> list[str]:
    """``... - x.page_cache_bytes`` outside the fit package: the must-fit bytes recomputed."""
    return [
        f"{name}:{node.lineno}"
        for name, tree in modules(root)
        if "/core/fit/" not in name
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp | ast.AugAssign)
        and isinstance(node.op, ast.Sub)
        and "page_cache_bytes" in ast.unparse(node)
    ]


# -- the scanners catch what they must ----------------------------------------------------------


def test_the_scanners_catch_second_copies(tmp_path: Path) -> None:
    root = tmp_path / "desktop"
    (root / "ui").mkdir(parents=True)
    (root / "ui" / "page.py").write_text(
        "import os\n"
        'CHOICES = ("f16", "q8_0", "q4_0")\n'
        'FATAL = frozenset({"crashed", "protocol"})\n'
        "LIVE_WINDOW_S = 1.0\n"
        "threads = max(1, (os.cpu_count() or 2) // 2)\n"
        "def memory(fit):\n    return fit.ram_bytes - fit.page_cache_bytes + fit.vram_bytes\n"
    )
    assert copies_of_the_cache_types(root) == ["desktop/ui/page.py:2"]
    assert copies_of_the_fatal_kinds(root) == ["desktop/ui/page.py:3"]
    assert [(n, c) for n, c, _line in assignments(root)] == [
        ("desktop/ui/page.py", "LIVE_WINDOW_S")
    ]
    assert halved_cpu_counts(root) == ["desktop/ui/page.py:5"]
    assert page_cache_arithmetic(root)


# -- the real package ---------------------------------------------------------------------------


def test_the_kv_cache_types_are_listed_once() -> None:
    assert copies_of_the_cache_types() == []


def test_the_errors_that_end_a_run_are_listed_once() -> None:
    assert copies_of_the_fatal_kinds() == []


def test_each_rules_constant_is_defined_in_its_home_only() -> None:
    wrong = [
        f"{name}:{line} defines {constant}"
        for name, constant, line in assignments()
        if name != CONSTANTS[constant]
    ]
    assert wrong == []
    homes = {constant for _name, constant, _line in assignments()}
    assert homes == set(CONSTANTS)  # each is still defined (the scan sees them)


def test_threads_default_through_one_function() -> None:
    assert halved_cpu_counts() == []


def test_the_memory_that_must_fit_is_computed_by_the_fit_only() -> None:
    assert page_cache_arithmetic() == []
