"""One registry of error kinds: every kind the code can report is listed, with a title."""

from __future__ import annotations

import ast
from pathlib import Path

from desktop.core.engine import protocol
from desktop.core.errors import ERROR_KINDS, Cancelled, HubError, ScoutError

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"


def _kind_literals() -> dict[str, str]:
    """Every ``kind = "..."`` class attribute and ``kind="..."`` argument under desktop/."""
    found: dict[str, str] = {}
    for path in DESKTOP.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            value: ast.expr | None = None
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "kind" for t in node.targets)
            ) or (isinstance(node, ast.keyword) and node.arg == "kind"):
                value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found[value.value] = f"{path.relative_to(DESKTOP.parent)}:{node.lineno}"  # type: ignore[attr-defined]
    return found


def test_the_scanner_sees_the_kinds_it_must() -> None:
    kinds = _kind_literals()
    assert "download.gated" in kinds  # a class attribute
    assert "hub.bad_endpoint" in kinds  # a keyword argument
    assert len(kinds) > 50


def test_every_kind_in_the_code_is_registered() -> None:
    missing = {
        kind: where
        for kind, where in _kind_literals().items()
        if kind not in ERROR_KINDS and f"engine.{kind}" not in ERROR_KINDS
    }
    assert missing == {}


def test_every_worker_error_kind_is_registered_as_the_app_reports_it() -> None:
    assert {f"engine.{kind}" for kind in protocol.ERROR_KINDS} <= set(ERROR_KINDS)


def test_titles_are_short_plain_phrases() -> None:
    for kind, title in ERROR_KINDS.items():
        assert title, kind
        assert len(title) <= 60, kind
        assert not title.endswith("."), kind
        assert title[0].isupper() or title[0].isdigit() or title.startswith("llama"), kind


def test_error_classes_carry_registered_kinds() -> None:
    for error in (
        ScoutError("x"),
        Cancelled("x"),
        HubError("x"),
        HubError("x", kind="hub.bad_name"),
    ):
        assert error.kind in ERROR_KINDS
